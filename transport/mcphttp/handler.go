package mcphttp

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// HandlerOptions configures a Handler. The zero value (and a nil
// *HandlerOptions) selects safe defaults.
type HandlerOptions struct {
	// JSONResponse answers each request with a single application/json
	// body instead of an SSE stream. Messages the server sends while
	// handling a request (progress, logs, sampling and elicitation
	// requests) then go to the client's standalone GET stream, if it has
	// one. The default, SSE, keeps them with their request, makes streams
	// resumable, and is what the conformance suite exercises. A client whose
	// Accept header allows only one of the two types gets that type.
	// Initialize is always answered with JSON when the client accepts it.
	JSONResponse bool

	// Stateless serves each POST on a fresh, transient session: no
	// Mcp-Session-Id is issued or required, GET and DELETE get 405, and
	// requests are accepted without a prior initialize (the handler
	// initializes each transient session itself, at the revision named by
	// the MCP-Protocol-Version header, or 2025-03-26 without one). Such a
	// server cannot send requests to the client, and notifications reach
	// the client only on a request's SSE stream. It suits servers that scale
	// horizontally without session affinity.
	Stateless bool

	// EventStore keeps SSE events for resumption (GET with Last-Event-ID).
	// Default: an in-memory store with the MemoryEventStoreOptions defaults.
	EventStore EventStore

	// AllowedHosts lists the Host header values accepted ("name" matches
	// any port, "name:port" only that port, "*" anything). Empty means: a
	// server listening on a loopback address accepts only localhost,
	// 127.0.0.1 and [::1] (any port), which defeats DNS-rebinding attacks;
	// a server on another address accepts any Host. Behind a reverse proxy
	// on the same machine, list the public name here.
	AllowedHosts []string

	// AllowedOrigins lists the Origin header values accepted from browsers
	// (e.g. "https://app.example.com"; "*" accepts any). Requests without
	// an Origin header are always accepted. Empty means: on loopback, only
	// loopback origins; elsewhere, only the request's own host. A refused
	// Host or Origin gets 403.
	AllowedOrigins []string

	// MaxBodyBytes bounds a POST body; larger ones get 413. Default 4 MiB.
	MaxBodyBytes int64

	// MaxSessions bounds the sessions open at once. Beyond it, a new
	// initialize gets 503 with a JSON-RPC error (CodeServerBusy) and a
	// Retry-After header, while existing sessions keep working. Default
	// 10000; negative means no limit.
	MaxSessions int

	// SessionIdleTimeout ends a session after this long without any HTTP
	// request for it (an open GET or POST stream counts as activity).
	// Default 30 minutes; negative means never.
	SessionIdleTimeout time.Duration

	// KeepAliveInterval is how often an idle SSE connection gets a comment
	// line, so proxies keep it open and dead clients are noticed. Default
	// 30 seconds; negative disables.
	KeepAliveInterval time.Duration

	// RetryInterval is the reconnection delay sent to clients in the SSE
	// retry field: with the priming event of each stream, and before the
	// server closes a connection early (CloseSSEStream). Default 1 second.
	RetryInterval time.Duration

	// WriteTimeout bounds each write to an SSE connection, so that a
	// client that stops reading cannot block the server. Default 30
	// seconds; negative disables. (http.Server.WriteTimeout would cut long
	// streams; the handler lifts it on SSE connections.)
	WriteTimeout time.Duration

	// DisableCompression turns off gzip for JSON responses. By default a
	// JSON body of 1 KiB or more is gzip-compressed when the client accepts
	// it. SSE streams are never compressed, so events are not held back in
	// a compressor's buffer.
	DisableCompression bool

	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
}

// Defaults for HandlerOptions.
const (
	DefaultMaxBodyBytes       = 4 << 20
	DefaultMaxSessions        = 10000
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultKeepAliveInterval  = 30 * time.Second
	DefaultRetryInterval      = time.Second
	DefaultWriteTimeout       = 30 * time.Second
)

// smallBody is what net/http's response buffer holds (its
// bufferBeforeChunkingSize): a body that fits gets its Content-Length from
// net/http when the handler returns.
const smallBody = 2048

// gzipMinSize is the smallest JSON body worth compressing.
const gzipMinSize = 1024

