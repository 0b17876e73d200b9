package jsonschema

import (
	"reflect"
	"strings"
	"testing"
)

// The jsonschema tag conventions of the other Go MCP SDKs, as their users
// write them: go-sdk's free-text description (google/jsonschema-go),
// mcp-go's free text with enum= items, and invopop/jsonschema's items
// (mcp-grafana), whose structs require only the fields tagged required.
type (
	goSDKArgs struct {
		City    string   `json:"city" jsonschema:"the city, e.g. Paris"`
		Days    int      `json:"days,omitempty" jsonschema:"how many days (1-7)"`
		Units   string   `json:"units,omitempty" jsonschema:"required, or not"` // free text: google's rule
		Tags    []string `json:"tags,omitempty" jsonschema:"pairs like a=b"`
		Verbose bool     `json:"verbose"`
	}
	mcpGoArgs struct {
		Unit  string `json:"unit" jsonschema:"Temperature unit,enum=celsius,enum=fahrenheit"`
		Level int    `json:"level,omitempty" jsonschema_description:"Log level" jsonschema:"enum=1,enum=2"`
	}
	// Like mcp-grafana's parameter structs: an unexported embedded struct,
	// \, for commas, repeated enum=, fields that lack omitempty but are
	// optional all the same.
	grafanaCommon struct {
		Limit int `json:"limit" jsonschema:"description=Max results\\, default 100"`
	}
	grafanaArgs struct {
		grafanaCommon
		Operation string   `json:"operation" jsonschema:"required,enum=list,enum=tags,description=What to do"`
		UID       string   `json:"uid" jsonschema:"description=The dashboard UID"`
		Since     *int64   `json:"since,omitempty" jsonschema:"description=Epoch ms,minimum=0,example=1700000000000"`
		Kinds     []string `json:"kinds" jsonschema:"enum=a,enum=b,default=a,uniqueItems=true,description=Kinds"`
		Note      string   `json:"note" jsonschema:"nullable,readOnly=true"`
		Internal  string   `json:"internal" jsonschema:"-"`
		Plain     string   `json:"plain"`
		Forced    string   `json:"forced,omitempty" jsonschema:"required"`
	}
	// invopop's default reflector, as mcp-go once used it: written with
	// required on every needed field, it means the same under both rules.
	invopopDefault struct {
		Query string `json:"query" jsonschema:"required,description=The query"`
		Page  int    `json:"page,omitempty" jsonschema:"description=Page,multipleOf=1"`
	}
	// gomcp's own tags are unchanged: a single enum= splits on '|'.
	nativeArgs struct {
		Unit string `json:"unit" description:"Unit" jsonschema:"enum=c|f,default=c"`
		Opt  string `json:"opt" jsonschema:"optional"`
	}
)

