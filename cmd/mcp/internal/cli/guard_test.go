package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// guardedServer serves tools, prompts, resources and a template, one per
// page, so that the proxy must filter every page.
func guardedServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	tool := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ran")}}, nil
	}
	prompt := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("hi")}}}, nil
	}
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: req.Params.URI, Text: "x"}}}, nil
	}
	for _, name := range []string{"read_a", "write_b", "read_c", "delete_d"} {
		if err := s.AddTool(&mcp.Tool{Name: name}, tool); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"greet", "secret_plan", "review"} {
		if err := s.AddPrompt(&mcp.Prompt{Name: name}, prompt); err != nil {
			t.Fatal(err)
		}
	}
	for _, uri := range []string{"mem://pub/1", "mem://secret/2", "mem://pub/3"} {
		if err := s.AddResource(&mcp.Resource{URI: uri, Name: uri}, read); err != nil {
			t.Fatal(err)
		}
	}
	return serveHTTP(t, s, nil)
}

// guardFlags hide write_b and delete_d (not allowed), secret_plan and
// mem://secret/2 (denied).
var guardFlags = []string{"--allow", "tools:read_*", "--deny", "prompts:secret_*", "--deny", "resources:mem://secret/*"}

// checkGuarded checks what a client sees through a guarded proxy.
func checkGuarded(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	var tools, prompts, resources []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		resources = append(resources, r.URI)
	}
	slices.Sort(tools)
	slices.Sort(prompts)
	slices.Sort(resources)
	if !slices.Equal(tools, []string{"read_a", "read_c"}) || !slices.Equal(prompts, []string{"greet", "review"}) ||
		!slices.Equal(resources, []string{"mem://pub/1", "mem://pub/3"}) {
		t.Errorf("listed tools %v, prompts %v, resources %v", tools, prompts, resources)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_a"}); err != nil {
		t.Errorf("read_a: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
		t.Errorf("greet: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://pub/1"}); err != nil {
		t.Errorf("mem://pub/1: %v", err)
	}
	// A hidden item gets the error of a missing one.
	code := func(err error) int64 {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			t.Fatalf("%v is not a JSON-RPC error", err)
		}
		return e.Code
	}
	_, missing := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	_, hidden := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_b"})
	if code(hidden) != code(missing) {
		t.Errorf("call of a hidden tool: %v; of a missing one: %v", hidden, missing)
	}
	_, missing = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"})
	_, hidden = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "secret_plan"})
	if code(hidden) != code(missing) {
		t.Errorf("get of a hidden prompt: %v; of a missing one: %v", hidden, missing)
	}
	_, missing = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://nope"})
	_, hidden = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://secret/2"})
	if code(hidden) != code(missing) {
		t.Errorf("read of a hidden resource: %v; of a missing one: %v", hidden, missing)
	}
}

// TestProxyGuard drives mcp proxy --allow/--deny on stdio, in both eras.
func TestProxyGuard(t *testing.T) {
	url := guardedServer(t)
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("stdio "+version, func(t *testing.T) {
			clientIn, proxyOut := io.Pipe()
			proxyIn, clientOut := io.Pipe()
			done := make(chan int, 1)
			var errb bytes.Buffer
			go func() {
				done <- Run(context.Background(), append(append([]string{"proxy"}, guardFlags...), url), proxyIn, proxyOut, &errb)
				proxyOut.Close()
			}()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
			cs, err := client.Connect(context.Background(), transport.NewLineStream(clientIn, clientOut, clientOut, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { // even after a t.Fatal: the target's server waits for the proxy
				cs.Close()
				if code := <-done; code != ExitOK {
					t.Errorf("proxy exit %d; stderr %q", code, errb.String())
				}
			}()
			checkGuarded(t, cs)
		})
	}
}

// TestProxyHTTPGuard drives mcp proxy --http --allow/--deny, in both eras.
func TestProxyHTTPGuard(t *testing.T) {
	proxy := startHTTPProxy(t, append(guardFlags, guardedServer(t))...)
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("http "+version, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
			cs, err := client.Connect(context.Background(), mcphttp.NewClientStream(proxy, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			checkGuarded(t, cs)
		})
	}
}

func TestGuardPatterns(t *testing.T) {
	if _, err := newGuard([]string{"tools:["}, nil); err == nil {
		t.Error("a bad pattern passed")
	}
	g, err := newGuard([]string{"file:///pub/*"}, []string{"*_admin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    itemKind
		name string
		want bool
	}{
		{kindResource, "file:///pub/a", false}, // an unknown prefix is part of the glob
		{kindResource, "file:///etc/a", true},
		{kindTool, "file:///pub/x", false},
		{kindTool, "reset_admin", true},
		{kindPrompt, "greet", true}, // allow applies to every kind without a prefix
	} {
		if got := g.hides(c.k, c.name); got != c.want {
			t.Errorf("hides(%v, %q) = %v, want %v", c.k, c.name, got, c.want)
		}
	}
	if (*guard)(nil).hides(kindTool, "x") {
		t.Error("no guard hides")
	}
}

// TestGuardDropsNoticesOfHiddenItems: a target's update notification about
// a hidden resource never reaches the client; one about a visible
// resource, and other notifications, pass unchanged.
func TestGuardDropsNoticesOfHiddenItems(t *testing.T) {
	g, err := newGuard(nil, []string{"resources:mem://secret/*"})
	if err != nil {
		t.Fatal(err)
	}
	w := &listWatch{g: g}
	note := func(method, params string) *jsonrpc.Message {
		return &jsonrpc.Message{Method: method, Params: []byte(params)}
	}
	hidden := note(mcp.NotificationResourceUpdated, `{"uri":"mem://secret/2"}`)
	if got := w.filter(hidden); got != nil {
		t.Errorf("update of a hidden resource passed: %+v", got)
	}
	for _, m := range []*jsonrpc.Message{
		note(mcp.NotificationResourceUpdated, `{"uri":"mem://pub/1"}`),
		note("notifications/message", `{"level":"info","data":"mem://secret/2"}`),
	} {
		if got := w.filter(m); got != m {
			t.Errorf("%s %s: got %+v, want it unchanged", m.Method, m.Params, got)
		}
	}
}
