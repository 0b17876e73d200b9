package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp/shared"
)

// ServerOptions configures a Server. The zero value is usable.
type ServerOptions struct {
	// Instructions tells clients how to use the server (sent in the
	// initialize result).
	Instructions string

	// Capabilities, if set, is advertised as it is. Otherwise the server
	// advertises what it has: tools, prompts, resources (with subscribe and
	// listChanged) once any is registered, completions when
	// CompletionHandler is set, and logging always.
	Capabilities *ServerCapabilities

	// CompletionHandler answers completion/complete.
	CompletionHandler func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)

	// InitializedHandler runs when a client has finished the handshake.
	// Like RootsListChangedHandler and ProgressHandler, it runs on the
	// session's notification lane: a call it makes to the client (ListRoots,
	// say) must use the ctx it was given, or the answer waits for the
	// handler to return (see jsonrpc.Handler).
	InitializedHandler func(ctx context.Context, ss *ServerSession)
	// RootsListChangedHandler runs on notifications/roots/list_changed.
	RootsListChangedHandler func(ctx context.Context, ss *ServerSession)
	// ProgressHandler receives progress the client reports for requests the
	// server sent (sampling, elicitation) that carried a progress token.
	ProgressHandler func(ctx context.Context, ss *ServerSession, p *ProgressNotificationParams)

	// PageSize is how many items one page of a list result holds.
	// Default 1000.
	PageSize int

	// MaxConcurrency bounds the requests one session handles at once
	// (default 64); MaxQueued bounds those waiting (default 1024).
	MaxConcurrency int
	MaxQueued      int
	// MaxQueuedNotifications bounds the notifications from one client
	// waiting to be handled (default 1024); beyond it they are dropped,
	// logged and shown to the Receiving middleware. Cancellation never
	// waits in that queue.
	MaxQueuedNotifications int

	// RequestTimeout bounds requests the server sends to the client
	// (sampling, elicitation, roots) that have no deadline. Default none.
	RequestTimeout time.Duration

	// Receiving wraps every incoming request and notification; Sending
	// wraps every outgoing one. Use them for tracing, metrics and logging.
	Receiving []Middleware
	Sending   []Middleware

	// CacheTTL and CacheScope are the caching hints (SEP-2549) put on
	// 2026-07-28 results of server/discover, the list methods and
	// resources/read, unless a handler set its own. Defaults: 0 (do not
	// reuse without asking again) and private.
	CacheTTL   time.Duration
	CacheScope CacheScope

	// RequestStateKey is the HMAC key that protects the requestState of
	// multi-round 2026-07-28 requests. Replicas behind one load balancer
	// must share it. Default: a random key per Server.
	RequestStateKey []byte
	// RequestStateTTL bounds how long a client may take to answer.
	// Default 10 minutes.
	RequestStateTTL time.Duration

	// Notifier carries resource updates and list changes between the
	// processes of one deployment, so that a change made in one reaches
	// clients connected to any other. Default: shared.NewMemoryNotifier,
	// for this Server alone.
	Notifier shared.Notifier

	// SkipOutputValidation turns off the check that the structured content
	// of a tool's result matches the tool's output schema before it is
	// sent (see Server.AddTool). Leave it off unless a benchmark says the
	// check matters: a client that validates (as the spec says it should)
	// rejects such a result anyway, with less to go on.
	SkipOutputValidation bool

	// Logger receives the server's own diagnostics. When nil, what a
	// client only sees as an internal error (-32603), a handler's panic
	// with its stack above all, is written on the process's stderr (level
	// Error, text), and the rest is dropped: a panic must leave a trace.
	// slog.New(slog.DiscardHandler) turns even that off.
	Logger *slog.Logger

	// Visible, if set, decides per request which features a caller may see
	// and use (see VisibleFunc): the lists leave out what it hides, with
	// pagination over the visible entries only, and tools/call, prompts/get,
	// resources/read and completion/complete answer a hidden feature as an
	// unknown one. 2026-07-28 results that depend on it are marked
	// cacheScope private. Server.AddVisibleFunc adds more functions.
	Visible VisibleFunc
}

