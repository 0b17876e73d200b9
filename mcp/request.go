package mcp

import (
	"context"
	"encoding/json"

	"github.com/gomcp/sdk/jsonrpc"
)

// Request is one JSON-RPC request or notification as middleware sees it, in
// either direction. Params are the raw JSON on the wire; they are decoded
// once, by the method's own handler, after the middleware has run.
type Request struct {
	// Method is the JSON-RPC method, e.g. "tools/call".
	Method string
	// ID is the request id; zero for notifications, and for outgoing
	// requests (the connection assigns it when the request is written).
	ID jsonrpc.ID
	// Params is the raw params object, or nil.
	Params json.RawMessage
	// Session is the *ServerSession or *ClientSession the message belongs
	// to; nil for a request of the stateless revision (2026-07-28), which
	// belongs to no session.
	Session Session

	outgoingRequest bool            // an outgoing request (ID is assigned later)
	stateless       bool            // an incoming request of the stateless revision
	rc              *requestContext // the client context of a 2026-07-28 request
	meta            *Meta           // params._meta, when it has been decoded

	ss   *ServerSession // the stateful session of an incoming request
	conn *ServerSession // the connection an incoming message came on; nil for Server.HandleStateless
	out  outbound       // where messages about an incoming request go
}

// Stateless reports whether r is an incoming request of the stateless
// revision (2026-07-28).
func (r *Request) Stateless() bool { return r.stateless }

// protocolVersion is the revision an incoming request is served in.
func (r *Request) protocolVersion() string {
	if r.rc != nil {
		return r.rc.version
	}
	if r.ss != nil {
		return r.ss.ProtocolVersion()
	}
	return ""
}

// IsNotification reports whether r is a notification.
func (r *Request) IsNotification() bool { return r.ID.IsZero() && !r.outgoingRequest }

// A MethodHandler handles a Request. For incoming requests the result is
// encoded as the JSON-RPC result; for outgoing ones it is the raw result
// (json.RawMessage) received from the peer.
type MethodHandler func(ctx context.Context, r *Request) (result any, err error)

// Middleware wraps a MethodHandler. It is the hook for logging, metrics,
// tracing and authorization: it sees every message a session receives
// (ServerOptions.Receiving, ClientOptions.Receiving) or sends (the Sending
// options), with its duration and error.
type Middleware func(next MethodHandler) MethodHandler

// chain applies mws so that mws[0] is outermost.
func chain(h MethodHandler, mws []Middleware) MethodHandler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// Session is implemented by *ServerSession and *ClientSession.
type Session interface {
	// ProtocolVersion is the negotiated protocol revision.
	ProtocolVersion() string
	isSession()
}

func (*ServerSession) isSession() {}
func (*ClientSession) isSession() {}

// decodeParams decodes raw params into p, mapping failures to
// CodeInvalidParams. Absent params leave p at its zero value.
func decodeParams(raw json.RawMessage, p any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
