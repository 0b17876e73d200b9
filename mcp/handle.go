package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/jsonschema"
)

// ServerRequest is what a feature handler receives: the request's decoded
// params, and the handle for everything the handler does about its request,
// whatever revision the client speaks (2024-11-05 to 2026-07-28): who the
// client is and what it can do (ClientInfo, ClientCapabilities,
// ProtocolVersion), telling it how the work goes (Log, Logger,
// NotifyProgress) and asking it for input (Input, Elicit, ElicitFor,
// CreateMessage, ListRoots). A handler written once against these methods
// works unchanged on a stateful session and on a stateless request; what
// cannot be done at a revision fails with a typed error (ErrCapability,
// ErrInputRequired), never with a nil.
//
// The handler's ctx carries what the transport knows: for HTTP, the
// request's values (what authentication middleware stored there) and
// mcphttp.RequestInfoFromContext.
//
// A request built outside a session, as a test calling a handler directly
// writes it (&CallToolRequest{Params: p}, or the zero value), is one from a
// client that declared nothing, over no connection: no method panics.
// Session reports none, Stateless false, ProtocolVersion and Principal "";
// Log, Logger, NotifyProgress and Notify send nothing; Input, Elicit,
// ElicitFor, CreateMessage and ListRoots fail with an error wrapping
// ErrCapability (unless ctx carries WithInputFunc's function); Meta is the
// params' own. mcptest.NewRequest builds one with a client of the test's
// choosing.
type ServerRequest[P any] struct {
	Params P

	life lifecycle // where the request came from, chosen when it was built
	id   jsonrpc.ID
	meta *Meta
}

// lifecycle is what a handler's request knows of where it came from. It is
// chosen once, when the request is built, so that no method of
// ServerRequest asks again: sessionBound for a request of a stateful
// session (2024-11-05 to 2025-11-25, after initialize), *requestContext for
// a request of the stateless revision (2026-07-28), which carries its
// client context in _meta and belongs to no session.
type lifecycle interface {
	version() string
	clientInfo() *Implementation
	clientCaps() *ClientCapabilities
	// logLevel is the least severe level the client wants (zero: see
	// ServerRequest.LogLevel).
	logLevel() LoggingLevel
	// logs reports whether a log message at level goes to the client.
	logs(ctx context.Context, level LoggingLevel) bool
	// notify sends a notification about the request where the client reads
	// it; it sends nothing, and succeeds, when nothing can carry it.
	notify(ctx context.Context, method string, params any) error
	// input asks the client the questions in reqs.
	input(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error)
	// session is the stateful session, or nil.
	session() *ServerSession
	// principal names the caller as the transport authenticated it.
	principal() string
}

// sessionBound is the lifecycle of a request of a stateful session: the
// session holds the client's context, and the server reaches the client
// with requests and notifications on the session's connection.
type sessionBound struct{ ss *ServerSession }

func (l sessionBound) version() string                 { return l.ss.ProtocolVersion() }
func (l sessionBound) clientInfo() *Implementation     { return l.ss.ClientInfo() }
func (l sessionBound) clientCaps() *ClientCapabilities { return l.ss.ClientCapabilities() }
func (l sessionBound) logLevel() LoggingLevel          { return l.ss.LogLevel() }
func (l sessionBound) session() *ServerSession         { return l.ss }

// principal is the one the session was bound to when it was created.
func (l sessionBound) principal() string {
	l.ss.mu.Lock()
	defer l.ss.mu.Unlock()
	return l.ss.state.Principal
}

// logs: a session that never set a level gets every message.
func (l sessionBound) logs(_ context.Context, level LoggingLevel) bool {
	min := l.ss.LogLevel()
	return min == levelUnset || level >= min
}

// notify sends on the session's connection, detached or not: 2025-11-25
// tasks may still report on it.
func (l sessionBound) notify(ctx context.Context, method string, params any) error {
	return l.ss.notify(ctx, method, params)
}

func (l sessionBound) input(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	return l.ss.inputStateful(ctx, reqs)
}

// The stateless lifecycle's implementation is *requestContext, made by
// routeStateless once the request's _meta has been checked.