// Server is an MCP server: a set of tools, resources, prompts and handlers
// that any number of sessions share. Features may be added and removed at any
// time; connected clients are told through list_changed notifications.
//
// A Server is safe for concurrent use.
type Server struct {
	impl *Implementation
	opts ServerOptions
	log  *slog.Logger

	tools     registry[*serverTool]
	prompts   registry[*serverPrompt]
	resources registry[*serverResource]
	templates registry[*serverTemplate]

	mw     mwStack                                         // Receiving middleware around route, Sending middleware
	toolMW atomic.Pointer[[]func(ToolHandler) ToolHandler] // hooks.AddToolMiddleware; nil: none
	hooks  sessionHooks                                    // hooks.OnRegisterSession, OnUnregisterSession; guarded by mu

	// stateKey (see ServerOptions.RequestStateKey) and instance, this
	// Server's id in notices (shared.Notice.Origin), are random unless given, and
	// made on first use (randomOnce, see random): the first read of the
	// system's randomness costs a starting process most of a millisecond,
	// which a server that never needs them should not pay.
	randomOnce sync.Once
	stateKey   []byte
	instance   string

	notifier shared.Notifier
	// Subscribed to notifier while serving sessions or listen streams
	// (retain, release).
	subMu       sync.Mutex
	users       int
	unsubscribe func()
	metaCache   metaCache // client capabilities and info of HandleStateless requests

	mu        sync.Mutex
	sessions  map[*ServerSession]struct{}
	listeners map[*listener]struct{} // open subscriptions/listen streams
	changed   map[string]*time.Timer // pending list_changed notifications, by method

	capsByShape [8]atomic.Pointer[ServerCapabilities] // see capabilities

	refused refusals // Add* failures, until the server serves

	methods      atomic.Pointer[methodTable]
	extensions   map[string]json.RawMessage   // capabilities.extensions; guarded by mu
	extRevisions map[string][]string          // Extension.Revisions of the extensions that have them; guarded by mu
	capsFns      []func(*ServerCapabilities)  // ExtendCapabilities; guarded by mu
	toolHook     atomic.Pointer[ToolCallHook] // SetToolCallHook
	visible      atomic.Pointer[visibleSet]   // ServerOptions.Visible and AddVisibleFunc; nil: everything visible
	listenHooks  []ListenHook                 // AddListenHook; guarded by mu

	serverJSONOnce sync.Once
	serverJSON     []byte // see serverInfoJSON
}

// NewServer returns a server that introduces itself with impl. opts may be
// nil.
func NewServer(impl *Implementation, opts *ServerOptions) *Server {
	if impl == nil {
		impl = &Implementation{Name: "gomcp-server", Version: "0.0.0"}
	}
	s := &Server{impl: impl, sessions: make(map[*ServerSession]struct{}), changed: make(map[string]*time.Timer)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 1000
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = errorsOnStderr
	}
	s.methods.Store(coreMethods())
	s.AddVisibleFunc(s.opts.Visible)
	s.mw.init(s.route, s.opts.Receiving, s.opts.Sending)
	s.notifier = s.opts.Notifier
	if s.notifier == nil {
		s.notifier = shared.NewMemoryNotifier()
	}
	return s
}

// retain and release count the sessions and listen streams the server
// serves: it hears the Notifier only while it has any, for a notice
// concerns only them. A Server made per HTTP request
// (mcphttp.NewHandlerFor) with a Notifier shared by a deployment is then
// left for the garbage collector once its session ends, instead of staying
// subscribed.
func (s *Server) retain() {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.users++; s.users == 1 {
		s.unsubscribe = s.notifier.Subscribe(s.hear)
	}
}

func (s *Server) release() {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.users--; s.users == 0 {
		s.unsubscribe()
		s.unsubscribe = nil
	}
}

// InstanceID returns the random id that tells this Server's notices
// (shared.Notice.Origin) from those of other processes.
func (s *Server) InstanceID() string { return s.random().instance }

