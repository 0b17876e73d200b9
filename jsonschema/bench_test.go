package jsonschema

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolSchema is a typical hand-written tool input schema, outside the fast
// subset (it uses oneOf and pattern), so that the full validator runs.
const toolSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "minLength": 1, "pattern": "^[^\\x00]+$"},
		"mode": {"enum": ["read", "write", "append"]},
		"limit": {"type": "integer", "minimum": 1, "maximum": 1000},
		"range": {"oneOf": [
			{"type": "object", "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}}, "required": ["start"]},
			{"type": "null"}
		]},
		"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
	},
	"required": ["path"],
	"additionalProperties": false
}`

const toolInstance = `{"path":"/tmp/x.txt","mode":"read","limit":10,"range":{"start":1,"end":5},"tags":["a","b"]}`

func BenchmarkCompileToolSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(json.RawMessage(toolSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateToolSchema(b *testing.B) {
	v, err := Compile(json.RawMessage(toolSchema))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(json.RawMessage(toolInstance)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateLargeString(b *testing.B) {
	v, err := Compile(json.RawMessage(toolSchema))
	if err != nil {
		b.Fatal(err)
	}
	inst := json.RawMessage(`{"path":"` + strings.Repeat("x", 1<<20) + `","mode":"write"}`)
	b.SetBytes(int64(len(inst)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}
