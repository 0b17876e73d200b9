package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// session is one MCP session of a Handler: the jsonrpc.Stream an
// mcp.ServerSession runs on. It is a jsonrpc.PushStream: POST handlers push
// incoming messages into the connection on their own goroutines, so an idle
// session holds no goroutine. Outgoing messages are routed by Write to the
// HTTP response stream they belong to.
//
// A session may be this Handler's own (made by initialize) or a copy
// rebuilt from the SessionStore for a session another Handler created;
// they behave the same.
type session struct {
	h         *Handler
	id        string
	principal string // who created the session (HandlerOptions.Principal)
	client    string // whom it counts against (HandlerOptions.ClientKey)
	ss        *mcp.ServerSession
	conn      *jsonrpc.Conn // set by Attach
	done      chan struct{} // closed when the session ends

	closeOnce sync.Once

	mu         sync.Mutex
	requests   requestTable      // in-flight client requests
	streams    map[int64]*stream // unfinished POST streams, by number
	nextStream int64
	active     int     // HTTP requests in progress for this session
	standalone *stream // made on first use: see standaloneStream

	lastSeen atomic.Int64 // unix nanoseconds of the last HTTP activity
	touched  atomic.Int64 // unix nanoseconds the store last renewed it (see Handler.touch)
}

// errSessionClosed reports a message for a session that has ended.
var errSessionClosed = errors.New("mcphttp: session closed")

func newSession(h *Handler, id, principal, client string) *session {
	s := &session{h: h, id: id, principal: principal, client: client, done: make(chan struct{})}
	s.touch()
	return s
}

// errPushStream is what Read returns: a session is a jsonrpc.PushStream,
// which a Conn never reads.
var errPushStream = errors.New("mcphttp: a session pushes its messages; Read is not used")

// Attach implements jsonrpc.PushStream.
func (s *session) Attach(c *jsonrpc.Conn) { s.conn = c }

// Read implements jsonrpc.Stream; it is never called (see Attach).
func (s *session) Read(context.Context) (*jsonrpc.Message, error) { return nil, errPushStream }

// Close implements jsonrpc.Stream: this Handler's copy of the session
// ends, with its SSE connections. What the stores keep of it stays: another
// Handler, or this one on the next request, can rebuild it (the client's
// DELETE forgets it: Handler.forget).
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.conn != nil {
			s.conn.EndPush(nil)
		}
		s.h.removeSession(s)
	})
	return nil
}

// terminate ends this copy of the session and its mcp.ServerSession.
func (s *session) terminate() {
	s.Close()
	if s.ss != nil {
		_ = s.ss.Close()
	}
}

// deliver hands an incoming message to the session's connection, which
// dispatches it on the caller's goroutine without waiting for its handler
// (initialize excepted).
func (s *session) deliver(m *jsonrpc.Message) error {
	select {
	case <-s.done:
		return errSessionClosed
	default:
	}
	if s.conn == nil || s.conn.Push(m, jsonrpc.InlineNever) != nil {
		return errSessionClosed
	}
	return nil
}

// serveInline is deliver for a single request whose POST waits for its
// answer: the handler runs on the caller's goroutine when the connection
// has a worker slot free (jsonrpc.InlineWhenFree), which saves starting
// a goroutine for it while this one only waits.
func (s *session) serveInline(m *jsonrpc.Message) error {
	select {
	case <-s.done:
		return errSessionClosed
	default:
	}
	if s.conn == nil || s.conn.Push(m, jsonrpc.InlineWhenFree) != nil {
		return errSessionClosed
	}
	return nil
}

// begin records that an HTTP request for the session started; it reports
// false if the session has ended.
func (s *session) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return false
	default:
	}
	s.active++
	s.touch()
	return true
}

// end records that an HTTP request for the session finished.
func (s *session) end() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
	s.touch()
}