// random makes the server's random values on first use and returns s.
func (s *Server) random() *Server {
	s.randomOnce.Do(func() {
		s.stateKey = s.opts.RequestStateKey
		if len(s.stateKey) == 0 {
			s.stateKey = make([]byte, 32)
			_, _ = rand.Read(s.stateKey)
		}
		s.instance = rand.Text()
	})
	return s
}

// Notifier returns the Notifier the server publishes through, so that a
// transport can carry its own notices on it.
func (s *Server) Notifier() shared.Notifier { return s.notifier }

// Implementation returns the server's self-description.
func (s *Server) Implementation() *Implementation { return s.impl }

// capabilities is what the server advertises.
func (s *Server) capabilities() *ServerCapabilities {
	if s.opts.Capabilities != nil {
		return s.opts.Capabilities
	}
	shape := 0
	if s.tools.len() > 0 {
		shape |= 1
	}
	if s.prompts.len() > 0 {
		shape |= 2
	}
	if s.resources.len() > 0 || s.templates.len() > 0 {
		shape |= 4
	}
	if c := s.capsByShape[shape].Load(); c != nil {
		return c
	}
	c := s.buildCapabilities()
	s.capsByShape[shape].Store(c)
	return c
}

// capabilitiesAt is capabilities as advertised in revision version: without
// the extensions whose Revisions leave it out.
func (s *Server) capabilitiesAt(version string) *ServerCapabilities {
	caps := s.capabilities()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out *ServerCapabilities
	for id, revs := range s.extRevisions {
		if _, ok := caps.Extensions[id]; !ok || slices.Contains(revs, version) {
			continue
		}
		if out == nil {
			c := *caps
			c.Extensions = maps.Clone(caps.Extensions)
			out = &c
		}
		delete(out.Extensions, id)
	}
	if out == nil {
		return caps
	}
	return out
}

// buildCapabilities computes what the server advertises. It depends only
// on the options and on which registries are empty, so capabilities caches
// one value per combination.
func (s *Server) buildCapabilities() *ServerCapabilities {
	caps := &ServerCapabilities{Logging: &LoggingCapabilities{}}
	if s.tools.len() > 0 {
		caps.Tools = &ToolCapabilities{ListChanged: true}
	}
	if s.prompts.len() > 0 {
		caps.Prompts = &PromptCapabilities{ListChanged: true}
	}
	if s.resources.len() > 0 || s.templates.len() > 0 {
		caps.Resources = &ResourceCapabilities{Subscribe: true, ListChanged: true}
	}
	if s.opts.CompletionHandler != nil {
		caps.Completions = &CompletionCapabilities{}
	}
	s.mu.Lock()
	if len(s.extensions) > 0 {
		caps.Extensions = maps.Clone(s.extensions)
	}
	for _, fn := range s.capsFns {
		fn(caps)
	}
	s.mu.Unlock()
	return caps
}

