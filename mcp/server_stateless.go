package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
)

// The stateless lifecycle of 2026-07-28: no initialize, every request carries
// its client's version, capabilities and identity in params._meta, servers
// never send requests, and list changes reach clients only on
// subscriptions/listen streams.
//
// A session that has not been initialized serves stateless requests; one that
// has is a stateful session. So one server (and one Streamable HTTP endpoint or
// stdio process) speaks every revision.

// requestContext is what a 2026-07-28 request tells the server about its
// client; requests of stateful sessions have none (the session holds it
// instead). It is made when the message arrives, with out, and
// routeStateless fills in the client's context once it has checked _meta.
type requestContext struct {
	out    outbound // where messages about the request go: its connection, or its HTTP response
	caller string   // the principal its transport named (callerOf)
	ver    string
	caps   *ClientCapabilities
	info   *Implementation
	level  LoggingLevel

	// Multi-round-trip input (MRTR): for the methods that call beginInput
	// (tools/call, prompts/get, resources/read, typed custom methods).
	method    string
	binding   string                    // what requestState is bound to
	bindingFn func() string             // computes binding
	responses map[string]*InputResponse // answers of this and earlier rounds
	asked     map[string]*InputRequest  // questions raised in this round
	mu        sync.Mutex                // guards asked (handlers may ask concurrently)
}

// statelessVersions lists the stateless revisions this package serves.
func statelessVersions() []string {
	var out []string
	for _, v := range supportedVersions {
		if features(v).stateless {
			out = append(out, v)
		}
	}
	return out
}

// peekMeta reads only params._meta. It is used for messages on sessions that
// were never initialized, to tell a stateless request from a stateful session's.
//
// The cache of decoded client context is asked for only when there is a
// _meta to decode, so a connection that never carries one never makes it.
func peekMeta(params json.RawMessage, cache interface{ cache() *metaCache }) *Meta {
	raw := metaMember(params)
	if raw == nil {
		return nil
	}
	c := cache.cache()
	m := new(Meta)
	if m.decode(raw, c) != nil {
		return nil
	}
	return m
}

// isStateless reports whether r, on a connection that was never
// initialized, is served by the stateless lifecycle: it declares a protocol
// version in _meta, or it is not one of the handshake's messages.
func isStateless(r *Request, meta *Meta) bool {
	if meta != nil && meta.ProtocolVersion != "" {
		return true
	}
	switch r.Method {
	case MethodInitialize, MethodPing, NotificationInitialized, NotificationCancelled, NotificationProgress:
		return false
	}
	return !r.IsNotification()
}

// Errors of the stateless lifecycle.

// MissingCapabilityError is the 2026-07-28 error for a request the server
// cannot serve without a capability the client did not declare (-32021).
func MissingCapabilityError(required *ClientCapabilities) *jsonrpc.Error {
	return jsonrpc.NewError(CodeMissingRequiredClientCapability, "Missing required client capability").
		WithData(map[string]any{"requiredCapabilities": required})
}

func unsupportedVersionError(requested string) *jsonrpc.Error {
	return jsonrpc.NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version").
		WithData(map[string]any{"supported": statelessVersions(), "requested": requested})
}

// errNoLifecycle answers a request that neither follows a handshake nor
// carries the stateless revision's _meta: it says both ways to fix it.
const errNoLifecycle = "Invalid params: missing _meta. This server speaks both lifecycles: " +
	"either send initialize first (protocol revisions up to 2025-11-25), " +
	"or put io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities " +
	"in the params._meta of every request (2026-07-28)"

// routeStateless serves one request of the stateless lifecycle, checking it
// in the order the specification gives: _meta, version, method, capability.
func (s *Server) routeStateless(ctx context.Context, r *Request) (any, error) {
	meta := r.meta
	if r.IsNotification() {
		if m, ok := s.methods.Load().stateless[r.Method]; ok {
			if meta != nil {
				r.rc.fill(r.Method, meta) // what the client said of itself, for the handler
			}
			return m.handle(s, ctx, r)
		}
		return nil, nil
	}
	switch {
	case meta == nil:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, errNoLifecycle)
	case meta.ProtocolVersion == "":
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: missing _meta io.modelcontextprotocol/protocolVersion")
	case meta.ClientCapabilities == nil:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: missing _meta io.modelcontextprotocol/clientCapabilities")
	}
	if !features(meta.ProtocolVersion).stateless {
		return nil, unsupportedVersionError(meta.ProtocolVersion)
	}
	m, ok := s.methods.Load().stateless[r.Method]
	if !ok || !m.in(features(meta.ProtocolVersion)) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", r.Method)
	}
	caps := s.capabilities()
	if m.capability != nil && !m.capability(caps) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (capability not offered)", r.Method)
	}
	r.rc.fill(r.Method, meta)
	res, err := m.handle(s, ctx, r)
	if err != nil || res == nil {
		return res, err
	}
	if _, typed := res.(typedResult); !typed && !m.core {
		// A custom method's result of its own type: every 2026-07-28
		// result still carries resultType, and the server's identity
		// when the type has a _meta (implements Result).
		s.stampServerInfo(res)
		s.privateWithRules(res)
		return withResultType(res)
	}
	s.stampResult(res, r.Method)
	return downgradeResult(features(meta.ProtocolVersion), r.Method, res), nil
}

