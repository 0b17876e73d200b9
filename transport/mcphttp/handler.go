package mcphttp

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
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
//
// There is no stateless mode any more (the former Stateless option, which
// served each POST on a transient session with a synthesized initialize):
// requests of the stateless revision (2026-07-28) are served without a
// session whatever the options, and sessions of the stateful revisions
// scale horizontally by sharing a SessionStore, an EventStore and the
// server's mcp.Notifier between the processes.
type HandlerOptions struct {
	// JSONResponse answers each request with a single application/json
	// body instead of an SSE stream. Messages the server sends while
	// handling a request (progress, logs, sampling and elicitation
	// requests) then go to the client's standalone GET stream, if it has
	// one on this Handler. The default chooses per request, lazily: the
	// answer goes out as JSON when the handler sends nothing before it,
	// and the response becomes an SSE stream (primed, resumable, keeping
	// the handler's messages with their request) as soon as the handler
	// sends something or runs past KeepAliveInterval. JSON costs less (no
	// event ids, nothing kept for resumption). A client whose Accept
	// header allows only one of the two types gets that type. Initialize
	// is always answered with JSON when the client accepts it.
	JSONResponse bool

	// EagerSSE answers every request whose client accepts SSE with an SSE
	// stream from the start, as before the lazy choice: each answer gets
	// an event id and is kept in the EventStore, so that a client can
	// resume even a request whose handler sent nothing before its result,
	// at the cost of storing every answer. Ignored with JSONResponse.
	EagerSSE bool

	// SessionStore keeps the state of every session (what initialize
	// established, the log level, subscriptions, the principal), so that a
	// Handler can serve a session it does not hold in memory: another
	// process's, or its own after a restart or an idle expiry. Processes
	// sharing a store (and an EventStore, and the mcp.Server's Notifier)
	// serve the same sessions; every change is written to it before the
	// request that made it is answered. Default: a
	// mcp.NewMemorySessionStore(nil) of this Handler's own, which receives
	// a session's state only when the Handler drops its copy (idle
	// expiry), so a held session costs no memory there. A store with a
	// Touch(ctx, id) error method (redisstore's) has it called at most once
	// a minute for each session in use here, so that a store which
	// expires sessions keeps those in use alive.
	SessionStore mcp.SessionStore

	// EventStore keeps SSE events for resumption (GET with Last-Event-ID).
	// Default: an in-memory store with the MemoryEventStoreOptions defaults.
	EventStore EventStore

	// Principal names the caller of an HTTP request (a user or client id
	// taken from what authentication established: a verified token's
	// subject, a client certificate). A session remembers the principal
	// that created it, and a request for it from any other principal gets
	// 403. Default: the principal authentication middleware recorded on
	// the request's context (WithPrincipal; auth.ResourceServer.Wrap
	// does), so that sessions behind it are bound to their creator
	// without configuration; requests without one are "" and may use only
	// sessions created without one.
	Principal func(*http.Request) string

	// UnboundSessions turns the default of Principal off: without a
	// Principal function, sessions are bound to no one, and any caller
	// that knows a session's id may use it, even behind authentication.
	// Only for deployments whose callers share sessions on purpose.
	UnboundSessions bool

	// AllowedHosts lists the Host header values accepted ("name" matches
	// any port, "name:port" only that port). Empty means, decided for
	// each request from the local address it arrived on: on a loopback
	// address, only localhost, 127.0.0.1 and [::1] (any port); on any
	// other address, IP addresses and localhost but no other DNS name.
	// Either way a page whose DNS name an attacker rebinds to this server
	// is refused (403). A server reached by a DNS name (behind a reverse
	// proxy, in a container, on a network) must list that name here; "*"
	// accepts any Host, which turns the DNS-rebinding protection off.
	AllowedHosts []string

	// AllowedOrigins lists the Origin header values accepted from browsers
	// (e.g. "https://app.example.com"; "*" accepts any). Requests without
	// an Origin header are always accepted. Empty means: on loopback, only
	// loopback origins; elsewhere, only the request's own host. A refused
	// Host or Origin gets 403.
	AllowedOrigins []string

	// MaxBodyBytes bounds a POST body; larger ones get 413. Default 4 MiB.
	MaxBodyBytes int64

	// MaxBatch bounds the messages of a JSON-RPC batch in one POST. Only a
	// session of revision 2025-03-26 may send batches: in any other
	// revision, and without a session, a batch gets 400 with one error
	// before its elements are decoded. A batch of more than MaxBatch
	// messages gets 400 with one error too, its elements counted but not
	// decoded, so that a body of tiny elements ([{},{},...]) cannot cost
	// many times its size. Default jsonrpc.DefaultMaxBatch (1,000). Behind
	// auth.ResourceServer with MethodScopes or ToolScopes, which must read
	// every method, a batch beyond that default is refused there anyway.
	MaxBatch int

	// MaxBodyBytesInFlight bounds the bytes of all the POST bodies being
	// received at once (each counts its Content-Length, or MaxBodyBytes
	// when it has none, until it is read). A POST beyond it gets 503 with
	// Retry-After before its body is read, so slow or stalled bodies cannot
	// hold unbounded memory between them. Default 256 MiB (64 bodies of
	// the default MaxBodyBytes, or thousands of ordinary ones); negative
	// means no limit.
	MaxBodyBytesInFlight int64

	// BodyReadTimeout bounds the time to receive a POST body once its
	// headers are in, so that clients which send half a body and stop
	// cannot hold connections (and file descriptors) open: past it the
	// POST gets 408 and its connection is closed. The deadline is lifted
	// once the body is read, so the SSE stream that may follow is not cut.
	// Default 30 seconds; negative disables.
	BodyReadTimeout time.Duration

	// MaxSessions bounds the sessions this Handler holds in memory at once
	// (its own and those rebuilt from the SessionStore). Beyond it, a new
	// initialize, or a request for a session held elsewhere, gets 503 with
	// a JSON-RPC error (CodeServerBusy) and a Retry-After header, while the
	// sessions held keep working. Default 10000; negative means no limit.
	MaxSessions int

	// MaxSessionsPerClient bounds the sessions one client (see ClientKey)
	// may hold on this Handler, so that one client cannot take every slot
	// of MaxSessions and lock everyone else out. Beyond it, the client's
	// initialize gets 429 Too Many Requests with a Retry-After header and a
	// JSON-RPC error (CodeServerBusy); other clients are unaffected. A
	// session stops counting when it ends (DELETE, idle expiry). Default
	// 100: a client program needs a handful of sessions, this leaves room
	// for many users behind one NAT address, and one address holds at most
	// 1% of the default MaxSessions. Negative means no limit.
	MaxSessionsPerClient int

	// ClientKey names the client of a request for MaxSessionsPerClient
	// ("" exempts the request). Default: the principal when Principal gives
	// one, else the remote IP address without its port. Behind a reverse
	// proxy every request comes from the proxy's address: replace it with
	// one that reads the address the proxy forwards (X-Forwarded-For, as
	// far as the proxy can be trusted to set it), or with a principal.
	ClientKey func(*http.Request) string

	// MaxStatelessRequests bounds the requests of the stateless revision
	// (2026-07-28) being handled at once, which hold no session and so no
	// MaxSessions slot; one beyond gets 503 with Retry-After and a JSON-RPC
	// error (CodeServerBusy) carrying its id. Default 1000; negative means
	// no limit.
	MaxStatelessRequests int

	// MaxStatelessRequestsPerClient bounds the stateless requests one
	// client (see ClientKey) has being handled at once, so that one client
	// cannot take every slot of MaxStatelessRequests; one beyond gets 429
	// with Retry-After and a JSON-RPC error (CodeServerBusy) carrying its
	// id. Default 32; negative means no limit.
	MaxStatelessRequestsPerClient int

	// SessionIdleTimeout ends this Handler's copy of a session after this
	// long without any HTTP request for it (an open GET or POST stream
	// counts as activity). The session's state stays in the SessionStore,
	// which has its own expiry: a later request rebuilds the session.
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

	// MaxQueuedEvents bounds the events waiting to be written to one
	// session's standalone GET stream. Those events (notifications fanned
	// out to every session, such as list changes and resource updates, and
	// with JSONResponse the messages of requests) are stored in the
	// EventStore, then queued for the GET's own goroutine to write, so the
	// server never waits for one slow reader before telling the next
	// client. A reader that lets this many pile up has its connection cut;
	// it resumes with Last-Event-ID and gets them from the EventStore.
	// Default 256.
	MaxQueuedEvents int

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
	DefaultMaxBodyBytes         = 4 << 20
	DefaultMaxSessions          = 10000
	DefaultMaxSessionsPerClient = 100
	DefaultSessionIdleTimeout   = 30 * time.Minute
	DefaultKeepAliveInterval    = 30 * time.Second
	DefaultRetryInterval        = time.Second
	DefaultWriteTimeout         = 30 * time.Second
	DefaultBodyReadTimeout      = 30 * time.Second
	DefaultMaxQueuedEvents      = 256
	DefaultMaxBodyBytesInFlight = 256 << 20
)

