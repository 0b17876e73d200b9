package mcp

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
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

	// Logger receives the server's own diagnostics. Default: discard.
	Logger *slog.Logger
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

	receive MethodHandler // Receiving middleware around route
	send    Middleware    // Sending middleware, composed

	stateKey []byte // see ServerOptions.RequestStateKey

	mu        sync.Mutex
	sessions  map[*ServerSession]struct{}
	listeners map[*listener]struct{} // open subscriptions/listen streams
	changed   map[string]*time.Timer // pending list_changed notifications, by method

	capsByShape [8]atomic.Pointer[ServerCapabilities] // see capabilities

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
	s.stateKey = s.opts.RequestStateKey
	if len(s.stateKey) == 0 {
		s.stateKey = make([]byte, 32)
		_, _ = rand.Read(s.stateKey)
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.receive = chain(s.route, s.opts.Receiving)
	s.send = func(next MethodHandler) MethodHandler { return chain(next, s.opts.Sending) }
	return s
}

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
	return caps
}

// Connect starts serving one client on stream and returns at once. The
// session ends when the stream does, or on ss.Close.
func (s *Server) Connect(ctx context.Context, stream jsonrpc.Stream) (*ServerSession, error) {
	ss := &ServerSession{server: s, logLevel: levelUnset}
	jsonrpc.NewConn(stream, jsonrpc.ConnOptions{
		Bind:           func(c *jsonrpc.Conn) { ss.conn = c },
		Handler:        ss,
		MaxConcurrency: s.opts.MaxConcurrency,
		MaxQueued:      s.opts.MaxQueued,
		CallTimeout:    s.opts.RequestTimeout,
		OnCancel:       ss.sendCancel,
		Barrier:        isInitialize,
		Logger:         s.log,
		OnDone: func() {
			s.mu.Lock()
			delete(s.sessions, ss)
			ss.untracked = true
			s.mu.Unlock()
		},
	})
	s.mu.Lock()
	if !ss.untracked { // the connection may already be over
		s.sessions[ss] = struct{}{}
	}
	s.mu.Unlock()
	return ss, nil
}

func isInitialize(method string) bool { return method == MethodInitialize }

// Run serves one client on stream until the stream ends or ctx is done.
// It is how a stdio server runs: s.Run(ctx, transport.Stdio()).
func (s *Server) Run(ctx context.Context, stream jsonrpc.Stream) error {
	ss, err := s.Connect(ctx, stream)
	if err != nil {
		return err
	}
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

// notifyListChanged tells every initialized session that a list changed,
// after a short delay so that adding many features sends one notification.
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
		for _, ss := range s.Sessions() {
			if ss.initializeDone() {
				_ = ss.notify(context.Background(), method, &emptyParams{})
			}
		}
		s.notifyListeners(method, "", func(m *Meta) any { return &ToolListChangedParams{Meta: m} })
	})
}

// emptyParams encodes as {}.
type emptyParams struct{}

// ResourceUpdated tells every session subscribed to uri that the resource
// changed (notifications/resources/updated).
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	for _, ss := range s.Sessions() {
		if ss.subscribed(uri) {
			_ = ss.notify(ctx, NotificationResourceUpdated, &ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	s.notifyListeners(NotificationResourceUpdated, uri, func(m *Meta) any {
		return &ResourceUpdatedNotificationParams{Meta: m, URI: uri}
	})
}

// route dispatches one incoming request to its method handler.
func (s *Server) route(ctx context.Context, r *Request) (any, error) {
	ss := r.Session.(*ServerSession)
	if !ss.initializeDone() {
		if meta := peekMeta(r.Params, &ss.metaCache); isModern(r, meta) {
			r.meta = meta
			return s.routeModern(ctx, ss, r, meta)
		}
	}
	m, ok := serverMethods[r.Method]
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
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s before initialize", r.Method)
	}
	if m.capability != nil && !m.capability(s.capabilities()) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s (capability not offered)", r.Method)
	}
	return m.handle(ss, ctx, r)
}

// serverMethod describes one method the server answers.
type serverMethod struct {
	handle     func(ss *ServerSession, ctx context.Context, r *Request) (any, error)
	beforeInit bool                           // allowed before the handshake
	capability func(*ServerCapabilities) bool // the capability the method needs, if any
}

// serverMethods is the method table: every request and notification a
// server answers, in one place.
var serverMethods map[string]serverMethod

func init() {
	hasTools := func(c *ServerCapabilities) bool { return c.Tools != nil }
	hasPrompts := func(c *ServerCapabilities) bool { return c.Prompts != nil }
	hasResources := func(c *ServerCapabilities) bool { return c.Resources != nil }
	hasSubscribe := func(c *ServerCapabilities) bool { return c.Resources != nil && c.Resources.Subscribe }
	hasLogging := func(c *ServerCapabilities) bool { return c.Logging != nil }
	serverMethods = map[string]serverMethod{
		MethodInitialize:             {handle: (*ServerSession).handleInitialize, beforeInit: true},
		MethodPing:                   {handle: handlePing, beforeInit: true},
		NotificationInitialized:      {handle: (*ServerSession).handleInitialized, beforeInit: true},
		NotificationCancelled:        {handle: handleCancelled, beforeInit: true},
		NotificationProgress:         {handle: (*ServerSession).handleProgress, beforeInit: true},
		NotificationRootsListChanged: {handle: (*ServerSession).handleRootsListChanged},
		MethodToolsList:              {handle: (*ServerSession).handleListTools, capability: hasTools},
		MethodToolsCall:              {handle: (*ServerSession).handleCallTool, capability: hasTools},
		MethodPromptsList:            {handle: (*ServerSession).handleListPrompts, capability: hasPrompts},
		MethodPromptsGet:             {handle: (*ServerSession).handleGetPrompt, capability: hasPrompts},
		MethodResourcesList:          {handle: (*ServerSession).handleListResources, capability: hasResources},
		MethodResourcesTemplatesList: {handle: (*ServerSession).handleListResourceTemplates, capability: hasResources},
		MethodResourcesRead:          {handle: (*ServerSession).handleReadResource, capability: hasResources},
		MethodResourcesSubscribe:     {handle: (*ServerSession).handleSubscribe, capability: hasSubscribe},
		MethodResourcesUnsubscribe:   {handle: (*ServerSession).handleUnsubscribe, capability: hasSubscribe},
		MethodCompletionComplete:     {handle: (*ServerSession).handleComplete},
		MethodLoggingSetLevel:        {handle: (*ServerSession).handleSetLevel, capability: hasLogging},
	}
}

func handlePing(*ServerSession, context.Context, *Request) (any, error) { return &emptyParams{}, nil }
