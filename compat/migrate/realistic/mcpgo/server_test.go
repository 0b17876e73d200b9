package mcpgoserver

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

func connect(t *testing.T, url string, headers map[string]string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "observability-test", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHTTPToolsMatchSnapshots(t *testing.T) {
	b := NewBackend()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	c := connect(t, srv.URL, nil)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
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

func TestHTTPPerRequestServer(t *testing.T) {
	b := NewBackend()
	m := NewMetrics()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, m))
	defer srv.Close()
	ctx := context.Background()

	c := connect(t, srv.URL, map[string]string{"X-MCP-Toolsets": "admin,oncall", "X-Org-Id": "2"})
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"get_current_oncall_users", "list_oncall_schedules", "list_teams", "list_users_by_org"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "list_users_by_org"
	out, err := c.CallTool(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, out); got != `["bob"]` {
		t.Errorf("users of org 2 = %s", got)
	}
	if m.Calls("list_users_by_org") != 1 {
		t.Errorf("middleware counted %d calls", m.Calls("list_users_by_org"))
	}

	// A tool outside the request's toolsets does not exist for it.
	call.Params.Name = "list_datasources"
	if out, err := c.CallTool(ctx, call); err == nil && !out.IsError {
		t.Errorf("list_datasources outside its toolset succeeded: %+v", out)
	}
}

func TestHTTPToolErrors(t *testing.T) {
	b := NewBackend()
	m := NewMetrics()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, m))
	defer srv.Close()
	c := connect(t, srv.URL, nil)
	call := mcp.CallToolRequest{}
	call.Params.Name = "get_alert_rule"
	call.Params.Arguments = map[string]any{"uid": "nope"}
	// The call fails, naming what is missing (mcp-go sends a handler's
	// error as a JSON-RPC error).
	out, err := c.CallTool(context.Background(), call)
	var msg string
	switch {
	case err != nil:
		msg = err.Error()
	case out.IsError:
		msg = resultText(t, out)
	default:
		t.Fatalf("get_alert_rule(nope) succeeded: %+v", out)
	}
	if !strings.Contains(msg, `alert rule "nope": not found`) {
		t.Errorf("get_alert_rule(nope) failed with %q", msg)
	}
	if m.Calls("get_alert_rule:error") != 1 {
		t.Errorf("middleware counted %d errors", m.Calls("get_alert_rule:error"))
	}
}

func TestHTTPResourcesAndPrompts(t *testing.T) {
	b := NewBackend()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	c := connect(t, srv.URL, nil)
	ctx := context.Background()

	read := mcp.ReadResourceRequest{}
	read.Params.URI = "observability://dashboards/node"
	res, err := c.ReadResource(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].(mcp.TextResourceContents).Text, `"title":"Node exporter"`) {
		t.Errorf("dashboard resource = %+v", res.Contents)
	}
	read.Params.URI = "observability://datasources"
	if res, err = c.ReadResource(ctx, read); err != nil || !strings.Contains(res.Contents[0].(mcp.TextResourceContents).Text, `"uid":"loki"`) {
		t.Errorf("datasources resource = %+v, %v", res, err)
	}
	read.Params.URI = "observability://dashboards/nope"
	if _, err := c.ReadResource(ctx, read); err == nil {
		t.Error("reading a missing dashboard succeeded")
	}

	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 2 {
		t.Errorf("prompts = %d", len(prompts.Prompts))
	}
	get := mcp.GetPromptRequest{}
	get.Params.Name = "investigate_alert"
	get.Params.Arguments = map[string]string{"ruleUid": "high-cpu"}
	p, err := c.GetPrompt(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.(mcp.TextContent).Text, "last 1h") {
		t.Errorf("prompt = %+v", p.Messages)
	}
	get.Params.Arguments = nil
	if _, err := c.GetPrompt(ctx, get); err == nil {
		t.Error("prompt without its required argument succeeded")
	}
}
