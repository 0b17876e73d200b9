package mcp_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// TestClosedSetsAreTyped checks that every field whose values are a closed
// set has a type of its own, and that it is still written as the same JSON
// string.
func TestClosedSetsAreTyped(t *testing.T) {
	tests := []struct {
		name  string
		field any // the field's value
		want  reflect.Type
		value any // a value with the field set, and its JSON
		json  string
	}{
		{"ElicitResult.Action", mcp.ElicitResult{}.Action, reflect.TypeFor[mcp.ElicitAction](),
			mcp.ElicitResult{Action: mcp.ElicitActionDecline}, `{"action":"decline"}`},
		{"ElicitParams.Mode", mcp.ElicitParams{}.Mode, reflect.TypeFor[mcp.ElicitMode](),
			mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "m"}, `{"mode":"url","message":"m"}`},
		{"PrimitiveSchema.Type", mcp.PrimitiveSchema{}.Type, reflect.TypeFor[mcp.SchemaType](),
			mcp.PrimitiveSchema{Type: mcp.SchemaInteger}, `{"type":"integer"}`},
		{"PrimitiveSchema.Format", mcp.PrimitiveSchema{}.Format, reflect.TypeFor[mcp.StringFormat](),
			mcp.PrimitiveSchema{Type: mcp.SchemaString, Format: mcp.FormatDateTime}, `{"type":"string","format":"date-time"}`},
		{"CompleteReference.Type", mcp.CompleteReference{}.Type, reflect.TypeFor[mcp.RefType](),
			mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "file:///{x}"}, `{"type":"ref/resource","uri":"file:///{x}"}`},
		{"EnumItems.Type", mcp.EnumItems{}.Type, reflect.TypeFor[mcp.SchemaType](),
			mcp.EnumItems{Type: mcp.SchemaString}, `{"type":"string"}`},
		{"CreateMessageParams.IncludeContext", mcp.CreateMessageParams{}.IncludeContext, reflect.TypeFor[mcp.IncludeContext](),
			mcp.CreateMessageParams{IncludeContext: mcp.IncludeContextNone, MaxTokens: 1}, `{"messages":[],"includeContext":"none","maxTokens":1}`},
		{"CreateMessageResult.StopReason", mcp.CreateMessageResult{}.StopReason, reflect.TypeFor[mcp.StopReason](),
			nil, ""},
		{"ToolChoice.Mode", mcp.ToolChoice{}.Mode, reflect.TypeFor[mcp.ToolChoiceMode](),
			mcp.ToolChoice{Mode: mcp.ToolChoiceRequired}, `{"mode":"required"}`},
		{"Icon.Theme", mcp.Icon{}.Theme, reflect.TypeFor[mcp.IconTheme](),
			mcp.Icon{Src: "data:,", Theme: mcp.IconThemeDark}, `{"src":"data:,","theme":"dark"}`},
	}
	for _, tt := range tests {
		if got := reflect.TypeOf(tt.field); got != tt.want {
			t.Errorf("%s is a %v, want %v", tt.name, got, tt.want)
		}
		if tt.value == nil {
			continue
		}
		raw, err := json.Marshal(tt.value)
		if err != nil || string(raw) != tt.json {
			t.Errorf("%s: encoded as %s (%v), want %s", tt.name, raw, err, tt.json)
		}
		back := reflect.New(reflect.TypeOf(tt.value))
		if err := json.Unmarshal(raw, back.Interface()); err != nil {
			t.Errorf("%s: decoding %s: %v", tt.name, raw, err)
		}
		if again, _ := json.Marshal(back.Interface()); string(again) != tt.json {
			t.Errorf("%s: decoded and encoded again as %s, want %s", tt.name, again, tt.json)
		}
	}
}

// revisionLiteral matches a string that is a protocol revision and
// nothing else.
var revisionLiteral = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// revisionLiteralAllowed are the non-test files that may spell a revision
// as a string literal, and why.
var revisionLiteralAllowed = map[string]string{
	"mcp/version.go":  "the version table itself",
	"oauth/client.go": "oauth imports nothing of mcp (legacyRevision)",
}

// TestNoRevisionLiterals checks that code outside the version table names
// revisions by their constants (mcp.Version20251125, ...), so that what a
// revision means is decided in one place. It reads every non-test Go file
// of the module (nested modules have their own rules) and reports string
// literals that are exactly a revision; prose that mentions one is fine.
func TestNoRevisionLiterals(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || revisionLiteralAllowed[rel] != "" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && revisionLiteral.MatchString(s) {
				t.Errorf("%s: revision literal %s: use the mcp.Version constant", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
