package jsonschema

import (
	"encoding/json"
	"testing"
)

// TestValidateDecoded checks that ValidateDecoded answers as Validate
// followed by ApplyDefaults does, on schemas inside and outside the fast
// subset, and never panics on bytes that are not JSON.
func TestValidateDecoded(t *testing.T) {
	schemas := map[string]string{
		"fast":     `{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","default":3}},"required":["text"]}`,
		"slow":     `{"type":"object","properties":{"text":{"type":"string","pattern":"^a"},"n":{"type":"integer","default":3}},"required":["text"]}`,
		"defaults": `{"type":"object","properties":{"o":{"type":"object","properties":{"d":{"default":true}}}}}`,
	}
	instances := []string{
		`{"text":"abc"}`,
		` {"text":"abc","n":1} `,
		`{"text":"xyz"}`,
		`{"n":"no"}`,
		`{"o":{}}`,
		`{"o":{"d":false},"text":"a"}`,
		`[]`,
		`"a"`,
		`null`,
	}
	for name, schema := range schemas {
		v, err := Compile(json.RawMessage(schema))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, in := range instances {
			got, gotErr := v.ValidateDecoded(json.RawMessage(in))
			want, wantErr := []byte(nil), v.Validate(json.RawMessage(in))
			if wantErr == nil {
				want, wantErr = v.ApplyDefaults(json.RawMessage(in))
			}
			if (gotErr == nil) != (wantErr == nil) {
				t.Errorf("%s %s: error %v, want %v", name, in, gotErr, wantErr)
				continue
			}
			if gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("%s %s: error %q, want %q", name, in, gotErr, wantErr)
			}
			if string(got) != string(want) {
				t.Errorf("%s %s: got %s, want %s", name, in, got, want)
			}
		}
		// Not JSON: never a panic; whatever is caught is an error.
		for _, in := range []string{``, `   `, `{`, `{"text":`, `{"text":"abc`, `[`, `{"o":{"d":`, `"`} {
			if _, err := v.ValidateDecoded(json.RawMessage(in)); err == nil {
				t.Errorf("%s %q: no error", name, in)
			}
		}
	}
}

// TestValidateDecodedNoAlloc checks that the fast path neither allocates
// nor copies an instance that needs no defaults.
func TestValidateDecodedNoAlloc(t *testing.T) {
	v, err := Compile(json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in := json.RawMessage(`{"text":"hello"}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := v.ValidateDecoded(in); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
