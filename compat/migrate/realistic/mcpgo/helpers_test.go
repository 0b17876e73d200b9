package mcpgoserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// newCallToolRequest builds a tools/call request by hand, as the handlers
// receive it.
func newCallToolRequest(name string, args map[string]any) mcp.CallToolRequest {
	return mcp.CallToolRequest{
		Params: mcp.CallToolParams{
			Name:      name,
			Arguments: args,
		},
	}
}

// resultText returns the single text content of a result.
func resultText(t *testing.T, result *mcp.CallToolResult) string {
	t.Helper()
	if result == nil {
		t.Fatal("nil result")
	}
	if len(result.Content) != 1 {
		t.Fatalf("got %d contents, want 1", len(result.Content))
	}
	tc, ok := result.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want mcp.TextContent", result.Content[0])
	}
	return tc.Text
}

// canonical is the snapshot form of a JSON value: object keys sorted at
// every level, indented by two spaces, ending in a newline.
func canonical(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("snapshot input is not JSON: %v\n%s", err, data)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// testToolSnap compares a tool's JSON with testdata/toolsnaps/NAME.snap byte
// for byte; UPDATE_TOOLSNAPS=true rewrites the snapshot instead.
func testToolSnap(t *testing.T, name string, tool any) {
	t.Helper()
	raw, err := json.Marshal(tool)
	if err != nil {
		t.Fatalf("marshal %s: %v", name, err)
	}
	got := canonical(t, raw)
	path := filepath.Join("testdata", "toolsnaps", name+".snap")
	if os.Getenv("UPDATE_TOOLSNAPS") == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("tool snapshot for %s: %v (run with UPDATE_TOOLSNAPS=true to create it)", name, err)
	}
	if string(got) != string(want) {
		t.Errorf("tool schema for %s changed:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func allTools(b *Backend) []server.ServerTool {
	var out []server.ServerTool
	for _, ts := range Toolsets(b) {
		out = append(out, ts.Tools...)
	}
	return out
}

func toolByName(t *testing.T, b *Backend, name string) server.ServerTool {
	t.Helper()
	for _, st := range allTools(b) {
		if st.Tool.Name == name {
			return st
		}
	}
	t.Fatalf("no tool %s", name)
	return server.ServerTool{}
}
