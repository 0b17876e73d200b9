package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// TestRequestPrincipal: a handler reads the caller from its request, the
// same at every revision: the principal authentication middleware recorded
// (here asUser), through the session it bound at 2024-11-05 to 2025-11-25
// and through the request itself at 2026-07-28, which has no session.
func TestRequestPrincipal(t *testing.T) {
	for _, rev := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "who", Version: "1"}, nil)
			if err := mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
				return req.Principal(), nil
			}); err != nil {
				t.Fatal(err)
			}
			h := NewHandler(srv, nil)
			ts := httptest.NewServer(asUser(h))
			t.Cleanup(ts.Close)
			t.Cleanup(func() { h.Close() })
			c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: rev})
			cs, err := c.Connect(t.Context(), NewClientStream(ts.URL, &ClientOptions{Header: http.Header{"X-User": {"alice"}}}))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != "alice" {
				t.Errorf("req.Principal() = %q, want alice", got)
			}
		})
	}
}
