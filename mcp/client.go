package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
)

// ClientOptions configures a Client. The zero value is usable: such a client
// declares no capabilities and ignores server notifications.
type ClientOptions struct {
	// ProtocolVersion is the newest revision the client asks for. Default
	// LatestVersion: the client probes with server/discover and speaks
	// 2026-07-28 to servers that answer, and falls back to initialize (at
	// LatestStatefulVersion) for the others. A stateful revision skips the
	// probe and asks for that revision in initialize. The client accepts
	// any revision the server offers that this package supports.
	ProtocolVersion string
	// ProbeTimeout bounds the server/discover probe, and on a 2026-07-28
	// session Connect's wait for the acknowledgement of the listen stream
	// it opens for the list-changed handlers. Default 3s.
	ProbeTimeout time.Duration

	// Capabilities, if set, is declared as it is. Otherwise the client
	// declares sampling, elicitation and roots according to the handlers
	// and roots it has.
	Capabilities *ClientCapabilities

	// CreateMessageHandler answers sampling/createMessage. Setting it
	// declares the sampling capability (with tools support).
	CreateMessageHandler func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error)
	// ElicitationHandler answers elicitation/create. Setting it declares
	// the elicitation capability in form mode, and in URL mode too when
	// ElicitationURL is true. Defaults in the requested schema are filled
	// into accepted content that leaves them out (SEP-1034).
	ElicitationHandler func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error)
	ElicitationURL     bool
	// ElicitationCompleteHandler receives notifications/elicitation/complete.
	ElicitationCompleteHandler func(ctx context.Context, cs *ClientSession, p *ElicitationCompleteNotificationParams)

	// Roots are the roots offered to servers (roots/list); see also
	// Client.SetRoots. A non-nil slice declares the roots capability.
	Roots []*Root

	// ToolListChangedHandler, PromptListChangedHandler and
	// ResourceListChangedHandler receive notifications/*/list_changed, at
	// every revision. A stateful server (2024-11-05 to 2025-11-25) sends
	// them on the session by itself. A 2026-07-28 server sends them only on
	// a subscriptions/listen stream, so when any of the three is set,
	// Connect opens one for the session, asking for the kinds whose handler
	// is set and that the server offers listChanged for; it returns once the
	// server acknowledged the stream, so no later change is missed, and the
	// stream ends when the session is closed.
	ToolListChangedHandler     func(ctx context.Context, cs *ClientSession)
	PromptListChangedHandler   func(ctx context.Context, cs *ClientSession)
	ResourceListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ResourceUpdatedHandler receives notifications/resources/updated for
	// the resources the client subscribed to: with ClientSession.Subscribe
	// on a stateful session, and on a 2026-07-28 session, where the URIs
	// are filters of a listen request, by running ClientSession.Listen with
	// SubscriptionFilter.ResourceSubscriptions for as long as the updates
	// matter.
	ResourceUpdatedHandler func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedNotificationParams)
	// LoggingMessageHandler receives notifications/message.
	//
	// The notification handlers above run one at a time, in the order the
	// server sent the notifications, and each has returned before any
	// response the server sent after its notification reaches its caller
	// (so a tool's log lines are all handled when CallTool returns). A
	// handler that calls the session (ListTools on a list change, say) must
	// pass the ctx it was given: a call made with another context waits for
	// the handler to return, so waiting for it would last until that
	// context ends.
	LoggingMessageHandler func(ctx context.Context, cs *ClientSession, p *LoggingMessageNotificationParams)

	// RequestTimeout bounds every request that has no deadline of its own.
	// Default none.
	RequestTimeout time.Duration
	// MaxConcurrency bounds server requests handled at once (default 64).
	MaxConcurrency int

	// Receiving and Sending wrap every incoming and outgoing message.
	Receiving []Middleware
	Sending   []Middleware

	// Logger receives the client's diagnostics. Default: discard.
	Logger *slog.Logger
}

