package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// ClientOptions configures the client side of both HTTP transports. The
// zero value (and a nil *ClientOptions) selects the defaults.
type ClientOptions struct {
	// HTTPClient sends the requests. Default http.DefaultClient. For
	// servers that need OAuth, set Authorizer (package oauth) rather than
	// a Transport that adds a fixed token. Its Timeout, if any, must allow
	// for long SSE streams. The transport uses a copy whose CheckRedirect
	// refuses a redirect to another origin (scheme, host and port) before
	// consulting the original's: the request would take Header and the
	// Authorizer's credentials with it. A Transport of your own that adds
	// credentials must keep them to their origin itself.
	HTTPClient *http.Client

	// Header is added to every request (for example Authorization, or a
	// custom header the server expects). It never follows a redirect to
	// another origin (see HTTPClient).
	Header http.Header

	// MaxMessageBytes bounds one incoming message (a JSON body or one SSE
	// event). Default 16 MiB.
	MaxMessageBytes int

	// ReconnectDelay is how long to wait before resuming a broken SSE
	// stream when the server has not said (with the SSE retry field).
	// Default 1 second.
	ReconnectDelay time.Duration

	// MaxReconnects bounds the consecutive failed attempts to resume the
	// SSE answer to a POST; then the requests still waiting on it fail
	// (with jsonrpc.ErrOutcomeUnknown). Default 5: with the default delays
	// an answer outlives an outage of about 7 to 12 seconds. The
	// standalone stream is never given up for failures: it reconnects for
	// as long as the session lives.
	MaxReconnects int

	// MaxReconnectDelay caps the jittered backoff between failed attempts
	// to reconnect a stream. Default 4 seconds: however long the server
	// was away, a stream is back within about 4 seconds of it. A larger
	// cap spares a server that stays down for long, at the cost of
	// notifications arriving up to that much later once it is back
	// (they are not lost: the stream resumes with Last-Event-ID). The
	// standalone stream also comes back as soon as a request of its
	// session is answered again, whatever the cap.
	MaxReconnectDelay time.Duration

	// StreamIdleTimeout is how long the standalone stream may stay silent
	// before the client takes its connection for dead (half-open: a
	// network path that vanished without a reset) and reconnects. Servers
	// send keep-alive comments on idle streams (this package's Handler
	// every HandlerOptions.KeepAliveInterval, 30 seconds by default), so
	// it must be longer than their interval. Default 75 seconds; negative
	// disables it.
	StreamIdleTimeout time.Duration

	// DisableStandaloneStream stops the client from opening the GET stream
	// on which the server sends messages unrelated to a request (list
	// changes, resource updates, requests outside a tool call).
	DisableStandaloneStream bool

	// DisableSSEFallback stops the client from trying the legacy HTTP+SSE
	// transport when the server refuses the initialize POST with 400, 404
	// or 405.
	DisableSSEFallback bool

	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger

	// Authorizer, if set, adds credentials to every request and handles
	// the server's 401 and 403 answers (package oauth implements it). A
	// request it answers with retry is sent again, at most twice (a login
	// can be followed by a DPoP nonce challenge).
	Authorizer Authorizer
}

// Authorizer is the seam between the HTTP client transports and an
// authorization layer such as package oauth, so that this package stays
// free of OAuth: it decorates each outgoing request and reacts to a
// refusal. Its methods may be called concurrently.
type Authorizer interface {
	// Authorize adds credentials (an Authorization header, a DPoP proof)
	// to req just before it is sent, or returns why it cannot.
	Authorize(req *http.Request) error
	// Challenged is called with the server's 401 or 403 answer to req. It
	// may obtain new credentials (log in, refresh, step up) and reports
	// whether to send the request again. It must not read resp.Body.
	Challenged(ctx context.Context, req *http.Request, resp *http.Response) (retry bool, err error)
}

