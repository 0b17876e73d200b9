package jsonschema_test

import (
	"encoding/json"
	"fmt"

	"github.com/gomcp/sdk/jsonschema"
)

// A server validates the arguments it cut out of a decoded request and
// fills in their defaults in one call, without checking their syntax again.
func ExampleValidator_ValidateDecoded() {
	v, err := jsonschema.Compile(json.RawMessage(`{
		"type": "object",
		"properties": {"query": {"type": "string"}, "limit": {"type": "integer", "default": 10}},
		"required": ["query"]
	}`))
	if err != nil {
		panic(err)
	}
	var req struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(`{"arguments": {"query": "go"}}`), &req); err != nil {
		panic(err)
	}
	args, err := v.ValidateDecoded(req.Arguments)
	fmt.Println(string(args), err)
	_, err = v.ValidateDecoded(json.RawMessage(`{"limit": 3}`))
	fmt.Println(err)
	// Output:
	// {"query": "go","limit":10} <nil>
	// (root): missing property 'query'
}