// Client is an MCP client: an identity and a set of handlers, used to open
// sessions with servers. It is safe for concurrent use.
type Client struct {
	impl *Implementation
	opts ClientOptions
	log  *slog.Logger
	mw   mwStack // Receiving middleware around route, Sending middleware

	mu       sync.Mutex
	roots    []*Root
	sessions map[*ClientSession]struct{}
	methods  map[string]MethodHandler // AddMethod's

	notifyHooks atomic.Pointer[[]func(context.Context, *ClientSession, *Request)] // hooks.OnNotification; nil: none
	rootsFn     atomic.Pointer[rootsFunc]                                         // hooks.OnListRoots; nil: c.roots

	clientOnce sync.Once
	caps       *ClientCapabilities // capabilities(), computed once
	clientJSON []byte              // caps and impl as _meta members
	// callerJSON holds, by the *ClientCapabilities a request declares
	// instead (hooks.WithClientCapabilities), those joined with the
	// client's own extensions and their encoding (*callerEntry), for at
	// most maxCallerJSON of them.
	callerJSON  sync.Map
	callerCount atomic.Int32
}

// maxCallerJSON bounds Client.callerJSON: a proxy declares one of a few
// capability sets (the gateway's are interned), and a caller that makes
// new ones for every request gets them encoded every time.
const maxCallerJSON = 256

// callerMeta is clientMeta for caps declared instead of the client's
// (hooks.WithClientCapabilities): caps with the client's own extensions
// joined in (caps' win on a key), and their encoding.
func (c *Client) callerMeta(caps *ClientCapabilities) (*ClientCapabilities, []byte) {
	if v, ok := c.callerJSON.Load(caps); ok {
		e := v.(*callerEntry)
		return e.caps, e.raw
	}
	own, _ := c.clientMeta()
	joined := withExtensions(caps, own.Extensions, nil)
	m := Meta{ClientCapabilities: joined, ClientInfo: c.impl}
	raw, err := m.MarshalJSON()
	if err != nil || len(raw) <= 2 {
		return joined, nil
	}
	raw = raw[1 : len(raw)-1]
	if c.callerCount.Add(1) <= maxCallerJSON {
		c.callerJSON.Store(caps, &callerEntry{joined, raw})
	}
	return joined, raw
}

// callerEntry is what Client.callerJSON keeps of one caller's capabilities.
type callerEntry struct {
	caps *ClientCapabilities
	raw  []byte
}

// withExtensions returns c with its extensions joined to under and over:
// on a key, over's win over c's, and c's over under's. It returns c itself
// when both are empty, and never changes c.
func withExtensions(c *ClientCapabilities, under, over map[string]json.RawMessage) *ClientCapabilities {
	if len(under) == 0 && len(over) == 0 {
		return c
	}
	out := *c
	out.Extensions = make(map[string]json.RawMessage, len(under)+len(c.Extensions)+len(over))
	maps.Copy(out.Extensions, under)
	maps.Copy(out.Extensions, c.Extensions)
	maps.Copy(out.Extensions, over)
	return &out
}

// clientMeta returns the client's capabilities and their _meta encoding
// (with its identity), computed once: they never change.
func (c *Client) clientMeta() (*ClientCapabilities, []byte) {
	c.clientOnce.Do(func() {
		c.caps = c.capabilities()
		m := Meta{ClientCapabilities: c.caps, ClientInfo: c.impl}
		raw, err := m.MarshalJSON()
		if err == nil && len(raw) > 2 {
			c.clientJSON = raw[1 : len(raw)-1]
		}
	})
	return c.caps, c.clientJSON
}

// NewClient returns a client that introduces itself with impl. opts may be
// nil.
func NewClient(impl *Implementation, opts *ClientOptions) *Client {
	if impl == nil {
		impl = &Implementation{Name: "gomcp-client", Version: "0.0.0"}
	}
	c := &Client{impl: impl, sessions: make(map[*ClientSession]struct{})}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.ProtocolVersion == "" {
		c.opts.ProtocolVersion = LatestVersion
	}
	c.roots = slices.Clone(c.opts.Roots)
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.mw.init(c.route, c.opts.Receiving, c.opts.Sending)
	return c
}

