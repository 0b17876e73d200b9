package jsonschema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

type defaultsArgs struct {
	Query   string `json:"query"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default=10"`
	Sort    string `json:"sort,omitempty" jsonschema:"enum=asc|desc,default=asc"`
	Options struct {
		Exact  bool    `json:"exact,omitempty" jsonschema:"default=true"`
		Weight float64 `json:"weight,omitempty" jsonschema:"default=0.5"`
		Plain  string  `json:"plain,omitempty"`
	} `json:"options,omitzero"`
}

func TestApplyDefaults(t *testing.T) {
	inferred, err := For[defaultsArgs]()
	if err != nil {
		t.Fatal(err)
	}
	const (
		viaRef = `{
			"$defs": {
				"opts": {"type": "object", "properties": {"depth": {"type": "integer", "default": 2}}},
				"color": {"type": "string", "default": "red"}
			},
			"type": "object",
			"properties": {
				"opts": {"$ref": "#/$defs/opts"},
				"color": {"$ref": "#/$defs/color"},
				"obj": {"type": "object", "default": {"b": [1, 2], "a": "<x>"}}
			},
			"allOf": [{"properties": {"fromAllOf": {"default": null}}}],
			"anyOf": [{"properties": {"conditional": {"default": 1}}}]
		}`
		recursive = `{
			"type": "object",
			"properties": {
				"name": {"type": "string", "default": "n"},
				"child": {"$ref": "#"}
			}
		}`
		draft07 = `{
			"$schema": "http://json-schema.org/draft-07/schema#",
			"properties": {"x": {"default": "y"}, "big": {"default": 12345678901234567890}}
		}`
		escapedName = `{"properties": {"a\"b": {"default": 1}, "é": {"default": 2}}}`
		noDefaults  = `{"type": "object", "properties": {"a": {"type": "string"}}}`
	)
	tests := []struct {
		name     string
		schema   string
		instance string
		want     string // "" means the instance is returned unchanged
	}{
		{"fills top level", string(inferred), `{"query":"go"}`, `{"query":"go","limit":10,"sort":"asc"}`},
		{"nothing missing", string(inferred), `{"query":"go","limit":1,"sort":"desc"}`, ""},
		{"nested present", string(inferred), `{"query":"go","limit":1,"sort":"desc","options":{}}`,
			`{"query":"go","limit":1,"sort":"desc","options":{"exact":true,"weight":0.5}}`},
		{"nested partial", string(inferred), `{"limit":1,"sort":"desc","options":{"weight":2},"query":"q"}`,
			`{"limit":1,"sort":"desc","options":{"weight":2,"exact":true},"query":"q"}`},
		{"nested not created", string(inferred), `{"query":"go","limit":1,"sort":"desc"}`, ""},
		{"nested not an object", string(inferred), `{"query":"go","limit":1,"sort":"desc","options":[1]}`, ""},
		{"empty object", string(inferred), `{}`, `{"limit":10,"sort":"asc"}`},
		{"whitespace kept", string(inferred), " {\n \"query\" : \"a\" ,\n \"options\" : { }\n} ",
			" {\n \"query\" : \"a\" ,\n \"options\" : { \"exact\":true,\"weight\":0.5}\n,\"limit\":10,\"sort\":\"asc\"} "},
		{"explicit null counts as present", string(inferred), `{"limit":null,"sort":null}`, ""},
		{"tricky strings skipped", string(inferred), `{"query":"}{\"limit\":1,","x":["{",{"limit":2}],"limit":3,"sort":"asc"}`, ""},
		{"escaped key matches", string(inferred), `{"\u006cimit":1,"sort":"asc"}`, ""},
		{"not an object", string(inferred), `[1,2]`, ""},
		{"scalar", string(inferred), `"x"`, ""},
		{"via ref and allOf", viaRef, `{"opts":{}}`, `{"opts":{"depth":2},"color":"red","fromAllOf":null,"obj":{"a":"<x>","b":[1,2]}}`},
		{"recursive", recursive, `{"child":{"child":{}}}`, `{"child":{"child":{"name":"n"},"name":"n"},"name":"n"}`},
		{"draft-07", draft07, `{}`, `{"big":12345678901234567890,"x":"y"}`},
		{"escaped names", escapedName, `{"\u00e9":5}`, `{"\u00e9":5,"a\"b":1}`},
		{"no defaults", noDefaults, `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustCompile(t, tt.schema)
			in := json.RawMessage(tt.instance)
			got, err := v.ApplyDefaults(in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if string(got) != tt.instance || &got[0] != &in[0] {
					t.Errorf("instance not returned as is: %s", got)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
		})
	}
}

func TestApplyDefaultsDecodes(t *testing.T) {
	schema, err := For[defaultsArgs]()
	if err != nil {
		t.Fatal(err)
	}
	v := mustCompile(t, string(schema))
	out, err := v.ApplyDefaults(json.RawMessage(`{"query":"go","options":{"plain":"p"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(out); err != nil {
		t.Fatal(err)
	}
	var args defaultsArgs
	if err := json.Unmarshal(out, &args); err != nil {
		t.Fatal(err)
	}
	if args.Limit != 10 || args.Sort != "asc" || !args.Options.Exact || args.Options.Weight != 0.5 || args.Options.Plain != "p" {
		t.Errorf("defaults not applied: %+v", args)
	}
}

func TestApplyDefaultsInvalid(t *testing.T) {
	schema, _ := For[defaultsArgs]()
	withDefaults := mustCompile(t, string(schema))
	without := mustCompile(t, `{}`)
	for _, in := range []string{``, `{`, `{"a":}`, `{"a":1}}`, `{'a':1}`, strings.Repeat("[", 20000)} {
		for _, v := range []*Validator{withDefaults, without} {
			if out, err := v.ApplyDefaults(json.RawMessage(in)); err == nil {
				t.Errorf("ApplyDefaults(%.20q) = %s, want error", in, out)
			}
		}
	}
}

func TestApplyDefaultsNoAlloc(t *testing.T) {
	schema, _ := For[defaultsArgs]()
	v := mustCompile(t, string(schema))
	in := json.RawMessage(`{"query":"go","limit":5,"sort":"desc","options":{"exact":false,"weight":1}}`)
	// AllocsPerRun counts every allocation in the process; the smallest of
	// three measurements leaves out a stray one made elsewhere (by the
	// runtime under a loaded machine), while an allocation of ApplyDefaults
	// shows in all three.
	allocs := math.Inf(1)
	for range 3 {
		allocs = min(allocs, testing.AllocsPerRun(100, func() {
			out, err := v.ApplyDefaults(in)
			if err != nil || len(out) != len(in) {
				t.Fatal("changed")
			}
		}))
	}
	if allocs != 0 {
		t.Errorf("ApplyDefaults allocated %v times for a complete instance", allocs)
	}
}

func BenchmarkApplyDefaults(b *testing.B) {
	schema, _ := For[defaultsArgs]()
	v := mustCompile(b, string(schema))
	for _, bc := range []struct{ name, in string }{
		{"complete", `{"query":"go","limit":5,"sort":"desc","options":{"exact":false,"weight":1}}`},
		{"missing", `{"query":"go","options":{}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in := json.RawMessage(bc.in)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.ApplyDefaults(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzApplyDefaults(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"x"}`, `{"options":{}}`, ` { "options" : { "exact" : 1 } } `, `[]`, `{"\u006fptions":{}}`, `{"a":[{"b":"}"}]}`} {
		f.Add(s)
	}
	schema, _ := For[defaultsArgs]()
	v := mustCompile(f, string(schema))
	f.Fuzz(func(t *testing.T, in string) {
		out, err := v.ApplyDefaults(json.RawMessage(in))
		if !json.Valid([]byte(in)) {
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", in)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q for %q", out, in)
		}
		again, err := v.ApplyDefaults(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
	})
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{}`, `{"city":"x","days":3}`, `{"city":1}`, `[]`, `null`, `{"tags":[1,{}]}`, `1e400`} {
		f.Add(s)
	}
	schema, _ := For[weatherArgs]()
	v := mustCompile(f, string(schema))
	f.Fuzz(func(t *testing.T, in string) {
		err := v.Validate(json.RawMessage(in))
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{`{}`, `true`, `{"$ref":"#"}`, `{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x"}`, `{"type":["string","null"],"pattern":"^a"}`, `{"$id":"http://a/b","$ref":"c"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		v, err := Compile(json.RawMessage(schema))
		if err != nil {
			return
		}
		for _, in := range []string{`null`, `{}`, `[1,"a",{"b":null}]`, `"s"`, `1.5`} {
			_ = v.Validate(json.RawMessage(in))
			if _, err := v.ApplyDefaults(json.RawMessage(in)); err != nil {
				t.Fatal(err)
			}
		}
	})
}