// smallBody is what net/http's response buffer holds (its
// bufferBeforeChunkingSize): a body that fits gets its Content-Length from
// net/http when the handler returns.
const smallBody = 2048

// gzipMinSize is the smallest JSON body worth compressing.
const gzipMinSize = 1024

// Notices a Handler publishes on the server's mcp.Notifier, for the other
// Handlers serving the same sessions.
const (
	// noticeStreamTaken: a Handler (Data) took the standalone stream of a
	// session over; the previous holder stops storing its events.
	noticeStreamTaken = "mcphttp/streamTaken"
	// noticeSessionDeleted: the client ended a session (DELETE); every
	// Handler ends its copy.
	noticeSessionDeleted = "mcphttp/sessionDeleted"
	// noticeResponse: a Handler received the client's answer to a request
	// a session sent (sampling, elicitation, roots), which may have gone out
	// from another Handler's copy. Data is the receiving Handler's id, a
	// newline, and the message; every other copy delivers it, and the one
	// whose call waits for it takes it (the others drop it).
	noticeResponse = "mcphttp/response"
	// noticeStreamReleased: a Handler let the standalone stream of a
	// session go after noticeStreamTaken, every event it stored being in
	// the EventStore by then; the new holder reads what it stored after
	// the takeover's replay (stream.catchUp).
	noticeStreamReleased = "mcphttp/streamReleased"
)

