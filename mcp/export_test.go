package mcp

// Requests from a session to its client outside any request's handle:
// the tests of the client, and of the connection (cancellation, timeouts,
// a closed session), send them directly. Handlers use ServerRequest.
var (
	SessionCreateMessage = (*ServerSession).createMessage
	SessionElicit        = (*ServerSession).elicit
	SessionListRoots     = (*ServerSession).ListRoots
)

// SessionHandle is the session's connection handler, which the benchmarks
// of the mcp layer alone call directly.
var SessionHandle = (*ServerSession).handle