func (rc *requestContext) version() string                 { return rc.ver }
func (rc *requestContext) clientInfo() *Implementation     { return rc.info }
func (rc *requestContext) clientCaps() *ClientCapabilities { return rc.caps }
func (rc *requestContext) logLevel() LoggingLevel          { return rc.level }
func (rc *requestContext) session() *ServerSession         { return nil }
func (rc *requestContext) principal() string               { return rc.caller }

// logs: a 2026-07-28 client asks for logs per request, in _meta; none
// asked for means none sent. Nothing goes out once the request was
// answered (Detached).
func (rc *requestContext) logs(ctx context.Context, level LoggingLevel) bool {
	return rc.level != levelUnset && level >= rc.level && !detached(ctx)
}

// notify writes to the request's own stream (its connection, or its HTTP
// response), which is gone once the request was answered (Detached).
func (rc *requestContext) notify(ctx context.Context, method string, params any) error {
	if detached(ctx) {
		return nil
	}
	return rc.out.notify(ctx, method, params)
}

func (rc *requestContext) input(_ context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	return rc.ask(reqs)
}

// newServerRequest builds the handle of an incoming request, with the
// lifecycle the request arrived in.
func newServerRequest[P any](r *Request, p P, meta *Meta) *ServerRequest[P] {
	return &ServerRequest[P]{Params: p, life: r.lifecycle(), id: r.ID, meta: meta}
}

// Request types handed to feature handlers.
type (
	CallToolRequest     = ServerRequest[*CallToolParams]
	ReadResourceRequest = ServerRequest[*ReadResourceParams]
	GetPromptRequest    = ServerRequest[*GetPromptParams]
	CompleteRequest     = ServerRequest[*CompleteParams]
)

// Session returns the stateful session the request belongs to, and false
// for a request of the stateless revision (2026-07-28), which belongs to
// none. A session is a connection's lifetime and state (its id, its
// revision, Close, Done, Stats); what a handler does about its request goes
// through the request, at every revision.
func (r *ServerRequest[P]) Session() (*ServerSession, bool) {
	ss := r.lc().session()
	return ss, ss != nil
}

// Stateless reports whether the request is of the stateless revision
// (2026-07-28): it carries its client context in _meta, belongs to no
// session, and asks the client for input with input-required results.
func (r *ServerRequest[P]) Stateless() bool {
	switch l := r.life.(type) {
	case nil:
		return false
	case *testClient:
		return IsStatelessVersion(l.ver)
	}
	return r.life.session() == nil
}

// ID returns the JSON-RPC id of the request.
func (r *ServerRequest[P]) ID() jsonrpc.ID { return r.id }

// Meta returns the request's params._meta, or nil.
func (r *ServerRequest[P]) Meta() *Meta {
	if r.meta == nil && r.life == nil { // built by hand: the params hold it
		return paramsMeta(r.Params)
	}
	return r.meta
}

// Principal names the caller as the transport authenticated it, the same
// way at every revision: over Streamable HTTP, what the Handler binds
// sessions to (mcphttp.HandlerOptions.Principal, or by default what
// authentication middleware recorded, such as auth.ResourceServer's issuer
// and subject); for a stateful session, the principal it was created with
// (SessionOptions.Principal). "" when nothing authenticated the caller
// (stdio, an open endpoint, UnboundSessions). For the verified token
// itself, use auth.TokenInfoFromContext(ctx).
func (r *ServerRequest[P]) Principal() string { return r.lc().principal() }

// ProtocolVersion returns the revision this request was made in.
func (r *ServerRequest[P]) ProtocolVersion() string { return r.lc().version() }

// ClientInfo returns what the client said about itself: in initialize, or
// in this request's _meta. It is never nil: a client that said nothing has
// an empty Implementation.
func (r *ServerRequest[P]) ClientInfo() *Implementation {
	if info := r.lc().clientInfo(); info != nil {
		return info
	}
	return &Implementation{}
}

// ClientCapabilities returns the capabilities of the client behind this
// request: per request in 2026-07-28, per session before. It is never nil.
func (r *ServerRequest[P]) ClientCapabilities() *ClientCapabilities { return r.lc().clientCaps() }

// LogLevel returns the least severe level of log messages the client wants
// for this request: set per session with logging/setLevel, or per request
// in _meta. Zero means: every level for a session, none for a stateless
// request.
func (r *ServerRequest[P]) LogLevel() LoggingLevel { return r.lc().logLevel() }

