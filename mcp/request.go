package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gomcp/sdk/jsonrpc"
)

// Request is one JSON-RPC request or notification as middleware sees it, in
// either direction. Params are the raw JSON on the wire; they are decoded
// once, by the method's own handler, after the middleware has run.
type Request struct {
	// Method is the JSON-RPC method, e.g. "tools/call".
	Method string
	// ID is the request id; zero for notifications. An outgoing request
	// has none until the connection writes it: Sending middleware reads it
	// once its next handler has returned.
	ID jsonrpc.ID
	// Params is the raw params object, or nil.
	Params json.RawMessage
	// Session is the *ServerSession or *ClientSession the message belongs
	// to; nil for a request of the stateless revision (2026-07-28), which
	// belongs to no session.
	Session Session

	meta *Meta         // params._meta, when it has been decoded
	x    *requestExtra // what few messages need; nil for most

	// Where an incoming message came from, decided once when it arrives:
	// Session for a stateful session's, rc for one of the stateless
	// revision (its client context, filled in once _meta has been checked,
	// and where messages about it go).
	rc *requestContext
}

// session returns the stateful session of an incoming message, or nil for
// a stateless request.
func (r *Request) session() *ServerSession {
	ss, _ := r.Session.(*ServerSession)
	return ss
}

// lifecycle returns the lifecycle an incoming request arrived in: its
// client context for a stateless request (checked by routeStateless before
// any handler runs), its session otherwise.
func (r *Request) lifecycle() lifecycle {
	if r.rc != nil {
		return r.rc
	}
	return sessionBound{r.session()}
}

// connection returns the connection an incoming message came on, or nil
// for Server.HandleStateless.
func (r *Request) connection() *ServerSession {
	if r.rc != nil {
		ss, _ := r.rc.out.(*ServerSession)
		return ss
	}
	return r.session()
}

// Stateless reports whether r is an incoming request of the stateless
// revision (2026-07-28).
func (r *Request) Stateless() bool { return r.rc != nil }

// Rejected reports whether the connection refused the message before any
// handler could see it: invalid JSON-RPC (Method may then be empty), a full
// queue, a batch the revision does not allow. The middleware's next handler
// returns the error the peer was sent (nothing, for a dropped response or
// notification).
func (r *Request) Rejected() bool { return r.x != nil && r.x.rejected }

// protocolVersion is the revision an incoming request is served in.
func (r *Request) protocolVersion() string {
	if r.rc != nil {
		return r.rc.ver
	}
	if ss := r.session(); ss != nil {
		return ss.ProtocolVersion()
	}
	return ""
}

// ClientCapabilities returns, on a server, the capabilities of the client
// the message is exchanged with, extensions included: in 2026-07-28 those
// the request's _meta declares, before that those the client declared in
// initialize (none yet before it). It is nil on a client.
func (r *Request) ClientCapabilities() *ClientCapabilities {
	if r.rc != nil {
		if m, err := r.Meta(); err == nil && m != nil {
			return m.ClientCapabilities
		}
		return nil
	}
	if ss := r.session(); ss != nil {
		return ss.ClientCapabilities()
	}
	return nil
}

// IsNotification reports whether r is a notification.
func (r *Request) IsNotification() bool {
	return r.ID.IsZero() && (r.x == nil || !r.x.outgoingRequest)
}

// A MethodHandler handles a Request. For incoming requests the result is
// encoded as the JSON-RPC result; for outgoing ones it is the raw result
// (json.RawMessage) received from the peer.
type MethodHandler func(ctx context.Context, r *Request) (result any, err error)

// Middleware wraps a MethodHandler. It is the hook for logging, metrics,
// tracing and authorization: it sees every message a session receives
// (ServerOptions.Receiving, ClientOptions.Receiving) or sends (the Sending
// options), with its duration and error. hooks.AddReceivingMiddleware and
// AddSendingMiddleware (package mcp/hooks) add middleware after
// construction, and hooks.Params gives it the typed params.
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

// Meta returns the message's params._meta, decoded (nil when there is
// none). Middleware reads progress tokens, the 2026-07-28 client context and
// trace context (TraceParent) here. The decoded value is shared with the
// handler: treat it as read-only, and use SetMeta to change it.
func (r *Request) Meta() (*Meta, error) {
	if r.meta != nil {
		return r.meta, nil
	}
	raw := metaMember(r.Params)
	if raw == nil {
		return nil, nil
	}
	m := new(Meta)
	if err := m.UnmarshalJSON(raw); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	r.meta = m
	return m, nil
}

// SetMeta replaces the message's params._meta (nil removes it), re-encoding
// the params. Middleware uses it to inject trace context (TraceParent,
// TraceState) into messages it sends or passes on.
func (r *Request) SetMeta(m *Meta) error {
	p, err := spliceMeta(r.Params, m)
	if err != nil {
		return fmt.Errorf("mcp: SetMeta: %w", err)
	}
	r.Params = p
	r.meta = m
	return nil
}

// spliceMeta returns params (a JSON object, or empty) with its _meta
// member replaced by m, or removed when m is nil.
func spliceMeta(params json.RawMessage, m *Meta) (json.RawMessage, error) {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if i := skipSpace(params, 0); i >= len(params) || params[i] != '{' {
		return nil, errors.New("params are not a JSON object")
	}
	out := make([]byte, 0, len(params)+64)
	out = append(out, '{')
	err := eachMember(params, func(k, v []byte) error {
		if string(k) == `"_meta"` {
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, k...), ':'), v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m != nil {
		raw, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(out, `"_meta":`...), raw...)
	}
	return append(out, '}'), nil
}

// SessionID returns the id of the session the message belongs to, or ""
// (a stateless request, or a transport without session ids). On a client
// it is the id its transport was given (Mcp-Session-Id over HTTP).
func (r *Request) SessionID() string {
	switch s := r.Session.(type) {
	case *ServerSession:
		if s != nil {
			return s.id
		}
	case *ClientSession:
		if s == nil || s.stateless {
			return ""
		}
		if t, ok := s.stream.(interface{ SessionID() string }); ok {
			return t.SessionID()
		}
	}
	return ""
}

// metaMember returns the raw _meta member of a params object, or nil.
func metaMember(params json.RawMessage) []byte {
	if len(params) == 0 || params[0] != '{' {
		return nil
	}
	var raw []byte
	if eachMember(params, func(k, v []byte) error {
		if string(k) == `"_meta"` {
			raw = v
		}
		return nil
	}) != nil || string(raw) == "null" {
		return nil
	}
	return raw
}
