package mcphttp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The legacy HTTP+SSE transport (protocol revision 2024-11-05, deprecated
// since 2025-03-26): the client GETs an SSE stream whose first event,
// "endpoint", names the URL to POST its messages to; the server answers
// every POST with 202 and sends its own messages as "message" events on the
// stream. A session lasts as long as the GET.

// SSEHandlerOptions configures an SSEHandler. The zero value (and a nil
// *SSEHandlerOptions) selects the defaults, which match HandlerOptions.
type SSEHandlerOptions struct {
	// AllowedHosts and AllowedOrigins: see HandlerOptions.
	AllowedHosts   []string
	AllowedOrigins []string
	// MaxBodyBytes bounds a POST body (413 beyond). Default 4 MiB.
	MaxBodyBytes int64
	// MaxBatch: see HandlerOptions. A batch in a session of a revision
	// without batches gets one error before its elements are decoded.
	// Default jsonrpc.DefaultMaxBatch (1,000).
	MaxBatch int
	// MaxSessions bounds the open SSE streams; a GET beyond it gets 503.
	// Default 10000; negative means no limit.
	MaxSessions int
	// MaxSessionsPerClient bounds the sessions (open SSE streams) of one
	// client (see ClientKey), so that one client cannot take every slot of
	// MaxSessions: a GET beyond it gets 429 with Retry-After. Default 100;
	// negative means no limit.
	MaxSessionsPerClient int
	// ClientKey names the client of a request for MaxSessionsPerClient
	// ("" exempts it). Default: the remote IP address without its port;
	// behind a reverse proxy, replace it (see HandlerOptions.ClientKey).
	ClientKey func(*http.Request) string
	// MaxBodyBytesInFlight: see HandlerOptions (503 beyond). Default 256
	// MiB; negative means no limit.
	MaxBodyBytesInFlight int64
	// MaxQueuedEvents bounds the messages waiting to be written to one
	// session's event stream. The server queues its messages for the GET's
	// goroutine to write, so it never waits for a slow reader; a reader
	// that lets this many pile up has its connection cut, which ends its
	// session (this transport cannot resume). Default 256.
	MaxQueuedEvents int
	// KeepAliveInterval: see HandlerOptions. Default 30 seconds.
	KeepAliveInterval time.Duration
	// WriteTimeout: see HandlerOptions. Default 30 seconds.
	WriteTimeout time.Duration
	// BodyReadTimeout: see HandlerOptions. Default 30 seconds.
	BodyReadTimeout time.Duration
	// Principal names the caller of an HTTP request (see
	// HandlerOptions.Principal). The session remembers the principal of
	// the GET that opened it, and a POST to it from any other principal
	// gets 403, so that a sessionId seen by someone else (in a log, say)
	// does not let them speak in the session. Default: the principal
	// authentication middleware recorded on the request (WithPrincipal).
	Principal func(*http.Request) string
	// UnboundSessions turns the default of Principal off (see
	// HandlerOptions.UnboundSessions).
	UnboundSessions bool
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
}

// SSEHandler serves an mcp.Server over the legacy HTTP+SSE transport, for
// clients that predate Streamable HTTP. GET opens a session and its event
// stream; the endpoint event names the same path with a sessionId query
// parameter, where the client POSTs its messages. Mount it at its own path
// next to the Streamable HTTP Handler:
//
//	http.Handle("/mcp", mcphttp.NewHandler(server, nil))
//	http.Handle("/sse", mcphttp.NewSSEHandler(server, nil))
type SSEHandler struct {
	server    *mcp.Server
	serverFor func(*http.Request) *mcp.Server // NewSSEHandlerFor's; nil with NewSSEHandler
	opts      SSEHandlerOptions
	policy    originPolicy
	log       *slog.Logger
	bodies    *bodyBudget    // MaxBodyBytesInFlight
	clients   *clientCounter // MaxSessionsPerClient

	mu       sync.Mutex
	sessions map[string]*sseSession
	closed   bool
}

// NewSSEHandler returns an SSEHandler serving s. opts may be nil.
func NewSSEHandler(s *mcp.Server, opts *SSEHandlerOptions) *SSEHandler {
	h := &SSEHandler{server: s, sessions: make(map[string]*sseSession)}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	o.Principal = sessionPrincipal(o.Principal, o.UnboundSessions)
	fillLimits(&o.MaxBodyBytes, &o.MaxSessions, &o.KeepAliveInterval, &o.WriteTimeout, &o.BodyReadTimeout)
	h.policy = newOriginPolicy(o.AllowedHosts, o.AllowedOrigins)
	h.log = loggerOrDiscard(o.Logger)
	if o.MaxSessionsPerClient == 0 {
		o.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	h.clients = newClientCounter(0, o.MaxSessionsPerClient)
	if o.MaxBodyBytesInFlight == 0 {
		o.MaxBodyBytesInFlight = DefaultMaxBodyBytesInFlight
	}
	h.bodies = newBodyBudget(o.MaxBodyBytesInFlight)
	if o.MaxQueuedEvents <= 0 {
		o.MaxQueuedEvents = DefaultMaxQueuedEvents
	}
	return h
}

// Close ends every session and refuses new ones.
func (h *SSEHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	sessions := make([]*sseSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.Close()
		_ = s.ss.Close()
	}
	for _, s := range sessions {
		_ = s.ss.Wait()
	}
	return nil
}

// SessionCount reports how many sessions are open.
func (h *SSEHandler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// ServeHTTP implements http.Handler.
func (h *SSEHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.policy.check(r); msg != "" {
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.serveGet(w, r)
	case http.MethodPost:
		h.servePost(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "method not allowed; allowed: GET, POST")
	}
}

// sseSession is one HTTP+SSE session: the stream its mcp.ServerSession runs
// on. Everything the server sends goes to the GET connection.
type sseSession struct {
	h         *SSEHandler
	id        string
	client    string // its ClientKey
	principal string // who opened it (SSEHandlerOptions.Principal)
	ss        *mcp.ServerSession
	conn      *sseConn
	in        chan *jsonrpc.Message
	done      chan struct{}
	closeOnce sync.Once

	// The server's messages wait in queue (at most MaxQueuedEvents) for
	// the GET's goroutine to write them; wake tells it there are some.
	mu    sync.Mutex
	queue [][]byte
	wake  chan struct{}
	gone  bool // the GET returned: its connection is no longer ours to cut

	// batches is the session's batch policy (jsonrpc.BatchGate), set by
	// the Conn before the session is listed, so before any POST reaches
	// it: POST bodies are decoded under it.
	batches func() *jsonrpc.Error
}

// GateBatches implements jsonrpc.BatchGate: the POSTs of the session refuse
// a batch its revision has not before decoding its elements.
func (s *sseSession) GateBatches(batches func() *jsonrpc.Error) { s.batches = batches }

func (s *sseSession) Read(ctx context.Context) (*jsonrpc.Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *sseSession) Write(_ context.Context, m *jsonrpc.Message) error {
	select {
	case <-s.done:
		return jsonrpc.ErrClosed
	default:
	}
	dp := bufPool.Get().(*[]byte)
	data := m.AppendJSON((*dp)[:0])
	b := appendEvent(nil, "", "message", 0, data)
	putBuf(dp, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return errConnGone
	}
	if len(s.queue) >= s.h.opts.MaxQueuedEvents {
		s.h.log.Warn("mcphttp: HTTP+SSE reader too slow, cutting its connection (and so its session)",
			"session", s.id, "queued", len(s.queue))
		s.conn.abort()
		return errConnGone
	}
	s.queue = append(s.queue, b)
	select {
	case s.wake <- struct{}{}:
	default: // already woken
	}
	return nil
}

// flush writes the queued messages, on the GET's goroutine. It reports
// false when the connection failed.
func (s *sseSession) flush() bool {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return true
		}
		b := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if s.conn.write(b) != nil {
			return false
		}
	}
}

func (s *sseSession) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		s.conn.end()
		s.h.mu.Lock()
		delete(s.h.sessions, s.id)
		s.h.mu.Unlock()
		s.h.clients.release(s.client)
		s.mu.Lock()
		s.queue = nil
		s.mu.Unlock()
	})
	return nil
}

