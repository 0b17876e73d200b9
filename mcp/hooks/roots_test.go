package hooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
)

// TestOnListRoots: the hook's function answers a server's roots question
// at every revision (a request on a session, an input request at
// 2026-07-28), with the session it is asked on, instead of the fixed roots.
func TestOnListRoots(t *testing.T) {
	s := mcp.NewServer(nil, nil)
	if err := s.AddTool(&mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(res.Roots[0].URI)}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, v := range revisions {
		c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: v, Roots: []*mcp.Root{{URI: "file:///fixed"}}})
		var asked *mcp.ClientSession
		hooks.OnListRoots(c, func(_ context.Context, cs *mcp.ClientSession) (*mcp.ListRootsResult, error) {
			asked = cs
			return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///hooked"}}}, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a, b := transport.Pipe()
		ss := s.Connect(b, nil)
		cs, err := c.Connect(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "roots"})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != "file:///hooked" || asked != cs {
			t.Errorf("%s: roots %q, asked on %p (session %p)", v, got, asked, cs)
		}
		_ = cs.Close()
		_ = ss.Wait()
		cancel()
	}
}
