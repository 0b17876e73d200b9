package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// FuzzCompileValidate compiles arbitrary schema bytes and validates
// arbitrary instance bytes: neither may panic or hang, a compile error is
// never a *ValidationError, and ValidateDecoded agrees with Validate.
func FuzzCompileValidate(f *testing.F) {
	seeds := [][2]string{
		{`{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"]}`, `{"a":1}`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`},
		{`{"items":[{"type":"string"}],"additionalItems":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, `["a",2]`},
		{`{"prefixItems":[true],"items":false,"uniqueItems":true,"contains":{"const":1},"maxContains":1}`, `[1,1.0]`},
		{`{"anyOf":[{"multipleOf":0.01},{"pattern":"^a+$"}],"not":{"enum":[null,{"a":[1]}]}}`, `1e400000`},
		{`{"$id":"https://x.example/r","$dynamicAnchor":"n","properties":{"c":{"$dynamicRef":"#n"}},"unevaluatedProperties":false}`, `{"c":{"c":{}},"d":1}`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"},"unevaluatedItems":false}`, `[[[]]]`},
		{`{"dependencies":{"a":["b"],"c":{"minProperties":3}},"$schema":"http://json-schema.org/draft-04/schema#","maximum":1,"exclusiveMaximum":true}`, `{"a":1,"c":2}`},
		{`{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number","exclusiveMinimum":-1e-300}}`, `-0.0`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		// A hang is a failure: crash the worker so the input is kept.
		watchdog := time.AfterFunc(3*time.Second, func() {
			panic(fmt.Sprintf("hung on schema %q instance %q", schema, instance))
		})
		defer watchdog.Stop()
		v, err := Compile(json.RawMessage(schema))
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				t.Fatalf("compile error is a ValidationError: %v", err)
			}
			return
		}
		err = v.Validate(json.RawMessage(instance))
		out, err2 := v.ValidateDecoded(json.RawMessage(instance))
		if json.Valid([]byte(instance)) {
			if (err == nil) != (err2 == nil) {
				t.Fatalf("Validate: %v, ValidateDecoded: %v", err, err2)
			}
			if err2 == nil && !json.Valid(out) {
				t.Fatalf("ValidateDecoded returned invalid JSON %q", out)
			}
		}
		var ve *ValidationError
		if errors.As(err, &ve) {
			_ = ve.Error()
		}
	})
}
