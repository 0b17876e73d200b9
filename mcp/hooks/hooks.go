// Package hooks adds to a running mcp.Server or mcp.Client what its options
// set at construction, and more: middleware added at any time, with typed
// access to the params and results it sees; middleware around every tool's
// handler; session lifecycle hooks; a handler for every notification a
// client receives.
//
// It is where code written for go-sdk (Server.AddReceivingMiddleware,
// AddSendingMiddleware) and mcp-go (server.Hooks, WithToolHandlerMiddleware,
// client.OnNotification) finds its counterparts. Everything here is safe to
// call while the server or client is serving: a message already being
// handled keeps the middleware it started with, later ones get the new.
//
//	hooks.AddReceivingMiddleware(server, func(next mcp.MethodHandler) mcp.MethodHandler {
//		return func(ctx context.Context, r *mcp.Request) (any, error) {
//			start := time.Now()
//			res, err := next(ctx, r)
//			p, _ := hooks.Params(r)
//			if call, ok := p.(*mcp.CallToolParams); ok {
//				slog.Info("tool call", "tool", call.Name, "took", time.Since(start), "err", err)
//			}
//			return res, err
//		}
//	})
package hooks

import (
	"context"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/mcp"
)

// An Endpoint is an *mcp.Server or an *mcp.Client.
type Endpoint interface{ *mcp.Server | *mcp.Client }

// AddReceivingMiddleware wraps the handling of every message e receives in
// mws, as the Receiving option does, after construction. mws[0] runs
// first, and the middleware of each call runs before all that was there
// already (the options' included), as go-sdk's AddReceivingMiddleware
// orders them. A server's middleware sees every request and notification,
// of every session and of every stateless (2026-07-28) request, and the
// messages refused before any handler (mcp.Request.Rejected).
//
// For an incoming request, next returns the typed result the client will
// receive: *mcp.CallToolResult for tools/call, *mcp.ListToolsResult for
// tools/list, and so on; at 2026-07-28 it may be an
// *mcp.InputRequiredResult, or an extension's result (a task's handle, with
// package tasks). Params gives the typed params.
func AddReceivingMiddleware[E Endpoint](e E, mws ...mcp.Middleware) {
	bridge.AddMiddleware(e, true, mws)
}

// AddSendingMiddleware wraps every message e sends in mws, as the Sending
// option does, after construction, in the order of AddReceivingMiddleware.
// For an outgoing request next returns the peer's raw result
// (json.RawMessage); Params returns the params value it is being sent with.
func AddSendingMiddleware[E Endpoint](e E, mws ...mcp.Middleware) {
	bridge.AddMiddleware(e, false, mws)
}

// Params returns r's params as the params type package mcp defines for its
// method, a pointer: *mcp.CallToolParams for tools/call,
// *mcp.ListToolsParams for tools/list, *mcp.ReadResourceParams,
// *mcp.GetPromptParams, *mcp.CompleteParams, *mcp.InitializeParams,
// *mcp.ProgressNotificationParams, *mcp.CreateMessageParams, and so on for
// every method of the specification. It returns nil, nil for a method with
// no params type (a list_changed notification, an extension's or an
// application's own method: decode r.Params) and for a rejected message, and
// an error (CodeInvalidParams) for params that do not decode, which the
// handler would refuse the same way.
//
// The params are decoded once: on a server, the method's handler uses the
// value Params decoded instead of decoding again, and a message no
// middleware asked about costs nothing more. The value is shared with the
// handler, so treat it as read-only; to change what the handler gets,
// replace r.Params (Params then decodes the new bytes). For a message being
// sent, it is the value the message is sent with, and nothing is decoded.
func Params(r *mcp.Request) (any, error) { return bridge.Params(r) }

