// POST: one JSON-RPC message (or a 2025-03-26 batch) to a session, or
// initialize; answered as JSON or as an SSE stream.

package mcphttp

import (
	"context"
	"crypto/rand"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// servePost decides, once, which lifecycle a POST belongs to: a request of
// the stateless revision (serveStateless), or a message of a stateful session
// (initialize creates one; anything else names one).
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	if !isJSONContent(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "unsupported media type: Content-Type must be application/json")
		return
	}
	accept := acceptanceOf(r.Header.Values("Accept"))
	if accept == acceptNeither {
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
		h.serveStateless(w, r, msg, accept)
		return
	}
	h.serveSession(w, r, msg, version, sid, accept)
}

// acceptance is what the Accept header of a POST allows its answer to be:
// a JSON body, an SSE stream, or either (both bits). Decided once where the
// POST enters; acceptNeither is refused there (406).
type acceptance uint8

const (
	acceptNeither acceptance = 0
	acceptJSON    acceptance = 1 << 0
	acceptSSE     acceptance = 1 << 1
)

// acceptanceOf reads the Accept header values of a POST.
func acceptanceOf(values []string) acceptance {
	a := acceptNeither
	if accepts(values, "application/json") {
		a |= acceptJSON
	}
	if accepts(values, "text/event-stream") {
		a |= acceptSSE
	}
	return a
}

// json reports whether the answer may be a JSON body.
func (a acceptance) json() bool { return a&acceptJSON != 0 }

// sse reports whether the answer may be an SSE stream.
func (a acceptance) sse() bool { return a&acceptSSE != 0 }

// messageKind says what a POSTed message is to its session.
type messageKind uint8

const (
	// sessionMessage: a message (or batch) for a session that exists.
	sessionMessage messageKind = iota
	// initializeMessage: the initialize request that made the session; its
	// answer carries the session id, or ends the session when it is an
	// error.
	initializeMessage
)

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
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version, sid string, accept acceptance) {
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
			h.serveInitialize(w, r, msg, version, accept)
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
	h.serveMessage(&sessionPost{w: w, r: r, s: s, msg: msg, version: version, accept: accept, kind: sessionMessage})
}