func (h *SSEHandler) serveGet(w http.ResponseWriter, r *http.Request) {
	srv := h.serverOf(r)
	if srv == nil {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "no MCP server for this request")
		return
	}
	h.mu.Lock()
	if h.closed || (h.opts.MaxSessions > 0 && len(h.sessions) >= h.opts.MaxSessions) {
		h.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: session limit reached; try again later")
		return
	}
	client := h.clientKey(r)
	if ok, _ := h.clients.acquire(client); !ok {
		h.mu.Unlock()
		h.log.Warn("mcphttp: refusing HTTP+SSE session: client at MaxSessionsPerClient", "client", client, "max", h.opts.MaxSessionsPerClient)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusTooManyRequests, jsonrpc.ID{}, CodeServerBusy,
			"too many sessions: this client holds "+strconv.Itoa(h.opts.MaxSessionsPerClient)+" sessions already; close one or try again later")
		return
	}
	s := &sseSession{h: h, id: rand.Text(), client: client, principal: callerOf(h.opts.Principal, r),
		in: make(chan *jsonrpc.Message, 4), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	s.conn = newSSEConn(w, h.opts.WriteTimeout)
	ss := srv.Connect(s, &mcp.SessionOptions{ID: s.id, Principal: s.principal})
	s.ss = ss
	h.sessions[s.id] = s
	h.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.gone = true
		s.mu.Unlock()
		s.Close()
		_ = ss.Close()
	}()

	endpoint := requestPath(r) + "?sessionId=" + s.id
	if s.conn.write(appendEvent(nil, "", "endpoint", 0, []byte(endpoint))) != nil {
		return
	}
	var tick <-chan time.Time
	if h.opts.KeepAliveInterval > 0 {
		t := time.NewTicker(h.opts.KeepAliveInterval)
		defer t.Stop()
		tick = t.C
	}
	defer s.conn.kill()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.conn.done:
			return
		case <-ss.Done():
			return
		case <-s.wake:
			if !s.flush() {
				return
			}
		case <-tick:
			if s.conn.write(keepAliveComment) != nil {
				return
			}
		}
	}
}

