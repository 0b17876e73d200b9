package mcp

import (
	"context"
	"encoding/json"
	"reflect"
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

type badSchema struct{}

func (badSchema) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","pattern":"("}`) // a pattern that does not compile
}

type ptrSchemer struct{}

func (*ptrSchemer) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":"string"}`) }

type recursive struct {
	Next     *recursive   `json:"next"`
	Children []*recursive `json:"children"`
}

func TestHasCustomSchema(t *testing.T) {
	for _, tc := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[struct{ A string }](), false},
		{reflect.TypeFor[recursive](), false},
		{reflect.TypeFor[*recursive](), false},
		{reflect.TypeFor[map[string][]int](), false},
		{reflect.TypeFor[badSchema](), true},
		{reflect.TypeFor[struct{ X ptrSchemer }](), true},
		{reflect.TypeFor[struct{ X []map[string]*badSchema }](), true},
		{reflect.TypeFor[struct{ X map[badSchema]int }](), true},
	} {
		if got := hasCustomSchema(tc.t); got != tc.want {
			t.Errorf("hasCustomSchema(%s) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

// TestInferredSchemasCompileWhen: a typed tool whose schema has a custom
// part that does not compile is refused by AddTool, as before schemas of
// plain Go types were compiled at the first call; and a plain one is
// compiled then, and validates.
func TestInferredSchemasCompileWhen(t *testing.T) {
	s := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	type in struct {
		X badSchema `json:"x"`
	}
	err := AddTool(s, &Tool{Name: "bad"}, func(context.Context, *CallToolRequest, in) (string, error) { return "", nil })
	if err == nil || !strings.Contains(err.Error(), "input schema") {
		t.Fatalf("AddTool with a broken custom schema: %v", err)
	}
	type plain struct {
		N int `json:"n"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	if err := AddTool(s, &Tool{Name: "plain"}, func(_ context.Context, _ *CallToolRequest, p plain) (out, error) { return out{p.N}, nil }); err != nil {
		t.Fatal(err)
	}
	st, _ := s.tools.get("plain")
	vs, err := st.validators()
	if err != nil || vs.in == nil || vs.out == nil {
		t.Fatalf("validators of a plain typed tool: %+v, %v", vs, err)
	}
	if err := vs.in.Validate(json.RawMessage(`{"n":"x"}`)); err == nil {
		t.Fatal("the input schema accepts a string for an int")
	}
}