// newRequestContext is the context of a stateless request that came on
// out, filled from its _meta (when it has one) before any middleware runs,
// so that Request.Caller tells middleware what the client said of itself.
func newRequestContext(ctx context.Context, out outbound, method string, meta *Meta) *requestContext {
	rc := &requestContext{out: out, caller: callerOf(ctx)}
	if meta != nil {
		rc.fill(method, meta)
	}
	return rc
}

// fill records the client context a request's _meta carries.
func (rc *requestContext) fill(method string, meta *Meta) {
	rc.ver, rc.caps, rc.info, rc.level = meta.ProtocolVersion, meta.ClientCapabilities, meta.ClientInfo, meta.LogLevel
	rc.method = method
	if rc.caps == nil { // a notification need not declare them; the handle never returns nil
		rc.caps = &ClientCapabilities{}
	}
}

// withResultType encodes a result that is a JSON object and adds
// "resultType":"complete" to it unless it has a resultType already.
func withResultType(res any) (any, error) {
	raw, err := jsonrpc.Marshal(res)
	if err != nil {
		return nil, err
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return raw, nil
	}
	has := false
	if eachMember(raw, func(k, _ []byte) error {
		has = has || string(k) == `"resultType"`
		return nil
	}) != nil || has {
		return raw, nil
	}
	out := make([]byte, 0, len(raw)+26)
	out = append(out, `{"resultType":"complete"`...)
	if rest := raw[skipSpace(raw, i+1):]; len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	out = append(out, raw[i+1:]...)
	return json.RawMessage(out), nil
}

// stampResult sets what every 2026-07-28 result carries: resultType
// (complete unless the handler chose another), the server's identity in
// _meta, and caching hints on cacheable results.
func (s *Server) stampResult(res any, method string) {
	complete := true
	if t, ok := res.(typedResult); ok {
		rt := t.resultTypeField()
		if *rt == "" {
			*rt = ResultTypeComplete
		}
		complete = *rt == ResultTypeComplete
	}
	s.stampServerInfo(res)
	c, ok := res.(cacheableResult)
	if !ok || !complete {
		return
	}
	switch method {
	case MethodServerDiscover, MethodToolsList, MethodPromptsList, MethodResourcesList, MethodResourcesTemplatesList, MethodResourcesRead:
		ch := c.cacheHintsField()
		if ch.TTLMs == nil {
			ttl := s.opts.CacheTTL.Milliseconds()
			ch.TTLMs = &ttl
		}
		if ch.CacheScope == "" {
			ch.CacheScope = s.cacheScope()
		}
		if method != MethodServerDiscover && s.visibility() != nil {
			// What the caller sees decided the result: no one else may
			// be given it from a shared cache.
			ch.CacheScope = CacheScopePrivate
		}
	}
}

// privateWithRules marks a custom method's cacheable result private when a
// visibility rule is installed: an extension's result (skills/list, say)
// may hold what the caller sees (Server.Sees), and must not be shared from
// a cache any more than the core lists.
func (s *Server) privateWithRules(res any) {
	if c, ok := res.(cacheableResult); ok && s.visibility() != nil {
		if ch := c.cacheHintsField(); ch.CacheScope != CacheScopePrivate {
			ch.CacheScope = CacheScopePrivate
		}
	}
}

// stampServerInfo puts the server's identity in the _meta of res, if res
// is a Result whose _meta can be replaced (see Result), leaving the rest
// of its _meta as it was.
func (s *Server) stampServerInfo(res any) {
	r, ok := res.(Result)
	if !ok {
		return
	}
	var set func(*Meta)
	switch w := res.(type) {
	case metaSetter:
		set = w.setMeta
	case customMetaSetter:
		set = w.SetMeta
	default:
		return
	}
	m := &Meta{}
	if old := r.GetMeta(); old != nil {
		*m = *old
	}
	m.ServerInfo = s.impl
	m.serverJSON = s.serverInfoJSON()
	set(m)
}

func (s *Server) cacheScope() CacheScope {
	if s.opts.CacheScope != "" {
		return s.opts.CacheScope
	}
	return CacheScopePrivate
}

