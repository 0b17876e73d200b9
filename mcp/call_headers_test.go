package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// TestCallHeaders: ClientSession.Call computes the SEP-2243 headers a
// 2026-07-28 request carries as the typed methods do: for a params type of
// the protocol (package tasks sends tools/call this way) the same Mcp-Name,
// and for the tasks extension's methods the taskId of custom params; an
// application's own method gets no Mcp-Name. A typed params value also
// keeps its type's _meta (the per-request extension) and reaches the
// handler as the typed call would.
func TestCallHeaders(t *testing.T) {
	var (
		mu   sync.Mutex
		seen = map[string]http.Header{}
	)
	record := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			mu.Lock()
			seen[r.Method] = mcpheader.HTTPHeaders(ctx)
			mu.Unlock()
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(serverImpl, nil)
	exts := make(chan []string, 1)
	if err := s.AddTool(&mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var names []string
		for k := range req.ClientCapabilities().Extensions {
			names = append(names, k)
		}
		exts <- names
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(clientImpl, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728, Sending: []mcp.Middleware{record}})
	a, b := transport.Pipe()
	cs, done := connectStreams(t, s, c, a, b)
	defer done()
	ctx := testCtx(t)

	p := &mcp.CallToolParams{Name: "echo", Meta: &mcp.Meta{ClientCapabilities: &mcp.ClientCapabilities{
		Extensions: map[string]json.RawMessage{"example/ext": json.RawMessage("{}")}}}}
	var raw json.RawMessage
	if err := cs.Call(ctx, mcp.MethodToolsCall, p, &raw); err != nil {
		t.Fatalf("Call tools/call: %v", err)
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil || len(res.Content) != 1 {
		t.Fatalf("tools/call result %s: %v", raw, err)
	}
	if got := <-exts; len(got) != 1 || got[0] != "example/ext" {
		t.Errorf("the handler saw extensions %v, want the request's example/ext", got)
	}
	// Neither method exists on this server: only the headers matter.
	_ = cs.Call(ctx, "tasks/get", map[string]string{"taskId": "task 1"}, nil)
	_ = cs.Call(ctx, "example/get", map[string]string{"taskId": "task 1"}, nil)

	mu.Lock()
	defer mu.Unlock()
	for method, want := range map[string]string{"tools/call": "echo", "tasks/get": "task 1", "example/get": ""} {
		h := seen[method]
		if h == nil {
			t.Errorf("%s: no standard headers", method)
			continue
		}
		if h.Get(mcpheader.HeaderMethod) != method {
			t.Errorf("%s: Mcp-Method %q", method, h.Get(mcpheader.HeaderMethod))
		}
		if got := h.Get(mcpheader.HeaderName); got != want {
			t.Errorf("%s: Mcp-Name %q, want %q", method, got, want)
		}
	}
}