// Connect starts serving one client connection on stream and returns at
// once; the connection is served until the stream ends or Close is called.
// opts may be nil: a connection with no session id, as on stdio. With
// opts.State the session is rebuilt in the state it had elsewhere. A
// server with a refused registration whose error was never looked at
// answers every request with an error naming it (see RegistrationError).
func (s *Server) Connect(stream jsonrpc.Stream, opts *SessionOptions) *ServerSession {
	ss := &ServerSession{server: s, unhooked: make(chan struct{})}
	s.retain()
	var firstID int64
	if opts != nil {
		if opts.Store != nil {
			// The session may be served by several processes at once; their
			// requests to the client must not share ids (see
			// jsonrpc.ConnOptions.FirstID).
			firstID = 1<<32 + mrand.Int64N(1<<52-1<<32)
		}
		ss.id, ss.store = opts.ID, opts.Store
		if opts.State != nil {
			ss.restore(opts.State)
		}
		ss.state.Principal = opts.Principal
	}
	s.serving() // a refused registration nobody noticed: every request is refused (see route)
	jsonrpc.NewConn(stream, jsonrpc.ConnOptions{
		Bind:           func(c *jsonrpc.Conn) { ss.conn = c },
		Handler:        (*serverConnHandler)(ss),
		MaxConcurrency: s.opts.MaxConcurrency,
		MaxQueued:      s.opts.MaxQueued,
		CallTimeout:    s.opts.RequestTimeout,
		FirstID:        firstID,
		OnCancel:       ss.sendCancel,
		Barrier:        isBarrier,
		Logger:         s.log,

		MaxQueuedNotifications: s.opts.MaxQueuedNotifications,
		Batches:                ss.batchAllowed,
		OnReject:               ss.rejected,
		OnDone: func() {
			s.mu.Lock()
			delete(s.sessions, ss)
			ss.untracked = true
			hooked, registering := ss.hooked == hookedRegistered, ss.hooked == hookedRegistering
			s.mu.Unlock()
			s.release()
			if hooked {
				s.unregistered(ss)
			}
			if !registering { // else registered runs the unregister hooks once done
				close(ss.unhooked)
			}
		},
	})
	s.mu.Lock()
	hook := false
	if !ss.untracked { // the connection may already be over
		s.sessions[ss] = struct{}{}
		if hook = len(s.hooks.register)+len(s.hooks.unregister) > 0; hook {
			ss.hooked = hookedRegistering
		}
	}
	s.mu.Unlock()
	if opts != nil && opts.State != nil && ss.store != nil {
		// A session rebuilt from its store reads its state once more now
		// that it is among s.Sessions(): a change another process saved
		// after the caller's Load and announced before this copy was
		// tracked (shared.NoticeSessionChanged, which finds copies through
		// s.Sessions()) would otherwise never reach it. One more Load per
		// rebuild closes that window; later changes are announced to a
		// tracked copy.
		ctx, cancel := context.WithTimeout(context.Background(), rebuildReloadTimeout)
		ss.reload(ctx)
		cancel()
	}
	if hook {
		s.registered(ss)
	}
	return ss
}

// rebuildReloadTimeout bounds the second Load of a rebuilt session (see
// Server.Connect).
const rebuildReloadTimeout = 5 * time.Second

// receive runs an incoming message through the Receiving middleware and
// the route.
func (s *Server) receive(ctx context.Context, r *Request) (any, error) { return s.mw.receive(ctx, r) }

// isBarrier marks the messages a connection handles on its reader, before
// any later message: initialize (a client may pipeline requests behind it),
// cancellation, which must never wait behind a queue of notifications, and
// ping, which must be answered even when every handler slot and queue place
// is taken (a busy server is not a dead one); its handler does nothing.
func isBarrier(method string) bool {
	return method == MethodInitialize || method == NotificationCancelled || method == MethodPing
}

// Run serves one client on stream until the stream ends or ctx is done.
// It is how a stdio server runs: s.Run(ctx, transport.Stdio()). It serves
// nothing and returns an error wrapping ErrInvalidFeature if a refused
// registration's error was never looked at (see RegistrationError).
func (s *Server) Run(ctx context.Context, stream jsonrpc.Stream) error {
	if e := s.serving(); e != nil {
		return servingRefused(e.Message)
	}
	ss := s.Connect(stream, nil)
	select {
	case <-ctx.Done():
		ss.Close()
		ss.Wait()
		return ctx.Err()
	case <-ss.conn.Done():
		return ss.Wait()
	}
}

// Sessions returns the sessions connected now.
func (s *Server) Sessions() []*ServerSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// listChangedDelay coalesces bursts of feature changes into one notification.
const listChangedDelay = 10 * time.Millisecond

// notifyListChanged tells the clients of this Server that a list changed,
// after a short delay so that adding many features sends one notification.
// A feature list belongs to one Server: each process of a deployment
// registers its own and announces its own changes, so list changes are not
// published to the other processes (resource updates are).
func (s *Server) notifyListChanged(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if (len(s.sessions) == 0 && len(s.listeners) == 0) || s.changed[method] != nil {
		return
	}
	s.changed[method] = time.AfterFunc(listChangedDelay, func() {
		s.mu.Lock()
		delete(s.changed, method)
		s.mu.Unlock()
		s.hear(&shared.Notice{Method: method})
	})
}