func TestTagConventions(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[goSDKArgs](), `{"type":"object","properties":{` +
			`"city":{"type":"string","description":"the city, e.g. Paris"},` +
			`"days":{"type":"integer","description":"how many days (1-7)"},` +
			`"units":{"type":"string","description":"required, or not"},` +
			`"tags":{"type":"array","description":"pairs like a=b","items":{"type":"string"}},` +
			`"verbose":{"type":"boolean"}},` +
			`"required":["city","verbose"]}`},
		{reflect.TypeFor[mcpGoArgs](), `{"type":"object","properties":{` +
			`"unit":{"type":"string","description":"Temperature unit","enum":["celsius","fahrenheit"]},` +
			`"level":{"type":"integer","description":"Log level","enum":[1,2]}},` +
			`"required":["unit"]}`},
		{reflect.TypeFor[grafanaArgs](), `{"type":"object","properties":{` +
			`"limit":{"type":"integer","description":"Max results, default 100"},` +
			`"operation":{"type":"string","description":"What to do","enum":["list","tags"]},` +
			`"uid":{"type":"string","description":"The dashboard UID"},` +
			`"since":{"type":"integer","description":"Epoch ms","examples":[1700000000000],"minimum":0},` +
			`"kinds":{"type":["array","null"],"description":"Kinds","default":["a"],"items":{"type":"string","enum":["a","b"]},"uniqueItems":true},` +
			`"note":{"type":["string","null"],"readOnly":true},` +
			`"plain":{"type":"string"},` +
			`"forced":{"type":"string"}},` +
			`"required":["operation","forced"]}`},
		{reflect.TypeFor[invopopDefault](), `{"type":"object","properties":{` +
			`"query":{"type":"string","description":"The query"},` +
			`"page":{"type":"integer","description":"Page","multipleOf":1}},` +
			`"required":["query"]}`},
		{reflect.TypeFor[nativeArgs](), `{"type":"object","properties":{` +
			`"unit":{"type":"string","description":"Unit","enum":["c","f"],"default":"c"},` +
			`"opt":{"type":"string"}},` +
			`"required":["unit"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ.Name(), func(t *testing.T) {
			got, err := ForType(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if _, err := Compile(got); err != nil {
				t.Errorf("the schema does not compile: %v", err)
			}
		})
	}
}

// Tags that no convention reads are errors that say what to write instead.
func TestTagConventionErrors(t *testing.T) {
	type oneOf struct {
		A string `jsonschema:"oneof_required=x,description=y"`
	}
	type extras struct {
		A string `jsonschema:"description=y" jsonschema_extras:"a=b"`
	}
	type wordPrefix struct {
		A string `jsonschema:"descripton=typo"`
	}
	type badMultiple struct {
		A int `jsonschema:"multipleOf=0"`
	}
	type badUnique struct {
		A string `jsonschema:"uniqueItems"`
	}
	type badReadOnly struct {
		A string `jsonschema:"readOnly=yes"`
	}
	type unescapedComma struct {
		A string `jsonschema:"description=The UID, a string"`
	}
	type dupDefault struct {
		A string `jsonschema:"default=a,default=b"`
	}
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[oneOf](), "invopop's oneof_required= is not supported; give the field's type a JSONSchema() json.RawMessage method"},
		{reflect.TypeFor[extras](), "jsonschema_extras tag is not supported"},
		{reflect.TypeFor[wordPrefix](), "descripton: unknown keyword (a description written as free text must not begin with WORD=)"},
		{reflect.TypeFor[badMultiple](), `multipleOf: "0" is not greater than 0`},
		{reflect.TypeFor[badUnique](), "uniqueItems: not applicable to a string"},
		{reflect.TypeFor[badReadOnly](), `readOnly: "yes" is not a boolean`},
		{reflect.TypeFor[dupDefault](), `duplicate keyword "default"`},
		{reflect.TypeFor[unescapedComma](), `"a string" is not an item: write a comma inside a value as \\, in the Go source (the tag then holds \,)`},
	}
	for _, tt := range tests {
		_, err := ForType(tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.typ, err, tt.want)
		}
	}
}

// ForTypeClosed closes every struct, nested and recursive ones included,
// and leaves maps open; ForType's schemas stay as they were.
func TestForTypeClosed(t *testing.T) {
	type inner struct {
		X int `json:"x"`
	}
	type outer struct {
		In   inner          `json:"in"`
		M    map[string]int `json:"m,omitempty"`
		Tree *tree          `json:"tree,omitempty"`
		E    struct{}       `json:"e"`
	}
	got, err := ForTypeClosed(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"in":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false},` +
		`"m":{"type":"object","additionalProperties":{"type":"integer"}},` +
		`"tree":{"$ref":"#/$defs/tree"},` +
		`"e":{"type":"object","additionalProperties":false}},` +
		`"required":["in","e"],"additionalProperties":false,` +
		`"$defs":{"tree":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/tree"}},"parent":{"$ref":"#/$defs/tree"}},"required":["value"],"additionalProperties":false}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	open, err := ForType(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(open), `"additionalProperties":false`) != 1 { // struct{} only
		t.Errorf("ForType closed a struct: %s", open)
	}
	v, err := Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	for instance, ok := range map[string]bool{
		`{"in":{"x":1},"e":{}}`:                          true,
		`{"in":{"x":1},"e":{},"m":{"any":1}}`:            true,
		`{"in":{"x":1},"e":{},"extra":1}`:                false,
		`{"in":{"x":1,"y":2},"e":{}}`:                    false,
		`{"in":{"x":1},"e":{},"tree":{"value":1,"z":0}}`: false,
	} {
		if err := v.Validate([]byte(instance)); (err == nil) != ok {
			t.Errorf("%s: valid = %v, want %v (%v)", instance, err == nil, ok, err)
		}
	}
}