// ClientStream is the client side of the Streamable HTTP transport: a
// jsonrpc.Stream for mcp.Client.Connect. Every message the client sends is a
// POST to the server's MCP endpoint; answers come back as JSON bodies or SSE
// streams, and unrelated server messages on a standalone GET stream opened
// after the handshake.
//
// The stream looks after the HTTP details so the mcp.Client needs no
// knowledge of them: it keeps the Mcp-Session-Id the server issues and sends
// the negotiated MCP-Protocol-Version (learned from the initialize answer);
// it resumes a broken or server-closed SSE stream with GET and Last-Event-ID
// after the delay the server asked for (SSE retry field); when the server
// answers 404 for the session (it expired, or the server restarted), it
// replays the client's initialize request and initialized notification to
// open a new session and sends the failed message again (server-side state
// such as subscriptions and the log level is not restored); and when the
// server refuses the initialize POST with 400, 404 or 405, it falls back to
// the legacy HTTP+SSE transport. The answer to a notification or response
// is taken as carrying no content, whatever its headers say (the Python SDK
// sends 202 with Content-Type application/json and an empty body). Close
// ends the session with DELETE; once Close has begun, a 404 no longer opens
// a new session (a write racing Close meets the session Close ended), and a
// new session opened meanwhile is ended too.
type ClientStream struct {
	*clientCore
	url            string
	sidValue       headerValue // Mcp-Session-Id, as a header value
	verValue       headerValue // MCP-Protocol-Version, as a header value
	noStandalone   bool
	noSSEFallback  bool
	reinitMu       sync.Mutex // serializes re-initialization
	internalSerial int64
	reached        atomic.Bool // the server has answered a POST
	// answers counts the POSTs answered with 2xx, and answered gets a
	// token at each: the server is back, and the standalone stream backing
	// off after failures reconnects at once (see pause).
	answers  atomic.Uint64
	answered chan struct{}

	// guarded by clientCore.mu
	sessionID   string
	version     string
	initReq     *jsonrpc.Message // the client's initialize request, replayed after a 404
	initialized *jsonrpc.Message // its notifications/initialized
	gen         int64            // session generation: counts re-initializations
	getGen      int64            // generation whose standalone stream runs, or -1
	legacy      *sseLink         // set once fallen back to HTTP+SSE
	internal    map[jsonrpc.ID]chan *jsonrpc.Message
	waits       map[jsonrpc.ID]*postWait    // requests answered on SSE streams
	setup       map[string]*jsonrpc.Message // requests that set up server state, sent again to a new session (client_heal.go)
	caps        json.RawMessage             // the capabilities the server declared in its last initialize answer
	initResult  json.RawMessage             // the server's last initialize result (InitializeResult)
}

// NewClientStream returns a stream to the MCP endpoint at url. Nothing is
// sent until the first Write (the client's initialize). opts may be nil.
func NewClientStream(url string, opts *ClientOptions) *ClientStream {
	c := &ClientStream{clientCore: newClientCore(opts), url: url, getGen: -1, answered: make(chan struct{}, 1)}
	if opts != nil {
		c.noStandalone = opts.DisableStandaloneStream
		c.noSSEFallback = opts.DisableSSEFallback
	}
	return c
}

// URL returns the MCP endpoint the stream talks to, for instrumentation
// (server.address and server.port on a client's spans).
func (c *ClientStream) URL() string { return c.url }

// SessionID returns the Mcp-Session-Id the server issued ("" if none).
func (c *ClientStream) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ProtocolVersion returns the revision negotiated in the last initialize
// exchange the stream carried.
func (c *ClientStream) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Read implements jsonrpc.Stream.
func (c *ClientStream) Read(ctx context.Context) (*jsonrpc.Message, error) { return c.read(ctx) }

// Close implements jsonrpc.Stream: it ends the session on the server
// (DELETE, errors ignored, at most 5 seconds), stops every stream and waits
// for the background goroutines.
func (c *ClientStream) Close() error {
	c.mu.Lock()
	sid, ver, legacy, closing := c.sessionID, c.version, c.legacy, c.closing
	c.closing = true
	c.mu.Unlock()
	if closing {
		c.shutdown() // waits for the first Close to finish
		return nil
	}
	if legacy == nil && sid != "" {
		c.deleteSession(sid, ver)
	}
	c.shutdown()
	return nil
}

// deleteSession ends session sid on the server: DELETE, errors ignored, at
// most 5 seconds.
func (c *ClientStream) deleteSession(sid, ver string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	c.sessionHeaders(req, sid, ver)
	// The session's end needs the credentials, but is no reason to log in
	// again.
	if c.auth == nil || c.auth.Authorize(req) == nil {
		if resp, err := c.hc.Do(req); err == nil {
			drain(resp)
		}
	}
}

func (c *ClientStream) sessionHeaders(req *http.Request, sid, ver string) {
	if sid != "" {
		req.Header[headerSessionID] = c.sidValue.get(sid)
	}
	if ver != "" {
		req.Header[headerProtocolVersion] = c.verValue.get(ver)
	}
}

func isInitialize(m *jsonrpc.Message) bool { return m.Method == mcp.MethodInitialize && m.IsRequest() }

