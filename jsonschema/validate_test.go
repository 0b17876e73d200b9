package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

type weatherArgs struct {
	City  string   `json:"city" jsonschema:"minLength=1"`
	Days  int      `json:"days,omitempty" jsonschema:"minimum=1,maximum=14,default=3"`
	Unit  string   `json:"unit,omitempty" jsonschema:"enum=celsius|fahrenheit,default=celsius"`
	Tags  []string `json:"tags,omitempty" jsonschema:"maxItems=2"`
	Extra struct {
		Verbose bool `json:"verbose"`
	} `json:"extra,omitzero"`
}

func mustCompile(t testing.TB, schema string) *Validator {
	t.Helper()
	v, err := Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	inferred, err := For[weatherArgs]()
	if err != nil {
		t.Fatal(err)
	}
	const (
		draft07 = `{
			"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"pos": {"type": "integer", "minimum": 0}},
			"type": "object",
			"properties": {
				"n": {"$ref": "#/definitions/pos", "maximum": 0},
				"mail": {"type": "string", "format": "email"},
				"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}
			},
			"dependencies": {"a": ["b"]}
		}`
		defsAnchor = `{
			"$defs": {
				"name": {"$anchor": "name", "type": "string", "pattern": "^[A-Z]"},
				"list": {"type": "array", "items": {"$ref": "#name"}}
			},
			"type": "object",
			"properties": {"names": {"$ref": "#/$defs/list"}, "first": {"$ref": "#name"}}
		}`
		oneOfIf = `{
			"oneOf": [
				{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
				{"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
			],
			"if": {"properties": {"kind": {"const": "circle"}}},
			"then": {"properties": {"r": {"exclusiveMinimum": 0}}},
			"else": {"properties": {"side": {"minimum": 1}}}
		}`
		embeddedID = `{
			"$id": "https://example.com/schemas/root.json",
			"$defs": {
				"item": {"$id": "item.json", "type": "object", "properties": {"id": {"$ref": "#/$defs/id"}}, "required": ["id"],
					"$defs": {"id": {"type": "integer"}}}
			},
			"type": "array",
			"items": {"$ref": "item.json"}
		}`
		dynamic = `{
			"$id": "https://example.com/tree",
			"$dynamicAnchor": "node",
			"type": "object",
			"properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
		}`
		unevaluated = `{
			"type": "object",
			"properties": {"a": {"type": "integer"}},
			"allOf": [{"properties": {"b": {"type": "string"}}}],
			"unevaluatedProperties": false
		}`
		bigNumbers       = `{"type": "integer", "maximum": 9007199254740993}`
		formatAnnotation = `{"type": "string", "format": "email"}`
		prefixItems      = `{"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}`
		boolSchema       = `false`
	)
	tests := []struct {
		name     string
		schema   string
		instance string
		want     string // "" if valid
	}{
		{"inferred ok", string(inferred), `{"city":"Paris"}`, ""},
		{"inferred full", string(inferred), `{"city":"Paris","days":14,"unit":"fahrenheit","tags":["a"],"extra":{"verbose":true}}`, ""},
		{"inferred missing", string(inferred), `{}`, `(root): missing property 'city'`},
		{"inferred many", string(inferred), `{"city":"","days":0,"unit":"kelvin","tags":["a","b","c"],"extra":{}}`,
			"/city: length must be >= 1, got 0\n" +
				"/days: must be >= 1, got 0\n" +
				"/extra: missing property 'verbose'\n" +
				"/tags: must have <= 2 items, got 3\n" +
				"/unit: value must be one of 'celsius', 'fahrenheit'"},
		{"inferred wrong types", string(inferred), `{"city":1,"days":1.5,"tags":"x"}`,
			"/city: got number, want string\n/days: got number, want integer\n/tags: got string, want array"},
		{"inferred not object", string(inferred), `[1]`, `(root): got array, want object`},
		{"omitempty slice is not nullable", string(inferred), `{"city":"x","tags":null}`, "/tags: got null, want array"},
		{"draft-07 ok", draft07, `{"n":0,"mail":"a@b.example","pair":["x",1],"a":1,"b":2}`, ""},
		// In draft-07, keywords beside $ref are ignored, so maximum does not apply.
		{"draft-07 ref siblings ignored", draft07, `{"n":5}`, ""},
		{"draft-07 ref", draft07, `{"n":-1}`, "/n: must be >= 0, got -1"},
		// Format is an annotation in every dialect.
		{"draft-07 format is an annotation", draft07, `{"mail":"nope"}`, ""},
		{"draft-07 tuple items", draft07, `{"pair":["x","y",3]}`, "/pair: last 1 additional items not allowed\n/pair/1: got string, want integer"},
		{"draft-07 dependencies", draft07, `{"a":1}`, "(root): properties 'b' required, if 'a' exists"},
		{"anchor ok", defsAnchor, `{"names":["Ann","Bob"],"first":"Cy"}`, ""},
		{"anchor fail", defsAnchor, `{"names":["Ann","bob"],"first":3}`, "/first: got number, want string\n/names/1: 'bob' does not match pattern '^[A-Z]'"},
		{"oneOf circle", oneOfIf, `{"kind":"circle","r":2}`, ""},
		{"oneOf square", oneOfIf, `{"kind":"square","side":2}`, ""},
		{"oneOf none", oneOfIf, `{"kind":"triangle"}`, "(root): missing property 'r'; missing property 'side'\n/kind: value must be 'circle'; value must be 'square'"},
		{"if then", oneOfIf, `{"kind":"circle","r":0}`, "/r: must be > 0, got 0"},
		{"if else", oneOfIf, `{"kind":"square","side":0.5}`, "/side: must be >= 1, got 0.5"},
		{"embedded $id ok", embeddedID, `[{"id":1},{"id":2}]`, ""},
		{"embedded $id fail", embeddedID, `[{"id":1},{"id":"2"},{}]`, "/1/id: got string, want integer\n/2: missing property 'id'"},
		{"dynamic ref ok", dynamic, `{"data":1,"children":[{"children":[]}]}`, ""},
		{"dynamic ref fail", dynamic, `{"children":[{"children":[1]}]}`, "/children/0/children/0: got number, want object"},
		{"unevaluated ok", unevaluated, `{"a":1,"b":"x"}`, ""},
		{"unevaluated fail", unevaluated, `{"a":1,"c":true}`, "/c: not allowed"},
		{"big integer ok", bigNumbers, `9007199254740993`, ""},
		{"big integer fail", bigNumbers, `9007199254740994`, "(root): must be <= 9007199254740993, got 9007199254740994"},
		{"format is an annotation in 2020-12", formatAnnotation, `"not an email"`, ""},
		{"prefixItems", prefixItems, `["a",1,"b"]`, "/2: got string, want integer"},
		{"false schema", boolSchema, `null`, "(root): not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustCompile(t, tt.schema)
			err := v.Validate(json.RawMessage(tt.instance))
			checkValidation(t, err, tt.want)
			var decoded any
			dec := json.NewDecoder(strings.NewReader(tt.instance))
			dec.UseNumber()
			if err := dec.Decode(&decoded); err != nil {
				t.Fatal(err)
			}
			checkValidation(t, v.ValidateValue(decoded), tt.want)
		})
	}
}