// Handler serves an mcp.Server over the Streamable HTTP transport. Mount it
// at any path:
//
//	http.Handle("/mcp", mcphttp.NewHandler(server, nil))
//
// Each POST takes one of two paths, decided once from its headers and
// body. A request of the stateless revision (2026-07-28: the
// MCP-Protocol-Version header names it, or the POST has no session and its
// params._meta declares it) is served by mcp.Server.HandleStateless on the
// POST's goroutine, with no session. Anything else belongs to a session of
// a stateful revision (2025-03-26 to 2025-11-25): a POST carries one
// message (or, at 2025-03-26, a batch); requests are answered with an SSE
// stream or a JSON body, notifications and responses with 202. GET opens
// the session's standalone SSE stream (one at a time on a Handler; another
// gets 409) or, with Last-Event-ID, resumes a stream of the session. DELETE
// ends the session.
//
// Sessions are data: their state lives in a SessionStore and their events
// in an EventStore, and a Handler holds in memory a copy of the sessions it
// serves (an mcp.ServerSession each). A request for a session it does not
// hold rebuilds the session from the SessionStore; several Handlers, in one
// process or many, sharing the two stores and the mcp.Server's Notifier
// serve the same sessions without affinity:
//
//   - A change to a session's state (subscriptions, log level) is saved
//     before it is answered, and the other copies reload it.
//   - The standalone GET stream is held by the Handler that last attached a
//     GET to it. Only the holder stores and writes the session's unrelated
//     messages (resource updates reach every copy of the session through
//     the Notifier; the holder's copy alone sends them), and it goes on
//     storing them after the connection breaks. A client resuming the
//     stream with Last-Event-ID on another Handler makes that Handler the
//     holder: it tells the others so (a notice on the Notifier) before
//     replaying what the store kept, then continues live. With a Notifier
//     that delivers to every process before Publish returns (as
//     mcp.MemoryNotifier does), nothing is lost or sent twice; with one
//     that delivers later (Redis), both store the session's events while
//     the notice travels, the old holder announces when it let go, and
//     the new one then sends what the old one stored late, an update both
//     stored going out once (see takeover).
//   - Shutdown drains a Handler: its standalone streams end with a retry
//     hint and it stores their events until their clients resume them on
//     other Handlers.
//   - A POST stream belongs to the Handler running its request. Resuming it
//     on another Handler replays what was stored and ends the response, so
//     the client comes back until the answer is there; it does not go on
//     live there.
//   - Requests the server sends while answering with JSON go to the
//     standalone stream and need it held by the Handler running the
//     request.
//   - DELETE forgets the session in both stores and ends every copy.
//
// A Handler bounds what one client can hold: the time to send a POST body
// (BodyReadTimeout), its size (MaxBodyBytes) and the messages of a batch
// in it (MaxBatch; a batch is refused before it is decoded where the
// session's revision has none), the sessions of one client
// (MaxSessionsPerClient) and of everyone (MaxSessions), the bodies being
// received at once (MaxBodyBytesInFlight), and the events
// waiting for a slow reader of a standalone stream (MaxQueuedEvents). The
// http.Server it runs in should still set ReadHeaderTimeout (a client that
// never finishes its headers never reaches the Handler) and IdleTimeout
// (keep-alive connections between requests); leave ReadTimeout and
// WriteTimeout unset, as they would cut long SSE streams (the Handler sets
// per-request deadlines of its own instead).
//
// A Handler is safe for concurrent use. Shutdown drains it for a rolling
// restart (every request in flight answered, every standalone stream handed
// to another Handler); Close ends every session copy it holds at once. Neither
// touches the sessions' stored state.
type Handler struct {
	server *mcp.Server
	opts   HandlerOptions
	events EventStore
	states mcp.SessionStore
	// writeThrough: states is shared (HandlerOptions.SessionStore), so
	// sessions write every change to it; otherwise it is this Handler's
	// own and receives a session's state when the Handler drops its copy.
	writeThrough bool
	policy       originPolicy
	bodies       *bodyBudget    // MaxBodyBytesInFlight
	statelessReq *clientCounter // MaxStatelessRequests, MaxStatelessRequestsPerClient
	log          *slog.Logger

	id           string // this Handler's name in notices
	streamPrefix string // the prefix of the names of the POST streams it opens
	unsubscribe  func()

	// Draining (Shutdown): from the moment draining is set, HTTP requests
	// are refused; inflight counts those that came in before; drainCh is
	// closed with draining set, for the connections held open.
	draining atomic.Bool
	inflight atomic.Int64
	drainCh  chan struct{}

	mu       sync.Mutex
	sessions map[string]*session
	reserved int            // sessions being created, counted against MaxSessions
	clients  map[string]int // sessions held or being created, by ClientKey
	closed   bool
	sweeper  *time.Timer // expires idle sessions; armed while there are sessions
	sweeping bool        // sweeper is armed or running
}

// NewHandler returns a Handler serving s. opts may be nil.
func NewHandler(s *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{server: s, sessions: make(map[string]*session), drainCh: make(chan struct{})}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	o.Principal = sessionPrincipal(o.Principal, o.UnboundSessions)
	fillLimits(&o.MaxBodyBytes, &o.MaxSessions, &o.KeepAliveInterval, &o.WriteTimeout, &o.BodyReadTimeout)
	if o.SessionIdleTimeout == 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.MaxQueuedEvents <= 0 {
		o.MaxQueuedEvents = DefaultMaxQueuedEvents
	}
	if o.MaxSessionsPerClient == 0 {
		o.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultRetryInterval
	}
	h.events = o.EventStore
	if h.events == nil {
		h.events = NewMemoryEventStore(nil)
	}
	h.states = o.SessionStore
	h.writeThrough = h.states != nil
	if h.states == nil {
		h.states = mcp.NewMemorySessionStore(nil)
	}
	h.policy = newOriginPolicy(o.AllowedHosts, o.AllowedOrigins)
	if o.MaxBodyBytesInFlight == 0 {
		o.MaxBodyBytesInFlight = DefaultMaxBodyBytesInFlight
	}
	h.bodies = newBodyBudget(o.MaxBodyBytesInFlight)
	h.statelessReq = newStatelessCounter(&o.MaxStatelessRequests, &o.MaxStatelessRequestsPerClient)
	h.log = loggerOrDiscard(o.Logger)
	h.id = rand.Text()
	h.streamPrefix = h.id[:10] + "."
	h.unsubscribe = s.Notifier().Subscribe(h.hear)
	return h
}