// Handler serves an mcp.Server over the Streamable HTTP transport (protocol
// revisions 2025-03-26, 2025-06-18 and 2025-11-25). Mount it at any path:
//
//	http.Handle("/mcp", mcphttp.NewHandler(server, nil))
//
// A POST carries one message (or, at 2025-03-26, a batch); requests are
// answered with an SSE stream or a JSON body, notifications and responses
// with 202. GET opens the session's standalone SSE stream (one at a time;
// another gets 409) or, with Last-Event-ID, resumes any stream of the
// session. DELETE ends the session.
//
// Sessions live in this process: each holds an mcp.ServerSession with its
// handshake state, subscriptions and in-flight requests. Events are kept in
// an EventStore, which can be shared. To let sessions survive a restart or
// move between replicas, a session store would sit beside it: keyed by
// Mcp-Session-Id, holding what the initialize exchange established (the
// negotiated revision, the client's capabilities and info, the log level and
// subscriptions); on a request for a session id not held in memory, the
// Handler would rebuild an mcp.ServerSession from that record instead of
// answering 404. That needs a way to create a ServerSession already
// initialized, which the mcp package does not offer yet; until then an
// unknown session gets 404, and clients (this package's included)
// re-initialize.
//
// A Handler is safe for concurrent use. Close ends every session.
type Handler struct {
	server *mcp.Server
	opts   HandlerOptions
	store  EventStore
	policy originPolicy
	log    *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	reserved int // sessions being created, counted against MaxSessions
	closed   bool
	sweeper  *time.Timer // expires idle sessions; armed while there are sessions
	sweeping bool        // sweeper is armed or running

	modern    *session     // the stateless revision's shared session (modernSession)
	modernSeq atomic.Int64 // ids given to stateless requests in it
}

// NewHandler returns a Handler serving s. opts may be nil.
func NewHandler(s *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{server: s, sessions: make(map[string]*session)}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	fillLimits(&o.MaxBodyBytes, &o.MaxSessions, &o.KeepAliveInterval, &o.WriteTimeout)
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	h.store = o.EventStore
	if h.store == nil {
		h.store = NewMemoryEventStore(nil)
	}
	h.policy = newOriginPolicy(o.AllowedHosts, o.AllowedOrigins)
	h.log = loggerOrDiscard(o.Logger)
	return h
}

// Close ends every session and refuses new ones (503). It waits for the
// sessions' handlers to return.
func (h *Handler) Close() error {
	h.mu.Lock()
	h.closed = true
	if h.sweeper != nil {
		h.sweeper.Stop()
	}
	sessions := make([]*session, 0, len(h.sessions)+1)
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	if h.modern != nil {
		sessions = append(sessions, h.modern)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.terminate()
	}
	for _, s := range sessions {
		_ = s.ss.Wait()
	}
	return nil
}

// SessionCount reports how many sessions are open.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// sweepInterval is how often idle sessions are looked for: a session ends
// between SessionIdleTimeout and SessionIdleTimeout plus this after its last
// request.
func (h *Handler) sweepInterval() time.Duration {
	return min(max(h.opts.SessionIdleTimeout/4, 10*time.Millisecond), time.Minute)
}

// armSweeper makes sure the sweeper will run. One timer for the whole
// Handler, armed only while sessions exist, costs idle sessions nothing and
// the request path no timer operation. h.mu must be held.
func (h *Handler) armSweeper() {
	if h.opts.SessionIdleTimeout <= 0 || h.sweeping {
		return
	}
	h.sweeping = true
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(h.sweepInterval(), h.sweep)
	} else {
		h.sweeper.Reset(h.sweepInterval())
	}
}

// sweep ends the sessions idle for SessionIdleTimeout, and re-arms itself
// while sessions remain.
func (h *Handler) sweep() {
	timeout := h.opts.SessionIdleTimeout
	now := time.Now().UnixNano()
	h.mu.Lock()
	var idle []*session
	for _, s := range h.sessions {
		if time.Duration(now-s.lastSeen.Load()) >= timeout {
			idle = append(idle, s)
		}
	}
	h.mu.Unlock()
	for _, s := range idle {
		if s.idle(now, timeout) {
			h.log.Debug("mcphttp: session expired", "session", s.id)
			s.terminate()
		}
	}
	h.mu.Lock()
	h.sweeping = false
	if len(h.sessions) > 0 && !h.closed {
		h.armSweeper()
	}
	h.mu.Unlock()
}

func (h *Handler) removeSession(s *session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.policy.check(r); msg != "" {
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet:
		h.serveGet(w, r)
	case http.MethodDelete:
		h.serveDelete(w, r)
	default:
		h.methodNotAllowed(w, r)
	}
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := "GET, POST, DELETE"
	if h.opts.Stateless || isStateless(r.Header.Get(headerProtocolVersion)) {
		allow = "POST"
	}
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "method not allowed; allowed: "+allow)
}

