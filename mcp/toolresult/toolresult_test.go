package toolresult_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/toolresult"
	"github.com/gomcp/sdk/mcptest"
)

// The helpers' results, as a client receives them from a real server.
func TestHelpersOnTheWire(t *testing.T) {
	type weather struct {
		City string  `json:"city"`
		Temp float64 `json:"temp"`
	}
	w := weather{City: "Paris", Temp: 18.5}
	tests := []struct {
		name       string
		res        func() (*mcp.CallToolResult, error)
		text       string
		isError    bool
		structured string
	}{
		{"text", func() (*mcp.CallToolResult, error) { return toolresult.Text("hello"), nil }, "hello", false, ""},
		{"error", func() (*mcp.CallToolResult, error) { return toolresult.Error("no such city"), nil }, "no such city", true, ""},
		{"errorf", func() (*mcp.CallToolResult, error) { return toolresult.Errorf("bad %s: %d", "day", 8), nil }, "bad day: 8", true, ""},
		{"json", func() (*mcp.CallToolResult, error) { return toolresult.JSON(w) }, `{"city":"Paris","temp":18.5}`, false, `{"city":"Paris","temp":18.5}`},
		{"structured", func() (*mcp.CallToolResult, error) { return toolresult.Structured(w, "18.5 in Paris") }, "18.5 in Paris", false, `{"city":"Paris","temp":18.5}`},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	for _, tt := range tests {
		if err := s.AddTool(&mcp.Tool{Name: tt.name}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tt.res()
		}); err != nil {
			t.Fatal(err)
		}
	}
	cs := mcptest.Connect(t, s, nil)
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.name})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(res.Content) != 1 || res.IsError != tt.isError || string(res.StructuredContent) != tt.structured {
			t.Errorf("%s: %+v", tt.name, res)
			continue
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != tt.text {
			t.Errorf("%s: content %#v, want text %q", tt.name, res.Content[0], tt.text)
		}
	}
}

func TestJSONError(t *testing.T) {
	for _, f := range []func(any) (*mcp.CallToolResult, error){
		toolresult.JSON,
		func(v any) (*mcp.CallToolResult, error) { return toolresult.Structured(v, "x") },
	} {
		res, err := f(math.Inf(1))
		var ue *json.UnsupportedValueError
		if res != nil || !errors.As(err, &ue) {
			t.Errorf("got %v, %v; want an encoding error", res, err)
		}
	}
}