// Close ends every session copy this Handler holds at once and refuses
// every request from now on (503 with Retry-After): requests in flight for
// those sessions are answered 404, and their clients start new sessions.
// It waits for the sessions' handlers to return. The sessions' stored
// state stays, for other Handlers to serve. Close is Shutdown with no time
// to drain; a process that stops while other replicas serve its sessions
// calls Shutdown.
func (h *Handler) Close() error {
	h.beginDrain()
	h.unsubscribe()
	h.mu.Lock()
	sessions := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
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

// SessionCount reports how many sessions this Handler holds in memory.
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

// principal returns the caller of r ("" without a Principal function).
func (h *Handler) principal(r *http.Request) string { return callerOf(h.opts.Principal, r) }

// permits reports whether the caller of r may use a session created by
// owner.
func (h *Handler) permits(r *http.Request, owner string) bool {
	return permitted(h.opts.Principal, r, owner)
}

// callerOf names the caller of r with principal, a Principal option; ""
// when it is nil.
func callerOf(principal func(*http.Request) string, r *http.Request) string {
	if principal == nil {
		return ""
	}
	return principal(r)
}

// permitted reports whether the caller of r, named by principal, may use a
// session created by owner: always when principal is nil.
func permitted(principal func(*http.Request) string, r *http.Request, owner string) bool {
	return principal == nil || principal(r) == owner
}

// errForbiddenSession answers a request for another principal's session.
func errForbiddenSession(w http.ResponseWriter, id jsonrpc.ID) {
	writeError(w, http.StatusForbidden, id, jsonrpc.CodeInvalidRequest, "forbidden: this session belongs to another principal")
}

// sessionFor returns the session sid for a request by r's caller, and
// begins an HTTP request on it (the caller ends it): the copy this Handler
// holds, or one rebuilt from the SessionStore. It answers the request
// itself and returns nil when the session is unknown (404), another
// principal's (403), or cannot be rebuilt now (503).
func (h *Handler) sessionFor(w http.ResponseWriter, r *http.Request, sid string, id jsonrpc.ID) *session {
	s := h.lookup(sid)
	if s == nil {
		state, err := h.states.Load(r.Context(), sid)
		switch {
		case errors.Is(err, mcp.ErrNoSession):
			errSessionNotFound(w, id)
			return nil
		case err != nil:
			h.log.Warn("mcphttp: session store: load", "session", sid, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy, "server busy: the session store is unavailable; try again later")
			return nil
		case !h.permits(r, state.Principal):
			errForbiddenSession(w, id)
			return nil
		}
		var overQuota bool
		if s, overQuota = h.rebuild(state, h.clientKey(r)); s == nil {
			w.Header().Set("Retry-After", "5")
			if overQuota {
				writeError(w, http.StatusTooManyRequests, id, CodeServerBusy, "too many sessions: this client holds "+strconv.Itoa(h.opts.MaxSessionsPerClient)+" sessions on this server already; end one (DELETE) or try again later")
				return nil
			}
			writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy, "server busy: cannot hold another session now; try again later")
			return nil
		}
	}
	if !h.permits(r, s.principal) {
		errForbiddenSession(w, id)
		return nil
	}
	if !s.begin() {
		errSessionNotFound(w, id)
		return nil
	}
	h.touch(r.Context(), s)
	return s
}