func (s *session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// idle reports whether the session has had no HTTP request in progress for
// at least timeout, as of now (unix nanoseconds).
func (s *session) idle(now int64, timeout time.Duration) bool {
	if time.Duration(now-s.lastSeen.Load()) < timeout {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active == 0
}

// protocolVersion is the negotiated revision, or "" before initialize.
func (s *session) protocolVersion() string {
	if s.ss == nil {
		return ""
	}
	return s.ss.ProtocolVersion()
}

// openStream registers a stream answering the requests ids of one POST.
// It fails if one of the ids is already in flight in this session: the
// response could not be told apart. The refusal goes out with id null, and
// the live request is not disturbed.
//
// A lazy stream (the client accepts both JSON and SSE) is answered with JSON
// when the handler sends nothing before its result, and turns into an SSE
// stream only when it does.
func (s *session) openStream(ids []jsonrpc.ID, sse, lazy bool) (*stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if s.requests.get(id) != nil {
			return nil, errors.New("invalid request: id " + id.String() + " is already in use")
		}
	}
	s.nextStream++
	st := &stream{s: s, id: s.nextStream, sse: sse, resumable: sse, lazy: sse && lazy, pending: len(ids), ids: ids, finishedCh: make(chan struct{})}
	if sse {
		st.name = s.h.streamPrefix + strconv.FormatInt(st.id, 10)
	}
	for _, id := range ids {
		s.requests.put(id, st)
	}
	if st.resumable {
		if s.streams == nil {
			s.streams = make(map[int64]*stream)
		}
		s.streams[st.id] = st
	}
	return st, nil
}

// take removes request id from the in-flight set and reports its stream and
// whether that was the stream's last pending request.
func (s *session) take(id jsonrpc.ID) (*stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.requests.get(id)
	if st == nil {
		return nil, false
	}
	s.requests.remove(id)
	st.pending--
	last := st.pending == 0
	if last {
		delete(s.streams, st.id)
	}
	return st, last
}

// takeAll removes every id of a finished stream (a batch answered at once,
// or a POST abandoned by its client).
func (s *session) takeAll(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range st.ids {
		if s.requests.get(id) == st {
			s.requests.remove(id)
		}
	}
	st.pending = 0
	delete(s.streams, st.id)
}

// related returns the stream of an in-flight request.
func (s *session) related(id jsonrpc.ID) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests.get(id)
}

// standaloneStream returns the session's standalone stream (number 0),
// making it on first use: most sessions never open one.
func (s *session) standaloneStream() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone == nil {
		s.standalone = &stream{s: s, id: 0, name: standaloneName, sse: true, resumable: true, wake: make(chan struct{}, 1)}
	}
	return s.standalone
}

// requestTable maps the ids of a session's in-flight requests to their
// streams. A client's session has few requests in flight, so a slice scanned
// in order is as fast as a map and an idle session keeps almost nothing of
// it; past fewRequests a map takes over.
type requestTable struct {
	few  []requestEntry
	many map[jsonrpc.ID]*stream
}

const fewRequests = 16

type requestEntry struct {
	id jsonrpc.ID
	st *stream
}

func (t *requestTable) len() int { return len(t.few) + len(t.many) }

func (t *requestTable) get(id jsonrpc.ID) *stream {
	if t.many != nil {
		return t.many[id]
	}
	for i := range t.few {
		if t.few[i].id == id {
			return t.few[i].st
		}
	}
	return nil
}

func (t *requestTable) put(id jsonrpc.ID, st *stream) {
	if t.many == nil && len(t.few) < fewRequests {
		t.few = append(t.few, requestEntry{id, st})
		return
	}
	if t.many == nil {
		t.many = make(map[jsonrpc.ID]*stream, 2*fewRequests)
		for _, e := range t.few {
			t.many[e.id] = e.st
		}
		t.few = nil
	}
	t.many[id] = st
}

func (t *requestTable) remove(id jsonrpc.ID) {
	if t.many != nil {
		delete(t.many, id)
		if len(t.many) == 0 {
			t.many = nil
		}
		return
	}
	s := t.few
	for i := range s {
		if s[i].id == id {
			last := len(s) - 1
			s[i] = s[last]
			s[last] = requestEntry{}
			t.few = s[:last]
			return
		}
	}
}

// postStream returns the unfinished POST stream this Handler opened under
// name; nil when the stream is finished, unknown, or another Handler's.
func (s *session) postStream(name string) *stream {
	n, ok := strings.CutPrefix(name, s.h.streamPrefix)
	if !ok {
		return nil
	}
	num, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[num]
}

// Write implements jsonrpc.Stream: it routes a message the server sends.
//
//   - A response goes to the stream of the POST that carried its request,
//     and finishes that stream once every request of the POST is answered.
//   - A request or notification sent while handling a client request
//     (jsonrpc.RelatedRequest) goes to that request's SSE stream.
//   - Anything else, and related messages of requests answered with JSON,
//     go to the standalone GET stream.
func (s *session) Write(ctx context.Context, m *jsonrpc.Message) error {
	select {
	case <-s.done:
		return jsonrpc.ErrClosed
	default:
	}
	switch {
	case m.Batch != nil:
		var st *stream
		for _, e := range m.Batch {
			if st = s.related(e.ID); st != nil {
				break
			}
		}
		if st == nil {
			return nil // the client cancelled or abandoned every request
		}
		s.takeAll(st)
		return st.send(ctx, m, true)
	case m.Method == "":
		st, last := s.take(m.ID)
		if st == nil {
			return nil // cancelled or abandoned: nobody waits for it
		}
		return st.send(ctx, m, last)
	}
	if id, ok := jsonrpc.RelatedRequest(ctx); ok {
		if st := s.related(id); st != nil && st.sse {
			if err := st.send(ctx, m, false); err != errStreamFinished {
				return err
			}
		}
	}
	return s.standaloneStream().send(ctx, m, false)
}