func (c *Client) capabilities() *ClientCapabilities {
	if c.opts.Capabilities != nil {
		return c.opts.Capabilities
	}
	caps := &ClientCapabilities{}
	if c.opts.CreateMessageHandler != nil {
		caps.Sampling = &SamplingCapabilities{Tools: &struct{}{}}
	}
	if c.opts.ElicitationHandler != nil {
		caps.Elicitation = &ElicitationCapabilities{Form: &struct{}{}}
		if c.opts.ElicitationURL {
			caps.Elicitation.URL = &struct{}{}
		}
	}
	if c.opts.Roots != nil {
		caps.Roots = &RootCapabilities{ListChanged: true}
	}
	return caps
}

// SetRoots replaces the roots offered to servers and tells every connected
// server (notifications/roots/list_changed) when the client declared the
// roots capability with listChanged and the session's revision has that
// notification.
func (c *Client) SetRoots(roots ...*Root) {
	c.mu.Lock()
	c.roots = slices.Clone(roots)
	sessions := make([]*ClientSession, 0, len(c.sessions))
	for cs := range c.sessions {
		sessions = append(sessions, cs)
	}
	c.mu.Unlock()
	if caps := c.capabilities(); caps.Roots == nil || !caps.Roots.ListChanged {
		return // the client never offered to announce changes
	}
	for _, cs := range sessions {
		if features(cs.ProtocolVersion()).rootsListChanged {
			_ = cs.notify(context.Background(), NotificationRootsListChanged, &emptyParams{})
		}
	}
}

// ClientSession is a connection to one server, after the handshake.
type ClientSession struct {
	client *Client
	conn   *jsonrpc.Conn
	stream jsonrpc.Stream
	init   *InitializeResult
	ready  atomic.Bool // initialize answered: cancellations may be sent

	// The result of a later initialize the stream made under the session
	// (see reinitializer), and the bytes it was decoded from.
	reinitMu  sync.Mutex
	reinit    *InitializeResult
	reinitRaw []byte

	stateless bool         // the session speaks the stateless lifecycle
	version   string       // the negotiated revision
	logLevel  atomic.Int32 // stateless: the logLevel sent in each request's _meta

	mu           sync.Mutex
	progress     map[ProgressToken]func(*ProgressNotificationParams)
	outputs      toolOutputs                        // the tools' output schemas (client_tools.go)
	paramHeaders map[string][]mcpheader.ParamHeader // stateless: tool name -> x-mcp-header params
	cache        resultCache                        // stateless: results reused per their caching hints
	listenAcked  chan struct{}                      // stateless: closed when the session's own listen stream is acknowledged

	// life ends once Close has closed the connection: background work of
	// the session (cancellation notices) stops.
	life    context.Context
	endLife context.CancelFunc

	// stateless: the session's own subscriptions/listen stream
	// (client_listen.go), set by Connect.
	stopListen  context.CancelFunc // ends it; nil when there is none
	listenEnded chan struct{}      // closed once the goroutine carrying it has returned
}

