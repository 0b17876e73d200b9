// The response streams of a session: a POST's JSON answer or SSE stream,
// and the standalone GET stream, with their resumable events.

package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// errStreamFinished is returned by stream.send after the stream's last
// response; the message is routed elsewhere.
var errStreamFinished = errors.New("mcphttp: stream finished")

// errNoStream is returned when the server sends a request on the standalone
// stream while this Handler does not hold it: the client did not open it
// here in time (see awaitHeld), or took it to another Handler.
var errNoStream = errors.New("mcphttp: the client has no open stream on this handler to receive server requests (it sent no GET here)")

// Bounds on the requests that wait for a client's standalone stream (see
// awaitHeld): how many may wait in one session, and how long each may
// wait at most, whatever its context allows (a request sent from
// ServerOptions.InitializedHandler holds the session's notification lane
// while it waits).
const (
	maxHeldWaiters = 16
	maxHeldWait    = 10 * time.Second
)

// standaloneName is the standalone GET stream's name in the EventStore and
// in event ids; every Handler serving the session uses it, so the stream
// can move between them.
const standaloneName = "0"

// stream is one response stream of a session: the SSE stream or JSON answer
// of one POST, or (number 0) the standalone GET stream.
//
// Events of a resumable stream are appended to the EventStore and written
// to the live connection in one order, kept by the order lock, which is
// held across the store I/O; mu, which guards the connection, never is, so
// connections come and go without waiting for the store. Resuming takes the
// order lock too: an event is either in the store before the replay reads
// it, or written live after the new connection is attached, never both and
// never neither.
type stream struct {
	s         *session
	id        int64
	name      string       // in the EventStore and event ids; "" for JSON
	sse       bool         // SSE, else a single JSON answer
	resumable bool         // events have ids and are kept in the EventStore (every SSE stream)
	ids       []jsonrpc.ID // the requests of the POST

	pending int // requests not answered yet; guarded by s.mu

	// A lazy stream has sent nothing yet and may still answer with JSON
	// (guarded by mu): its final message alone becomes the JSON body, and
	// anything before it (or a keep-alive, or CloseSSEStream) upgrades it
	// to SSE, starting with prime, the priming event (nil when the
	// revision has none).
	lazy  bool
	prime []byte

	order sync.Mutex // resumable streams: held while an event is stored and written

	mu         sync.Mutex
	conn       *sseConn // the live connection, nil while disconnected
	finished   bool
	final      *jsonrpc.Message // JSON: the answer
	finishedCh chan struct{}    // closed once finished (POST streams)

	// The standalone stream is held by the Handler that last attached a GET
	// to it: only the holder stores and writes the session's unrelated
	// messages. held and last change with both order and mu held.
	held bool
	last string // the store id of the stream's newest event this Handler knows
	// everHeld: held was true once. heldCh is closed when held becomes
	// true; waiters counts the requests waiting for that (awaitHeld).
	// Guarded by mu.
	everHeld bool
	heldCh   chan struct{}
	waiters  int
	// handoff: a drain (Handler.Shutdown) ended the live connection of the
	// held stream, whose client resumes it on another Handler. Guarded by
	// mu.
	handoff bool
	// tk: this Handler took the stream over (claim) and waits for the
	// previous holder to let it go (see takeover). Guarded by order.
	tk *takeover

	// The standalone stream's live events wait in queue (for conn; guarded
	// by mu) until the goroutine of the GET holding conn writes them, so
	// that a sender (a notification fanned out to every session) never
	// waits for a slow reader. wake tells that goroutine there is work.
	queue []queuedEvent
	wake  chan struct{}
}

// queuedEvent is a stored event waiting to be written to a standalone
// stream's connection.
type queuedEvent struct {
	id     string // the store id, if stored
	stored bool
	data   []byte // owned by the EventStore: never modified
}

