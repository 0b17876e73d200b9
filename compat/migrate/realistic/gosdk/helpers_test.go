package gosdkserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// createMCPRequest builds a tools/call request by hand, as the handlers
// receive it, without a session.
func createMCPRequest(args any) mcp.CallToolRequest {
	argsMap, ok := args.(map[string]any)
	if !ok {
		argsMap = make(map[string]any)
	}
	argsJSON, err := json.Marshal(argsMap)
	if err != nil {
		return mcp.CallToolRequest{}
	}
	return mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{
			Arguments: json.RawMessage(argsJSON),
		},
	}
}

// getTextResult returns the single text content of a successful result.
func getTextResult(t *testing.T, result *mcp.CallToolResult) *mcp.TextContent {
	t.Helper()
	if result == nil {
		t.Fatal("nil result")
	}
	if result.IsError {
		t.Fatalf("result is an error: %+v", result.Content)
	}
	if len(result.Content) != 1 {
		t.Fatalf("got %d contents, want 1", len(result.Content))
	}
	tc, ok := result.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", result.Content[0])
	}
	return tc
}

// getErrorResult returns the text of a result that reports a tool error.
func getErrorResult(t *testing.T, result *mcp.CallToolResult) string {
	t.Helper()
	if result == nil || !result.IsError {
		t.Fatalf("want an error result, got %+v", result)
	}
	tc, ok := result.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", result.Content[0])
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
	compareSnap(t, name, canonical(t, raw))
}

func compareSnap(t *testing.T, name string, got []byte) {
	t.Helper()
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

// newTestBackend returns a forge with one repository, two issues, a feature
// branch, a pull request and two workflow runs.
func newTestBackend(t *testing.T) *Backend {
	t.Helper()
	b := NewBackend("octo")
	if _, err := b.CreateRepo(Repo{Owner: "acme", Name: "rocket", Description: "Rocket engine", Stars: 42}); err != nil {
		t.Fatal(err)
	}
	err := b.do("acme", "rocket", func(r *repoData) error {
		r.issues = append(r.issues,
			&Issue{Number: 1, Title: "Engine stalls", State: "open", Labels: []string{"bug"}},
			&Issue{Number: 2, Title: "Add a throttle", State: "closed", Labels: []string{"enhancement"}})
		r.branches["feature"] = map[string]string{"README.md": "# rocket\n", "throttle.go": "package rocket\n"}
		r.pulls = append(r.pulls, &PullRequest{Number: 3, Title: "Throttle", Head: "feature", Base: "main", State: "open"})
		r.runs = append(r.runs,
			&Run{ID: 1, Workflow: "ci", Branch: "main", Status: "completed", Conclusion: "failure"},
			&Run{ID: 2, Workflow: "ci", Branch: "feature", Status: "in_progress"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func allTools(b *Backend) []ServerTool {
	var out []ServerTool
	for _, ts := range Toolsets(b) {
		out = append(out, ts.Read...)
		out = append(out, ts.Write...)
	}
	return out
}
