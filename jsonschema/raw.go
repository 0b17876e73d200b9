package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Raw returns the JSON of a schema given as any Go value: a
// json.RawMessage or []byte is raw JSON, returned as it is once checked;
// a string is refused (it would encode as a JSON string, never a schema:
// convert raw JSON to json.RawMessage); anything else, such as a
// *jsonschema.Schema of github.com/google/jsonschema-go or a
// map[string]any, is encoded with json.Marshal, whose bytes are returned
// unchanged. A nil schema, or an empty raw one, gives nil and no error.
//
// It is how a schema of any library becomes something Compile takes, and
// how an MCP server accepts one.
func Raw(schema any) (json.RawMessage, error) {
	var raw []byte
	switch s := schema.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	case string:
		return nil, errors.New("jsonschema: a schema given as a string would encode as a JSON string; give raw JSON as json.RawMessage")
	default:
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("jsonschema: encoding the schema: %w", err)
		}
		return b, nil
	}
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, errors.New("jsonschema: the schema is not valid JSON")
	}
	return raw, nil
}