// errSessionNotFound answers a request for an unknown or ended session.
func errSessionNotFound(w http.ResponseWriter, id jsonrpc.ID) {
	writeError(w, http.StatusNotFound, id, CodeSessionNotFound, "session not found: it was terminated or expired; initialize a new session")
}

// checkVersion validates the MCP-Protocol-Version header against the
// session's negotiated revision. It returns "" when acceptable.
func checkVersion(header string, s *session) string {
	if header == "" {
		return ""
	}
	if !mcp.IsSupportedVersion(header) {
		return "bad request: unsupported MCP-Protocol-Version " + quoteHeader(header) + "; supported: " + strings.Join(mcp.SupportedVersions, ", ")
	}
	if s != nil {
		if v := s.protocolVersion(); v != "" && v != header {
			return "bad request: MCP-Protocol-Version " + quoteHeader(header) + " differs from the negotiated version " + v
		}
	}
	return ""
}

func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	if !isJSONContent(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "unsupported media type: Content-Type must be application/json")
		return
	}
	accept := r.Header.Values("Accept")
	okJSON, okSSE := accepts(accept, "application/json"), accepts(accept, "text/event-stream")
	if !okJSON && !okSSE {
		writeError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "not acceptable: Accept must list application/json and text/event-stream")
		return
	}
	msg := readMessage(w, r, h.opts.MaxBodyBytes)
	if msg == nil {
		return
	}
	if msg.Batch != nil {
		for _, e := range msg.Batch {
			if e.Method == mcp.MethodInitialize {
				writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: initialize must not be part of a batch")
				return
			}
		}
	}
	version := r.Header.Get(headerProtocolVersion)
	sid := r.Header.Get(headerSessionID)
	if isStateless(version) || (!isStateful(version) && (sid == "" || h.opts.Stateless) && declaresModern(msg)) {
		h.serveModern(w, r, msg, okJSON, okSSE)
		return
	}
	if e := checkVersion(version, nil); e != "" {
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidRequest, e)
		return
	}
	if h.opts.Stateless {
		h.serveStateless(w, r, msg, version, okJSON, okSSE)
		return
	}
	if sid == "" {
		if msg.IsRequest() && msg.Method == mcp.MethodInitialize {
			h.serveInitialize(w, r, msg, version, okJSON, okSSE)
			return
		}
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header; initialize a session first")
		return
	}
	s := h.lookup(sid)
	if s == nil || !s.begin() {
		errSessionNotFound(w, msg.ID)
		return
	}
	defer s.end()
	if e := checkVersion(version, s); e != "" {
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidRequest, e)
		return
	}
	if version == "" {
		version = s.protocolVersion()
	}
	if msg.Batch != nil && version != mcp.Version20250326 && version != "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: batches are allowed only in protocol revision 2025-03-26 (this session uses "+version+")")
		return
	}
	h.serveMessage(w, r, s, msg, version, okJSON, okSSE, false)
}

// serveInitialize creates a session for an initialize request.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version string, okJSON, okSSE bool) {
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy, "server shutting down: no new sessions")
		return
	case h.opts.MaxSessions > 0 && len(h.sessions)+h.reserved >= h.opts.MaxSessions:
		h.mu.Unlock()
		h.log.Warn("mcphttp: refusing new session: at MaxSessions", "max", h.opts.MaxSessions)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy,
			"server busy: session limit reached ("+strconv.Itoa(h.opts.MaxSessions)+" open sessions); try again later")
		return
	}
	h.reserved++
	h.mu.Unlock()

	s := newSession(h, rand.Text())
	ss := h.server.Connect(s, &mcp.SessionOptions{ID: s.id})
	h.mu.Lock()
	h.reserved--
	if !h.closed {
		s.ss = ss
		h.sessions[s.id] = s
		h.armSweeper()
	}
	h.mu.Unlock()
	if s.ss == nil {
		if ss != nil {
			_ = ss.Close()
		}
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy, "server cannot start a session now")
		return
	}
	s.begin()
	defer s.end()
	h.serveMessage(w, r, s, msg, version, okJSON, okSSE, true)
}

