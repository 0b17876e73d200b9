package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
)

// TestWithClientCapabilities: a 2026-07-28 request sent with the context
// declares the capabilities it carries, the client's own without it, and
// the ones the request adds itself (an extension) join them.
func TestWithClientCapabilities(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "caps"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		c := req.ClientCapabilities()
		return fmt.Sprintf("sampling=%v roots=%v ext=%d", c.Sampling != nil, c.Roots != nil, len(c.Extensions)), nil
	})
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	defer func() { _ = ss.Close(); _ = ss.Wait() }()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.LatestVersion,
		Roots:           []*mcp.Root{{URI: "file:///"}},
	}).Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callerCaps := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	for _, tc := range []struct {
		ctx  context.Context
		meta *mcp.Meta
		want string
	}{
		{ctx, nil, "sampling=false roots=true ext=0"},
		{hooks.WithClientCapabilities(ctx, callerCaps), nil, "sampling=true roots=false ext=0"},
		{hooks.WithClientCapabilities(ctx, nil), nil, "sampling=false roots=true ext=0"},
		{hooks.WithClientCapabilities(ctx, callerCaps), &mcp.Meta{ClientCapabilities: &mcp.ClientCapabilities{
			Extensions: map[string]json.RawMessage{"io.example/ext": json.RawMessage(`{}`)}}}, "sampling=true roots=false ext=1"},
	} {
		for range 2 { // the second time, the encoding is the one kept
			res, err := cs.CallTool(tc.ctx, &mcp.CallToolParams{Name: "caps", Meta: tc.meta})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != tc.want {
				t.Errorf("server saw %q, want %q", got, tc.want)
			}
		}
	}
}
