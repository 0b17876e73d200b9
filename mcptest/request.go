package mcptest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/mcp"
)

// RequestOptions describes the client a request built by NewRequest comes
// from. A nil *RequestOptions is the zero value.
type RequestOptions struct {
	// ProtocolVersion is the revision the request is made in (what
	// ServerRequest.ProtocolVersion returns). Default
	// mcp.LatestStatefulVersion. A stateless revision (2026-07-28) makes
	// ServerRequest.Stateless report true.
	ProtocolVersion string
	// ClientInfo and ClientCapabilities are what the client declared.
	// Default: an empty Implementation and no capabilities.
	ClientInfo         *mcp.Implementation
	ClientCapabilities *mcp.ClientCapabilities
	// Meta is the request's _meta (its progress token, say). Default: the
	// params' own Meta field, when they have one.
	Meta *mcp.Meta
	// Input answers the questions the handler asks the client (Elicit,
	// ElicitFor, CreateMessage, ListRoots, Input), as mcp.WithInputFunc
	// would. Without it they fail with an error wrapping mcp.ErrCapability.
	Input mcp.InputFunc
	// Notify receives the notifications the handler sends about the
	// request (Log, Logger, NotifyProgress, Notify), every log level
	// included; params is the value the server would encode
	// (*mcp.LoggingMessageNotificationParams, *mcp.ProgressNotificationParams,
	// ...). An error it returns is the handler's. Without it they go
	// nowhere.
	Notify func(ctx context.Context, method string, params any) error
}

// NewRequest returns the request a handler receives, with params, as if
// sent by the client opts describes, for a test that calls a handler
// directly: no server, session or connection is involved. Every method of
// the request works (see mcp.ServerRequest; a request built with a
// composite literal, &mcp.CallToolRequest{Params: ...}, works too, as from
// a client that declared nothing).
//
//	req := mcptest.NewRequest(&mcp.ReadResourceParams{URI: "file:///a"}, nil)
//	res, err := readFile(ctx, req)
func NewRequest[P any](params P, opts *RequestOptions) *mcp.ServerRequest[P] {
	var o RequestOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = mcp.LatestStatefulVersion
	}
	req := &mcp.ServerRequest[P]{Params: params}
	c := &bridge.TestClient{ProtocolVersion: o.ProtocolVersion, Notify: o.Notify}
	if o.ClientInfo != nil {
		c.ClientInfo = o.ClientInfo
	}
	if o.ClientCapabilities != nil {
		c.ClientCapabilities = o.ClientCapabilities
	}
	if o.Meta != nil {
		c.Meta = o.Meta
	}
	if o.Input != nil {
		c.Input = o.Input
	}
	bridge.SetTestClient(req, c)
	return req
}

// CallToolRequest returns a tools/call request for the tool name with args
// as its arguments, from a client that declared nothing (NewRequest with
// nil options), for a test that calls a tool's handler directly:
//
//	res, err := handler(ctx, mcptest.CallToolRequest("get_issue", map[string]any{"owner": "o", "number": 42}))
//
// args is anything encoding/json encodes as an object (a map, a struct, a
// json.RawMessage), or nil for {}. Like httptest.NewRequest, it panics when
// args does not encode as a JSON object: that is a mistake in the test.
func CallToolRequest(name string, args any) *mcp.CallToolRequest {
	raw, ok := args.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			panic(fmt.Sprintf("mcptest.CallToolRequest: arguments of %q: %v", name, err))
		}
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		panic(fmt.Sprintf("mcptest.CallToolRequest: arguments of %q are not a JSON object: %s", name, raw))
	}
	return NewRequest(&mcp.CallToolParams{Name: name, Arguments: raw}, nil)
}