// clientKey names the client of r for MaxSessionsPerClient.
func (h *Handler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		return h.opts.ClientKey(r)
	}
	if p := h.principal(r); p != "" {
		return "principal:" + p
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// reserve counts a session about to be created for client against
// MaxSessions and, when quota, against MaxSessionsPerClient. It reports
// false, and whether the client's quota is what is full, when the Handler
// is closed or full.
func (h *Handler) reserve(client string, quota bool) (ok, overQuota bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || (h.opts.MaxSessions > 0 && len(h.sessions)+h.reserved >= h.opts.MaxSessions) {
		return false, false
	}
	if quota && client != "" && h.opts.MaxSessionsPerClient > 0 && h.clients[client] >= h.opts.MaxSessionsPerClient {
		return false, true
	}
	h.reserved++
	if client != "" {
		if h.clients == nil {
			h.clients = make(map[string]int)
		}
		h.clients[client]++
	}
	return true, false
}

// unclient stops counting a session of client; h.mu must be held.
func (h *Handler) unclient(client string) {
	if client == "" {
		return
	}
	if n := h.clients[client] - 1; n > 0 {
		h.clients[client] = n
	} else {
		delete(h.clients, client)
	}
}

// install registers a session made after reserve, or reports false (and
// ends it) when the Handler closed meanwhile or, for a rebuilt session,
// another request rebuilt it first; the winner is returned then.
func (h *Handler) install(s *session, ss *mcp.ServerSession) (*session, bool) {
	h.mu.Lock()
	h.reserved--
	other := h.sessions[s.id]
	ok := !h.closed && other == nil
	if ok {
		s.ss = ss
		h.sessions[s.id] = s
		h.armSweeper()
	} else {
		h.unclient(s.client)
	}
	h.mu.Unlock()
	if !ok {
		s.ss = ss
		s.terminate()
	}
	return other, ok
}

// rebuild makes this Handler's copy of a session from its stored state,
// or returns nil when it cannot hold one more session (overQuota: the
// client is at MaxSessionsPerClient; a rebuilt session counts like one it
// initialized here).
func (h *Handler) rebuild(state *mcp.SessionState, client string) (_ *session, overQuota bool) {
	if ok, over := h.reserve(client, true); !ok {
		if s := h.lookup(state.ID); s != nil {
			return s, false
		}
		return nil, over
	}
	s := newSession(h, state.ID, state.Principal, client)
	ss := h.server.Connect(s, &mcp.SessionOptions{ID: state.ID, State: state, Store: h.sessionStore(), Principal: state.Principal})
	if other, ok := h.install(s, ss); !ok {
		return other, false
	}
	h.log.Debug("mcphttp: session rebuilt from the session store", "session", s.id)
	return s, false
}

// A storeToucher is a SessionStore that renews a session's life without
// rewriting it.
type storeToucher interface {
	Touch(ctx context.Context, id string) error
}

// touchEvery is how often a session in use is renewed in a storeToucher.
var touchEvery = time.Minute

// touch renews s in the shared store if it is a storeToucher and s was not
// renewed for touchEvery: a session served by this copy alone is never
// loaded or saved, and would otherwise expire there while in use.
func (h *Handler) touch(ctx context.Context, s *session) {
	t, ok := h.states.(storeToucher)
	if !ok || !h.writeThrough {
		return
	}
	now := time.Now().UnixNano()
	last := s.touched.Load()
	if last == 0 {
		s.touched.CompareAndSwap(0, now) // just made or rebuilt: the store has it fresh
		return
	}
	if now-last < int64(touchEvery) || !s.touched.CompareAndSwap(last, now) {
		return
	}
	if err := t.Touch(ctx, s.id); err != nil {
		h.log.Warn("mcphttp: session store: touch", "session", s.id, "err", err)
	}
}

// sessionStore is the store sessions write their changes to: the shared
// one, or none when the Handler keeps its own (see writeThrough).
func (h *Handler) sessionStore() mcp.SessionStore {
	if h.writeThrough {
		return h.states
	}
	return nil
}

// forget ends a session for good, at the client's request: its state and
// events are deleted and every Handler ends its copy.
func (h *Handler) forget(ctx context.Context, sid string) {
	if err := h.states.Delete(ctx, sid); err != nil {
		h.log.Warn("mcphttp: session store: delete", "session", sid, "err", err)
	}
	if err := h.events.DeleteSession(ctx, sid); err != nil {
		h.log.Warn("mcphttp: event store: delete session", "session", sid, "err", err)
	}
	h.publish(ctx, noticeSessionDeleted, sid)
	if s := h.lookup(sid); s != nil {
		s.terminate()
	}
}

// publish sends one of this package's notices to the other Handlers.
func (h *Handler) publish(ctx context.Context, method, sid string) {
	n := &mcp.Notice{Method: method, Session: sid, Data: h.id, Origin: h.server.InstanceID()}
	if err := h.server.Notifier().Publish(ctx, n); err != nil {
		h.log.Warn("mcphttp: notifier: publish", "method", method, "err", err)
	}
}

// hear acts on the notices of other Handlers.
func (h *Handler) hear(n *mcp.Notice) {
	if n.Data == h.id || n.Session == "" {
		return
	}
	switch n.Method {
	case noticeResponse:
		from, body, ok := strings.Cut(n.Data, "\n")
		if !ok || from == h.id {
			return
		}
		if s := h.lookup(n.Session); s != nil {
			if m := (&jsonrpc.Decoder{MaxBatch: h.opts.MaxBatch}).Decode([]byte(body)); m.Invalid == nil && (m.IsResponse() || m.Batch != nil) {
				_ = s.deliver(m)
			}
		}
	case noticeStreamTaken:
		if st := h.standaloneOf(n.Session); st != nil && st.release() {
			h.publish(context.Background(), noticeStreamReleased, n.Session)
		}
	case noticeStreamReleased:
		if st := h.standaloneOf(n.Session); st != nil {
			st.catchUp(context.Background())
		}
	case noticeSessionDeleted:
		if s := h.lookup(n.Session); s != nil {
			s.terminate()
		}
	}
}

// standaloneOf returns the standalone stream of session sid, if this
// Handler holds the session and the stream was made.
func (h *Handler) standaloneOf(sid string) *stream {
	s := h.lookup(sid)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalone
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

// sweep ends the copies of the sessions idle for SessionIdleTimeout (their
// stored state stays), and re-arms itself while sessions remain.
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
			if !h.writeThrough && s.ss != nil && s.ss.ProtocolVersion() != "" {
				// The private store receives what this copy held, so the
				// client's next request rebuilds the session.
				if err := h.states.Save(context.Background(), s.ss.State()); err != nil {
					h.log.Warn("mcphttp: session store: save", "session", s.id, "err", err)
				}
			}
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
		h.unclient(s.client)
	}
	h.mu.Unlock()
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.policy.check(r); msg != "" {
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	if !h.enter() {
		refuseDraining(w)
		return
	}
	defer h.leave()
	if r.Method != http.MethodPost { // a POST is checked once its id is known
		if e := checkMCPHeaders(r.Header); e != "" {
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, e)
			return
		}
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
	if isStateless(r.Header.Get(headerProtocolVersion)) {
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
		return "bad request: unsupported MCP-Protocol-Version " + quoteHeader(header) + "; supported: " + strings.Join(mcp.SupportedVersions(), ", ")
	}
	if s != nil {
		if v := s.protocolVersion(); v != "" && v != header {
			return "bad request: MCP-Protocol-Version " + quoteHeader(header) + " differs from the negotiated version " + v
		}
	}
	return ""
}

// servePost decides, once, which lifecycle a POST belongs to: a request of
// the stateless revision (serveStateless), or a message of a stateful session
// (initialize creates one; anything else names one).
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
	version := r.Header.Get(headerProtocolVersion)
	sid := r.Header.Get(headerSessionID)
	dec := jsonrpc.Decoder{MaxBatch: h.opts.MaxBatch, Batches: func() *jsonrpc.Error { return h.refuseBatch(version, sid) }}
	msg := readMessage(w, r, h.opts.MaxBodyBytes, h.opts.BodyReadTimeout, h.bodies, &dec)
	if msg == nil {
		return
	}
	if e := checkMCPHeaders(r.Header); e != "" {
		code := int64(jsonrpc.CodeInvalidRequest)
		if isStateless(r.Header.Get(headerProtocolVersion)) || declaresStateless(msg) {
			code = mcp.CodeHeaderMismatch
		}
		writeError(w, http.StatusBadRequest, msg.ID, code, e)
		return
	}
	if isStateless(version) || (sid == "" && !isStateful(version) && declaresStateless(msg)) {
		h.serveStateless(w, r, msg, okJSON, okSSE)
		return
	}
	h.serveSession(w, r, msg, version, sid, okJSON, okSSE)
}

