package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gomcp/sdk/internal/bridge"
)

// The machinery behind package mcp/hooks (middleware added after
// construction, typed params, tool middleware, session hooks, the client's
// catch-all notification handler) and mcptest's requests. It has no
// exported name here: package mcp's surface is capped, so the API lives
// beside it and reaches this through internal/bridge.

func init() {
	bridge.AddMiddleware = func(e any, receiving bool, mws any) {
		add := mws.([]Middleware)
		switch e := e.(type) {
		case *Server:
			e.mw.add(receiving, add)
		case *Client:
			e.mw.add(receiving, add)
		}
	}
	bridge.AddToolMiddleware = func(s any, mws any) { s.(*Server).addToolMiddleware(mws.([]func(ToolHandler) ToolHandler)) }
	bridge.Params = func(r any) (any, error) { return r.(*Request).typedParams() }
	bridge.OnSession = func(s any, register bool, fn any) {
		s.(*Server).addSessionHook(register, fn.(func(context.Context, *ServerSession)))
	}
	bridge.OnNotification = func(c any, fn any) {
		c.(*Client).addNotificationHook(fn.(func(context.Context, *ClientSession, *Request)))
	}
	bridge.SetTestClient = setTestClient
	bridge.Elicit = func(ctx context.Context, ss any, p any) (any, error) {
		return ss.(*ServerSession).elicit(ctx, p.(*ElicitParams))
	}
	bridge.CreateMessage = func(ctx context.Context, ss any, p any) (any, error) {
		return ss.(*ServerSession).createMessage(ctx, p.(*CreateMessageParams))
	}
	bridge.ReloadSession = func(ctx context.Context, ss any) { ss.(*ServerSession).reload(ctx) }
}

// mwStack is an endpoint's middleware: its options' and those added since
// (hooks.AddReceivingMiddleware), outermost first. The receiving chain, and
// the sending chain of requests, are composed once per change, so that a
// message costs one atomic load (not an allocation per middleware); a
// message already inside keeps the chain it entered.
type mwStack struct {
	mu        sync.Mutex
	base      MethodHandler // the route, innermost
	receiving atomic.Pointer[[]Middleware]
	sending   atomic.Pointer[[]Middleware]
	recv      atomic.Pointer[MethodHandler]
	send      atomic.Pointer[MethodHandler] // around sendRequest
}

func (m *mwStack) init(route MethodHandler, receiving, sending []Middleware) {
	m.base = route
	r, s := slices.Clone(receiving), slices.Clone(sending)
	m.receiving.Store(&r)
	m.sending.Store(&s)
	h, hs := chain(route, r), chain(sendRequest, s)
	m.recv.Store(&h)
	m.send.Store(&hs)
}

// add puts mws outside everything added before (go-sdk's order): mws[0]
// runs first.
func (m *mwStack) add(receiving bool, mws []Middleware) {
	mws = slices.DeleteFunc(slices.Clone(mws), func(mw Middleware) bool { return mw == nil })
	if len(mws) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !receiving {
		all := append(mws, *m.sending.Load()...)
		h := chain(sendRequest, all)
		m.sending.Store(&all)
		m.send.Store(&h)
		return
	}
	all := append(mws, *m.receiving.Load()...)
	h := chain(m.base, all)
	m.receiving.Store(&all)
	m.recv.Store(&h)
}

// receive runs an incoming message through the receiving chain.
func (m *mwStack) receive(ctx context.Context, r *Request) (any, error) {
	return (*m.recv.Load())(ctx, r)
}

func (m *mwStack) receivingMW() []Middleware { return *m.receiving.Load() }
func (m *mwStack) sendingMW() []Middleware   { return *m.sending.Load() }

// requestExtra is what few messages need, kept out of Request so that the
// common one stays in its allocation size class: the outgoing and rejected
// marks, and what hooks.Params decoded of the params, with the raw params it
// decoded them from (a handler uses the value only while Request.Params is
// still those bytes).
type requestExtra struct {
	outgoingRequest bool // an outgoing request (ID is assigned later)
	rejected        bool // refused before reaching a handler
	typed           any  // nil: not decoded
	typedRaw        json.RawMessage
}

// decoded returns what hooks.Params decoded of r's params, or nil.
func (r *Request) decoded() any {
	if x := r.x; x != nil && x.typed != nil && sameBytes(x.typedRaw, r.Params) {
		return x.typed
	}
	return nil
}

// sameBytes reports whether a and b are the same slice of memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// decodedAs returns the params middleware already decoded for r as a *P
// (hooks.Params), or nil: the handler then decodes them itself. A message
// is decoded once either way.
func decodedAs[P any](r *Request) *P {
	if r.x == nil {
		return nil
	}
	p, _ := r.decoded().(*P)
	return p
}

