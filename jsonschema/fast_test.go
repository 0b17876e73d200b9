package jsonschema

import (
	"encoding/json"
	"testing"
)

var fastSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4},"e":{"enum":["x","y",null]},"n":{"type":"number","minimum":-1.5,"exclusiveMaximum":10}},"required":["s"]}`,
	`{"type":"object","properties":{"l":{"type":"array","items":{"type":["string","null"]},"minItems":1,"maxItems":2},"o":{"type":"object","additionalProperties":{"type":"boolean"}}}}`,
}

// FuzzFastPath checks that the fast path never accepts what the full
// validator rejects.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":2}`, `{"a":1.0,"b":2}`, `{"a":1,"b":2,"c":3}`, `{"a":"1","b":2}`, `{"s":"héllo","e":"x","n":9}`,
		`{"s":"ab","n":10}`, `{"l":["a",null]}`, `{"l":[]}`, `{"o":{"x":true,"y":1}}`, `{"a":1,"a":"x","b":2}`, `{"s":"a\u0062"}`, `{"a":1e2,"b":-0}`} {
		f.Add(s)
	}
	var vs []*Validator
	for _, s := range fastSchemas {
		v, err := Compile(json.RawMessage(s))
		if err != nil || v.fast == nil {
			f.Fatalf("%s: %v (fast %v)", s, err, v != nil && v.fast != nil)
		}
		vs = append(vs, v)
	}
	f.Fuzz(func(t *testing.T, in string) {
		data := []byte(in)
		if !json.Valid(data) {
			return
		}
		for i, v := range vs {
			j := skipSpace(data, 0)
			if j >= len(data) {
				return
			}
			if _, ok := v.fast.valid(data, j); ok {
				doc, err := UnmarshalJSONForTest(data)
				if err != nil {
					return
				}
				if err := v.validate(doc); err != nil {
					t.Errorf("schema %d: fast path accepts %s, full validator says %v", i, in, err)
				}
			}
		}
	})
}

func UnmarshalJSONForTest(b []byte) (any, error) { return unmarshalForTest(b) }