// serveStateless answers one POST on a transient session.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version string, okJSON, okSSE bool) {
	if len(requestIDs(msg)) == 0 {
		// Notifications and responses have no session to act on.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.Batch != nil && version != mcp.Version20250326 && version != "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: batches are allowed only in protocol revision 2025-03-26")
		return
	}
	s := newSession(h, "")
	ss := h.server.Connect(s, nil)
	s.ss = ss
	defer func() {
		s.terminate()
		_ = ss.Wait()
	}()
	if msg.Method != mcp.MethodInitialize && version != mcp.Version20260728 {
		// Put the transient session in the initialized state the client
		// established at some earlier point (or never did).
		v := version
		if v == "" {
			v = mcp.Version20250326
		}
		params, _ := json.Marshal(&mcp.InitializeParams{
			ProtocolVersion: v,
			Capabilities:    &mcp.ClientCapabilities{},
			ClientInfo:      &mcp.Implementation{Name: "stateless-http-client", Version: "0"},
		})
		s.initWait = make(chan struct{})
		if s.deliver(jsonrpc.NewRequest(internalInitID, mcp.MethodInitialize, params)) != nil {
			return
		}
		select {
		case <-s.initWait:
		case <-r.Context().Done():
			return
		}
	}
	h.serveMessage(w, r, s, msg, version, okJSON, okSSE, false)
}

// requestIDs returns the ids of the requests in msg (valid ones, for a
// batch).
func requestIDs(msg *jsonrpc.Message) []jsonrpc.ID {
	if msg.Batch == nil {
		if msg.IsRequest() {
			return []jsonrpc.ID{msg.ID}
		}
		return nil
	}
	var ids []jsonrpc.ID
	for _, e := range msg.Batch {
		if e.Invalid == nil && e.IsRequest() {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

func setInfo(msg *jsonrpc.Message, info *RequestInfo) {
	msg.Info = info
	for _, e := range msg.Batch {
		e.Info = info
	}
}

// serveMessage delivers a POSTed message to s and writes the answer. init
// marks the initialize request of a new session: its answer carries the
// session id, or ends the session when it is an error.
func (h *Handler) serveMessage(w http.ResponseWriter, r *http.Request, s *session, msg *jsonrpc.Message, version string, okJSON, okSSE, init bool) {
	info := newRequestInfo(r, s.id)
	if init {
		info.SessionID = ""
	}
	ids := requestIDs(msg)
	if len(ids) == 0 {
		setInfo(msg, info)
		s.observe(msg)
		if s.deliver(msg) != nil {
			errSessionNotFound(w, jsonrpc.ID{})
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	useSSE := okSSE && !(okJSON && (h.opts.JSONResponse || init))
	st, err := s.openStream(ids, useSSE)
	if err != nil {
		writeError(w, http.StatusBadRequest, ids[0], jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	var c *sseConn
	if useSSE {
		if st.resumable {
			info.stream = st
		}
		if init {
			w.Header().Set(headerSessionID, s.id)
		}
		c = newSSEConn(w, h.opts.WriteTimeout)
		writeSSEHeaders(w)
		var prime []byte
		if s.primes(version) {
			prime = appendEvent(nil, eventID(st.id, 0), "", h.opts.RetryInterval, nil)
		}
		_ = c.write(prime) // flushes the headers
		st.attach(r.Context(), c, 0, false)
	}
	setInfo(msg, info)
	s.observe(msg)
	if s.deliver(msg) != nil {
		s.takeAll(st)
		if c != nil {
			c.kill()
			return
		}
		errSessionNotFound(w, ids[0])
		return
	}
	if c != nil {
		h.hold(r, s, st, c)
		if init && s.protocolVersion() == "" {
			s.terminate() // initialize failed: the session is useless
		}
		return
	}
	select {
	case <-st.finishedCh:
		st.mu.Lock()
		final := st.final
		st.mu.Unlock()
		if final == nil {
			w.WriteHeader(http.StatusNoContent) // cancelled by the client
			return
		}
		ok := final.Error == nil && final.Batch == nil
		if init && ok {
			w.Header().Set(headerSessionID, s.id)
		}
		bp := bufPool.Get().(*[]byte)
		b := final.AppendJSON((*bp)[:0])
		h.writeJSON(w, r, b)
		putBuf(bp, b)
		if init && !ok {
			s.terminate()
		}
	case <-r.Context().Done():
		s.abandon(st)
		if init {
			s.terminate()
		}
	case <-s.done:
		errSessionNotFound(w, ids[0])
	}
}

func writeSSEHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // tell nginx not to buffer the stream
	w.WriteHeader(http.StatusOK)
}

// hold keeps an SSE response open until its stream is finished or handed to
// another connection, the client goes away, or the session ends, writing
// keep-alive comments meanwhile.
func (h *Handler) hold(r *http.Request, s *session, st *stream, c *sseConn) {
	var tick <-chan time.Time
	if h.opts.KeepAliveInterval > 0 {
		t := time.NewTicker(h.opts.KeepAliveInterval)
		defer t.Stop()
		tick = t.C
	}
	defer c.kill()
	for {
		select {
		case <-c.done:
			return
		case <-r.Context().Done():
			st.detach(c)
			return
		case <-s.done:
			st.detach(c)
			return
		case <-tick:
			if c.write(keepAliveComment) != nil {
				st.detach(c)
				return
			}
		}
	}
}

func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless || isStateless(r.Header.Get(headerProtocolVersion)) {
		h.methodNotAllowed(w, r)
		return
	}
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "not acceptable: Accept must list text/event-stream")
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return
	}
	s := h.lookup(sid)
	if s == nil || !s.begin() {
		errSessionNotFound(w, jsonrpc.ID{})
		return
	}
	defer s.end()
	version := r.Header.Get(headerProtocolVersion)
	if e := checkVersion(version, s); e != "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, e)
		return
	}
	c := newSSEConn(w, h.opts.WriteTimeout)
	if last := r.Header.Get(headerLastEventID); last != "" {
		n, seq, err := parseEventID(last)
		if err != nil {
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+quoteHeader(last)+" was not issued by this server")
			return
		}
		writeSSEHeaders(w)
		_ = c.write(nil)
		st := s.resumableStream(n)
		if st == nil {
			// A finished POST stream: replay what the client missed.
			_ = h.replay(r.Context(), s.id, n, seq, c)
			c.kill()
			return
		}
		if !st.attach(r.Context(), c, seq, true) {
			c.kill()
			return
		}
		h.hold(r, s, st, c)
		return
	}
	st := s.standaloneStream()
	st.mu.Lock()
	if st.conn != nil {
		st.mu.Unlock()
		writeError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "conflict: this session already has an open GET stream (resume with Last-Event-ID to replace it)")
		return
	}
	writeSSEHeaders(w)
	var prime []byte
	if s.primes(version) {
		prime = appendEvent(nil, eventID(0, st.seq), "", h.opts.RetryInterval, nil)
	}
	if c.write(prime) == nil {
		st.conn = c
		st.everConnected = true
	}
	st.mu.Unlock()
	h.hold(r, s, st, c)
}