func (s *Server) handleDiscover(_ context.Context, r *Request) (any, error) {
	return &DiscoverResult{
		SupportedVersions: supportedVersions,
		Capabilities:      s.capabilities(),
		Instructions:      s.opts.Instructions,
	}, nil
}

// listener is one open subscriptions/listen stream.
type listener struct {
	out    outbound
	ctx    context.Context // the listen request's context: writes go to its stream
	id     jsonrpc.ID
	filter SubscriptionFilter
	sendMu sync.Mutex // held while the acknowledgement is written, so nothing overtakes it
	view   view       // what its client sees (per-request visibility)
	prints viewPrints // what it was last shown of each list
}

func (l *listener) meta() *Meta { return &Meta{SubscriptionID: l.id} }

func (l *listener) wants(method, uri string) bool {
	switch method {
	case NotificationToolListChanged:
		return l.filter.ToolsListChanged
	case NotificationPromptListChanged:
		return l.filter.PromptsListChanged
	case NotificationResourceListChanged:
		return l.filter.ResourcesListChanged
	case NotificationResourceUpdated:
		for _, u := range l.filter.ResourceSubscriptions {
			if u == uri {
				return true
			}
		}
	}
	return false
}

// handleListen serves subscriptions/listen: it acknowledges the filter it
// will honour, then streams matching notifications, each tagged with the
// listen request's id, until the client goes away (no response is sent
// then) or the session ends (the listen result is sent).
func (s *Server) handleListen(ctx context.Context, r *Request) (any, error) {
	var p ListenParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	caps := s.capabilities()
	var ack SubscriptionFilter
	if caps.Tools != nil && caps.Tools.ListChanged {
		ack.ToolsListChanged = p.Notifications.ToolsListChanged
	}
	if caps.Prompts != nil && caps.Prompts.ListChanged {
		ack.PromptsListChanged = p.Notifications.PromptsListChanged
	}
	if caps.Resources != nil && caps.Resources.ListChanged {
		ack.ResourcesListChanged = p.Notifications.ResourcesListChanged
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		ack.ResourceSubscriptions = p.Notifications.ResourceSubscriptions
	}
	s.mu.Lock()
	hooks := s.listenHooks
	s.mu.Unlock()
	for _, h := range hooks {
		if err := h(ctx, r, &p.Notifications, &ack); err != nil {
			return nil, err
		}
	}
	out := r.rc.out
	l := &listener{out: out, ctx: ctx, id: r.ID, filter: ack, view: s.viewOf(ctx, r)}
	s.remember(l.view, &l.prints)
	// Register before acknowledging, so that a client acting on the
	// acknowledgement misses no change that follows it, and hold sendMu
	// until the acknowledgement is written, so that it stays the first
	// message of the stream.
	s.retain()
	defer s.release()
	l.sendMu.Lock()
	s.mu.Lock()
	if s.listeners == nil {
		s.listeners = make(map[*listener]struct{})
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	err := out.notify(ctx, NotificationSubscriptionsAcknowledged, &SubscriptionsAcknowledgedNotificationParams{Meta: l.meta(), Notifications: ack})
	l.sendMu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
	case <-out.gone():
	}
	// The client cancelled (no response goes out), went away, or the
	// session is ending: say goodbye with the listen result.
	return &ListenResult{Meta: l.meta()}, nil
}

// notifyListeners sends a change notification to every listen stream whose
// filter asks for it.
func (s *Server) notifyListeners(method, uri string, params func(*Meta) any) {
	s.mu.Lock()
	var targets []*listener
	for l := range s.listeners {
		if l.wants(method, uri) {
			targets = append(targets, l)
		}
	}
	s.mu.Unlock()
	for _, l := range targets {
		if !s.listenerSees(l, method, uri) {
			continue
		}
		l.sendMu.Lock()
		_ = l.out.notify(l.ctx, method, params(l.meta()))
		l.sendMu.Unlock()
	}
}

// listenerSees reports whether a change notification concerns what the
// client of l sees: a list whose view changed, a resource it may read.
func (s *Server) listenerSees(l *listener, method, uri string) bool {
	if method == NotificationResourceUpdated {
		return s.readable(l.view, uri)
	}
	return s.viewChanged(l.view, &l.prints, method)
}

// serverInfoJSON returns the server's identity as a _meta member, encoded
// once.
func (s *Server) serverInfoJSON() []byte {
	s.serverJSONOnce.Do(func() {
		raw, err := Meta{ServerInfo: s.impl}.MarshalJSON()
		if err == nil && len(raw) > 2 {
			s.serverJSON = raw[1 : len(raw)-1]
		}
	})
	return s.serverJSON
}