// WithClientCapabilities returns a context in which the requests a client
// sends declare caps instead of the client's own capabilities, where a
// request declares them: at 2026-07-28, in every request's _meta. Only
// sampling, elicitation and roots are replaced: the client's own
// extensions stay declared, joined with those of caps (caps' win on an
// extension both declare), and those a request declares for itself, as
// package tasks' do, are added over both. It is for a proxy or a gateway
// that forwards a caller's request: the server then asks, or does without,
// as it would with the caller itself, while the extensions the proxy
// supports itself stay declared. At earlier revisions capabilities belong
// to the session, declared once at initialize, and caps changes nothing.
// caps nil is the client's own. The joined capabilities are made once for
// each caps value, so a proxy should reuse a few values.
func WithClientCapabilities(ctx context.Context, caps *mcp.ClientCapabilities) context.Context {
	if caps == nil {
		return ctx
	}
	return bridge.WithClientCapabilities(ctx, caps)
}

// A ToolMiddleware wraps the handler of every tool (mcp-go's
// server.ToolHandlerMiddleware).
type ToolMiddleware func(next mcp.ToolHandler) mcp.ToolHandler

// AddToolMiddleware wraps the handler of every tool of s in mws (mcp-go's
// server.WithToolHandlerMiddleware), at any time: mws[0] runs first, before
// the middleware added earlier. It runs where the handler would: once the
// tool exists and its arguments are valid (defaults applied), inside
// package tasks' hook when a call becomes a task. It sees the handler's
// result and its plain error, before the error becomes an isError result;
// a plain error it returns itself becomes one too, and a *jsonrpc.Error a
// protocol error, as from a handler.
func AddToolMiddleware(s *mcp.Server, mws ...ToolMiddleware) {
	fns := make([]func(mcp.ToolHandler) mcp.ToolHandler, 0, len(mws))
	for _, mw := range mws {
		if mw != nil {
			fns = append(fns, mw)
		}
	}
	bridge.AddToolMiddleware(s, fns)
}

// OnRegisterSession adds fn to the functions called when s begins serving a
// session (mcp-go's Hooks.AddOnRegisterSession): a connection made with
// Server.Connect or Server.Run (stdio, in memory), and over Streamable HTTP
// a session created by initialize or rebuilt from the SessionStore by a
// Handler that did not hold it (another process's, or its own after an
// idle expiry): each copy a process holds is registered there. These are
// the sessions Server.Sessions lists.
//
// fn runs as the connection starts, on the goroutine that called Connect,
// possibly while the session's first messages are handled; before
// initialize the session has no client information yet (for the end of the
// handshake, use ServerOptions.InitializedHandler). ctx carries no
// deadline. fn should return quickly and must not call the transport's
// handler (mcphttp.SSEHandler connects its sessions under its lock).
// Hooks added later see the sessions connected after.
//
// The stateless revision (2026-07-28) has no sessions: over Streamable
// HTTP its requests register nothing (use AddReceivingMiddleware and
// mcp.Request.Stateless for per-request work); on a stdio or in-memory
// connection the connection itself is registered, a ServerSession with no
// handshake state.
func OnRegisterSession(s *mcp.Server, fn func(ctx context.Context, ss *mcp.ServerSession)) {
	bridge.OnSession(s, true, fn)
}

// OnUnregisterSession adds fn to the functions called when s stops serving
// a session it registered (mcp-go's Hooks.AddOnUnregisterSession): the
// connection ended or was closed, the client deleted the session, or a
// Streamable HTTP Handler dropped its copy (idle expiry, Close, Shutdown;
// the session's state stays in the SessionStore). It always follows the
// session's OnRegisterSession calls, once they have returned, on the
// goroutine that ended the connection; like those, it should return
// quickly. ServerSession.Wait returns once it has: fn must not call it.
func OnUnregisterSession(s *mcp.Server, fn func(ctx context.Context, ss *mcp.ServerSession)) {
	bridge.OnSession(s, false, fn)
}

// OnNotification adds fn to the functions that see every notification c
// receives, whatever its method (mcp-go's client.OnNotification): the
// specification's (progress, log messages, list changes, resource updates)
// after the ClientOptions handler for it has run, and any other. r.Method
// names it, r.Params holds its raw params (Params decodes those of the
// specification's methods), r.Session is the *mcp.ClientSession. fn runs
// on the session's notification lane, in the order the server sent them,
// like ClientOptions.LoggingMessageHandler: a call it makes to the session
// must use ctx.
func OnNotification(c *mcp.Client, fn func(ctx context.Context, cs *mcp.ClientSession, r *mcp.Request)) {
	bridge.OnNotification(c, fn)
}