// replay writes the stored events of a stream after seq to c.
func (h *Handler) replay(ctx context.Context, sid string, stream, after int64, c *sseConn) error {
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	err := h.store.Replay(ctx, sid, stream, after, func(seq int64, data []byte) error {
		b = appendEvent(b[:0], eventID(stream, seq), "message", 0, data)
		return c.write(b)
	})
	putBuf(bp, b)
	return err
}

func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if h.opts.Stateless || isStateless(r.Header.Get(headerProtocolVersion)) {
		h.methodNotAllowed(w, r)
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return
	}
	s := h.lookup(sid)
	if s == nil {
		errSessionNotFound(w, jsonrpc.ID{})
		return
	}
	s.terminate()
	w.WriteHeader(http.StatusNoContent)
}

// writeJSON writes a 200 JSON body, gzip-compressed when worthwhile and
// accepted.
func (h *Handler) writeJSON(w http.ResponseWriter, r *http.Request, body []byte) {
	h.writeJSONStatus(w, r, http.StatusOK, body)
}

// writeJSONStatus is writeJSON with another status.
func (h *Handler) writeJSONStatus(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = valueJSON
	if !h.opts.DisableCompression && len(body) >= gzipMinSize && acceptsGzip(r.Header.Values("Accept-Encoding")) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		w.WriteHeader(status)
		zw := gzipPool.Get().(*gzip.Writer)
		zw.Reset(w)
		_, _ = zw.Write(body)
		_ = zw.Close()
		zw.Reset(nil)
		gzipPool.Put(zw)
		return
	}
	if len(body) > smallBody {
		hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	} // else net/http, which buffers that much, sets it without allocating
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

// acceptsGzip reports whether Accept-Encoding values allow gzip.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" {
				continue
			}
			q := strings.TrimSpace(params)
			if after, ok := strings.CutPrefix(q, "q="); ok && strings.Trim(after, "0.") == "" {
				return false
			}
			return true
		}
	}
	return false
}