// Write implements jsonrpc.Stream: it POSTs m.
func (c *ClientStream) Write(ctx context.Context, m *jsonrpc.Message) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return jsonrpc.ErrClosed
	}
	legacy := c.legacy
	switch {
	case isInitialize(m):
		c.initReq = m
	case m.Method == mcp.NotificationInitialized:
		c.initialized = m
	}
	c.mu.Unlock()
	if m.Method == mcp.MethodResourcesSubscribe || m.Method == mcp.MethodResourcesUnsubscribe || m.Method == mcp.MethodLoggingSetLevel {
		c.remember(m)
	}
	if legacy != nil {
		return legacy.post(ctx, m)
	}
	return c.send(ctx, m, true)
}

// send POSTs m and handles the answer; after a 404 for the session it
// re-initializes and, if retry, sends m once more.
func (c *ClientStream) send(ctx context.Context, m *jsonrpc.Message, retry bool) error {
	c.mu.Lock()
	sid, ver, gen := c.sessionID, c.version, c.gen
	c.mu.Unlock()
	resp, err := c.postRetry(ctx, m, sid, ver)
	if err != nil {
		if ctx.Err() != nil && m.IsRequest() && !isInitialize(m) && !errors.Is(err, jsonrpc.ErrNotSent) {
			// The server may have the request already; since the call
			// fails without having been written, the connection will not
			// cancel it, so do it here.
			c.cancelRemote(m.ID, sid, ver)
		}
		return err
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return c.answer(ctx, m, resp, gen)
	case code == http.StatusNotFound && sid != "" && !isInitialize(m) && retry:
		drain(resp)
		if err := c.reinitialize(ctx, gen); err != nil {
			if lost(err) {
				c.fail(fmt.Errorf("%w: %w", ErrSessionLost, err))
			}
			return fmt.Errorf("mcphttp: the server ended the session, and a new one could not be opened: %w", err)
		}
		return c.send(ctx, m, false)
	case isInitialize(m) && sid == "" && !c.noSSEFallback &&
		(code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed):
		herr := httpError(resp)
		if err := c.fallback(ctx, m); err != nil {
			c.log.Debug("mcphttp: HTTP+SSE fallback failed", "err", err)
			return herr
		}
		return nil
	default:
		return refusedBefore(resp.StatusCode, c.refused(m, resp))
	}
}

// cancelRemote tells the server, in the background, that the client gave up
// on request id.
func (c *ClientStream) cancelRemote(id jsonrpc.ID, sid, ver string) {
	params, err := json.Marshal(&mcp.CancelledNotificationParams{RequestID: id, Reason: "request cancelled by the client"})
	if err != nil {
		return
	}
	c.goBackground(func() {
		ctx, cancel := context.WithTimeout(c.bg, 5*time.Second)
		defer cancel()
		if resp, err := c.post(ctx, jsonrpc.NewNotification(mcp.NotificationCancelled, params), sid, ver); err == nil {
			drain(resp)
		}
	})
}

// post sends m to the endpoint.
func (c *ClientStream) post(ctx context.Context, m *jsonrpc.Message, sid, ver string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodPost, c.url, m.AppendJSON(nil))
	if err != nil {
		return nil, err
	}
	req.Header["Accept"] = valueAcceptBoth
	if !isInitialize(m) {
		c.sessionHeaders(req, sid, ver)
	}
	// A stateless-revision request comes with its standard headers
	// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*).
	if hh := mcpheader.HTTPHeaders(ctx); hh != nil {
		for k, v := range hh {
			req.Header[k] = v
		}
	} else if ver == "" && m.IsRequest() && !isInitialize(m) && declaresStateless(m) {
		// A stateless-revision request written without them (the era
		// probe): derive the version and method headers from the body.
		req.Header.Set(headerProtocolVersion, *peekStateless(m).Meta.ProtocolVersion)
		req.Header.Set(mcpheader.HeaderMethod, m.Method)
	}
	return c.do(req)
}

// refused handles a non-2xx answer to m: a JSON-RPC error in the body for
// the request m is delivered as its response; otherwise the status is the
// error, carrying the body's JSON-RPC error if it has one (with the id null,
// or "server-error" under which the Python SDK refuses a POST before it has
// read the request's id), so that the caller sees the server's code and
// message.
func (c *ClientStream) refused(m *jsonrpc.Message, resp *http.Response) error {
	if !m.IsRequest() || mediaType(resp) != "application/json" {
		return httpError(resp)
	}
	herr := &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status}
	r, err := c.readJSON(resp)
	switch {
	case err != nil || r.Error == nil:
	case r.ID == m.ID:
		c.push(r)
		return nil
	default:
		herr.Err = r.Error
	}
	return herr
}

