package mcphttp

import (
	"compress/gzip"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// HandlerOptions configures a Handler. The zero value (and a nil
// *HandlerOptions) selects safe defaults.
//
// There is no stateless mode any more (the former Stateless option, which
// served each POST on a transient session with a synthesized initialize):
// requests of the stateless revision (2026-07-28) are served without a
// session whatever the options, and sessions of the stateful revisions
// scale horizontally by sharing a SessionStore, an EventStore and the
// server's shared.Notifier between the processes.
type HandlerOptions struct {
	// JSONResponse answers each request with a single application/json
	// body instead of an SSE stream. Messages the server sends while
	// handling a request (progress, logs, sampling and elicitation
	// requests) then go to the client's standalone GET stream, if it has
	// one on this Handler. The default chooses per request, lazily: the
	// answer goes out as JSON when the handler sends nothing before it,
	// and the response becomes an SSE stream (primed, resumable, keeping
	// the handler's messages with their request) as soon as the handler
	// sends something or runs past SSEAfter. JSON costs less (no
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

	// SSEAfter is how long a lazy answer (see JSONResponse) is waited for
	// before the response becomes a primed, resumable SSE stream although
	// the handler sent nothing yet: a client whose connection drops after
	// that can resume the request and still get its answer. Zero (or a
	// value past KeepAliveInterval) means KeepAliveInterval. A server whose
	// requests wait on another server (a gateway) sets it short: its quick
	// answers still go out as JSON, its slow ones can be resumed.
	SSEAfter time.Duration

	// SessionStore keeps the state of every session (what initialize
	// established, the log level, subscriptions, the principal), so that a
	// Handler can serve a session it does not hold in memory: another
	// process's, or its own after a restart or an idle expiry. Processes
	// sharing a store (and an EventStore, and the mcp.Server's Notifier)
	// serve the same sessions; every change is written to it before the
	// request that made it is answered. Default: a
	// shared.NewMemorySessionStore(nil) of this Handler's own, which receives
	// a session's state only when the Handler drops its copy (idle
	// expiry), so a held session costs no memory there. A store with a
	// Touch(ctx, id) error method (redisstore's and
	// shared.MemorySessionStore's) has it called at most once a minute for
	// each session in use here, so that a store which expires sessions
	// keeps those in use alive.
	SessionStore shared.SessionStore

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

	// Notifier carries the notices Handlers serving the same sessions
	// exchange (a stream taken over, a session deleted, a client's answer
	// to a request another copy sent). Default: the server's
	// (mcp.Server.Notifier) for NewHandler, and for NewHandlerFor a memory
	// notifier of the Handler's own, which is enough for one Handler; a
	// deployment of several gives them all the Notifier its servers share
	// (mcp.ServerOptions.Notifier).
	Notifier shared.Notifier

	// ServerCard, when set, answers the requests for the endpoint's Server
	// Card (experimental, off by default): a request whose path ends in
	// "/server-card" goes to it, before the Host and Origin checks, since
	// a card is public metadata that browsers of any origin may read.
	// Use servercard.Handler, and route the card's path to this Handler as
	// well (mux.Handle("/mcp/server-card", h) beside mux.Handle("/mcp", h)).
	ServerCard http.Handler
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

// Notices a Handler publishes on the server's shared.Notifier, for the other
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
//     shared.MemoryNotifier does), nothing is lost or sent twice; with one
//     that delivers later (Redis), both store the session's events while
//     the notice travels, the old holder announces when it let go, and
//     the new one then sends what the old one stored late (see takeover).
//     An update both hear is stored once, by whichever appends it first,
//     if the EventStore is a OnceAppender: the other sends nothing.
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
//   - A request the server sends on the standalone stream before the client
//     opened it (from ServerOptions.InitializedHandler: clients send their
//     GET once initialized is accepted) waits for the GET, at most 10
//     seconds and as long as its context allows, 16 per session at most.
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
	server    *mcp.Server                     // NewHandler's; nil with serverFor
	serverFor func(*http.Request) *mcp.Server // NewHandlerFor's
	notifier  shared.Notifier                 // HandlerOptions.Notifier
	opts      HandlerOptions
	events    EventStore
	once      OnceAppender // events, if it can store a notice's event once
	states    shared.SessionStore
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
	return newHandler(s, nil, opts)
}

// NewHandlerFor returns a Handler that serves each client with the
// mcp.Server serverFor returns for its HTTP request: servers built per
// request, with the tools of the caller's user or plan, say (go-sdk's
// NewStreamableHTTPHandler(getServer, ...)). A request for which serverFor
// returns nil gets 400.
//
// serverFor is called for every request of the stateless revision
// (2026-07-28), which is served by the server it returns and nothing else.
// A session of a stateful revision (2025-11-25 and before) is served by one
// server for as long as this Handler holds it: serverFor is called with
// the initialize request that creates it, and with the first request for a
// session this Handler rebuilds from the SessionStore (another process's,
// or its own after SessionIdleTimeout). A session therefore works across
// requests, and across Handlers sharing a SessionStore, as with NewHandler;
// requests of one session are bound to one principal, so the server made
// for its first request fits the later ones. Servers that share a Notifier
// (to carry resource updates between processes) stay subscribed to it only
// while they serve something. Give them all one
// mcp.ServerOptions.RequestStateKey: a 2026-07-28 request that asks the
// client for input comes back as a new request, to a new server, which
// must accept the requestState the first one signed.
//
// See docs/deploy.md for a stateless deployment.
func NewHandlerFor(serverFor func(*http.Request) *mcp.Server, opts *HandlerOptions) *Handler {
	if serverFor == nil {
		panic("mcphttp: NewHandlerFor with a nil serverFor")
	}
	return newHandler(nil, serverFor, opts)
}

func newHandler(s *mcp.Server, serverFor func(*http.Request) *mcp.Server, opts *HandlerOptions) *Handler {
	h := &Handler{server: s, serverFor: serverFor, sessions: make(map[string]*session), drainCh: make(chan struct{})}
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
	h.once, _ = h.events.(OnceAppender)
	h.states = o.SessionStore
	h.writeThrough = h.states != nil
	if h.states == nil {
		h.states = shared.NewMemorySessionStore(nil)
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
	h.notifier = o.Notifier
	switch {
	case h.notifier != nil:
	case s != nil:
		h.notifier = s.Notifier()
	default:
		h.notifier = shared.NewMemoryNotifier()
	}
	h.unsubscribe = h.notifier.Subscribe(h.hear)
	return h
}

// serverOf returns the server for an HTTP request: NewHandler's, or the
// one serverFor makes.
func (h *Handler) serverOf(r *http.Request) *mcp.Server {
	if h.serverFor == nil {
		return h.server
	}
	return h.serverFor(r)
}

// origin names this Handler in the notices it publishes.
func (h *Handler) origin() string {
	if h.server != nil {
		return h.server.InstanceID()
	}
	return h.id
}

// errNoServer answers a request for which NewHandlerFor's function gave no
// server.
func errNoServer(w http.ResponseWriter, id jsonrpc.ID) {
	writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "bad request: no server for this request")
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

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.opts.ServerCard != nil && strings.HasSuffix(r.URL.Path, "/server-card") {
		h.opts.ServerCard.ServeHTTP(w, r)
		return
	}
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