// paramsTypes makes the params value of each method of the specification
// that has one.
var paramsTypes = map[string]func() any{
	MethodInitialize:                      func() any { return new(InitializeParams) },
	MethodPing:                            func() any { return new(PingParams) },
	MethodToolsList:                       func() any { return new(ListToolsParams) },
	MethodToolsCall:                       func() any { return new(CallToolParams) },
	MethodResourcesList:                   func() any { return new(ListResourcesParams) },
	MethodResourcesTemplatesList:          func() any { return new(ListResourceTemplatesParams) },
	MethodResourcesRead:                   func() any { return new(ReadResourceParams) },
	MethodResourcesSubscribe:              func() any { return new(SubscribeParams) },
	MethodResourcesUnsubscribe:            func() any { return new(UnsubscribeParams) },
	MethodPromptsList:                     func() any { return new(ListPromptsParams) },
	MethodPromptsGet:                      func() any { return new(GetPromptParams) },
	MethodCompletionComplete:              func() any { return new(CompleteParams) },
	MethodLoggingSetLevel:                 func() any { return new(SetLevelParams) },
	MethodSamplingCreateMessage:           func() any { return new(CreateMessageParams) },
	MethodElicitationCreate:               func() any { return new(ElicitParams) },
	MethodRootsList:                       func() any { return new(ListRootsParams) },
	MethodServerDiscover:                  func() any { return new(DiscoverParams) },
	MethodSubscriptionsListen:             func() any { return new(ListenParams) },
	NotificationCancelled:                 func() any { return new(CancelledNotificationParams) },
	NotificationProgress:                  func() any { return new(ProgressNotificationParams) },
	NotificationMessage:                   func() any { return new(LoggingMessageNotificationParams) },
	NotificationResourceUpdated:           func() any { return new(ResourceUpdatedNotificationParams) },
	NotificationElicitationComplete:       func() any { return new(ElicitationCompleteNotificationParams) },
	NotificationSubscriptionsAcknowledged: func() any { return new(SubscriptionsAcknowledgedNotificationParams) },
}

// typedParams returns r's params as the method's params type (see
// hooks.Params), decoding them at most once.
func (r *Request) typedParams() (any, error) {
	if v := r.decoded(); v != nil {
		return v, nil
	}
	mk := paramsTypes[r.Method]
	if mk == nil || r.Rejected() {
		return nil, nil
	}
	v := mk()
	var err error
	if p, ok := v.(*CallToolParams); ok {
		err = decodeCallToolParams(r.Params, r.meta, p)
	} else {
		err = decodeParams(r.Params, v)
	}
	if err != nil {
		return nil, err
	}
	if r.x == nil {
		r.x = new(requestExtra)
	}
	r.x.typed, r.x.typedRaw = v, r.Params
	return v, nil
}

// addToolMiddleware puts mws around every tool's handler, outside those
// added before.
func (s *Server) addToolMiddleware(mws []func(ToolHandler) ToolHandler) {
	mws = slices.DeleteFunc(slices.Clone(mws), func(mw func(ToolHandler) ToolHandler) bool { return mw == nil })
	if len(mws) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []func(ToolHandler) ToolHandler
	if p := s.toolMW.Load(); p != nil {
		all = *p
	}
	all = append(mws, all...)
	s.toolMW.Store(&all)
}

// toolHandler returns h wrapped in the tool middleware.
func (s *Server) toolHandler(h ToolHandler) ToolHandler {
	p := s.toolMW.Load()
	if p == nil {
		return h
	}
	mws := *p
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// sessionHooks are the functions hooks.OnRegisterSession and
// OnUnregisterSession added; guarded by Server.mu.
type sessionHooks struct {
	register, unregister []func(context.Context, *ServerSession)
}

func (s *Server) addSessionHook(register bool, fn func(context.Context, *ServerSession)) {
	if fn == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if register {
		s.hooks.register = append(slices.Clip(s.hooks.register), fn)
	} else {
		s.hooks.unregister = append(slices.Clip(s.hooks.unregister), fn)
	}
}

// registered runs the register hooks for a session Connect began serving,
// then, if the connection ended meanwhile, the unregister hooks: they
// always come in pairs and in that order.
func (s *Server) registered(ss *ServerSession) {
	s.mu.Lock()
	fns := s.hooks.register
	s.mu.Unlock()
	for _, fn := range fns {
		fn(context.Background(), ss)
	}
	s.mu.Lock()
	ss.hooked = hookedRegistered
	ended := ss.untracked
	s.mu.Unlock()
	if ended {
		s.unregistered(ss)
		close(ss.unhooked)
	}
}

// unregistered runs the unregister hooks of a session that ended.
func (s *Server) unregistered(ss *ServerSession) {
	s.mu.Lock()
	fns := s.hooks.unregister
	s.mu.Unlock()
	for _, fn := range fns {
		fn(context.Background(), ss)
	}
}

// Where a session is in its hooks (ServerSession.hooked); guarded by
// Server.mu.
const (
	hookedNone        = iota // not registered: no unregister either
	hookedRegistering        // the register hooks are running
	hookedRegistered         // they have run
)

// addNotificationHook adds fn to the functions every notification the
// client receives is shown to.
func (c *Client) addNotificationHook(fn func(context.Context, *ClientSession, *Request)) {
	if fn == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var fns []func(context.Context, *ClientSession, *Request)
	if p := c.notifyHooks.Load(); p != nil {
		fns = *p
	}
	fns = append(slices.Clip(fns), fn)
	c.notifyHooks.Store(&fns)
}

// sentParams is the extra of a message being sent: whether it is a
// request, and what hooks.Params returns for it, the params value it is
// sent with when the specification defines the method (nothing to decode).
func sentParams(method string, params any, raw json.RawMessage, request bool) *requestExtra {
	x := &requestExtra{outgoingRequest: request}
	if t, ok := paramsTypeOf[method]; ok && reflect.TypeOf(params) == t {
		x.typed, x.typedRaw = params, raw
	} else if !request {
		return nil // a custom method, or params a downgrade rewrote
	}
	return x
}

// paramsTypeOf is the type paramsTypes makes for each method.
var paramsTypeOf = func() map[string]reflect.Type {
	m := make(map[string]reflect.Type, len(paramsTypes))
	for method, mk := range paramsTypes {
		m[method] = reflect.TypeOf(mk())
	}
	return m
}()

// decodeRequest decodes r's params into p, or copies the value middleware
// already decoded (hooks.Params): a message's params are decoded once.
func decodeRequest[P any](r *Request, p *P) error {
	if d := decodedAs[P](r); d != nil {
		*p = *d
		return nil
	}
	return decodeParams(r.Params, p)
}
