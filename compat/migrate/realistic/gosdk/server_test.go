package gosdkserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds fixed headers to every request, as a deployment's
// gateway would.
type headerTransport struct {
	header http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, url string, header http.Header) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "forge-test", Version: "1.0.0"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: headerTransport{header}},
	}
	session, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func TestHTTPToolsMatchSnapshots(t *testing.T) {
	b := newTestBackend(t)
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	session := connect(t, srv.URL, nil)
	res, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(allTools(b)) {
		t.Fatalf("listed %d tools, want %d", len(res.Tools), len(allTools(b)))
	}
	for _, tool := range res.Tools {
		testToolSnap(t, tool.Name, tool)
	}
}

func TestHTTPPerRequestToolsets(t *testing.T) {
	b := newTestBackend(t)
	m := NewMetrics()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, m))
	defer srv.Close()
	ctx := context.Background()

	for _, tc := range []struct {
		name   string
		header http.Header
		want   []string
	}{
		{"context only", http.Header{"X-Mcp-Toolsets": {"context"}}, []string{"get_me"}},
		{"read-only actions", http.Header{"X-Mcp-Toolsets": {"actions"}, "X-Mcp-Readonly": {"true"}},
			[]string{"get_workflow_run", "list_workflow_runs"}},
		{"notifications", http.Header{"X-Mcp-Toolsets": {"notifications,context"}},
			[]string{"dismiss_notifications", "get_me", "list_notifications"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			session := connect(t, srv.URL, tc.header)
			res, err := session.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.want) {
				t.Errorf("tools = %v, want %v", names, tc.want)
			}
		})
	}

	session := connect(t, srv.URL, http.Header{"X-Mcp-Toolsets": {"issues"}})
	// The schema's default state ("open") applies over the wire.
	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      "list_issues",
		Arguments: map[string]any{"owner": "acme", "repo": "rocket"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var issues []Issue
	if err := json.Unmarshal([]byte(getTextResult(t, res).Text), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || issues[0].Number != 1 {
		t.Errorf("issues = %+v", issues)
	}
	// A tool outside the request's toolsets does not exist for it.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Errorf("get_me outside its toolset succeeded: %+v", res)
	}
	if got := m.Count("tools/call:list_issues"); got != 1 {
		t.Errorf("middleware counted %d list_issues calls, want 1", got)
	}
	if got := m.Count("tools/list"); got < 3 {
		t.Errorf("middleware counted %d tools/list, want at least 3", got)
	}
}

func TestHTTPIssueNamesItsClient(t *testing.T) {
	b := newTestBackend(t)
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	session := connect(t, srv.URL, nil)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{
		Name:      "create_issue",
		Arguments: map[string]any{"owner": "acme", "repo": "rocket", "title": "Nozzle", "body": "It melts."},
	})
	if err != nil {
		t.Fatal(err)
	}
	var issue Issue
	if err := json.Unmarshal([]byte(getTextResult(t, res).Text), &issue); err != nil {
		t.Fatal(err)
	}
	if issue.Body != "It melts.\n\n_Created with forge-test_" {
		t.Errorf("body = %q", issue.Body)
	}
}

func TestHTTPStructuredOutput(t *testing.T) {
	b := newTestBackend(t)
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	session := connect(t, srv.URL, nil)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"login":"octo"}` {
		t.Errorf("structured content = %s", got)
	}
	// A bad argument type is reported as a tool error, not a protocol error.
	res, err = session.CallTool(context.Background(), &mcp.CallToolParams{
		Name:      "get_issue",
		Arguments: map[string]any{"owner": "acme", "repo": "rocket", "issue_number": "one"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("string issue_number accepted: %+v", res)
	}
}

func TestHTTPResourcesAndPrompts(t *testing.T) {
	b := newTestBackend(t)
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	session := connect(t, srv.URL, nil)
	ctx := context.Background()

	for uri, want := range map[string]string{
		"forge://me":                            "octo",
		"repo://acme/rocket/contents/README.md": "# rocket\n",
		"repo://acme/rocket/refs/heads/feature/contents/throttle.go": "package rocket\n",
	} {
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].Text != want {
			t.Errorf("%s = %+v", uri, res.Contents)
		}
	}
	if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "repo://acme/rocket/contents/nope"}); err == nil {
		t.Error("reading a missing file succeeded")
	}
	templates, err := session.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 2 {
		t.Errorf("templates = %d", len(templates.ResourceTemplates))
	}

	prompts, err := session.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 2 {
		t.Errorf("prompts = %d", len(prompts.Prompts))
	}
	got, err := session.GetPrompt(ctx, &mcp.GetPromptParams{
		Name:      "issue_to_fix_workflow",
		Arguments: map[string]string{"owner": "acme", "repo": "rocket", "title": "Stall"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, `"Stall"`) {
		t.Errorf("prompt = %+v", got.Messages)
	}
	if _, err := session.GetPrompt(ctx, &mcp.GetPromptParams{
		Name:      "issue_to_fix_workflow",
		Arguments: map[string]string{"owner": "acme"},
	}); err == nil {
		t.Error("prompt without its required arguments succeeded")
	}
}

func TestPromptHandlerByHand(t *testing.T) {
	req := &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{
		Name:      "summarize_pull_request",
		Arguments: map[string]string{"owner": "acme", "repo": "rocket", "pullNumber": "3"},
	}}
	res, err := summarizePR(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "#3 in acme/rocket") {
		t.Errorf("prompt text = %q", text)
	}
}
