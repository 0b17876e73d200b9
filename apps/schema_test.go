package apps_test

import (
	_ "embed"
	"encoding/json"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonschema"
)

// extSchema is the extension's published schema; see
// testdata/ext-apps/README.md.
//
//go:embed testdata/ext-apps/schema.json
var extSchema []byte

// extDefs are the schema's definitions. Each is a standalone schema (it
// has its own $schema, and refers to its own $defs as "#/$defs/..."), so
// each is compiled as a document of its own: compiled as one document, a
// reference such as McpUiHostContext's "#/$defs/__schema0" resolves
// against the root, which has no such definition, and the schema does not
// compile.
var extDefs = sync.OnceValues(func() (map[string]json.RawMessage, error) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	err := json.Unmarshal(extSchema, &doc)
	return doc.Defs, err
})

var (
	extMu       sync.Mutex
	extCompiled = map[string]*jsonschema.Validator{}
)

// extDef returns the compiled definition def.
func extDef(t *testing.T, def string) *jsonschema.Validator {
	t.Helper()
	extMu.Lock()
	defer extMu.Unlock()
	if v := extCompiled[def]; v != nil {
		return v
	}
	defs, err := extDefs()
	if err != nil {
		t.Fatalf("reading the ext-apps schema: %v", err)
	}
	raw, ok := defs[def]
	if !ok {
		t.Fatalf("the ext-apps schema has no definition %s", def)
	}
	v, err := jsonschema.Compile(raw)
	if err != nil {
		t.Fatalf("compiling %s of the ext-apps schema: %v", def, err)
	}
	extCompiled[def] = v
	return v
}

// validateExt checks v against the definition def of the extension's
// schema (McpUiToolMeta, McpUiResourceMeta, ...).
func validateExt(t *testing.T, def string, v json.RawMessage) {
	t.Helper()
	if err := extDef(t, def).Validate(v); err != nil {
		t.Errorf("%s does not validate against %s: %v", v, def, err)
	}
}

// TestExtSchemaCompiles compiles every definition of the schema with the
// SDK's validator, and makes sure the ones the tests use refuse what they
// do not allow.
func TestExtSchemaCompiles(t *testing.T) {
	defs, err := extDefs()
	if err != nil {
		t.Fatal(err)
	}
	for def := range defs {
		extDef(t, def)
	}
	for def, bad := range map[string]string{
		"McpUiToolMeta":           `{"resourceUri":"ui://a","visibility":["user"]}`,
		"McpUiResourceMeta":       `{"prefersBorder":"yes"}`,
		"McpUiClientCapabilities": `{"mimeTypes":"text/html"}`,
	} {
		if extDef(t, def).Validate(json.RawMessage(bad)) == nil {
			t.Errorf("%s accepts %s", def, bad)
		}
	}
}