// clientKey names the client of r for MaxSessionsPerClient.
func (h *SSEHandler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		return h.opts.ClientKey(r)
	}
	return remoteHost(r)
}

// remoteHost is the remote IP address of r, without its port.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// requestPath is the path the client used (before any http.StripPrefix).
func requestPath(r *http.Request) string {
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
		return u.EscapedPath()
	}
	return r.URL.EscapedPath()
}

func (h *SSEHandler) servePost(w http.ResponseWriter, r *http.Request) {
	sid := r.URL.Query().Get("sessionId")
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing sessionId query parameter (GET the SSE stream first)")
		return
	}
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil {
		errSessionNotFound(w, jsonrpc.ID{})
		return
	}
	if !permitted(h.opts.Principal, r, s.principal) {
		h.log.Warn("mcphttp: refusing a POST to another principal's HTTP+SSE session", "session", sid)
		errForbiddenSession(w, jsonrpc.ID{})
		return
	}
	if !isJSONContent(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "unsupported media type: Content-Type must be application/json")
		return
	}
	dec := jsonrpc.Decoder{MaxBatch: h.opts.MaxBatch, Batches: s.batches}
	msg := readMessage(w, r, h.opts.MaxBodyBytes, h.opts.BodyReadTimeout, h.bodies, &dec)
	if msg == nil {
		return
	}
	info := newRequestInfo(r, sid)
	info.principal = s.principal
	setInfo(msg, info)
	select {
	case s.in <- msg:
	case <-s.done:
		errSessionNotFound(w, jsonrpc.ID{})
		return
	case <-r.Context().Done():
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "Accepted")
}

// SSEClientStream is the client side of the legacy HTTP+SSE transport: a
// jsonrpc.Stream for mcp.Client.Connect. The first Write opens the event
// stream and waits for the endpoint event; messages are then POSTed there.
// When the server ends the event stream, Read returns io.EOF (the transport
// has no resumption). ClientStream falls back to it by itself; use it
// directly only for servers known to speak HTTP+SSE alone.
type SSEClientStream struct {
	*clientCore
	link *sseLink

	connectMu sync.Mutex
	connected bool
}