// The refusals of a batch in a POST that cannot carry one.
var (
	errBatchStateless = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: batches are not part of the stateless protocol revision (only of 2025-03-26)")
	errBatchNoSession = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: a batch needs a session (Mcp-Session-Id) of protocol revision 2025-03-26; initialize must not be part of a batch")
)

// refuseBatch says why a POST with these MCP-Protocol-Version and
// Mcp-Session-Id headers may not carry a batch, or returns nil when it may:
// only a session of revision 2025-03-26 takes batches. The body's decoder
// asks it before decoding a batch's elements, so a refused batch costs one
// error. A session named without the header is judged by its negotiated
// revision when this Handler holds it; one that must be rebuilt from the
// SessionStore first is judged once it is (serveSession), its batch
// bounded by MaxBatch meanwhile.
func (h *Handler) refuseBatch(version, sid string) *jsonrpc.Error {
	switch {
	case isStateless(version):
		return errBatchStateless
	case sid == "":
		return errBatchNoSession
	case version == "":
		s := h.lookup(sid)
		if s == nil {
			return nil
		}
		version = s.protocolVersion()
	}
	if rev, ok := mcp.LookupRevision(version); ok && !rev.Batches {
		return errBatchRevision(version)
	}
	return nil
}

// errBatchRevision refuses a batch in a session of a known revision
// without batches.
func errBatchRevision(version string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: batches are allowed only in protocol revision 2025-03-26 (this session uses "+version+")")
}

// serveSession serves a POST of a stateful session.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version, sid string, okJSON, okSSE bool) {
	if msg.Batch != nil {
		for _, e := range msg.Batch {
			if e.Method == mcp.MethodInitialize {
				writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: initialize must not be part of a batch")
				return
			}
		}
	}
	if e := checkVersion(version, nil); e != "" {
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidRequest, e)
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
	s := h.sessionFor(w, r, sid, msg.ID)
	if s == nil {
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
	if rev, ok := mcp.LookupRevision(version); msg.Batch != nil && ok && !rev.Batches {
		e := errBatchRevision(version)
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, e.Code, e.Message)
		return
	}
	h.serveMessage(w, r, s, msg, version, okJSON, okSSE, false)
}

// serveInitialize creates a session for an initialize request.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version string, okJSON, okSSE bool) {
	client := h.clientKey(r)
	if ok, overQuota := h.reserve(client, true); !ok {
		w.Header().Set("Retry-After", "5")
		h.mu.Lock()
		closed := h.closed
		h.mu.Unlock()
		if closed {
			writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy, "server shutting down: no new sessions")
			return
		}
		if overQuota {
			h.log.Warn("mcphttp: refusing new session: client at MaxSessionsPerClient", "client", client, "max", h.opts.MaxSessionsPerClient)
			writeError(w, http.StatusTooManyRequests, msg.ID, CodeServerBusy,
				"too many sessions: this client holds "+strconv.Itoa(h.opts.MaxSessionsPerClient)+" sessions already; end one (DELETE) or try again later")
			return
		}
		h.log.Warn("mcphttp: refusing new session: at MaxSessions", "max", h.opts.MaxSessions)
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy,
			"server busy: session limit reached ("+strconv.Itoa(h.opts.MaxSessions)+" open sessions); try again later")
		return
	}
	principal := h.principal(r)
	s := newSession(h, rand.Text(), principal, client)
	ss := h.server.Connect(s, &mcp.SessionOptions{ID: s.id, Store: h.sessionStore(), Principal: principal})
	if _, ok := h.install(s, ss); !ok {
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy, "server cannot start a session now")
		return
	}
	s.begin()
	defer s.end()
	h.serveMessage(w, r, s, msg, version, okJSON, okSSE, true)
}

