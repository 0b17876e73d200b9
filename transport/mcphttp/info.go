package mcphttp

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"

	"github.com/gomcp/sdk/jsonrpc"
)

// RequestInfo describes the HTTP request that carried an incoming MCP
// message. It stays valid after the request has ended: handlers use it for
// authentication (the Authorization header, the TLS client certificate),
// auditing (RemoteAddr) and per-request settings in custom headers. Its
// Header and URL are the request's own, not copies: read them, never modify
// them.
type RequestInfo struct {
	// Method is the HTTP method (POST for every message in both HTTP
	// transports).
	Method string
	// URL is the request URL, as the server received it (shared with the
	// http.Request: read-only).
	URL *url.URL
	// Header holds the request headers (shared with the http.Request:
	// read-only).
	Header http.Header
	// RemoteAddr is the network address of the client (or the last proxy).
	RemoteAddr string
	// TLS is the connection's TLS state, nil for plain HTTP.
	TLS *tls.ConnectionState
	// SessionID is the Mcp-Session-Id of the request (for the legacy
	// HTTP+SSE transport, its session query parameter); "" for a request
	// of the stateless revision or an initialize.
	SessionID string

	stream    *stream         // the SSE stream answering the request, for CloseSSEStream
	ctx       context.Context // the request's context, for its values (Context)
	principal string          // the caller, as the Handler names it (Principal)
}

// Principal returns the caller of the request as the handler names it for
// binding sessions (HandlerOptions.Principal, or by default what
// authentication middleware recorded with WithPrincipal): for a session's
// request, the principal the session is bound to; "" for none. It lets the
// mcp package report the caller of a 2026-07-28 request, which has no
// session, through mcp.ServerRequest.Principal.
func (i *RequestInfo) Principal() string { return i.principal }

// Context returns the HTTP request's context, for its values only: what
// middleware in front of the Handler stored there (an authenticated user, a
// trace span). The mcp package makes these values visible in the contexts
// of the handlers of stateful sessions through this method. Its
// cancellation is not the handler's: a stateful session's request outlives
// the HTTP request that carried it when the response stream is resumed.
func (i *RequestInfo) Context() context.Context { return i.ctx }

// HTTPHeader returns the request headers. It lets code that does not know
// this package (the mcp package checking SEP-2243 Mcp-Param-* headers, say)
// reach them through jsonrpc.MessageInfo with an interface assertion.
func (i *RequestInfo) HTTPHeader() http.Header { return i.Header }

// newRequestInfo keeps what handlers may need of r.
func newRequestInfo(r *http.Request, sessionID string) *RequestInfo {
	return &RequestInfo{
		Method:     r.Method,
		URL:        r.URL,
		Header:     r.Header,
		RemoteAddr: r.RemoteAddr,
		TLS:        r.TLS,
		SessionID:  sessionID,
		ctx:        r.Context(),
	}
}

// RequestInfoFromContext returns the RequestInfo of the HTTP request that
// carried the message being handled, or nil when ctx does not come from an
// mcphttp handler (another transport, or a context made elsewhere). Feature
// handlers (tools, prompts, resources) and middleware receive such a ctx.
func RequestInfoFromContext(ctx context.Context) *RequestInfo {
	info, _ := jsonrpc.MessageInfo(ctx).(*RequestInfo)
	return info
}

// CloseSSEStream closes the HTTP connection of the SSE stream answering the
// request being handled, without ending the stream (SEP-1699, protocol
// revision 2025-11-25): the handler keeps running, and what it sends next,
// its result included, is kept in the EventStore until the client resumes
// with GET and Last-Event-ID, after waiting the retry interval sent just
// before the connection is closed (HandlerOptions.RetryInterval).
//
// Servers use it to avoid holding a connection open during long operations.
// It reports whether there was a resumable stream to close: it does nothing
// when the response is JSON, for a request of the stateless revision
// (2026-07-28), or when ctx does not come from a Streamable HTTP handler.
// The stream can be resumed on another Handler sharing the EventStore only
// once the request is over (see Handler).
func CloseSSEStream(ctx context.Context) bool {
	info := RequestInfoFromContext(ctx)
	if info == nil || info.stream == nil {
		return false
	}
	return info.stream.closeConn()
}