// emptyParams encodes as {}.
type emptyParams struct{}

// ResourceUpdated tells every client subscribed to uri, through any process
// of the deployment (see ServerOptions.Notifier), that the resource changed
// (notifications/resources/updated).
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	s.publish(ctx, &shared.Notice{Method: NotificationResourceUpdated, URI: uri})
}

func (s *Server) publish(ctx context.Context, n *shared.Notice) {
	n.Origin = s.random().instance
	if n.ID == "" {
		n.ID = rand.Text()
	}
	if err := s.notifier.Publish(ctx, n); err != nil {
		s.log.Warn("mcp: notifier: publish", "method", n.Method, "err", err)
	}
}

// hear delivers a notice to the sessions and listen streams of this process.
func (s *Server) hear(n *shared.Notice) {
	ctx := context.Background()
	if n.ID != "" {
		ctx = context.WithValue(ctx, noticeKey{}, n.ID)
	}
	switch n.Method {
	case NotificationToolListChanged, NotificationPromptListChanged, NotificationResourceListChanged:
		fns := s.visibility()
		for _, ss := range s.Sessions() {
			if ss.initializeDone() && s.viewChanged(s.sessionView(fns, ss), &ss.prints, n.Method) {
				_ = ss.notify(ctx, n.Method, &emptyParams{})
			}
		}
		s.notifyListeners(n.Method, "", func(m *Meta) any { return &toolListChangedNotificationParams{Meta: m} })
	case NotificationResourceUpdated:
		uri := n.URI
		fns := s.visibility()
		for _, ss := range s.Sessions() {
			if ss.subscribed(uri) && s.readable(s.sessionView(fns, ss), uri) {
				_ = ss.notify(ctx, NotificationResourceUpdated, &ResourceUpdatedNotificationParams{URI: uri})
			}
		}
		s.notifyListeners(NotificationResourceUpdated, uri, func(m *Meta) any {
			return &ResourceUpdatedNotificationParams{Meta: m, URI: uri}
		})
	case shared.NoticeSessionChanged:
		if n.Origin == s.random().instance || n.Session == "" {
			return
		}
		for _, ss := range s.Sessions() {
			if ss.id == n.Session {
				ss.reload(ctx)
			}
		}
	}
}

// noticeKey is the context key of NoticeID.
type noticeKey struct{}

// NoticeID returns the id of the notice (Notice.ID) whose delivery the
// context is sending, "" if none: a transport's Stream.Write receives it
// with each notification a Server sends for a notice it heard from the
// Notifier. Every process that holds a copy of a session hears the notice
// and sends it; a transport keeping the session's messages in a store they
// share (mcphttp's EventStore) keeps one.
func NoticeID(ctx context.Context) string {
	id, _ := ctx.Value(noticeKey{}).(string)
	return id
}