// serveInitialize creates a session for an initialize request.
func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, version string, accept acceptance) {
	srv := h.serverOf(r)
	if srv == nil {
		errNoServer(w, msg.ID)
		return
	}
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
	ss := srv.Connect(s, &mcp.SessionOptions{ID: s.id, Store: h.sessionStore(), Principal: principal})
	if _, ok := h.install(s, ss); !ok {
		writeError(w, http.StatusServiceUnavailable, msg.ID, CodeServerBusy, "server cannot start a session now")
		return
	}
	s.begin()
	defer s.end()
	h.serveMessage(&sessionPost{w: w, r: r, s: s, msg: msg, version: version, accept: accept, kind: initializeMessage})
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

// sessionPost is a POST to a session on its way to an answer: what was
// decided where it entered, and what serving it opened.
type sessionPost struct {
	w       http.ResponseWriter
	r       *http.Request
	s       *session
	msg     *jsonrpc.Message
	version string // the MCP-Protocol-Version header, else the session's
	accept  acceptance
	kind    messageKind

	info *RequestInfo
	ids  []jsonrpc.ID // the requests the POST carries
	st   *stream      // the stream answering them
	c    *sseConn     // its SSE response; nil for a JSON answer
	lazy bool         // the SSE response may still become a JSON answer (stream.lazy)
}

// serveMessage delivers a POSTed message to its session and writes the
// answer: 202 for notifications and responses, else a JSON body or an SSE
// stream.
func (h *Handler) serveMessage(p *sessionPost) {
	p.info = newRequestInfo(p.r, p.s.id)
	p.info.principal = p.s.principal
	if p.kind == initializeMessage {
		p.info.SessionID = ""
	}
	p.ids = requestIDs(p.msg)
	if len(p.ids) == 0 {
		h.serveNoRequest(p)
		return
	}
	useSSE := p.accept.sse() && !(p.accept.json() && (h.opts.JSONResponse || p.kind == initializeMessage))
	// A client accepting both gets JSON unless the handler sends something
	// before its answer (see stream.lazy).
	p.lazy = useSSE && p.accept.json() && !h.opts.EagerSSE
	st, err := p.s.openStream(p.ids, useSSE, p.lazy)
	if err != nil {
		// Id null: the id names a live request, whose answer this is not.
		writeError(p.w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	p.st = st
	if useSSE {
		h.startSSE(p)
	}
	setInfo(p.msg, p.info)
	p.s.observe(p.msg)
	if err := h.run(p); err != nil {
		p.s.takeAll(st)
		if p.c != nil {
			p.c.kill()
			if p.c.started() {
				return
			}
		}
		errSessionNotFound(p.w, p.ids[0])
		return
	}
	if p.c != nil {
		h.finishSSE(p)
		return
	}
	select {
	case <-st.finishedCh:
		st.mu.Lock()
		final := st.final
		st.mu.Unlock()
		h.answerJSON(p, final)
	case <-p.r.Context().Done():
		h.answerUnfinished(p)
	case <-p.s.done:
		errSessionNotFound(p.w, p.ids[0])
	}
}

// serveNoRequest delivers a POST without requests (notifications and
// responses) and accepts it (202).
func (h *Handler) serveNoRequest(p *sessionPost) {
	w, r, s, msg := p.w, p.r, p.s, p.msg
	if h.writeThrough && p.kind != initializeMessage && hasResponse(msg) {
		// The call this answers may wait in another Handler's copy of the
		// session: pass it on.
		n := &shared.Notice{Method: noticeResponse, Session: s.id, Data: h.id + "\n" + string(msg.AppendJSON(nil)), Origin: h.origin()}
		if err := h.notifier.Publish(r.Context(), n); err != nil {
			h.log.Warn("mcphttp: notifier: publish", "method", noticeResponse, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: cannot pass the answer on to the other processes now; try again later")
			return
		}
	}
	setInfo(msg, p.info)
	s.observe(msg)
	if s.deliver(msg) != nil {
		errSessionNotFound(w, jsonrpc.ID{})
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// startSSE opens the SSE response of p's stream: primed at once, or (lazy)
// once the stream turns out to need SSE.
func (h *Handler) startSSE(p *sessionPost) {
	p.info.stream = p.st
	if p.kind == initializeMessage {
		p.w.Header().Set(headerSessionID, p.s.id)
	}
	p.c = newSSEConn(p.w, h.opts.WriteTimeout)
	var prime []byte
	if p.s.primes(p.version) {
		prime = appendEvent(nil, eventID(p.st.name, ""), "", h.opts.RetryInterval, nil)
	}
	if p.lazy {
		p.st.prime = prime // written if the stream becomes SSE
	} else {
		_ = p.c.write(prime) // flushes the headers
	}
	_ = p.st.attach(p.r.Context(), p.c, "", false)
}

// run hands p's message to the session. One request whose answer can still
// be JSON has its handler run on this goroutine, which the watch stands in
// for meanwhile; anything else is dispatched without waiting.
func (h *Handler) run(p *sessionPost) error {
	if p.kind == initializeMessage || p.msg.Batch != nil || (p.c != nil && !p.lazy) {
		return p.s.deliver(p.msg)
	}
	wt := h.watch(p.r, p.s, p.st, p.c)
	defer wt.stop()
	return p.s.serveInline(p.msg)
}

// finishSSE holds p's SSE response until its stream is done, and ends the
// POST: with the JSON answer if the stream never became SSE.
func (h *Handler) finishSSE(p *sessionPost) {
	select {
	case <-p.c.done:
		p.c.kill() // answered already (inline): nothing to hold
	default:
		h.hold(p.r, p.s, p.st, p.c)
	}
	if lazy, final, finished := p.st.jsonAnswer(); lazy {
		if finished {
			h.answerJSON(p, final)
		} else {
			h.answerUnfinished(p)
		}
		return
	}
	if p.kind == initializeMessage && p.s.protocolVersion() == "" {
		p.s.terminate() // initialize failed: the session is useless
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
	if first := h.upgradeAfter(); c != nil && first > 0 {
		iv := h.opts.KeepAliveInterval
		early := first != iv // SSEAfter: upgrade, no comment yet
		wt.mu.Lock()
		wt.tick = time.AfterFunc(first, func() {
			wt.mu.Lock()
			defer wt.mu.Unlock()
			if wt.stopped {
				return
			}
			st.upgrade() // a long wait is worth an SSE stream
			if !early && c.write(keepAliveComment) != nil {
				st.detach(c)
				return
			}
			early = false
			if iv > 0 {
				wt.tick.Reset(iv)
			}
		})
		wt.mu.Unlock()
	}
	return wt
}

// upgradeAfter is how long a lazy answer is waited for before its
// response becomes SSE (HandlerOptions.SSEAfter); 0 for never.
func (h *Handler) upgradeAfter() time.Duration {
	iv, after := h.opts.KeepAliveInterval, h.opts.SSEAfter
	if after > 0 && (iv <= 0 || after < iv) {
		return after
	}
	return max(iv, 0)
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

// answerUnfinished ends a POST answered with JSON whose stream did not
// finish: the client went away (its requests are given up on), or the
// session ended.
func (h *Handler) answerUnfinished(p *sessionPost) {
	if p.r.Context().Err() == nil {
		errSessionNotFound(p.w, p.ids[0])
		return
	}
	p.s.abandon(p.st)
	if p.kind == initializeMessage {
		h.forget(context.WithoutCancel(p.r.Context()), p.s.id)
	}
}

// answerJSON ends a POST answered with JSON whose stream finished: with
// final, or with answerCancelled when its requests were cancelled (final
// nil).
func (h *Handler) answerJSON(p *sessionPost, final *jsonrpc.Message) {
	w, r := p.w, p.r
	if final == nil {
		answerCancelled(w, p.ids[0], p.accept)
		return
	}
	init := p.kind == initializeMessage
	ok := final.Error == nil && final.Batch == nil
	if init && ok {
		w.Header().Set(headerSessionID, p.s.id)
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
		p.s.terminate()
	}
}

// answerCancelled ends the POST of a request the client cancelled before
// anything was sent for it. A POSTed request must be answered with an SSE
// stream or a JSON body, and the receiver of a cancellation should send no
// response: so an SSE stream that ends empty (no event id either, so that
// nothing invites the client to resume it), or, for a client that takes
// JSON only, an error response it will ignore for the cancelled id.
func answerCancelled(w http.ResponseWriter, id jsonrpc.ID, accept acceptance) {
	if accept.sse() {
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
// keep-alive comments meanwhile. One timer serves both SSEAfter (a lazy
// POST stream becomes SSE, no comment yet) and the comments, as in watch.
func (h *Handler) hold(r *http.Request, s *session, st *stream, c *sseConn) {
	iv := h.opts.KeepAliveInterval
	first := max(iv, 0)
	if st.id != 0 {
		first = h.upgradeAfter()
	}
	early := first != iv // SSEAfter comes first
	var timer *time.Timer
	var tick <-chan time.Time
	if first > 0 {
		timer = time.NewTimer(first)
		defer timer.Stop()
		tick = timer.C
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
			if early {
				// The comments keep their times: KeepAliveInterval from the start.
				early = false
				if iv > 0 {
					timer.Reset(iv - first)
				}
				continue
			}
			if c.write(keepAliveComment) != nil {
				st.detach(c)
				return
			}
			timer.Reset(iv)
		}
	}
}
