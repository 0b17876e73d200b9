package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Lifecycle names the lifecycles a Method is served in.
type Lifecycle uint8

const (
	// EveryLifecycle serves the method on stateful sessions and to
	// stateless requests alike.
	EveryLifecycle Lifecycle = iota
	// StatefulOnly serves it only on sessions opened with initialize
	// (protocol revisions 2024-11-05 to 2025-11-25).
	StatefulOnly
	// StatelessOnly serves it only to requests of the stateless revision
	// (2026-07-28).
	StatelessOnly
)

// A Method is a request or notification a Server answers beyond the core
// protocol: a protocol extension's, or an application's own. It goes through
// the same middleware, handshake, version and cancellation rules as the core
// methods.
type Method struct {
	// Name is the JSON-RPC method name. It must not be one of the core
	// protocol's.
	Name string
	// Handler answers the method. r.Params holds the raw params; decode
	// them with json.Unmarshal. For a request, the value returned is the
	// result (a *jsonrpc.Error error is sent as it is); for a notification
	// it is ignored. r.Session is nil for a stateless request. It is nil in
	// a Method made by MethodFor or NotificationFor, whose typed handler
	// answers instead.
	Handler MethodHandler
	// Lifecycle says which lifecycles serve the method.
	Lifecycle Lifecycle
	// Revisions lists the protocol revisions the method exists in; empty
	// means every revision of its lifecycles.
	Revisions []string
	// BeforeInitialize lets a stateful connection use the method before
	// the handshake.
	BeforeInitialize bool

	// serve is the typed handler of MethodFor and NotificationFor, which
	// needs the server it is added to (for a 2026-07-28 retry's state).
	serve func(s *Server, ctx context.Context, r *Request) (any, error)
}

// An Extension is a protocol extension a Server offers: it advertises
// Settings under capabilities.extensions[ID] and answers its Methods.
// 2026-07-28 defines capabilities.extensions, but peers of the earlier
// revisions exchange it in initialize too (the TypeScript SDK 2, MCP Apps
// hosts), so an extension is advertised in every revision unless Revisions
// says otherwise.
type Extension struct {
	// ID names the extension, e.g. "io.modelcontextprotocol/tasks".
	ID string
	// Settings is the extension's settings object; nil advertises {}.
	Settings json.RawMessage
	// Methods are the methods the extension adds.
	Methods []Method
	// Revisions lists the protocol revisions in which the extension is
	// advertised; empty means every revision. An extension that replaces
	// a revision's own feature (the tasks extension, 2025-11-25's tasks)
	// names the revisions it serves.
	Revisions []string
}

// ErrInvalidMethod is wrapped by the errors of AddMethod and AddExtension.
var ErrInvalidMethod = errors.New("mcp: invalid method")

// AddMethod adds or replaces a method. It fails, registering nothing, when
// the name is empty or a core protocol method's, or the handler is nil.
func (s *Server) AddMethod(m Method) error { return s.addMethods([]Method{m}) }

// AddExtension adds an extension: its capability and all of its methods, or,
// on error, nothing.
func (s *Server) AddExtension(e *Extension) error {
	if e.ID == "" {
		return fmt.Errorf("%w: extension without an id", ErrInvalidMethod)
	}
	settings := e.Settings
	if settings == nil {
		settings = json.RawMessage("{}")
	} else if !isJSONObject(settings) || !json.Valid(settings) {
		return fmt.Errorf("%w: extension %q: settings must be a JSON object", ErrInvalidMethod, e.ID)
	}
	for _, v := range e.Revisions {
		if !IsSupportedVersion(v) {
			return fmt.Errorf("%w: extension %q names unknown revision %q", ErrInvalidMethod, e.ID, v)
		}
	}
	if err := s.addMethods(e.Methods); err != nil {
		return fmt.Errorf("extension %q: %w", e.ID, err)
	}
	s.mu.Lock()
	if s.extensions == nil {
		s.extensions = make(map[string]json.RawMessage)
	}
	s.extensions[e.ID] = settings
	if len(e.Revisions) > 0 {
		if s.extRevisions == nil {
			s.extRevisions = make(map[string][]string)
		}
		s.extRevisions[e.ID] = slices.Clone(e.Revisions)
	} else {
		delete(s.extRevisions, e.ID)
	}
	s.mu.Unlock()
	for i := range s.capsByShape {
		s.capsByShape[i].Store(nil)
	}
	return nil
}

func (s *Server) addMethods(ms []Method) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.methods.Load()
	t := &methodTable{stateful: maps.Clone(old.stateful), stateless: maps.Clone(old.stateless)}
	for _, m := range ms {
		handle := m.serve
		if h := m.Handler; handle == nil && h != nil {
			handle = func(_ *Server, ctx context.Context, r *Request) (any, error) { return h(ctx, r) }
		}
		if m.Name == "" || handle == nil {
			return fmt.Errorf("%w: %q needs a name and a handler", ErrInvalidMethod, m.Name)
		}
		if c, ok := old.stateful[m.Name]; ok && c.core {
			return fmt.Errorf("%w: %q is a core protocol method", ErrInvalidMethod, m.Name)
		}
		if c, ok := old.stateless[m.Name]; ok && c.core {
			return fmt.Errorf("%w: %q is a core protocol method", ErrInvalidMethod, m.Name)
		}
		for _, v := range m.Revisions {
			if !IsSupportedVersion(v) {
				return fmt.Errorf("%w: %q names unknown revision %q", ErrInvalidMethod, m.Name, v)
			}
		}
		sm := serverMethod{
			handle:     handle,
			beforeInit: m.BeforeInitialize,
			revisions:  m.Revisions,
		}
		delete(t.stateful, m.Name)
		delete(t.stateless, m.Name)
		if m.Lifecycle != StatelessOnly {
			t.stateful[m.Name] = sm
		}
		if m.Lifecycle != StatefulOnly {
			t.stateless[m.Name] = sm
		}
	}
	s.methods.Store(t)
	return nil
}