// send writes m to the stream; final marks the stream's last message. An
// EventStore error is returned (the message still goes to a live
// connection, without an event id, so it is not lost now but cannot be
// replayed).
func (st *stream) send(ctx context.Context, m *jsonrpc.Message, final bool) error {
	if st.id == 0 && m.IsRequest() {
		if err := st.awaitHeld(ctx); err != nil {
			return err
		}
	}
	if !st.resumable {
		// A JSON answer: only the response comes here.
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.finished {
			return errStreamFinished
		}
		st.final = m
		st.finishLocked()
		return nil
	}
	st.order.Lock()
	defer st.order.Unlock()
	st.mu.Lock()
	finished, held := st.finished, st.held
	if !finished && st.lazy {
		if final {
			// Nothing went before the answer: it goes out as JSON, and
			// there is nothing to store for resumption.
			st.final = m
			st.finishLocked()
			st.mu.Unlock()
			return nil
		}
		st.upgradeLocked()
	}
	st.mu.Unlock()
	if finished {
		return errStreamFinished
	}
	if st.id == 0 && !held {
		if m.IsRequest() {
			return errNoStream
		}
		return nil // another Handler holds the stream, or no client opened one
	}
	data := m.AppendJSON(nil) // owned by the store from here on
	h := st.s.h
	unique := h.once != nil && mcp.NoticeID(ctx) != "" // stored once per notice: no copy to match
	sid, dup, err := h.appendEvent(ctx, st.s.id, st.name, data)
	if dup {
		return nil // another Handler stored this notice's event: the client gets that copy
	}
	if err != nil {
		h.log.Warn("mcphttp: event store: append", "session", st.s.id, "err", err)
		err = fmt.Errorf("mcphttp: event store: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err == nil && st.id == 0 {
		st.last = sid
	}
	if err == nil && st.tk != nil && !st.tk.own(sid, data, unique, st.s.h.opts.MaxQueuedEvents) {
		return nil // the client has the previous holder's copy of it
	}
	if c := st.conn; c != nil && st.wake != nil {
		st.enqueueLocked(c, queuedEvent{id: sid, stored: err == nil, data: data})
	} else if c != nil {
		bp := bufPool.Get().(*[]byte)
		b := appendStoredEvent((*bp)[:0], st.name, sid, err == nil, data)
		if c.write(b) != nil {
			st.conn = nil // stored: the client gets it when it resumes
		}
		putBuf(bp, b)
	}
	if final {
		st.finishLocked()
	}
	return err
}

// awaitHeld waits until this Handler holds the standalone stream, for a
// request the server sends on it. A client opens its GET only once the
// server has accepted its initialized notification, so a request sent
// from ServerOptions.InitializedHandler (or any request sent right after
// the handshake) would otherwise find no stream: it waits, bounded by ctx
// (ServerOptions.RequestTimeout applies), by maxHeldWait and by the
// session's end, and at most maxHeldWaiters requests of a session wait at
// once. A stream that was held here and is no more (the client took it to
// another Handler) is not waited for.
func (st *stream) awaitHeld(ctx context.Context) error {
	st.mu.Lock()
	if st.held {
		st.mu.Unlock()
		return nil
	}
	if st.everHeld || st.waiters >= maxHeldWaiters {
		st.mu.Unlock()
		return errNoStream
	}
	if st.heldCh == nil {
		st.heldCh = make(chan struct{})
	}
	ch := st.heldCh
	st.waiters++
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		st.waiters--
		st.mu.Unlock()
	}()
	t := time.NewTimer(maxHeldWait)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", errNoStream, context.Cause(ctx))
	case <-st.s.done:
		return jsonrpc.ErrClosed
	case <-t.C:
		return errNoStream
	}
}

// holdLocked makes this Handler the holder of the standalone stream, and
// wakes the requests waiting for that. st.mu must be held.
func (st *stream) holdLocked() {
	st.held, st.everHeld = true, true
	if st.heldCh != nil {
		close(st.heldCh)
		st.heldCh = nil
	}
}

// appendEvent stores data as the next event of a session's stream. An
// event caused by a notice (mcp.NoticeID) is stored once per stream when
// the store can tell (OnceAppender): dup reports that another Handler,
// which heard the notice too, stored it already.
func (h *Handler) appendEvent(ctx context.Context, session, stream string, data []byte) (id string, dup bool, err error) {
	if key := mcp.NoticeID(ctx); key != "" && h.once != nil {
		return h.once.AppendOnce(ctx, session, stream, key, data)
	}
	id, err = h.events.Append(ctx, session, stream, data)
	return id, false, err
}

// enqueueLocked queues ev for c, the standalone stream's live connection,
// and wakes the GET goroutine writing to c. When MaxQueuedEvents are
// waiting already, the reader is too slow: its connection is cut at once
// (a write in progress fails) and the queue dropped; the client resumes
// with Last-Event-ID and gets the events from the EventStore. st.mu must be
// held.
func (st *stream) enqueueLocked(c *sseConn, ev queuedEvent) {
	if len(st.queue) >= st.s.h.opts.MaxQueuedEvents {
		st.s.h.log.Warn("mcphttp: standalone stream reader too slow, cutting its connection; it can resume from the event store",
			"session", st.s.id, "queued", len(st.queue))
		st.setConnLocked(nil)
		c.abort()
		return
	}
	st.queue = append(st.queue, ev)
	select {
	case st.wake <- struct{}{}:
	default: // already woken
	}
}

// setConnLocked makes c the live connection; the events queued for the
// previous one are dropped (they are in the store, and a resuming
// connection replays them). st.mu must be held.
func (st *stream) setConnLocked(c *sseConn) {
	st.conn = c
	clear(st.queue)
	st.queue = st.queue[:0]
}

// flush writes the events queued for c, on the goroutine of the GET
// holding c. It reports false when c failed.
func (st *stream) flush(c *sseConn) bool {
	bp := bufPool.Get().(*[]byte)
	defer func() { putBuf(bp, (*bp)[:0]) }()
	for {
		st.mu.Lock()
		if st.conn != c || len(st.queue) == 0 {
			st.mu.Unlock()
			return true
		}
		ev := st.queue[0]
		st.queue[0] = queuedEvent{}
		st.queue = st.queue[1:]
		st.mu.Unlock()
		b := appendStoredEvent((*bp)[:0], st.name, ev.id, ev.stored, ev.data)
		*bp = b
		if c.write(b) != nil {
			return false
		}
	}
}

