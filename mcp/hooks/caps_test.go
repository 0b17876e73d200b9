package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
)

// capsSession connects a client with opts to a server whose tool "caps"
// answers describe of the capabilities the request declares; both end
// with the test.
func capsSession(t *testing.T, describe func(*mcp.ClientCapabilities) string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "caps"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		return describe(req.ClientCapabilities()), nil
	})
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	t.Cleanup(func() { _ = ss.Close(); _ = ss.Wait() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// capsCase is a call of "caps" with ctx and meta, and what the server
// should say it saw.
type capsCase struct {
	ctx  context.Context
	meta *mcp.Meta
	want string
}

// checkCaps calls "caps" twice for each case (the second time, the
// encoding is the one kept) and checks what the server saw.
func checkCaps(t *testing.T, cs *mcp.ClientSession, cases []capsCase) {
	t.Helper()
	for _, tc := range cases {
		for range 2 {
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

// TestWithClientCapabilities: a 2026-07-28 request sent with the context
// declares the capabilities it carries, the client's own without it, and
// the ones the request adds itself (an extension) join them.
func TestWithClientCapabilities(t *testing.T) {
	cs := capsSession(t, func(c *mcp.ClientCapabilities) string {
		return fmt.Sprintf("sampling=%v roots=%v ext=%d", c.Sampling != nil, c.Roots != nil, len(c.Extensions))
	}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, Roots: []*mcp.Root{{URI: "file:///"}}})
	ctx := context.Background()
	callerCaps := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	checkCaps(t, cs, []capsCase{
		{ctx, nil, "sampling=false roots=true ext=0"},
		{hooks.WithClientCapabilities(ctx, callerCaps), nil, "sampling=true roots=false ext=0"},
		{hooks.WithClientCapabilities(ctx, nil), nil, "sampling=false roots=true ext=0"},
		{hooks.WithClientCapabilities(ctx, callerCaps), &mcp.Meta{ClientCapabilities: &mcp.ClientCapabilities{
			Extensions: map[string]json.RawMessage{"io.example/ext": json.RawMessage(`{}`)}}}, "sampling=true roots=false ext=1"},
	})
}

// TestWithClientCapabilitiesJoinsExtensions: the capabilities a request is
// sent with replace the client's sampling, elicitation and roots, but its
// extensions join the client's own (a gateway declares a caller's
// capabilities with the extensions it supports itself), the request's
// winning on a key both declare; those the request adds itself in _meta
// win over both.
func TestWithClientCapabilitiesJoinsExtensions(t *testing.T) {
	own := &mcp.ClientCapabilities{Roots: &mcp.RootCapabilities{}, Extensions: map[string]json.RawMessage{
		"io.example/own": json.RawMessage(`1`), "io.example/both": json.RawMessage(`"client"`)}}
	cs := capsSession(t, func(c *mcp.ClientCapabilities) string {
		var ext []string
		for _, k := range slices.Sorted(maps.Keys(c.Extensions)) {
			ext = append(ext, k+"="+string(c.Extensions[k]))
		}
		return fmt.Sprintf("sampling=%v roots=%v %s", c.Sampling != nil, c.Roots != nil, strings.Join(ext, " "))
	}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, Capabilities: own})
	ctx := context.Background()
	callerCaps := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Extensions: map[string]json.RawMessage{
		"io.example/both": json.RawMessage(`"caller"`), "io.example/caller": json.RawMessage(`2`)}}
	plain := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	perRequest := &mcp.Meta{ClientCapabilities: &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{
		"io.example/both": json.RawMessage(`"request"`)}}}
	checkCaps(t, cs, []capsCase{
		{ctx, nil, `sampling=false roots=true io.example/both="client" io.example/own=1`},
		{hooks.WithClientCapabilities(ctx, plain), nil, `sampling=true roots=false io.example/both="client" io.example/own=1`},
		{hooks.WithClientCapabilities(ctx, callerCaps), nil,
			`sampling=true roots=false io.example/both="caller" io.example/caller=2 io.example/own=1`},
		{hooks.WithClientCapabilities(ctx, callerCaps), perRequest,
			`sampling=true roots=false io.example/both="request" io.example/caller=2 io.example/own=1`},
	})
	if len(callerCaps.Extensions) != 2 || len(own.Extensions) != 2 {
		t.Errorf("the declared capabilities were changed: %v, %v", callerCaps.Extensions, own.Extensions)
	}
}
