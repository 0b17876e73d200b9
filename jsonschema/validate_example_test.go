package jsonschema_test

import (
	"encoding/json"
	"fmt"

	"github.com/gomcp/sdk/jsonschema"
)

// Compile once, validate many times: every problem is reported, one line
// per instance location.
func ExampleCompile() {
	v, err := jsonschema.Compile(json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {
			"name": {"type": "string", "minLength": 1},
			"age": {"type": "integer", "minimum": 0},
			"email": {"type": "string", "format": "email"}
		},
		"required": ["name"]
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Validate(json.RawMessage(`{"name":"Ada","age":36,"email":"not checked"}`)))
	fmt.Println(v.Validate(json.RawMessage(`{"name":"","age":-1.5}`)))
	// Output:
	// <nil>
	// /age: got number, want integer; must be >= 0, got -1.5
	// /name: length must be >= 1, got 0
}

// A bundled document is compiled once and its definitions are used one by
// one.
func ExampleValidator_Ref() {
	doc, err := jsonschema.Compile(json.RawMessage(`{
		"$defs": {
			"point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]},
			"line": {"type": "array", "items": {"$ref": "#/$defs/point"}, "minItems": 2}
		}
	}`))
	if err != nil {
		panic(err)
	}
	line, err := doc.Ref("#/$defs/line")
	if err != nil {
		panic(err)
	}
	fmt.Println(line.Validate(json.RawMessage(`[{"x":0,"y":0},{"x":1}]`)))
	// Output:
	// /1: missing property 'y'
}
