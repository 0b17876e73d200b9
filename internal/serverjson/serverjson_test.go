package serverjson

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonschema"
)

func TestSchemaPinned(t *testing.T) {
	sum := sha256.Sum256(schemaBytes)
	if got := hex.EncodeToString(sum[:]); got != SchemaSHA256 {
		t.Fatalf("embedded schema sha256 %s, pinned %s: update schema/README.md and SchemaSHA256 together", got, SchemaSHA256)
	}
	if !strings.Contains(string(schemaBytes), `"$id": "`+SchemaURL+`"`) {
		t.Fatalf("embedded schema's $id is not %s", SchemaURL)
	}
}

func TestValidateValid(t *testing.T) {
	for name, doc := range map[string]string{
		"minimal": `{"$schema":"` + SchemaURL + `","name":"io.github.owner/repo","description":"A server.","version":"1.0.0"}`,
		"remote": `{"$schema":"` + SchemaURL + `","name":"io.github.owner/repo","description":"A server.","version":"1.0.0",
			"remotes":[{"type":"streamable-http","url":"https://example.com/mcp"}]}`,
		"oci": `{"$schema":"` + SchemaURL + `","name":"io.github.owner/repo","description":"A server.","version":"1.0.0",
			"packages":[{"registryType":"oci","identifier":"ghcr.io/owner/repo:1.0.0","transport":{"type":"stdio"}}],
			"repository":{"url":"https://github.com/owner/repo","source":"github"}}`,
	} {
		if err := Validate([]byte(doc)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestValidateInvalid(t *testing.T) {
	base := `"$schema":"` + SchemaURL + `","description":"A server.","version":"1.0.0"`
	for _, c := range []struct{ name, doc, pointer string }{
		{"missing name", `{` + base + `}`, ""},
		{"bad name", `{` + base + `,"name":"no-slash"}`, "/name"},
		{"long description", `{"name":"a.b/c","version":"1","description":"` + strings.Repeat("x", 101) + `"}`, "/description"},
		{"remote url", `{` + base + `,"name":"a.b/c","remotes":[{"type":"streamable-http","url":"ftp://x"}]}`, "/remotes/0"},
		{"package latest", `{` + base + `,"name":"a.b/c","packages":[{"registryType":"npm","identifier":"x","version":"latest","transport":{"type":"stdio"}}]}`, "/packages/0/version"},
	} {
		err := Validate([]byte(c.doc))
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a ValidationError", c.name, err)
			continue
		}
		found := false
		for _, p := range ve.Problems {
			if strings.HasPrefix(p.Location, c.pointer) && (c.pointer != "" || p.Location == "") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no problem at %q: %v", c.name, c.pointer, err)
		}
	}
}

func TestValidateBounds(t *testing.T) {
	if err := Validate([]byte(`{"name":"a.b/c"} {}`)); err == nil || !strings.Contains(err.Error(), "after") {
		t.Errorf("trailing data: %v", err)
	}
	if err := Validate(make([]byte, MaxSize+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversize: %v", err)
	}
}