// hasResponse reports whether msg is, or a batch holding, a response.
func hasResponse(msg *jsonrpc.Message) bool {
	if msg.Batch == nil {
		return msg.IsResponse()
	}
	for _, e := range msg.Batch {
		if e.Invalid == nil && e.IsResponse() {
			return true
		}
	}
	return false
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
	info.principal = s.principal
	if init {
		info.SessionID = ""
	}
	ids := requestIDs(msg)
	if len(ids) == 0 && h.writeThrough && !init && hasResponse(msg) {
		// The call this answers may wait in another Handler's copy of the
		// session: pass it on.
		n := &mcp.Notice{Method: noticeResponse, Session: s.id, Data: h.id + "\n" + string(msg.AppendJSON(nil)), Origin: h.server.InstanceID()}
		if err := h.server.Notifier().Publish(r.Context(), n); err != nil {
			h.log.Warn("mcphttp: notifier: publish", "method", noticeResponse, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: cannot pass the answer on to the other processes now; try again later")
			return
		}
	}
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
	// A client accepting both gets JSON unless the handler sends something
	// before its answer (see stream.lazy).
	lazy := useSSE && okJSON && !h.opts.EagerSSE
	st, err := s.openStream(ids, useSSE, lazy)
	if err != nil {
		// Id null: the id names a live request, whose answer this is not.
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	var c *sseConn
	if useSSE {
		info.stream = st
		if init {
			w.Header().Set(headerSessionID, s.id)
		}
		c = newSSEConn(w, h.opts.WriteTimeout)
		var prime []byte
		if s.primes(version) {
			prime = appendEvent(nil, eventID(st.name, ""), "", h.opts.RetryInterval, nil)
		}
		if lazy {
			st.prime = prime // written if the stream becomes SSE
		} else {
			_ = c.write(prime) // flushes the headers
		}
		_ = st.attach(r.Context(), c, "", false)
	}
	setInfo(msg, info)
	s.observe(msg)
	var err2 error
	if !init && msg.Batch == nil && (c == nil || lazy) {
		// One request whose answer can still be JSON: its handler runs
		// on this goroutine, which the watch stands in for meanwhile.
		wt := h.watch(r, s, st, c)
		err2 = s.serveInline(msg)
		wt.stop()
	} else {
		err2 = s.deliver(msg)
	}
	if err2 != nil {
		s.takeAll(st)
		if c != nil {
			c.kill()
			if c.started() {
				return
			}
		}
		errSessionNotFound(w, ids[0])
		return
	}
	if c != nil {
		select {
		case <-c.done:
			c.kill() // answered already (inline): nothing to hold
		default:
			h.hold(r, s, st, c)
		}
		if lazy, final, finished := st.jsonAnswer(); lazy {
			h.answerJSON(w, r, s, st, ids[0], init, final, finished, okSSE)
			return
		}
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
		h.answerJSON(w, r, s, st, ids[0], init, final, true, okSSE)
	case <-r.Context().Done():
		h.answerJSON(w, r, s, st, ids[0], init, nil, false, okSSE)
	case <-s.done:
		errSessionNotFound(w, ids[0])
	}
}

// inlineWatch does for a request whose handler runs on the POST's
// goroutine what that goroutine does otherwise while it waits (hold, or
// the wait for a JSON answer), without a goroutine of its own: a client
// going away while the answer can still be JSON abandons the request, and
// a lazy stream waiting past KeepAliveInterval becomes SSE and gets
// keep-alive comments.
type inlineWatch struct {
	stopCtx func() bool

	mu      sync.Mutex
	stopped bool
	tick    *time.Timer
}

// watch starts the watch of stream st of the POST r; c is its SSE
// connection, nil for a JSON stream.
func (h *Handler) watch(r *http.Request, s *session, st *stream, c *sseConn) *inlineWatch {
	wt := &inlineWatch{}
	wt.stopCtx = context.AfterFunc(r.Context(), func() {
		if st.waitingJSON() {
			s.abandon(st)
		}
	})
	if c != nil && h.opts.KeepAliveInterval > 0 {
		iv := h.opts.KeepAliveInterval
		wt.mu.Lock()
		wt.tick = time.AfterFunc(iv, func() {
			wt.mu.Lock()
			defer wt.mu.Unlock()
			if wt.stopped {
				return
			}
			st.upgrade() // a long wait is worth an SSE stream
			if c.write(keepAliveComment) != nil {
				st.detach(c)
				return
			}
			wt.tick.Reset(iv)
		})
		wt.mu.Unlock()
	}
	return wt
}

// stop ends the watch; the POST's goroutine takes over.
func (wt *inlineWatch) stop() {
	wt.stopCtx()
	wt.mu.Lock()
	wt.stopped = true
	if wt.tick != nil {
		wt.tick.Stop()
	}
	wt.mu.Unlock()
}

// answerJSON ends a POST answered with JSON: with final when the stream
// finished with an answer, with answerCancelled when its requests were
// cancelled, and when it did not finish, by giving up on its requests (the
// client went away) or reporting the session gone. okSSE says whether the
// client accepts an SSE stream.
func (h *Handler) answerJSON(w http.ResponseWriter, r *http.Request, s *session, st *stream, id jsonrpc.ID, init bool, final *jsonrpc.Message, finished, okSSE bool) {
	switch {
	case !finished && r.Context().Err() != nil:
		s.abandon(st)
		if init {
			h.forget(context.WithoutCancel(r.Context()), s.id)
		}
		return
	case !finished:
		errSessionNotFound(w, id)
		return
	case final == nil:
		answerCancelled(w, id, okSSE)
		return
	}
	ok := final.Error == nil && final.Batch == nil
	if init && ok {
		w.Header().Set(headerSessionID, s.id)
	}
	bp := bufPool.Get().(*[]byte)
	b := final.AppendJSON((*bp)[:0])
	if final.Error != nil && final.Error.Code == jsonrpc.CodeServerOverloaded {
		// Server busy (a full queue, a session store down): 503, as for
		// the refusals this Handler makes itself.
		w.Header().Set("Retry-After", "1")
		h.writeJSONStatus(w, r, http.StatusServiceUnavailable, b)
	} else {
		h.writeJSON(w, r, b)
	}
	putBuf(bp, b)
	if init && !ok {
		s.terminate()
	}
}

// answerCancelled ends the POST of a request the client cancelled before
// anything was sent for it. A POSTed request must be answered with an SSE
// stream or a JSON body, and the receiver of a cancellation should send no
// response: so an SSE stream that ends empty (no event id either, so that
// nothing invites the client to resume it), or, for a client that takes
// JSON only, an error response it will ignore for the cancelled id.
func answerCancelled(w http.ResponseWriter, id jsonrpc.ID, okSSE bool) {
	if okSSE {
		writeSSEHeaders(w)
		return
	}
	writeError(w, http.StatusOK, id, jsonrpc.CodeInternalError, "request cancelled by the client")
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
	var drain <-chan struct{}
	if st.id == 0 {
		// A drain ends the standalone stream here, for another Handler;
		// a POST stream runs to its answer.
		drain = h.drainCh
	}
	defer c.kill()
	for {
		select {
		case <-c.done:
			return
		case <-drain:
			st.handOff(c)
			return
		case <-r.Context().Done():
			st.detach(c)
			return
		case <-s.done:
			st.detach(c)
			return
		case <-st.wake:
			if !st.flush(c) {
				st.detach(c)
				return
			}
		case <-tick:
			st.upgrade() // a long wait is worth an SSE stream
			if c.write(keepAliveComment) != nil {
				st.detach(c)
				return
			}
		}
	}
}

func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if isStateless(r.Header.Get(headerProtocolVersion)) {
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
	var name, after string
	last := r.Header.Get(headerLastEventID)
	if last != "" {
		var err error
		if name, after, err = parseEventID(last); err != nil {
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+quoteHeader(last)+" was not issued by this server")
			return
		}
	}
	s := h.sessionFor(w, r, sid, jsonrpc.ID{})
	if s == nil {
		return
	}
	defer s.end()
	version := r.Header.Get(headerProtocolVersion)
	if e := checkVersion(version, s); e != "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, e)
		return
	}
	c := newSSEConn(w, h.opts.WriteTimeout)
	defer c.kill()
	var st *stream
	switch {
	case last == "":
		st = s.standaloneStream()
		if !st.isHeld() {
			h.publish(r.Context(), noticeStreamTaken, s.id)
		}
		if !st.open(r.Context(), c, s.primes(version), h.opts.RetryInterval) {
			writeError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "conflict: this session already has an open GET stream (resume with Last-Event-ID to replace it)")
			return
		}
		h.hold(r, s, st, c)
		return
	case name == standaloneName:
		st = s.standaloneStream()
		if st.claim(r.Context(), after) {
			// Take the stream over before replaying, so that the previous
			// holder stores nothing the replay would miss; this Handler
			// stores the session's events from before the notice on, so
			// that none published while the stream moves is missed.
			h.publish(r.Context(), noticeStreamTaken, s.id)
		}
	default:
		st = s.postStream(name)
	}
	if st == nil {
		// A finished POST stream, or another Handler's: replay what the
		// client missed, and end.
		var err error
		if h.writeThrough && !strings.HasPrefix(name, h.streamPrefix) {
			// Another process's POST stream, whose request may still be
			// running there: follow it until its answer is stored.
			err = h.follow(r.Context(), s, name, after, c)
		} else {
			_, err = h.replay(r.Context(), s.id, name, after, c)
		}
		h.endReplay(w, c, last, err)
		return
	}
	if err := st.attach(r.Context(), c, after, true); err != nil {
		h.endReplay(w, c, last, err)
		return
	}
	_ = c.write(nil) // the headers, if nothing was replayed
	h.hold(r, s, st, c)
}