// Connect opens a session on stream: it runs the initialize handshake and
// returns once the server has answered. If the server offers a revision this
// package does not support, Connect fails and closes the stream.
//
// A stream that must be started first (a jsonrpc.Starter, such as
// transport.CommandTransport, which runs the server as a subprocess) is
// started here, with ctx bounding only the start; the session then owns it,
// and a failed start or handshake closes it.
//
// On a 2026-07-28 session, Connect also opens the subscriptions/listen
// stream that carries list changes when list-changed handlers are set (see
// ClientOptions.ToolListChangedHandler), and returns once it is
// acknowledged.
func (c *Client) Connect(ctx context.Context, stream jsonrpc.Stream) (*ClientSession, error) {
	if st, ok := stream.(jsonrpc.Starter); ok {
		if err := st.Start(ctx); err != nil {
			_ = stream.Close()
			return nil, fmt.Errorf("mcp: connect: start: %w", err)
		}
	}
	cs := &ClientSession{client: c, stream: stream, progress: make(map[ProgressToken]func(*ProgressNotificationParams))}
	cs.life, cs.endLife = context.WithCancel(context.Background())
	jsonrpc.NewConn(stream, jsonrpc.ConnOptions{
		Bind:           func(c *jsonrpc.Conn) { cs.conn = c },
		Handler:        (*clientConnHandler)(cs),
		MaxConcurrency: c.opts.MaxConcurrency,
		CallTimeout:    c.opts.RequestTimeout,
		OnCancel:       cs.sendCancel,
		Barrier:        isCancel,
		Logger:         c.log,
	})
	ask := c.opts.ProtocolVersion
	if features(ask).stateless {
		stateless, err := cs.probe(ctx)
		if err != nil {
			cs.abort()
			return nil, fmt.Errorf("mcp: connect: %w", err)
		}
		if stateless {
			cs.stateless = true
			cs.ready.Store(true)
			if err := cs.listenForChanges(ctx); err != nil {
				cs.Close()
				return nil, fmt.Errorf("mcp: connect: subscriptions/listen: %w", err)
			}
			c.track(cs)
			return cs, nil
		}
		ask = LatestStatefulVersion
	}
	var res InitializeResult
	err := cs.call(ctx, MethodInitialize, &InitializeParams{
		ProtocolVersion: ask,
		Capabilities:    c.capabilities(),
		ClientInfo:      c.impl,
	}, &res)
	if err == nil && (!IsSupportedVersion(res.ProtocolVersion) || features(res.ProtocolVersion).stateless) {
		err = fmt.Errorf("mcp: server offered unsupported protocol version %q", res.ProtocolVersion)
	}
	if err != nil {
		cs.abort()
		return nil, fmt.Errorf("mcp: initialize: %w", err)
	}
	cs.init = &res
	cs.version = res.ProtocolVersion
	cs.ready.Store(true)
	if err := cs.notify(ctx, NotificationInitialized, &emptyParams{}); err != nil {
		cs.abort()
		return nil, fmt.Errorf("mcp: initialized: %w", err)
	}
	c.track(cs)
	return cs, nil
}

// track records a connected session until it ends.
func (c *Client) track(cs *ClientSession) {
	c.mu.Lock()
	c.sessions[cs] = struct{}{}
	c.mu.Unlock()
	go func() {
		<-cs.conn.Done()
		c.mu.Lock()
		delete(c.sessions, cs)
		c.mu.Unlock()
	}()
}

// clientConnHandler is a ClientSession as its connection's
// jsonrpc.Handler, which is no part of the session's API (see
// serverConnHandler).
type clientConnHandler ClientSession

func (h *clientConnHandler) Handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	return (*ClientSession)(h).handle(ctx, m)
}

// handle is the connection's jsonrpc.Handler, for messages from the server.
func (cs *ClientSession) handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	return cs.client.mw.receive(ctx, &Request{Method: m.Method, ID: m.ID, Params: m.Params, Session: cs})
}

// InitializeResult returns the server's answer to initialize; for a
// 2026-07-28 server, the same facts from its server/discover result. When
// the transport opened a new session under this one (Streamable HTTP, after
// the server lost the session), it is the new server's answer.
func (cs *ClientSession) InitializeResult() *InitializeResult {
	r, ok := cs.stream.(reinitializer)
	if !ok {
		return cs.init
	}
	raw := r.InitializeResult()
	cs.reinitMu.Lock()
	defer cs.reinitMu.Unlock()
	if raw == nil || cs.init == nil {
		return cs.init
	}
	if !bytes.Equal(raw, cs.reinitRaw) {
		var res InitializeResult
		if json.Unmarshal(raw, &res) != nil || res.ProtocolVersion != cs.version {
			return cs.init
		}
		cs.reinit, cs.reinitRaw = &res, raw
	}
	return cs.reinit
}

// A reinitializer is a stream that may open a new session under the
// client's (mcphttp.ClientStream, when the server answers 404): its
// InitializeResult is the raw result of the latest initialize it carried,
// the client's own or its own replay, so that the session's capabilities
// follow the server now serving it.
type reinitializer interface {
	InitializeResult() json.RawMessage
}

// ProtocolVersion returns the negotiated revision.
func (cs *ClientSession) ProtocolVersion() string { return cs.version }

// Stream returns the stream the session runs on, for instrumentation
// that describes the transport (an HTTP endpoint's address, say). Reading
// or writing it directly would break the session.
func (cs *ClientSession) Stream() jsonrpc.Stream { return cs.stream }

// Stateless reports whether the session speaks the 2026-07-28 stateless
// lifecycle.
func (cs *ClientSession) Stateless() bool { return cs.stateless }