// ProgressToken returns the token the client attached to ask for progress.
func (r *ServerRequest[P]) ProgressToken() (ProgressToken, bool) {
	m := r.Meta()
	if m == nil || m.ProgressToken.IsZero() {
		return ProgressToken{}, false
	}
	return m.ProgressToken, true
}

// NotifyProgress reports progress on this request. It does nothing when the
// client did not ask for progress. total and message may be zero.
func (r *ServerRequest[P]) NotifyProgress(ctx context.Context, progress, total float64, message string) error {
	tok, ok := r.ProgressToken()
	if !ok {
		return nil
	}
	return r.lc().notify(about(ctx, r.id), NotificationProgress, &ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

// Log sends a log message to the client, related to this request, if the
// client asked for that level (see LogLevel).
func (r *ServerRequest[P]) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	if !r.lc().logs(ctx, level) {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return r.lc().notify(about(ctx, r.id), NotificationMessage, &LoggingMessageNotificationParams{Level: level, Logger: logger, Data: raw})
}

// Notify sends the client a notification the core protocol does not define
// (one the client added with AddClientNotificationHandler) about this
// request, the same way at every revision: on the session's connection, or
// on a 2026-07-28 request's own stream (nothing is sent once that request
// was answered). params must encode as a JSON object, or be nil. It fails
// with an error wrapping ErrInvalidMethod for a name the specification
// defines: Log and NotifyProgress send those.
func (r *ServerRequest[P]) Notify(ctx context.Context, method string, params any) error {
	if method == "" || SpecMethod(method) {
		return fmt.Errorf("%w: %q is not a custom notification", ErrInvalidMethod, method)
	}
	p, err := newCustomParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	return r.lc().notify(ctx, method, p)
}

// ElicitFor asks the user to fill in a form whose fields are those of T,
// while handling req, at every revision that has elicitation. The form's
// schema is inferred from T as a tool's input schema is (json tags name the
// fields, omitempty makes them optional, the description and jsonschema
// tags describe them), and must be a flat object of strings, numbers,
// integers, booleans and enums, as elicitation allows. When the user
// accepts, the answer is decoded into the T returned; res.Action says what
// the user did (accept, decline or cancel), and T is zero unless accepted.
//
// Like Elicit it fails with an error wrapping ErrCapability where the
// client or the revision has no elicitation, and on a 2026-07-28 request it
// first fails with ErrInputRequired, to be returned as it is.
//
//	type contact struct {
//		Email string `json:"email" jsonschema:"format=email"`
//	}
//	c, res, err := mcp.ElicitFor[contact](ctx, req, "Where can we reach you?")
func ElicitFor[T, P any](ctx context.Context, req *ServerRequest[P], message string) (v T, res *ElicitResult, err error) {
	schema, err := elicitSchemaFor[T]()
	if err != nil {
		return v, nil, err
	}
	res, err = req.Elicit(ctx, &ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil || res.Action != ElicitActionAccept {
		return v, res, err
	}
	raw, err := json.Marshal(res.Content)
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	if err != nil {
		return v, res, fmt.Errorf("mcp: ElicitFor: the accepted content does not fit %T: %w", v, err)
	}
	return v, res, nil
}

// elicitSchemaFor infers the form of T and checks that elicitation can ask
// for it.
func elicitSchemaFor[T any]() (*ElicitSchema, error) {
	raw, err := jsonschema.For[T]()
	if err != nil {
		return nil, fmt.Errorf("mcp: ElicitFor: %w", err)
	}
	var s ElicitSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("mcp: ElicitFor: %s is not a form (a flat object of primitive fields): %w", reflect.TypeFor[T](), err)
	}
	for _, p := range s.Properties {
		switch t := p.Schema.Type; {
		case t == "string", t == "number", t == "integer", t == "boolean":
		case t == "array" && p.Schema.Items != nil && (len(p.Schema.Items.Enum) > 0 || len(p.Schema.Items.AnyOf) > 0):
		default:
			return nil, fmt.Errorf("mcp: ElicitFor: field %q of %s is not a string, number, integer, boolean or enum", p.Name, reflect.TypeFor[T]())
		}
	}
	s.Schema = ""
	return &s, nil
}
