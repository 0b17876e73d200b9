// Package bridge lets the packages beside mcp (mcp/hooks, mcptest) reach
// machinery of package mcp that has no exported name there: package mcp,
// whose exported surface is capped, assigns these functions in its init, and
// the packages beside it call them with mcp's own types behind the any
// values. Nothing here is part of the module's API.
package bridge

import "context"

// Set by package mcp; see the mcp/hooks functions of the same names.
var (
	// AddMiddleware adds middleware ([]mcp.Middleware) to an *mcp.Server
	// or *mcp.Client, on its receiving or sending side.
	AddMiddleware func(endpoint any, receiving bool, mws any)
	// AddToolMiddleware adds tool middleware ([]func(mcp.ToolHandler)
	// mcp.ToolHandler) to an *mcp.Server.
	AddToolMiddleware func(server any, mws any)
	// Params returns the typed params of an *mcp.Request.
	Params func(r any) (any, error)
	// OnSession adds a session hook (func(context.Context,
	// *mcp.ServerSession)) to an *mcp.Server.
	OnSession func(server any, register bool, fn any)
	// OnNotification adds a catch-all notification handler
	// (func(context.Context, *mcp.ClientSession, *mcp.Request)) to an
	// *mcp.Client.
	OnNotification func(client any, fn any)
	// SetTestClient gives a request built outside a session (an
	// *mcp.ServerRequest[P]) the client c describes; false when req is no
	// such request.
	SetTestClient func(req any, c *TestClient) bool
	// Elicit and CreateMessage send elicitation/create and
	// sampling/createMessage on an *mcp.ServerSession outside any request
	// (params *mcp.ElicitParams / *mcp.CreateMessageParams).
	Elicit        func(ctx context.Context, ss any, p any) (any, error)
	CreateMessage func(ctx context.Context, ss any, p any) (any, error)
	// WithClientCapabilities returns ctx making the requests sent with it
	// declare caps (*mcp.ClientCapabilities) instead of the client's.
	WithClientCapabilities func(ctx context.Context, caps any) context.Context
	// CapsKey and ProgressKey are the context keys under which package
	// mcp's client looks for what WithClientCapabilities and
	// mcp.WithProgress put in a context (*mcp.ClientCapabilities,
	// func(*mcp.ProgressNotificationParams)), so that a context type of
	// the gateway's, made once per forwarded call, can answer them itself
	// instead of a context.WithValue layer each.
	CapsKey, ProgressKey any
	// ReloadSession reads the state of an *mcp.ServerSession back from its
	// SessionStore (none: nothing), as a copy does when another process
	// announces a change: transport/mcphttp does it when its copy takes
	// over the delivery of the session's notifications (the GET stream),
	// in case the copy missed an announcement.
	ReloadSession func(ctx context.Context, ss any)
)

// TestClient is the client a request built for a test appears to come
// from (mcptest.RequestOptions).
type TestClient struct {
	ProtocolVersion    string
	ClientInfo         any // *mcp.Implementation
	ClientCapabilities any // *mcp.ClientCapabilities
	Meta               any // *mcp.Meta
	Input              any // mcp.InputFunc
	Notify             func(ctx context.Context, method string, params any) error
}
