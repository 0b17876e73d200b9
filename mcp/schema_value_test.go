package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonschema"
	"github.com/gomcp/sdk/mcp"
)

// wireTools returns the tools of the server's tools/list responses as
// they were on the wire, by name: each schema's bytes exactly as sent.
func wireTools(t *testing.T, e *env) map[string]struct{ In, Out json.RawMessage } {
	t.Helper()
	out := map[string]struct{ In, Out json.RawMessage }{}
	for _, m := range e.wire.all() {
		if m.from != "server" || m.answers != "tools/list" {
			continue
		}
		var res struct {
			Tools []struct {
				Name string          `json:"name"`
				In   json.RawMessage `json:"inputSchema"`
				Out  json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(m.m.Result, &res); err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			out[tool.Name] = struct{ In, Out json.RawMessage }{tool.In, tool.Out}
		}
	}
	return out
}

// A schema value of its own type, as a user of another schema library
// would give one: a struct with its own field order and HTML in a
// pattern, which json.Marshal escapes.
type ownSchema struct {
	Type       string                    `json:"type"`
	Properties map[string]ownSchemaField `json:"properties,omitempty"`
	Required   []string                  `json:"required,omitempty"`
}

type ownSchemaField struct {
	Type    string `json:"type"`
	Pattern string `json:"pattern,omitempty"`
}

// Any value whose JSON is a schema is accepted as a tool's schema, and
// tools/list carries json.Marshal's bytes of it, at every revision; the
// server validates calls against it; a client decodes each schema as the
// json.RawMessage it received.
func TestSchemaValues(t *testing.T) {
	forEachRev(t, testSchemaValues)
}

func testSchemaValues(t *testing.T, rev string) {
	mapSchema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"z": map[string]any{"type": "integer", "maximum": 10}, "a": map[string]any{"type": "string"}},
		"required":   []string{"z"},
	}
	structSchema := &ownSchema{Type: "object", Properties: map[string]ownSchemaField{"tag": {Type: "string", Pattern: "^<[a-z]+>$"}}, Required: []string{"tag"}}
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}},"required":["n"]}`)
	outSchema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	tools := []struct {
		name    string
		in, out any
		wantIn  string
		bad     string // arguments the schema refuses
	}{
		{"map", mapSchema, outSchema, mustMarshal(t, mapSchema), `{"z":11}`},
		{"struct", structSchema, nil, mustMarshal(t, structSchema), `{"tag":"x"}`},
		{"raw", raw, nil, string(raw), `{"n":1.5}`},
		{"bytes", []byte(raw), nil, string(raw), `{}`},
		{"nil", nil, nil, `{"type":"object"}`, ``},
	}
	if !strings.Contains(tools[1].wantIn, `\u003c`) {
		t.Fatalf("json.Marshal did not escape HTML: %s", tools[1].wantIn)
	}
	s := mcp.NewServer(serverImpl, nil)
	for _, tt := range tools {
		tool := &mcp.Tool{Name: tt.name, InputSchema: tt.in, OutputSchema: tt.out}
		err := s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"ok":true}`)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Encoded once, at AddTool: changing the value afterwards changes nothing.
	mapSchema["required"] = []string{"a"}

	e := connect(t, rev, s, nil)
	ctx := testCtx(t)
	listed := map[string]*mcp.Tool{}
	for tool, err := range e.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[tool.Name] = tool
	}
	onWire := wireTools(t, e)
	for _, tt := range tools {
		if got := string(onWire[tt.name].In); got != tt.wantIn {
			t.Errorf("%s: inputSchema on the wire\n got %s\nwant %s", tt.name, got, tt.wantIn)
		}
		if got, ok := listed[tt.name].InputSchema.(json.RawMessage); !ok || string(got) != tt.wantIn {
			t.Errorf("%s: the client decoded InputSchema as %T %s", tt.name, listed[tt.name].InputSchema, got)
		}
		if tt.bad != "" {
			res, err := e.callTool(ctx, tt.name, tt.bad)
			if err != nil || !res.IsError {
				t.Errorf("%s: call with %s: %v %+v, want an error result", tt.name, tt.bad, err, res)
			}
		}
	}
	wantOut := ""
	if atLeast(rev, mcp.Version20250618) {
		wantOut = mustMarshal(t, outSchema)
	}
	if got := string(onWire["map"].Out); got != wantOut {
		t.Errorf("outputSchema on the wire %q, want %q", got, wantOut)
	}
	if out := listed["map"].OutputSchema; wantOut == "" && out != nil {
		t.Errorf("OutputSchema %v decoded from a %s server that sent none", out, rev)
	}
	// The server's copy holds the bytes it serves.
	if kept, _ := s.Tool("struct"); string(kept.InputSchema.(json.RawMessage)) != tools[1].wantIn {
		t.Errorf("Server.Tool kept %v", kept.InputSchema)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Schema values that are not JSON object schemas are refused at
// registration, saying why.
func TestSchemaValuesRefused(t *testing.T) {
	var nilSchema *ownSchema
	tests := []struct {
		name    string
		in, out any
		want    string
	}{
		{"string", `{"type":"object"}`, nil, "input schema: jsonschema: a schema given as a string would encode as a JSON string; give raw JSON as json.RawMessage"},
		{"unencodable", map[string]any{"type": "object", "x": make(chan int)}, nil, "input schema: jsonschema: encoding the schema: json: unsupported type: chan int"},
		{"array", []string{"object"}, nil, "input schema: schema is not a JSON object"},
		{"nil-pointer", nilSchema, nil, "input schema: schema is not a JSON object"},
		{"not-object", &ownSchema{Type: "string"}, nil, `input schema: schema root must have "type": "object", not string`},
		{"bad-raw", []byte(`{"type":`), nil, "input schema: jsonschema: the schema is not valid JSON"},
		{"out-string", nil, "x", "output schema: jsonschema: a schema given as a string"},
	}
	s := mcp.NewServer(serverImpl, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for _, tt := range tests {
		err := s.AddTool(&mcp.Tool{Name: tt.name, InputSchema: tt.in, OutputSchema: tt.out}, h)
		var re *mcp.RegistrationError
		if !errors.As(err, &re) || re.Name != tt.name || !strings.Contains(re.Err.Error(), tt.want) {
			t.Errorf("%s: %v, want a RegistrationError containing %q", tt.name, err, tt.want)
		}
		// The typed AddTool takes the same values.
		err = mcp.AddTool(s, &mcp.Tool{Name: tt.name, InputSchema: tt.in, OutputSchema: tt.out},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) { return nil, nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("typed %s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	for _, tt := range tests {
		if _, ok := s.Tool(tt.name); ok {
			t.Errorf("%s was registered", tt.name)
		}
	}
}

type closedIn struct {
	City  string `json:"city" jsonschema:"the city, e.g. Paris"` // go-sdk's tag
	Units string `json:"units,omitempty" jsonschema:"enum=c|f"`
	Inner struct {
		Days int `json:"days"`
	} `json:"inner"`
}

type closedOut struct {
	Temp float64 `json:"temp"`
}

// Schemas inferred for typed tools close every struct, at every
// revision: a misspelled argument is refused, as go-sdk's servers do; a
// tool that wants them open gives the schema.
func TestInferredToolSchemasClosed(t *testing.T) {
	const wantIn = `{"type":"object","properties":{` +
		`"city":{"type":"string","description":"the city, e.g. Paris"},` +
		`"units":{"type":"string","enum":["c","f"]},` +
		`"inner":{"type":"object","properties":{"days":{"type":"integer"}},"required":["days"],"additionalProperties":false}},` +
		`"required":["city","inner"],"additionalProperties":false}`
	const wantOut = `{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"],"additionalProperties":false}`
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		h := func(_ context.Context, _ *mcp.CallToolRequest, in closedIn) (closedOut, error) {
			return closedOut{Temp: float64(len(in.City))}, nil
		}
		if err := mcp.AddTool(s, &mcp.Tool{Name: "closed"}, h); err != nil {
			t.Fatal(err)
		}
		open, err := jsonschema.For[closedIn]()
		if err != nil {
			t.Fatal(err)
		}
		if err := mcp.AddTool(s, &mcp.Tool{Name: "open", InputSchema: open}, h); err != nil {
			t.Fatal(err)
		}
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		findTool(t, e, "closed")
		onWire := wireTools(t, e)
		if got := string(onWire["closed"].In); got != wantIn {
			t.Errorf("input schema\n got %s\nwant %s", got, wantIn)
		}
		if got, want := string(onWire["closed"].Out), wantOut; atLeast(rev, mcp.Version20250618) && got != want {
			t.Errorf("output schema\n got %s\nwant %s", got, want)
		}
		res, err := e.callTool(ctx, "closed", `{"city":"Paris","inner":{"days":1},"unit":"c"}`)
		if err != nil || !res.IsError || !strings.Contains(text(t, res), "unit") {
			t.Errorf("a misspelled argument: %v %+v", err, res)
		}
		res, err = e.callTool(ctx, "open", `{"city":"Paris","inner":{"days":1},"unit":"c"}`)
		if err != nil || res.IsError {
			t.Errorf("the open schema refused an extra argument: %v %+v", err, res)
		}
		res, err = e.callTool(ctx, "closed", `{"city":"Paris","inner":{"days":1}}`)
		if err != nil || res.IsError {
			t.Errorf("a good call: %v %+v", err, res)
		}
	})
}