// followLimit bounds how long a GET follows another process's POST
// stream, whose process may have died with the request.
const followLimit = 10 * time.Minute

// follow replays a POST stream of another process from the store, and
// again as events arrive there, until the stream's answer (a response) was
// sent, the client leaves, the session ends or followLimit passes. It
// waits for the next event with the store's Wait if it is an EventWaiter,
// else polls (from every 50ms up to every second).
func (h *Handler) follow(ctx context.Context, s *session, stream, after string, c *sseConn) error {
	ctx, cancel := context.WithTimeout(ctx, followLimit)
	defer cancel()
	bp := bufPool.Get().(*[]byte)
	defer func() { putBuf(bp, *bp) }()
	wait := 50 * time.Millisecond
	for {
		answered := false
		err := h.events.Replay(ctx, s.id, stream, after, func(id string, data []byte) error {
			*bp = appendStoredEvent((*bp)[:0], stream, id, true, data)
			after = id
			wait = 50 * time.Millisecond
			if m := jsonrpc.Decode(data); m.Invalid == nil && m.IsResponse() {
				answered = true
			}
			return c.write(*bp)
		})
		if err != nil || answered {
			return err
		}
		_ = c.write(nil) // the headers, so that the client knows it is connected
		if !h.awaitEvent(ctx, s, stream, after, wait, c) {
			return nil
		}
		wait = min(wait*2, time.Second)
	}
}

// awaitEvent waits up to d for the stream to grow past after (with the
// store's Wait, if it has one, else for all of d), and reports false once
// ctx ended, the session ended, the client left or the Handler is
// draining (the client is then told to resume elsewhere).
func (h *Handler) awaitEvent(ctx context.Context, s *session, stream, after string, d time.Duration, c *sseConn) bool {
	if w, ok := h.events.(EventWaiter); ok && w.Wait(ctx, s.id, stream, after, d) == nil {
		d = 0 // waited: only look whether to go on
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	case <-c.done:
		return false
	case <-h.drainCh:
		// The client resumes on another Handler.
		_ = c.write(appendRetry(nil, h.opts.RetryInterval))
		return false
	case <-t.C:
		return true
	}
}

// endReplay ends a GET whose replay is all there is: with 400 if the store
// did not know Last-Event-ID and nothing was sent yet.
func (h *Handler) endReplay(w http.ResponseWriter, c *sseConn, last string, err error) {
	if c.started() {
		return
	}
	if errors.Is(err, ErrUnknownEvent) {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+quoteHeader(last)+" was not issued by this server")
		return
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errConnGone) {
		// The store failed (Redis down, say): the client retries later
		// with the same Last-Event-ID and loses nothing.
		h.log.Warn("mcphttp: event store: replay", "err", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: the event store is unavailable; resume with the same Last-Event-ID later")
		return
	}
	_ = c.write(nil)
}

// replay writes the stored events of a stream after the store id after to
// c, and returns the store id of the last one (after when there is none).
func (h *Handler) replay(ctx context.Context, sid, stream, after string, c *sseConn) (string, error) {
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	last := after
	err := h.events.Replay(ctx, sid, stream, after, func(id string, data []byte) error {
		b = appendStoredEvent(b[:0], stream, id, true, data)
		last = id
		return c.write(b)
	})
	putBuf(bp, b)
	return last, err
}

func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if isStateless(r.Header.Get(headerProtocolVersion)) {
		h.methodNotAllowed(w, r)
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return
	}
	owner := ""
	if s := h.lookup(sid); s != nil {
		owner = s.principal
	} else {
		state, err := h.states.Load(r.Context(), sid)
		switch {
		case errors.Is(err, mcp.ErrNoSession):
			errSessionNotFound(w, jsonrpc.ID{})
			return
		case err != nil:
			h.log.Warn("mcphttp: session store: load", "session", sid, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: the session store is unavailable; try again later")
			return
		}
		owner = state.Principal
	}
	if !h.permits(r, owner) {
		errForbiddenSession(w, jsonrpc.ID{})
		return
	}
	h.forget(r.Context(), sid)
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
