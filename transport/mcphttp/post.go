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
		n := &shared.Notice{Method: noticeResponse, Session: s.id, Data: h.id + "\n" + string(msg.AppendJSON(nil)), Origin: h.server.InstanceID()}
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