// clientCoreMethods are the methods a client answers by itself.
var clientCoreMethods = []string{
	MethodPing, MethodSamplingCreateMessage, MethodElicitationCreate, MethodRootsList,
	NotificationCancelled, NotificationProgress, NotificationMessage, NotificationResourceUpdated,
	NotificationToolListChanged, NotificationPromptListChanged, NotificationResourceListChanged,
	NotificationElicitationComplete, NotificationSubscriptionsAcknowledged,
}

// AddMethod adds or replaces a request or notification the client answers
// beyond the core protocol (an extension's, or an application's own). The
// handler runs behind the Receiving middleware; r.Params holds the raw
// params. It fails for an empty name, a nil handler or a core method.
func (c *Client) AddMethod(name string, h MethodHandler) error {
	if name == "" || h == nil || slices.Contains(clientCoreMethods, name) {
		return fmt.Errorf("%w: %q: a client method needs a name that is not a core method's, and a handler", ErrInvalidMethod, name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.methods == nil {
		c.methods = make(map[string]MethodHandler)
	}
	c.methods[name] = h
	return nil
}

// method returns the handler AddMethod registered for name, or nil.
func (c *Client) method(name string) MethodHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.methods[name]
}

// Call sends a request the core protocol does not define (an extension's,
// or one the server added with AddMethod or Server.AddMethod) and decodes
// its result into result, which may be nil. params must encode as a JSON
// object, or be nil. It works the same at every revision: on a 2026-07-28
// session the client's context is added to its _meta, and a server that
// asks for input (elicitation, sampling, roots) is answered by the
// client's handlers and the request retried, as for tools/call. Use
// WithProgress on ctx to receive progress notifications.
//
// params may also be a params type of the protocol (*CallToolParams, say):
// it is then sent as the typed method sends it, standard headers and
// revision downgrades included, while the raw result is left to result
// (a *json.RawMessage, say). That is how package tasks sends a tools/call
// that the server may answer with a task.
func (cs *ClientSession) Call(ctx context.Context, method string, params, result any) error {
	if mp, ok := params.(metaParams); ok && mp != nil {
		meta, done := cs.withProgressToken(ctx, mp.getMeta())
		defer done()
		if meta != mp.getMeta() {
			mp = mp.withMeta(meta)
		}
		return cs.call(ctx, method, mp, result)
	}
	p, err := newCustomParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	var done func()
	p.meta, done = cs.withProgressToken(ctx, p.meta)
	defer done()
	return cs.call(ctx, method, p, result)
}

// A Peer is the other end of a session, to which requests the core
// protocol does not define go: a *ClientSession's server, a
// *ServerSession's client.
type Peer interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Call sends a request the core protocol does not define and returns its
// result decoded into R: from a client, one the server added with
// AddMethod, at every revision (see ClientSession.Call); from a server's
// stateful session, one the client added with AddClientMethod (see
// ServerSession.Call).
//
//	sum, err := mcp.Call[sumResult](ctx, cs, "example/add", addParams{A: 2, B: 3})
func Call[R, P any](ctx context.Context, c Peer, method string, params P) (R, error) {
	var r R
	err := c.Call(ctx, method, params, &r)
	return r, err
}

// Notify sends a notification the core protocol does not define (one the
// server added with AddNotificationHandler, or an extension's). params must
// encode as a JSON object, or be nil. On a 2026-07-28 session it carries
// the client's context in _meta (and its standard headers over HTTP), as
// every message of that revision does.
func (cs *ClientSession) Notify(ctx context.Context, method string, params any) error {
	if !cs.stateless {
		return cs.notify(ctx, method, params)
	}
	p, err := newCustomParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	ctx = &headersCtx{Context: ctx, cs: cs, version: cs.version, method: method, params: p}
	return cs.notify(ctx, method, cs.withModernMeta(ctx, p))
}

// Call sends the client a request the core protocol does not define (an
// extension's, or one the client added with AddClientMethod or
// Client.AddMethod) and decodes its result into result, which may be nil.
// A 2026-07-28 request has no session to send it on: a handler reaches
// the client with ServerRequest.Notify, and asks it for input with Input.
func (ss *ServerSession) Call(ctx context.Context, method string, params, result any) error {
	return ss.call(ctx, method, params, result)
}

// Notify sends the client a notification the core protocol does not define.
func (ss *ServerSession) Notify(ctx context.Context, method string, params any) error {
	return ss.notify(ctx, method, params)
}