// ServerCapabilities returns what the server advertised (the server now
// serving the session: see InitializeResult).
func (cs *ClientSession) ServerCapabilities() *ServerCapabilities {
	init := cs.InitializeResult()
	if init == nil || init.Capabilities == nil {
		return &ServerCapabilities{}
	}
	return init.Capabilities
}

// Close ends the session and waits for its handlers to return, and for the
// subscriptions/listen stream Connect opened, if any, to end. For a
// subprocess transport, closing the stream runs the shutdown sequence.
func (cs *ClientSession) Close() error {
	if cs.stopListen != nil {
		cs.stopListen() // first, so that the listen call ends as cancelled
	}
	// The connection lets the cancellation notices of calls cancelled
	// just before go out (cancelNoticeTimeout at most) before it closes.
	err := cs.conn.Close()
	cs.endLife()
	cs.conn.Wait()
	if cs.listenEnded != nil {
		<-cs.listenEnded
	}
	return err
}

// abort ends a session whose Connect failed.
func (cs *ClientSession) abort() {
	cs.endLife()
	cs.conn.Close()
	cs.conn.Wait()
}

// Wait blocks until the session ends.
func (cs *ClientSession) Wait() error { return cs.conn.Wait() }

// Done is closed when the session ends.
func (cs *ClientSession) Done() <-chan struct{} { return cs.conn.Done() }

func (cs *ClientSession) call(ctx context.Context, method string, params, result any) error {
	if cs.stateless {
		return cs.callStateless(ctx, method, params, result)
	}
	return sendCall(ctx, cs.conn, cs, &cs.client.mw, method, cs.downgrade(method, params), result)
}

func (cs *ClientSession) notify(ctx context.Context, method string, params any) error {
	return sendNotify(ctx, cs.conn.Notify, cs, cs.client.mw.sendingMW(), method, cs.downgrade(method, params))
}

// downgrade removes from outgoing params the fields the negotiated
// revision lacks.
func (cs *ClientSession) downgrade(method string, params any) any {
	if cs.version == "" {
		return params
	}
	return downgradeParams(features(cs.version), method, params)
}

// cancelNoticeTimeout bounds the sending of one notifications/cancelled:
// it is a courtesy to the server, and the call it is about has returned.
const cancelNoticeTimeout = 2 * time.Second

// sendCancel tells the server the client gave up on request id. The
// connection runs it on a goroutine of its own once the call has returned
// (see jsonrpc.ConnOptions.OnCancel); it lasts at most
// cancelNoticeTimeout, and no longer than the session.
func (cs *ClientSession) sendCancel(id jsonrpc.ID, cause error) {
	if !cs.ready.Load() {
		return // initialize must never be cancelled
	}
	reason := ""
	if cause != nil {
		reason = cause.Error()
	}
	ctx, cancel := context.WithTimeout(cs.life, cancelNoticeTimeout)
	defer cancel()
	_ = cs.notify(ctx, NotificationCancelled, &CancelledNotificationParams{RequestID: id, Reason: reason})
}

type progressKey struct{}

// isCancel marks the messages a client handles on its reader:
// cancellation, which must never wait behind other notifications. (The
// other notifications, progress included, are handled on the connection's
// notification lane, each before any response read after it is returned.)
func isCancel(method string) bool { return method == NotificationCancelled }