func checkValidation(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("unexpected error:\n%v", err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v (%T), want *ValidationError", err, err)
	}
	if got := err.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestValidateProblems(t *testing.T) {
	v := mustCompile(t, `{"type":"object","properties":{"a/b":{"type":"object","properties":{"c~d":{"type":"string"}}}}}`)
	err := v.Validate(json.RawMessage(`{"a/b":{"c~d":1}}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := []Problem{{Location: "/a~1b/c~0d", Message: "got number, want string"}}
	if fmt.Sprint(ve.Problems) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", ve.Problems, want)
	}
}

func TestValidateErrorBounds(t *testing.T) {
	props := make([]string, 30)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%02d":{"type":"string"}`, i)
	}
	v := mustCompile(t, `{"properties":{`+strings.Join(props, ",")+`}}`)
	inst := make([]string, 30)
	for i := range inst {
		inst[i] = fmt.Sprintf(`"p%02d":%d`, i, i)
	}
	err := v.Validate(json.RawMessage(`{` + strings.Join(inst, ",") + `}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 30 {
		t.Fatalf("got %v", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxProblems+1 || lines[maxProblems] != "(10 more problems)" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}

	v = mustCompile(t, `{"pattern":"^a"}`)
	err = v.Validate(json.RawMessage(`"` + strings.Repeat("b", 10000) + `"`))
	if err == nil || len(err.Error()) > maxMessageLen+20 || !strings.HasSuffix(err.Error(), "…") {
		t.Errorf("long message not shortened: %d bytes", len(err.Error()))
	}
}

func TestValidateBadInstance(t *testing.T) {
	v := mustCompile(t, `{"type":"object"}`)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, in := range []string{``, `{`, `{"a":1} x`, `{"a":1}{}`, `nul`, `"\x01"`, deep} {
		err := v.Validate(json.RawMessage(in))
		var ve *ValidationError
		if err == nil || errors.As(err, &ve) || !strings.Contains(err.Error(), "not valid JSON") {
			t.Errorf("Validate(%.20q) = %v, want invalid JSON error", in, err)
		}
	}
}

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func TestValidateValue(t *testing.T) {
	v := mustCompile(t, `{"type":"object","properties":{"x":{"type":"integer","maximum":10},"y":{"type":"integer"}},"required":["x","y"]}`)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"map float64", map[string]any{"x": 1.0, "y": 2.0}, ""},
		{"map ints", map[string]any{"x": 3, "y": int64(4)}, ""},
		{"map json.Number", map[string]any{"x": json.Number("5"), "y": json.Number("6")}, ""},
		{"map fraction", map[string]any{"x": 1.5, "y": 2}, "/x: got number, want integer"},
		{"struct", point{X: 11, Y: 1}, "/x: must be <= 10, got 11"},
		{"struct pointer", &point{X: 1}, ""},
		{"nested non-JSON value", map[string]any{"x": 1, "y": []point{}}, "/y: got array, want integer"},
		{"map of typed values", map[string]int{"x": 1}, "(root): missing property 'y'"},
		{"nil", nil, "(root): got null, want object"},
		{"json.Number that is not a number", map[string]any{"x": json.Number("12a"), "y": 1}, "/x: unsupported value of type json.Number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkValidation(t, v.ValidateValue(tt.in), tt.want)
		})
	}
	if err := v.ValidateValue(func() {}); err == nil || !strings.Contains(err.Error(), "encoding instance") {
		t.Errorf("unencodable value: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		want     string
		external bool
	}{
		{"not JSON", `{"type":`, "schema is not valid JSON", false},
		{"trailing data", `{} {}`, "schema is not valid JSON", false},
		{"bad type", `{"type":"nope"}`, "invalid schema", false},
		{"bad minimum", `{"minimum":"1"}`, "/minimum: got string, want number", false},
		{"bad regex", `{"pattern":"("}`, "invalid schema", false},
		{"missing pointer", `{"$ref":"#/$defs/nope"}`, "invalid schema", false},
		{"missing anchor", `{"$ref":"#nope"}`, "invalid schema", false},
		{"https ref", `{"$ref":"https://example.com/schema.json"}`, `cannot resolve "https://example.com/schema.json"`, true},
		{"http ref in defs", `{"$defs":{"a":{"$ref":"http://example.com/a#/x"}},"properties":{"a":{"$ref":"#/$defs/a"}}}`, `"http://example.com/a"`, true},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, `cannot resolve "file:///etc/passwd"`, true},
		{"relative ref", `{"$ref":"other.json"}`, `cannot resolve "other.json"`, true},
		{"relative ref against $id", `{"$id":"https://example.com/a/root.json","items":{"$ref":"../b.json"}}`, `cannot resolve "https://example.com/b.json"`, true},
		{"unknown meta-schema", `{"$schema":"https://example.com/meta","type":"object"}`, `cannot resolve "https://example.com/meta"`, true},
		{"too deep", strings.Repeat(`{"items":`, 20000) + `{}` + strings.Repeat(`}`, 20000), "schema is not valid JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Compile(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("compiled: %+v", v)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if got := errors.Is(err, ErrExternalRef); got != tt.external {
				t.Errorf("errors.Is(err, ErrExternalRef) = %v", got)
			}
		})
	}
}

// Known meta-schemas are built in, so $schema needs no loading.
func TestCompileKnownDialects(t *testing.T) {
	for _, s := range []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	} {
		v := mustCompile(t, `{"$schema":"`+s+`","type":"object","properties":{"a":{"type":"string"}}}`)
		checkValidation(t, v.Validate(json.RawMessage(`{"a":"x"}`)), "")
		checkValidation(t, v.Validate(json.RawMessage(`{"a":1}`)), "/a: got number, want string")
	}
	// Meta-schemas are not built in: a reference to one is external.
	if _, err := Compile(json.RawMessage(`{"$ref":"https://json-schema.org/draft/2020-12/schema"}`)); !errors.Is(err, ErrExternalRef) {
		t.Errorf("$ref to a meta-schema: %v, want ErrExternalRef", err)
	}
}

func TestValidateConcurrent(t *testing.T) {
	schema, err := For[weatherArgs]()
	if err != nil {
		t.Fatal(err)
	}
	v := mustCompile(t, string(schema))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				if (i+j)%2 == 0 {
					if err := v.Validate(json.RawMessage(`{"city":"x","days":2}`)); err != nil {
						t.Error(err)
					}
				} else if err := v.Validate(json.RawMessage(`{"days":20}`)); err == nil {
					t.Error("invalid instance accepted")
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkValidate(b *testing.B) {
	schema, err := For[weatherArgs]()
	if err != nil {
		b.Fatal(err)
	}
	v, err := Compile(schema)
	if err != nil {
		b.Fatal(err)
	}
	instance := json.RawMessage(`{"city":"Paris","days":5,"unit":"celsius","tags":["a","b"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(instance); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	schema, err := For[weatherArgs]()
	if err != nil {
		b.Fatal(err)
	}
	v, err := Compile(schema)
	if err != nil {
		b.Fatal(err)
	}
	instance := json.RawMessage(`{"city":"","days":50,"unit":"kelvin"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(instance); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	schema, err := For[weatherArgs]()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(schema); err != nil {
			b.Fatal(err)
		}
	}
}

func TestValidateBounded(t *testing.T) {
	// allOf: [a, a] nested 40 times doubles the work 40 times.
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"integer"}`)
	exponential := `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/d0"}`
	tests := []struct {
		name, schema, instance, want string
	}{
		{"ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`,
			"(root): schema references nest too deeply (a $ref cycle?)"},
		{"self ref", `{"$ref":"#"}`, `{}`, "(root): schema references nest too deeply (a $ref cycle?)"},
		{"recursion through the instance is fine", `{"items":{"$ref":"#"},"type":"array"}`, strings.Repeat("[", 5000) + strings.Repeat("]", 5000), ""},
		{"exponential work", exponential, `1`, "(root): validation stopped: the schema needs too much work for this instance"},
		{"exponential work under not", `{"$defs":{` + strings.Join(defs, ",") + `},"not":{"$ref":"#/$defs/d0"}}`, `"x"`, "(root): validation stopped: the schema needs too much work for this instance"},
		{"huge exponent", `{"type":"integer","maximum":1e400000,"multipleOf":7}`, `1e400001`,
			"(root): must be <= 1e400000, got 1e400001; must be a multiple of 7, got 1e400001"},
		{"huge exponent fraction", `{"type":"integer","minimum":-1e-999999999999}`, `1e-999999999999999`, "(root): got number, want integer"},
		{"huge integer multipleOf", `{"multipleOf":3}`, `1e1000000000`, "(root): must be a multiple of 3, got 1e1000000000"},
		{"integer beyond 2^53", `{"multipleOf":2,"type":"integer"}`, `9007199254740993`, "(root): must be a multiple of 2, got 9007199254740993"},
		{"1.0 is an integer", `{"type":"integer","const":1}`, `1.0`, ""},
		{"small multipleOf", `{"multipleOf":0.0001}`, `0.0075`, ""},
		{"unique items by value", `{"uniqueItems":true}`, `[{"a":1,"b":[1]},{"b":[1.0],"a":1e0}]`, "(root): items at 0 and 1 are equal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustCompile(t, tt.schema)
			checkValidation(t, v.Validate(json.RawMessage(tt.instance)), tt.want)
		})
	}
}

func TestRef(t *testing.T) {
	doc := mustCompile(t, `{
		"$id": "https://example.com/doc.json",
		"definitions": {"a": {"type": "string"}, "b": {"$ref": "#/definitions/a"}},
		"$defs": {"c": {"$anchor": "c", "type": "integer"}},
		"x-library": {"bad": {"minimum": "x"}, "ext": {"$ref": "https://other.example/x.json"}}
	}`)
	for _, tt := range []struct {
		ref, instance, want, err string
		external                 bool
	}{
		{ref: "#/definitions/b", instance: `"x"`},
		{ref: "#/definitions/b", instance: `1`, want: "(root): got number, want string"},
		{ref: "#c", instance: `"x"`, want: "(root): got string, want integer"},
		{ref: "https://example.com/doc.json#/definitions/a", instance: `"x"`},
		{ref: "#/definitions/nope", err: "cannot resolve"},
		{ref: "#nope", err: "no anchor"},
		{ref: "#/x-library/bad", err: "/x-library/bad/minimum: got string, want number"},
		{ref: "#/x-library/bad", err: "/x-library/bad/minimum: got string, want number"}, // again: no half-compiled node left
		{ref: "#/x-library/ext", err: `cannot resolve "https://other.example/x.json"`, external: true},
		{ref: "https://other.example/y.json", err: "cannot resolve", external: true},
	} {
		v, err := doc.Ref(tt.ref)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || errors.Is(err, ErrExternalRef) != tt.external {
				t.Errorf("Ref(%q) = %v, want error containing %q", tt.ref, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Ref(%q): %v", tt.ref, err)
		}
		checkValidation(t, v.Validate(json.RawMessage(tt.instance)), tt.want)
	}
}

func TestPatternSyntax(t *testing.T) {
	tests := []struct{ pattern, instance, want string }{
		{`^[\\u0041-\\u005A]+$`, `"ABC"`, ""},
		{`^[\\u0041-\\u005A]+$`, `"abc"`, `(root): 'abc' does not match pattern '^[\x{0041}-\x{005A}]+$'`},
		{`\\\\u0041`, `"\\u0041"`, ""}, // an escaped backslash, then "u0041"
		{`é`, `"café"`, ""},            // unanchored search
		{`^\\p{L}+$`, `"Ünïcode"`, ""},
	}
	for _, tt := range tests {
		v := mustCompile(t, `{"pattern":"`+tt.pattern+`"}`)
		checkValidation(t, v.Validate(json.RawMessage(tt.instance)), tt.want)
	}
	if _, err := Compile(json.RawMessage(`{"properties":{"a":{"pattern":"(?=x)"}}}`)); err == nil || !strings.Contains(err.Error(), "/properties/a/pattern: invalid regular expression") {
		t.Errorf("lookahead: %v", err)
	}
}

func TestAnyOfProblems(t *testing.T) {
	const nullable = `{"$defs":{"p":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}},
		"properties":{"p":{"anyOf":[{"$ref":"#/$defs/p"},{"type":"null"}]},"q":{"oneOf":[{"type":"string","maxLength":2},{"type":"integer"}]}}}`
	tests := []struct{ instance, want string }{
		{`{"p":null,"q":"ab"}`, ""},
		{`{"p":{"x":1},"q":3}`, ""},
		// Only the branch that accepts an object is reported.
		{`{"p":{"x":"1"}}`, "/p/x: got string, want integer"},
		{`{"p":{}}`, "/p: missing property 'x'"},
		// No branch accepts a boolean: every branch's problem is listed.
		{`{"p":true}`, "/p: got boolean, want null; got boolean, want object"},
		{`{"q":"abc"}`, "/q: length must be <= 2, got 3"},
		{`{"q":1.5}`, "/q: got number, want integer; got number, want string"},
	}
	v := mustCompile(t, nullable)
	for _, tt := range tests {
		checkValidation(t, v.Validate(json.RawMessage(tt.instance)), tt.want)
	}
	v = mustCompile(t, `{"oneOf":[{"minimum":0},{"maximum":10}]}`)
	checkValidation(t, v.Validate(json.RawMessage(`5`)), "(root): valid against more than one of the oneOf schemas (0 and 1)")
}

// An embedded resource with its own $id may name its own dialect.
func TestEmbeddedDialect(t *testing.T) {
	v := mustCompile(t, `{
		"$defs": {
			"old": {
				"id": "https://example.com/old.json",
				"$schema": "http://json-schema.org/draft-04/schema#",
				"definitions": {"max": {"maximum": 10, "exclusiveMaximum": true}},
				"properties": {"n": {"$ref": "#/definitions/max", "minimum": 100}}
			}
		},
		"properties": {
			"old": {"$ref": "https://example.com/old.json"},
			"new": {"$ref": "#/$defs/old/definitions/max", "minimum": 5}
		}
	}`)
	tests := []struct{ instance, want string }{
		{`{"old":{"n":9}}`, ""},                              // draft-04: minimum beside $ref is ignored
		{`{"old":{"n":10}}`, "/old/n: must be < 10, got 10"}, // boolean exclusiveMaximum
		{`{"new":4}`, "/new: must be >= 5, got 4"},           // 2020-12: siblings of $ref apply
	}
	for _, tt := range tests {
		checkValidation(t, v.Validate(json.RawMessage(tt.instance)), tt.want)
	}
}