// NewSSEClientStream returns a stream to the HTTP+SSE server whose event
// stream is at url. opts may be nil; its Streamable HTTP settings are
// ignored.
func NewSSEClientStream(url string, opts *ClientOptions) *SSEClientStream {
	c := &SSEClientStream{clientCore: newClientCore(opts)}
	c.link = &sseLink{core: c.clientCore, url: url, deliver: c.push}
	return c
}

// Read implements jsonrpc.Stream.
func (c *SSEClientStream) Read(ctx context.Context) (*jsonrpc.Message, error) { return c.read(ctx) }

// Write implements jsonrpc.Stream.
func (c *SSEClientStream) Write(ctx context.Context, m *jsonrpc.Message) error {
	if c.isClosed() {
		return jsonrpc.ErrClosed
	}
	c.connectMu.Lock()
	if !c.connected {
		if err := c.link.connect(ctx); err != nil {
			c.connectMu.Unlock()
			return err
		}
		c.connected = true
	}
	c.connectMu.Unlock()
	return c.link.post(ctx, m)
}

// Close implements jsonrpc.Stream: it ends the event stream (and with it
// the session) and waits for the background reader.
func (c *SSEClientStream) Close() error {
	c.shutdown()
	return nil
}

// sseLink is an HTTP+SSE connection: the event stream and the POST endpoint
// it named.
type sseLink struct {
	core     *clientCore
	url      string
	deliver  func(*jsonrpc.Message) bool
	endpoint string
}

// connect opens the event stream and waits for the endpoint event (as long
// as ctx allows); a background goroutine then reads the messages.
func (l *sseLink) connect(ctx context.Context) error {
	base, err := url.Parse(l.url)
	if err != nil {
		return err
	}
	reqCtx, cancel := context.WithCancel(l.core.bg)
	stop := context.AfterFunc(ctx, cancel)
	fail := func(err error) error {
		stop()
		cancel()
		return err
	}
	req, err := l.core.newRequest(reqCtx, http.MethodGet, l.url, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := l.core.do(req)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		return fail(httpError(resp))
	}
	r := newSSEReader(resp.Body, l.core.max)
	for l.endpoint == "" {
		ev, err := r.next()
		if err != nil {
			resp.Body.Close()
			return fail(fmt.Errorf("mcphttp: no endpoint event on the HTTP+SSE stream: %w", err))
		}
		if ev.event != "endpoint" {
			continue
		}
		ep, err := base.Parse(strings.TrimSpace(string(ev.data)))
		if err != nil || ep.Scheme != base.Scheme || ep.Host != base.Host {
			resp.Body.Close()
			return fail(fmt.Errorf("mcphttp: HTTP+SSE endpoint %q is not on the server's origin", ev.data))
		}
		l.endpoint = ep.String()
	}
	if !stop() {
		resp.Body.Close()
		cancel()
		return ctx.Err()
	}
	ok := l.core.goBackground(func() {
		defer cancel()
		defer resp.Body.Close()
		defer l.core.ended()
		for {
			ev, err := r.next()
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					l.core.log.Debug("mcphttp: HTTP+SSE stream ended", "err", err)
				}
				return
			}
			if len(ev.data) == 0 || (ev.event != "" && ev.event != "message") {
				continue
			}
			m := jsonrpc.Decode(ev.data)
			if m.Invalid != nil {
				l.core.log.Warn("mcphttp: invalid message in SSE stream", "err", m.Invalid.Message)
				continue
			}
			if !l.deliver(m) {
				return
			}
		}
	})
	if !ok {
		resp.Body.Close()
		cancel()
		return jsonrpc.ErrClosed
	}
	return nil
}

// post sends one message to the endpoint.
func (l *sseLink) post(ctx context.Context, m *jsonrpc.Message) error {
	req, err := l.core.newRequest(ctx, http.MethodPost, l.endpoint, m.AppendJSON(nil))
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := l.core.do(req)
	if err != nil {
		if isRefused(err) {
			return jsonrpc.NotSent(err)
		}
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return refusedBefore(resp.StatusCode, httpError(resp))
	}
	drain(resp)
	return nil
}