// noteAnswer counts a POST answered with 2xx, and wakes a paused
// standalone stream (see pause).
func (c *ClientStream) noteAnswer() {
	c.answers.Add(1)
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// answer handles a 2xx answer to m.
func (c *ClientStream) answer(ctx context.Context, m *jsonrpc.Message, resp *http.Response, gen int64) error {
	c.noteAnswer()
	if isInitialize(m) {
		if sid := resp.Header.Get(headerSessionID); sid != "" {
			c.mu.Lock()
			c.sessionID = sid
			c.mu.Unlock()
		}
	}
	want := requestIDs(m)
	switch {
	case len(want) == 0:
		// A notification or a response: accepted (202, as a rule), the
		// answer carries no content whatever its headers say (the Python
		// SDK sends 202 with Content-Type application/json and no body).
		discard(resp)
		if m.Method == mcp.NotificationInitialized {
			c.startStandalone(ctx, gen)
		}
		return nil
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		drain(resp)
		return fmt.Errorf("mcphttp: server answered a request with %s and no content", resp.Status)
	}
	switch mediaType(resp) {
	case "text/event-stream":
		if !c.goBackground(func() { c.readStream(ctx, resp, want) }) {
			resp.Body.Close()
			return jsonrpc.ErrClosed
		}
	case "application/json":
		r, err := c.readJSON(resp)
		if err != nil {
			return err
		}
		c.deliver(r)
	default:
		drain(resp)
		return fmt.Errorf("mcphttp: server answered a request with %s and no content", resp.Status)
	}
	return nil
}

// deliver queues a message from the server, noting the negotiated version
// when it answers the client's initialize, and diverting answers to the
// stream's own requests.
func (c *ClientStream) deliver(m *jsonrpc.Message) bool {
	if m.Batch != nil {
		c.mu.Lock()
		for _, e := range m.Batch {
			if e.Method == "" {
				c.answeredLocked(e.ID)
			}
		}
		c.mu.Unlock()
	}
	if m.Batch == nil && m.Method == "" {
		c.mu.Lock()
		c.answeredLocked(m.ID)
		if ch := c.internal[m.ID]; ch != nil {
			delete(c.internal, m.ID)
			c.mu.Unlock()
			ch <- m
			return true
		}
		if c.initReq != nil && m.ID == c.initReq.ID && m.Result != nil {
			if v := resultVersion(m.Result); v != "" {
				c.version = v
			}
			c.caps = resultCaps(m.Result)
			c.initResult = m.Result
		}
		c.mu.Unlock()
	}
	return c.push(m)
}

func resultVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

// postWait tracks the requests of one POST whose answer is an SSE stream.
// An answer may reach the client on another stream too (a server may send
// it on the standalone stream, or on a resumed one), so deliver, which sees
// every message, counts the answers down; the stream reader stops once none
// is left.
type postWait struct {
	remaining int // guarded by ClientStream.mu
	cancel    context.CancelFunc
}

// watch registers the requests ids of a POST stream.
func (c *ClientStream) watch(ids []jsonrpc.ID, cancel context.CancelFunc) *postWait {
	w := &postWait{remaining: len(ids), cancel: cancel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waits == nil {
		c.waits = make(map[jsonrpc.ID]*postWait)
	}
	for _, id := range ids {
		c.waits[id] = w
	}
	return w
}

// unwatch forgets the ids of w still waiting and reports them.
func (c *ClientStream) unwatch(w *postWait) []jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	var left []jsonrpc.ID
	for id, x := range c.waits {
		if x == w {
			left = append(left, id)
			delete(c.waits, id)
		}
	}
	return left
}

// answered notes that the request id got its answer.
func (c *ClientStream) answeredLocked(id jsonrpc.ID) {
	if w := c.waits[id]; w != nil {
		delete(c.waits, id)
		if w.remaining--; w.remaining == 0 {
			w.cancel()
		}
	}
}

func (c *ClientStream) settled(w *postWait) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return w.remaining == 0
}

