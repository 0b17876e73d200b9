package mcptest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
)

// AddIn is the input of the add tool.
type AddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// AddOut is the output of the add tool.
type AddOut struct {
	Sum int `json:"sum"`
}

// newAdder returns the server under test: one tool, add.
func newAdder(t *testing.T) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two integers"},
		func(ctx context.Context, req *mcp.CallToolRequest, in AddIn) (AddOut, error) {
			return AddOut{Sum: in.A + in.B}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testAdd is a test of the adder. In a _test.go file of the server's own
// package it is a test function, func TestAdd(t *testing.T); here
// TestExample runs it.
func testAdd(t *testing.T) {
	// A client connected to the server in memory, at the revision the
	// client negotiates by default; closed when the test ends.
	cs := mcptest.Connect(t, newAdder(t), nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.StructuredContent); got != `{"sum":3}` {
		t.Errorf("add(1, 2) = %s, want {\"sum\":3}", got)
	}

	// The same at 2025-06-18, with every message on the wire recorded and
	// compared with testdata/add-2025-06-18.golden (MCPTEST_UPDATE=1 go
	// test rewrites it). The client lists the tools after the call, to
	// check the structured content against the tool's output schema.
	var tr mcptest.Transcript
	cs = mcptest.Connect(t, newAdder(t), &mcptest.Options{ProtocolVersion: mcp.Version20250618, Transcript: &tr})
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}); err != nil {
		t.Fatal(err)
	}
	mcptest.Golden(t, "testdata/add-2025-06-18.golden", tr.String())
}

// A server's tests connect a client to it with Connect, in one line, and can
// pin down its wire traffic with a Transcript and Golden. This whole file is
// the example: testAdd is the test.
func ExampleConnect() {
	// testAdd, above, is what go test runs as TestAdd(t *testing.T).
}