// observe looks at incoming notifications before they are delivered: a
// notifications/cancelled for a request still in flight finishes that
// request's stream at once, since the server will never answer it.
func (s *session) observe(m *jsonrpc.Message) {
	if m.Batch != nil {
		for _, e := range m.Batch {
			s.observe(e)
		}
		return
	}
	if m.Method != mcp.NotificationCancelled || m.Invalid != nil {
		return
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID.IsZero() {
		return
	}
	if st, last := s.take(p.RequestID); st != nil && last {
		st.finish()
	}
}

// abandon gives up on the requests of a stream whose client went away
// before a JSON answer was ready: the server is told to cancel them.
func (s *session) abandon(st *stream) {
	s.takeAll(st)
	for _, id := range st.ids {
		params, _ := json.Marshal(&mcp.CancelledNotificationParams{RequestID: id, Reason: "HTTP client disconnected"})
		_ = s.deliver(jsonrpc.NewNotification(mcp.NotificationCancelled, params))
	}
}

// primes reports whether SSE streams of this session start with a priming
// event (SEP-1699, 2025-11-25 and later; older clients may not expect an
// event without data).
func (s *session) primes(headerVersion string) bool {
	v := s.protocolVersion()
	if v == "" {
		v = headerVersion
	}
	rev, _ := mcp.LookupRevision(v)
	return rev.SSEPriming
}

// sseConn is the HTTP response an SSE stream is written to. Writes come from
// whichever goroutine sends a message; the handler goroutine waits until
// done, then marks the connection dead before returning, so nothing touches
// the ResponseWriter after ServeHTTP ends. The response headers go out with
// the first write, so that the handler can still answer with an HTTP error
// until then.
type sseConn struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration

	mu    sync.Mutex
	dead  bool
	begun bool // the headers were written

	aborted atomic.Bool // see abort

	done     chan struct{}
	doneOnce sync.Once
}

func newSSEConn(w http.ResponseWriter, timeout time.Duration) *sseConn {
	return &sseConn{w: w, rc: http.NewResponseController(w), timeout: timeout, done: make(chan struct{})}
}

// errConnGone is returned by writes on a connection that has ended.
var errConnGone = errors.New("mcphttp: connection gone")

// write sends b and flushes it, within the write timeout.
func (c *sseConn) write(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return errConnGone
	}
	if !c.begun {
		c.begun = true
		writeSSEHeaders(c.w)
	}
	if c.timeout > 0 {
		_ = c.rc.SetWriteDeadline(time.Now().Add(c.timeout))
	}
	if c.aborted.Load() {
		// After the deadline above: abort's deadline, set after its flag,
		// is not lost to it.
		c.dead = true
		c.end()
		return errConnGone
	}
	_, err := c.w.Write(b)
	if err == nil {
		err = c.rc.Flush()
	}
	if c.timeout > 0 && err == nil {
		// Clear it: an idle stream must not fail its next write. This also
		// lifts http.Server.WriteTimeout, which would cut every stream.
		_ = c.rc.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		c.dead = true
		c.end()
	}
	return err
}

// abort cuts the connection from any goroutine: a write in progress fails
// at once (its deadline is moved to now) instead of waiting out the write
// timeout, and the handler goroutine is told to finish.
func (c *sseConn) abort() {
	c.aborted.Store(true)
	_ = c.rc.SetWriteDeadline(time.Now())
	c.end()
}

// started reports whether the response headers went out.
func (c *sseConn) started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.begun
}

// keepAlive writes a keep-alive comment if the stream has started.
func (c *sseConn) keepAlive() error {
	if !c.started() {
		return nil
	}
	return c.write(keepAliveComment)
}

// end tells the handler goroutine to finish the response.
func (c *sseConn) end() { c.doneOnce.Do(func() { close(c.done) }) }

// kill marks the connection dead; the handler goroutine calls it before
// returning.
func (c *sseConn) kill() {
	c.mu.Lock()
	c.dead = true
	c.mu.Unlock()
	c.end()
}

// bufPool holds buffers for encoding events.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 1024)
	return &b
}}

func putBuf(bp *[]byte, b []byte) {
	if cap(b) > 64<<10 {
		return
	}
	*bp = b[:0]
	bufPool.Put(bp)
}