// readStream reads the SSE answer to a POST until every request it carried
// is answered, resuming with GET and Last-Event-ID when the connection ends
// early. Requests still unanswered when resumption proves impossible get an
// error response, so no caller waits forever.
func (c *ClientStream) readStream(ctx context.Context, resp *http.Response, want []jsonrpc.ID) {
	callCtx := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.bg, cancel)
	defer stop()
	var w *postWait
	if len(want) > 0 {
		w = c.watch(want, cancel)
	}
	settled := func() bool { return w != nil && c.settled(w) }
	cur := sseCursor{retry: c.delay}
	failures := 0
	var reason error
	for {
		if resp != nil {
			stopWatch := func() {}
			if _, ok := callCtx.Deadline(); !ok {
				// A stream with no deadline (subscriptions/listen) may
				// last for ever: watch it for a half-open connection.
				stopWatch = c.watchIdle(resp)
			}
			cur.progress = false
			err := c.consume(resp.Body, &cur, func(m *jsonrpc.Message) bool {
				return !c.deliver(m) || settled()
			})
			resp.Body.Close()
			stopWatch()
			resp = nil
			if w == nil || settled() || callCtx.Err() != nil || c.isClosed() {
				return
			}
			if cur.progress {
				failures = 0
			}
			reason = err
			if reason == nil || reason == io.EOF {
				reason = errors.New("the server closed the stream")
			}
		}
		if cur.lastID == "" || failures >= c.tries {
			break // nothing to resume from, or tried enough
		}
		if !sleep(ctx, c.backoff(failures, cur.retry)) {
			if settled() || callCtx.Err() != nil || c.isClosed() {
				return
			}
			break
		}
		c.mu.Lock()
		sid, ver := c.sessionID, c.version
		c.mu.Unlock()
		r, err := c.get(ctx, sid, ver, cur.lastID)
		switch {
		case err != nil:
			if settled() || callCtx.Err() != nil || c.isClosed() {
				return
			}
			failures++
			reason = err
		case r.StatusCode == http.StatusOK && mediaType(r) == "text/event-stream":
			resp = r
			failures++ // reset once the stream makes progress
		case r.StatusCode == http.StatusNotFound || r.StatusCode == http.StatusMethodNotAllowed || r.StatusCode == http.StatusBadRequest:
			reason = httpError(r)
			failures = c.tries // the server cannot resume: give up now
		default:
			reason = httpError(r)
			failures++
		}
	}
	c.giveUp(w, reason)
}

// giveUp fails the requests of w still waiting, whose stream ended and
// could not be resumed. They reached the server; whether they ran is
// unknown (a Conn sends an idempotent one again).
func (c *ClientStream) giveUp(w *postWait, reason error) {
	if w == nil || c.isClosed() {
		return
	}
	for _, id := range c.unwatch(w) {
		c.push(jsonrpc.FailedResponse(id, fmt.Errorf("mcphttp: the response stream ended before the response arrived and could not be resumed: %w", reason)))
	}
}

// get opens an SSE stream with GET: the standalone stream, or (lastID set)
// the resumption of the stream that event belongs to.
func (c *ClientStream) get(ctx context.Context, sid, ver, lastID string) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	c.sessionHeaders(req, sid, ver)
	if lastID != "" {
		req.Header.Set(headerLastEventID, lastID)
	}
	return c.do(req)
}

// standaloneWait bounds how long the initialized notification's Write waits
// for the standalone stream to be established.
const standaloneWait = 2 * time.Second

// startStandalone opens the standalone GET stream of session generation gen,
// unless it runs already or is disabled. It returns once the server has
// answered the first GET (or after standaloneWait, or when ctx ends), so
// that the stream is in place before the client sends anything else: a
// server may then route messages by which streams are open.
func (c *ClientStream) startStandalone(ctx context.Context, gen int64) {
	if c.noStandalone {
		return
	}
	c.mu.Lock()
	if c.getGen == gen || c.gen != gen {
		c.mu.Unlock()
		return
	}
	c.getGen = gen
	c.mu.Unlock()
	ready := make(chan struct{})
	if !c.goBackground(func() { c.runStandalone(gen, ready) }) {
		return
	}
	t := time.NewTimer(standaloneWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
	case <-ctx.Done():
	}
}

// fallback switches to the HTTP+SSE transport and sends the initialize
// request m there.
func (c *ClientStream) fallback(ctx context.Context, m *jsonrpc.Message) error {
	l := &sseLink{core: c.clientCore, url: c.url, deliver: c.deliver}
	if err := l.connect(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.legacy = l
	c.mu.Unlock()
	c.log.Info("mcphttp: server speaks the HTTP+SSE transport (2024-11-05); using it", "url", c.url)
	return l.post(ctx, m)
}
