package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckObjectSchema(t *testing.T) {
	for _, tc := range []struct {
		schema, err string // err: the start of the message, "" for none
	}{
		{`{"type":"object"}`, ""},
		{` { "properties" : {"type": {"type":"string"}}, "type" : "object" } `, ""},
		{`{"\u0074ype":"obj\u0065ct"}`, ""},
		{`{"type":"string","type":"object"}`, ""}, // the last member counts, as for encoding/json
		{`{"type":"object","type":"string"}`, `schema root must have "type": "object", not string`},
		{`{"type":["object","null"]}`, `schema root must have "type": "object", not [object null]`},
		{`{"properties":{"type":"object"}}`, `schema root has no "type": "object"`},
		{`{}`, `schema root has no "type": "object"`},
		{`[]`, "schema is not a JSON object"},
		{`null`, "schema is not a JSON object"},
		{`{"type":"object"`, "schema is not a JSON object"},
		{`{"type":"object"} {}`, "schema is not a JSON object"},
		{``, "schema is not a JSON object"},
	} {
		err := checkObjectSchema(json.RawMessage(tc.schema))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.schema, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: got %v, want %q", tc.schema, err, tc.err)
		}
	}
}