// route dispatches one incoming request to its method handler.
func (s *Server) route(ctx context.Context, r *Request) (any, error) {
	if e := s.serving(); e != nil {
		return refusedRequest(r, e)
	}
	if r.rc != nil {
		return s.routeStateless(ctx, r)
	}
	ss := r.session()
	m, ok := s.methods.Load().stateful[r.Method]
	if ok && ss.initializeDone() && !m.in(features(ss.ProtocolVersion())) {
		ok = false
	}
	if !ok {
		if r.IsNotification() {
			return nil, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", r.Method)
	}
	if !m.beforeInit && !ss.initializeDone() {
		if r.IsNotification() {
			return nil, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s before initialize; send initialize first (or, for protocol revision 2026-07-28, put io.modelcontextprotocol/protocolVersion in params._meta)", r.Method)
	}
	if m.capability != nil && !m.capability(s.capabilities()) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s (capability not offered)", r.Method)
	}
	res, err := m.handle(s, ctx, r)
	if err != nil || res == nil {
		return res, err
	}
	// Fields the session's revision lacks are not sent to its client.
	return downgradeResult(features(ss.ProtocolVersion()), r.Method, res), nil
}

// serverMethod describes one method the server answers.
type serverMethod struct {
	handle     func(s *Server, ctx context.Context, r *Request) (any, error)
	beforeInit bool                           // allowed before the handshake
	capability func(*ServerCapabilities) bool // the capability the method needs, if any
	revisions  []string                       // the revisions it exists in; nil: all of its lifecycle
	core       bool                           // a method of the core protocol
}

// in reports whether the method exists in revision f.
func (m *serverMethod) in(f versionFeatures) bool {
	return m.revisions == nil || slices.Contains(m.revisions, f.version)
}

// methodTable is a Server's method tables, one per lifecycle. It is
// replaced, never modified, so that routing reads it without a lock.
type methodTable struct {
	stateful  map[string]serverMethod
	stateless map[string]serverMethod
}

// coreMethods returns the method tables of the core protocol.
func coreMethods() *methodTable {
	hasTools := func(c *ServerCapabilities) bool { return c.Tools != nil }
	hasPrompts := func(c *ServerCapabilities) bool { return c.Prompts != nil }
	hasResources := func(c *ServerCapabilities) bool { return c.Resources != nil }
	hasSubscribe := func(c *ServerCapabilities) bool { return c.Resources != nil && c.Resources.Subscribe }
	hasLogging := func(c *ServerCapabilities) bool { return c.Logging != nil }
	hasCompletions := func(c *ServerCapabilities) bool { return c.Completions != nil }
	t := &methodTable{
		stateful: map[string]serverMethod{
			MethodInitialize:             {handle: (*Server).handleInitialize, beforeInit: true},
			MethodPing:                   {handle: handlePing, beforeInit: true},
			NotificationInitialized:      {handle: (*Server).handleInitialized, beforeInit: true},
			NotificationCancelled:        {handle: (*Server).handleCancelled, beforeInit: true},
			NotificationProgress:         {handle: (*Server).handleProgress, beforeInit: true},
			NotificationRootsListChanged: {handle: (*Server).handleRootsListChanged},
			MethodToolsList:              {handle: (*Server).handleListTools, capability: hasTools},
			MethodToolsCall:              {handle: (*Server).handleCallTool, capability: hasTools},
			MethodPromptsList:            {handle: (*Server).handleListPrompts, capability: hasPrompts},
			MethodPromptsGet:             {handle: (*Server).handleGetPrompt, capability: hasPrompts},
			MethodResourcesList:          {handle: (*Server).handleListResources, capability: hasResources},
			MethodResourcesTemplatesList: {handle: (*Server).handleListResourceTemplates, capability: hasResources},
			MethodResourcesRead:          {handle: (*Server).handleReadResource, capability: hasResources},
			MethodResourcesSubscribe:     {handle: (*Server).handleSubscribe, capability: hasSubscribe},
			MethodResourcesUnsubscribe:   {handle: (*Server).handleUnsubscribe, capability: hasSubscribe},
			MethodCompletionComplete:     {handle: (*Server).handleComplete},
			MethodLoggingSetLevel:        {handle: (*Server).handleSetLevel, capability: hasLogging},
		},
		stateless: map[string]serverMethod{
			MethodServerDiscover:      {handle: (*Server).handleDiscover},
			MethodSubscriptionsListen: {handle: (*Server).handleListen},
			NotificationCancelled:     {handle: (*Server).handleCancelled},
			MethodCompletionComplete:  {handle: (*Server).handleComplete, capability: hasCompletions},
		},
	}
	for _, name := range []string{
		MethodToolsList, MethodToolsCall, MethodPromptsList, MethodPromptsGet,
		MethodResourcesList, MethodResourcesTemplatesList, MethodResourcesRead,
	} {
		t.stateless[name] = t.stateful[name]
	}
	for _, m := range []map[string]serverMethod{t.stateful, t.stateless} {
		for name, sm := range m {
			sm.core = true
			m[name] = sm
		}
	}
	return t
}

func handlePing(*Server, context.Context, *Request) (any, error) { return &emptyParams{}, nil }