// WithProgress returns a context that asks for progress on the request made
// with it (CallTool, GetPrompt, ReadResource, Call): the client attaches a fresh progress token and calls fn for each
// notifications/progress the server sends for it, until the call returns.
// fn runs on the session's notification lane, in order with the server's
// other notifications, and every progress the server sent before its
// answer has been handed to fn when the call returns. fn must not wait for
// a call on the session: that call's answer would wait for fn.
func WithProgress(ctx context.Context, fn func(*ProgressNotificationParams)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

var progressCounter atomic.Int64

// withProgressToken registers a progress callback from ctx, if any, and
// returns the meta to send and a function that unregisters it.
func (cs *ClientSession) withProgressToken(ctx context.Context, meta *Meta) (*Meta, func()) {
	fn, _ := ctx.Value(progressKey{}).(func(*ProgressNotificationParams))
	if fn == nil {
		return meta, func() {}
	}
	tok := jsonrpc.Int64ID(progressCounter.Add(1))
	m := &Meta{}
	if meta != nil {
		*m = *meta
	}
	m.ProgressToken = tok
	cs.mu.Lock()
	cs.progress[tok] = fn
	cs.mu.Unlock()
	// The progress the server sent before its answer has been handled when
	// the call returns (see jsonrpc.Handler).
	return m, func() {
		cs.mu.Lock()
		delete(cs.progress, tok)
		cs.mu.Unlock()
	}
}

// Ping checks that the server answers.
// A 2026-07-28 server has no ping; server/discover serves instead.
func (cs *ClientSession) Ping(ctx context.Context) error {
	if cs.stateless {
		return cs.call(ctx, MethodServerDiscover, &DiscoverParams{}, nil)
	}
	return cs.call(ctx, MethodPing, &emptyParams{}, nil)
}

// ListTools returns one page of tools. p may be nil.
func (cs *ClientSession) ListTools(ctx context.Context, p *ListToolsParams) (*ListToolsResult, error) {
	if p == nil {
		p = &ListToolsParams{}
	}
	var res ListToolsResult
	if err := cs.call(ctx, MethodToolsList, p, &res); err != nil {
		return nil, err
	}
	if cs.stateless {
		res.Tools = cs.keepValidTools(res.Tools)
	}
	cs.outputs.remember(res.Tools, p.Cursor == "" && res.NextCursor == "")
	return &res, nil
}

// Tools iterates over every tool, fetching pages as needed.
func (cs *ClientSession) Tools(ctx context.Context, p *ListToolsParams) iter.Seq2[*Tool, error] {
	var params ListToolsParams
	if p != nil {
		params = *p
	}
	return paginate(func(cursor string) ([]*Tool, string, error) {
		params.Cursor = cursor
		res, err := cs.ListTools(ctx, &params)
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	}, params.Cursor)
}

// paginate turns a page fetcher into an iterator.
func paginate[T any](fetch func(cursor string) ([]T, string, error), cursor string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			cursor = next
		}
	}
}

// CallTool calls a tool. When the tool declares an output schema, the
// structured content of a successful result is validated against it, and a
// mismatch is an error returned with the result. The schemas are those of
// this session's tools/list results: when a result carries structured
// content of a tool the session has not listed, CallTool lists the
// server's tools once to learn them (and once more after each
// notifications/tools/list_changed). If that listing fails, the result is
// returned unchecked, and the next such call tries again unless the server
// answered the listing with an error. A successful result without
// structured content is an error only if the session already knows that
// the tool declares a schema.
//
// Use WithProgress on ctx to receive progress notifications.
//
// A call that fails without an answer says whether it may have reached
// the server: its error matches jsonrpc.ErrNotSent (it did not; the
// transport already sent it again where it could) or
// jsonrpc.ErrOutcomeUnknown (it may have run). A call to a tool the
// session's tools/list annotated idempotentHint or readOnlyHint is sent
// again after ErrOutcomeUnknown, within ctx's deadline; so is any call
// whose ctx the caller made with jsonrpc.Idempotent.
func (cs *ClientSession) CallTool(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	if cs.outputs.idempotent(p.Name) {
		ctx = jsonrpc.Idempotent(ctx)
	}
	params := *p
	var done func()
	params.Meta, done = cs.withProgressToken(ctx, p.Meta)
	defer done()
	var res CallToolResult
	if err := cs.call(ctx, MethodToolsCall, &params, &res); err != nil {
		return nil, err
	}
	if !res.IsError {
		return &res, cs.checkOutput(ctx, p.Name, &res)
	}
	return &res, nil
}

