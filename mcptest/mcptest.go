// Package mcptest helps test MCP servers: Connect gives a test a client
// session with a server over an in-memory pipe, a Transcript records the
// JSON-RPC messages the two exchange, and Golden compares a transcript (or
// any text) with a file under testdata.
//
// A test of a server is a few lines:
//
//	cs := mcptest.Connect(t, newServer(), nil)
//	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
//
// To pin down what crosses the wire, record a transcript and compare it
// with a golden file; MCPTEST_UPDATE=1 go test rewrites the file:
//
//	var tr mcptest.Transcript
//	cs := mcptest.Connect(t, newServer(), &mcptest.Options{Transcript: &tr})
//	... // use cs
//	mcptest.Golden(t, "testdata/add.golden", tr.String())
//
// To fail a test when the server's surface changes (a tool renamed, an
// argument made required, an enum narrowed), compare it with a golden
// snapshot; the failure lists each change, breaking or compatible, and
// MCPTEST_UPDATE=1 go test rewrites the file:
//
//	mcptest.Surface(t, newServer(), "testdata/surface.json")
//
// To test a handler alone, call it with a request built for the test:
// CallToolRequest for a tool, NewRequest for any other, with the client
// it should appear to come from (its identity, capabilities and revision,
// answers to its questions, a function receiving its log messages and
// progress):
//
//	res, err := getIssue(ctx, mcptest.CallToolRequest("get_issue", map[string]any{"number": 42}))
package mcptest

import (
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// Options configures Connect. A nil *Options is the zero value.
type Options struct {
	// ProtocolVersion is the revision the client asks for, one of the
	// mcp.Version* constants. Empty means the client's default negotiation
	// (mcp.ClientOptions.ProtocolVersion), or Client.ProtocolVersion when
	// Client sets it.
	ProtocolVersion string
	// Client configures the client: the handlers it answers sampling,
	// elicitation and roots requests with, the notifications it receives.
	// Nil means a client with default options.
	Client *mcp.ClientOptions
	// Transcript, if not nil, records every message of the connection,
	// including the handshake.
	Transcript *Transcript
}

// Connect connects a new client to s over an in-memory pipe
// (transport.Pipe) and returns the client's session, after the handshake.
// The client introduces itself as mcptest-client 1.0.0.
// When the test ends, the session is closed and the server's side of it
// waited for; an error from either fails the test. If the client cannot
// connect, Connect stops the test with t.Fatal, so it must be called from
// the test's goroutine.
func Connect(t testing.TB, s *mcp.Server, opts *Options) *mcp.ClientSession {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	var co mcp.ClientOptions
	if o.Client != nil {
		co = *o.Client
	}
	if o.ProtocolVersion != "" {
		co.ProtocolVersion = o.ProtocolVersion
	}
	clientEnd, serverEnd := transport.Pipe()
	if o.Transcript != nil {
		clientEnd = o.Transcript.record(clientEnd, serverToClient)
		serverEnd = o.Transcript.record(serverEnd, clientToServer)
	}
	ss := s.Connect(serverEnd, nil)
	cs, err := mcp.NewClient(clientInfo, &co).Connect(t.Context(), clientEnd)
	if err != nil {
		ss.Close()
		ss.Wait()
		t.Fatalf("mcptest: connecting the client: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("mcptest: closing the client session: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("mcptest: server session: %v", err)
		}
	})
	return cs
}

var clientInfo = &mcp.Implementation{Name: "mcptest-client", Version: "1.0.0"}