// upgradeLocked turns a lazy stream into an SSE stream: the priming event,
// if any, goes out first (with the headers). st.mu must be held.
func (st *stream) upgradeLocked() {
	if !st.lazy {
		return
	}
	st.lazy = false
	if c := st.conn; c != nil && c.write(st.prime) != nil {
		st.conn = nil
	}
}

// upgrade is upgradeLocked taking st.mu.
func (st *stream) upgrade() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.upgradeLocked()
}

// jsonAnswer reports whether the stream is still lazy (it never became an
// SSE stream), and if so its final message, if any, and whether it is
// finished. Once asked, it stays JSON: an upgrade cannot follow.
func (st *stream) jsonAnswer() (lazy bool, final *jsonrpc.Message, finished bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.lazy {
		return false, nil, false
	}
	st.conn = nil
	return true, st.final, st.finished
}

// waitingJSON reports whether the stream has no answer yet and can still
// answer with JSON (lazy, or a JSON stream): a client going away now
// abandons its request.
func (st *stream) waitingJSON() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return !st.finished && (st.lazy || !st.sse)
}

// finish ends a POST stream without a final message (its requests were
// cancelled).
func (st *stream) finish() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.finishLocked()
}

func (st *stream) finishLocked() {
	if st.finished {
		return
	}
	st.finished = true
	if st.conn != nil {
		st.conn.end()
		st.setConnLocked(nil)
	}
	if st.finishedCh != nil {
		close(st.finishedCh)
	}
}

// attach makes c the stream's live connection, after replaying to it the
// stored events after the store id after when resuming. It returns
// errStreamFinished when the stream is finished (after the replay; c is
// then to be ended), or the replay's error.
func (st *stream) attach(ctx context.Context, c *sseConn, after string, replay bool) error {
	st.order.Lock()
	defer st.order.Unlock()
	last := after
	if replay {
		var err error
		if st.tk != nil {
			last, err = st.replayTakeover(ctx, after, c)
		} else {
			last, err = st.s.h.replay(ctx, st.s.id, st.name, after, c)
		}
		if err != nil {
			return err
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return errStreamFinished
	}
	if old := st.conn; old != nil {
		old.end() // a resuming client replaces a connection it lost
	}
	st.setConnLocked(c)
	if st.id == 0 {
		st.holdLocked()
		st.last = last
	}
	return nil
}

// open attaches c to the standalone stream for a GET without Last-Event-ID,
// writing first the priming event (when prime), whose id names the stream's
// newest event so that a resumption from it replays only what follows. It
// reports false when the stream already has a live connection.
func (st *stream) open(ctx context.Context, c *sseConn, prime bool, retry time.Duration) bool {
	st.order.Lock()
	defer st.order.Unlock()
	st.mu.Lock()
	busy, held, last := st.conn != nil, st.held, st.last
	st.mu.Unlock()
	if busy {
		return false
	}
	// A fresh start replays nothing: a takeover waiting for its replay
	// (whose GET failed) has nothing left to match.
	st.tk = nil
	if !held {
		// Another Handler held the stream and may have stored events this
		// one never saw: skip to the newest.
		_ = st.s.h.events.Replay(ctx, st.s.id, st.name, last, func(id string, _ []byte) error {
			last = id
			return nil
		})
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn != nil {
		return false
	}
	var b []byte
	if prime {
		b = appendEvent(nil, eventID(st.name, last), "", retry, nil)
	}
	if c.write(b) == nil {
		st.setConnLocked(c)
	}
	st.holdLocked()
	st.last = last
	return true
}

// isHeld reports whether this Handler holds the (standalone) stream.
func (st *stream) isHeld() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.held
}

// release gives the standalone stream up to another Handler that took it
// over: its live connection here ends, and this Handler stores no more of
// its events. It waits for an append in progress, and reports whether the
// stream was held here.
func (st *stream) release() bool {
	st.order.Lock()
	defer st.order.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	was := st.held
	st.held = false
	st.tk = nil
	if st.conn != nil {
		st.conn.end()
		st.setConnLocked(nil)
	}
	return was
}

// detach forgets c if it is still the live connection.
func (st *stream) detach(c *sseConn) {
	st.mu.Lock()
	if st.conn == c {
		st.setConnLocked(nil)
	}
	st.mu.Unlock()
}

// closeConn implements CloseSSEStream: it ends the live connection after
// telling the client when to come back, leaving the stream open.
func (st *stream) closeConn() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.resumable || st.finished {
		return false
	}
	st.upgradeLocked()
	if c := st.conn; c != nil {
		st.setConnLocked(nil)
		_ = c.write(appendRetry(nil, st.s.h.opts.RetryInterval))
		c.end()
	}
	return true
}

// appendRetry appends an event carrying only a retry field. It has no data,
// so clients do not dispatch it; it sets their reconnection delay.
func appendRetry(b []byte, retry time.Duration) []byte {
	b = append(b, "retry: "...)
	b = strconv.AppendInt(b, retry.Milliseconds(), 10)
	return append(b, '\n', '\n')
}