// ListResources returns one page of resources.
func (cs *ClientSession) ListResources(ctx context.Context, p *ListResourcesParams) (*ListResourcesResult, error) {
	if p == nil {
		p = &ListResourcesParams{}
	}
	var res ListResourcesResult
	if err := cs.call(ctx, MethodResourcesList, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Resources iterates over every resource.
func (cs *ClientSession) Resources(ctx context.Context, p *ListResourcesParams) iter.Seq2[*Resource, error] {
	var params ListResourcesParams
	if p != nil {
		params = *p
	}
	return paginate(func(cursor string) ([]*Resource, string, error) {
		params.Cursor = cursor
		res, err := cs.ListResources(ctx, &params)
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	}, params.Cursor)
}

// ListResourceTemplates returns one page of resource templates.
func (cs *ClientSession) ListResourceTemplates(ctx context.Context, p *ListResourceTemplatesParams) (*ListResourceTemplatesResult, error) {
	if p == nil {
		p = &ListResourceTemplatesParams{}
	}
	var res ListResourceTemplatesResult
	if err := cs.call(ctx, MethodResourcesTemplatesList, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ResourceTemplates iterates over every resource template.
func (cs *ClientSession) ResourceTemplates(ctx context.Context, p *ListResourceTemplatesParams) iter.Seq2[*ResourceTemplate, error] {
	var params ListResourceTemplatesParams
	if p != nil {
		params = *p
	}
	return paginate(func(cursor string) ([]*ResourceTemplate, string, error) {
		params.Cursor = cursor
		res, err := cs.ListResourceTemplates(ctx, &params)
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	}, params.Cursor)
}

// ReadResource reads a resource. Use WithProgress on ctx to receive
// progress notifications.
func (cs *ClientSession) ReadResource(ctx context.Context, p *ReadResourceParams) (*ReadResourceResult, error) {
	params := *p
	var done func()
	params.Meta, done = cs.withProgressToken(ctx, p.Meta)
	defer done()
	var res ReadResourceResult
	if err := cs.call(ctx, MethodResourcesRead, &params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks for notifications/resources/updated about a resource.
//
// A 2026-07-28 server has no resources/subscribe: use Listen with
// ResourceSubscriptions instead.
func (cs *ClientSession) Subscribe(ctx context.Context, p *SubscribeParams) error {
	if cs.stateless {
		return errNoSubscribe
	}
	return cs.call(ctx, MethodResourcesSubscribe, p, nil)
}

// Unsubscribe cancels a Subscribe.
func (cs *ClientSession) Unsubscribe(ctx context.Context, p *UnsubscribeParams) error {
	if cs.stateless {
		return errNoSubscribe
	}
	return cs.call(ctx, MethodResourcesUnsubscribe, p, nil)
}

var errNoSubscribe = errors.New("mcp: a 2026-07-28 server has no resources/subscribe; use Listen with ResourceSubscriptions")

// ListPrompts returns one page of prompts.
func (cs *ClientSession) ListPrompts(ctx context.Context, p *ListPromptsParams) (*ListPromptsResult, error) {
	if p == nil {
		p = &ListPromptsParams{}
	}
	var res ListPromptsResult
	if err := cs.call(ctx, MethodPromptsList, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Prompts iterates over every prompt.
func (cs *ClientSession) Prompts(ctx context.Context, p *ListPromptsParams) iter.Seq2[*Prompt, error] {
	var params ListPromptsParams
	if p != nil {
		params = *p
	}
	return paginate(func(cursor string) ([]*Prompt, string, error) {
		params.Cursor = cursor
		res, err := cs.ListPrompts(ctx, &params)
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	}, params.Cursor)
}

// GetPrompt renders a prompt. Use WithProgress on ctx to receive progress
// notifications.
func (cs *ClientSession) GetPrompt(ctx context.Context, p *GetPromptParams) (*GetPromptResult, error) {
	params := *p
	var done func()
	params.Meta, done = cs.withProgressToken(ctx, p.Meta)
	defer done()
	var res GetPromptResult
	if err := cs.call(ctx, MethodPromptsGet, &params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for argument completions.
func (cs *ClientSession) Complete(ctx context.Context, p *CompleteParams) (*CompleteResult, error) {
	var res CompleteResult
	if err := cs.call(ctx, MethodCompletionComplete, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel sets the least severe level of log messages the server
// should send.
//
// With a 2026-07-28 server the level is sent in the _meta of every later
// request instead.
func (cs *ClientSession) SetLoggingLevel(ctx context.Context, level LoggingLevel) error {
	if cs.stateless {
		cs.logLevel.Store(int32(level))
		return nil
	}
	return cs.call(ctx, MethodLoggingSetLevel, &SetLevelParams{Level: level}, nil)
}
