package jsonrpc

import (
	"context"
	"math"
	"slices"
	"time"
)

// How incoming messages enter a Conn.
//
// Every incoming message goes through receive, whether the reader read it
// (readLoop, on a pull stream) or the transport pushed it (Push, on a
// PushStream). What the receiving goroutine does with a request while a
// worker slot is free is decided once, by NewConn (host): the reader of a
// Buffered stream runs it itself, and a timer hands reading over to a new
// goroutine if the handler outlasts its budget (see runInline); a pusher runs it and
// returns once its response is written. Anything else, and every request
// with InlineNever, goes to dispatch: requests to workers, notifications
// to the lane, responses to the calls waiting for them.

// Inline says whether a request may run on the goroutine that received
// it (see ConnOptions.Inline and Conn.Push).
type Inline uint8

const (
	// InlineWhenFree runs a request on the goroutine that received it
	// while a worker slot is free: a cheap handler then costs no goroutine,
	// no stack growth and no wake-up of another thread.
	InlineWhenFree Inline = iota
	// InlineNever hands every request to a worker goroutine.
	InlineNever
)

// A host is what the goroutine that received an incoming message does with
// a request for which a worker slot is free. NewConn decides it for the
// Conn's reader, or its pushers, from ConnOptions.Inline and the stream.
type host uint8

const (
	onWorker host = iota // hand it to a worker
	onPusher             // run it, then return (Push: the caller has nothing else to do)
	onReader             // run it, handing reading over if it takes long (see runInline)
)

// hostFor decides how the receiving goroutine of a Conn on s runs
// requests: inline needs a pusher, or a reader that can tell whether more
// input waits (Buffered).
func hostFor(s Stream, inline Inline) host {
	if inline == InlineNever {
		return onWorker
	}
	if _, ok := s.(PushStream); ok {
		return onPusher
	}
	if _, ok := s.(Buffered); ok {
		return onReader
	}
	return onWorker
}

// inlineBudget is how long the reader runs a request's handler itself
// before another goroutine takes over reading (at least that, at most
// twice that: see runInline). A cheap handler (most are
// a few microseconds) is done well within it and costs no goroutine, no
// stack growth and no wake-up of another thread; a slow one delays reading
// the peer's next messages by at most this long.
const inlineBudget = 200 * time.Microsecond

// pipelinedBudget is inlineBudget for a request read while more input
// waits behind it (a peer with several requests in flight): the reader
// runs such requests one after another while each is cheap, and hands
// reading over sooner when one is not, so that the waiting requests run on
// workers, in parallel, instead of queueing behind it.
const pipelinedBudget = 50 * time.Microsecond

// A Buffered stream reports how many bytes it holds that Read has not
// consumed yet: when there are none, the peer is waiting for an answer and
// the reader runs the next request itself instead of handing it to a new
// goroutine. Line streams implement it.
type Buffered interface {
	Buffered() int
}

// A MessageBuffer is a Buffered stream that can tell whether a whole
// message waits in what it holds, not only bytes of one still arriving (a
// line stream: whether a newline is buffered). A Conn holds the requests
// its handlers forward to another peer (HoldingStream) only while one
// does: the reader then reads it without waiting, and sends what it held
// before it waits. Bytes of a line the peer has not finished would
// otherwise hold them for as long as the peer takes to finish it.
type MessageBuffer interface {
	Buffered
	// MessageWaiting reports whether a whole message was read from the
	// peer and not consumed yet.
	MessageWaiting() bool
}

// messageWaiting reports whether s is a MessageBuffer with a whole
// message waiting.
func messageWaiting(s Stream) bool {
	mb, ok := s.(MessageBuffer)
	return ok && mb.MessageWaiting()
}

// A HoldingStream can keep the answers to requests back for a moment to
// send several in one write: the reader writes the response of a request
// it ran itself with WriteHeld, and the stream sends what it holds with
// the next Write, on FlushHeld or Close, and before it waits for more
// input. A peer with many requests in flight then gets their answers in
// one system call instead of one each. Line streams implement it.
type HoldingStream interface {
	Stream
	// WriteHeld is Write, except that m may be kept back until the next
	// Write, FlushHeld or Close, or until the stream must wait for input.
	WriteHeld(ctx context.Context, m *Message) error
	// FlushHeld sends every message WriteHeld kept back.
	FlushHeld() error
}

// Conn.inline describes the reader's inline run: its low two bits are the
// state (inlineIdle, inlineRunning or inlineHandedOff), the next bit says
// whether the run is pipelined (its budget is pipelinedBudget), and the rest
// numbers the runs, so that watchInline can tell one long run from two
// short ones and a reader that was handed off cannot mistake a later run
// for its own.
const (
	inlineIdle = iota
	inlineRunning
	inlineHandedOff

	inlineState     = 3
	inlinePipelined = 4
	inlineOne       = 8 // one run more
)

// Push hands the Conn m, an incoming message of a PushStream, on the
// caller's goroutine. It is the way in for a transport that reads
// messages itself; a reader goroutine takes the same path (see receive).
// Responses go to the calls waiting for them, notifications to the
// ordered lane, and Barrier messages are handled before Push returns.
//
// inline says whether the caller's goroutine may run a request itself.
// With InlineWhenFree (and ConnOptions.Inline not InlineNever) a request
// for which a worker slot is free runs on the caller's goroutine, and
// Push returns after its handler did and its response was written; such
// a request is a worker's in every other way: it counts against
// MaxConcurrency, its context derives from the connection's, and
// CancelIncoming, Close and the end of input cancel it. It is for a
// transport that spends a goroutine on each request anyway (an HTTP
// handler's), which would otherwise only wait while a worker ran the
// request. Otherwise (InlineNever, no free slot, or any other message) m
// is queued, refused or handed to a worker, and Push returns without
// waiting for a handler.
//
// Transports may call Push from many goroutines at once. It returns
// ErrClosed once EndPush was called.
func (c *Conn) Push(m *Message, inline Inline) error {
	if !c.startPush() {
		return ErrClosed
	}
	defer c.pushes.Done()
	at := onWorker
	if inline == InlineWhenFree && c.at != onWorker {
		at = onPusher // never onReader: the caller is not the reader
	}
	c.receive(m, at)
	return nil
}

// startPush counts a message pushed by the transport (EndPush waits for
// it); it reports false once the input has ended.
func (c *Conn) startPush() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readEnded {
		return false
	}
	c.pushes.Add(1)
	return true
}

// readLoop reads until the stream ends. When the peer ends the stream (EOF
// or an error), requests already received still run to completion and their
// responses are written before the stream is closed, so a client that writes
// requests and closes its end still gets every answer. Outgoing calls fail
// at once: no response can arrive any more.
func (c *Conn) readLoop() {
	var err error
	for {
		var m *Message
		if c.hasForwards.Load() && !messageWaiting(c.stream) {
			c.flushForwards() // before Read may wait for input
		}
		if m, err = c.stream.Read(c.ctx); err != nil {
			break
		}
		if !c.receive(m, c.at) && !c.standBy() {
			return // another goroutine reads now
		}
	}
	c.flushForwards()
	c.endRead(err)
	c.finish(func() {})
}

// receive is the one way in for an incoming message, whether the reader
// read it or the transport pushed it: at says what the receiving
// goroutine does with a request for which a worker slot is free (see
// host). Everything else is dispatched. It reports whether the caller is
// still the reader: false when a request run on the reader outlasted its
// budget and another goroutine took over reading (see runInline).
func (c *Conn) receive(m *Message, at host) bool {
	if at == onWorker || !c.inlineable(m) {
		c.dispatch(m)
		return true
	}
	pipelined := at == onReader && c.stream.(Buffered).Buffered() > 0
	w, ok := c.admitInline(m)
	if !ok {
		return true // dispatched the usual way
	}
	if at == onPusher {
		c.serve(w)
		c.releaseSlot()
		return true
	}
	return c.runInline(w, pipelined)
}

// inlineable reports whether m is a request dispatch would give a worker.
func (c *Conn) inlineable(m *Message) bool {
	return m.Invalid == nil && m.Batch == nil && m.Method != "" && !m.ID.IsZero() &&
		(c.opts.Barrier == nil || !c.opts.Barrier(m.Method))
}

// admitInline admits request m as enqueueRequest does, but when a worker
// slot is free it returns the work for the caller to run instead of
// starting a goroutine. ok false means m was dispatched (or refused) the
// usual way.
func (c *Conn) admitInline(m *Message) (w work, ok bool) {
	c.mu.Lock()
	if c.closing || c.active >= c.opts.MaxConcurrency {
		c.mu.Unlock()
		c.dispatch(m)
		return work{}, false
	}
	if _, dup := c.inflight[m.ID]; dup {
		c.mu.Unlock()
		c.dispatch(m) // refused there
		return work{}, false
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	if c.inflight == nil {
		c.inflight = make(map[ID]context.CancelCauseFunc)
	}
	c.inflight[m.ID] = cancel
	hctx, wctx := c.requestContexts(ctx, m)
	c.active++
	c.workers.Add(1)
	c.mu.Unlock()
	return work{m: m, ctx: hctx, wctx: wctx}, true
}

// runInline runs w on the reader's goroutine. A slow handler, or one that
// calls the peer, must not hold up reading (cancellations included) for
// long: the watch timer, armed while the reader runs requests, hands
// reading over to a new goroutine when it finds the same run going on at
// two looks in a row (see watchInline), within one to two budgets:
// inlineBudget, or pipelinedBudget when more input waits behind the
// request. While more input waits, the response is held (HoldingStream),
// to go out in one write with the response of the last request of the run.
//
// The timer is not reset for every request: a timer armed anew wakes
// another thread (the runtime's poller) for each request, which at one
// request in flight costs more than the request. It looks once a budget
// while requests keep coming, and stops when none ran since its last look.
// With a single processor (watchEachRun) arming wakes nothing, while a
// look that finds the reader waiting for input wakes the process: there
// the timer is stopped after every run, as a timer per request would be.
//
// It reports whether the caller is still the reader: false when the
// handler outlasted its budget and another goroutine took over reading,
// in which case this one went on as a worker until the queue was empty.
func (c *Conn) runInline(w work, pipelined bool) bool {
	// The last answer of a run goes out at once, with the ones held
	// before it.
	w.held = pipelined
	run := c.inline.Load()&^(inlineOne-1) + inlineOne | inlineRunning
	if pipelined {
		run |= inlinePipelined
	}
	c.inline.Store(run) // only the reader stores; the watch swaps a running state
	if !c.watchArmed.Load() && c.watchArmed.CompareAndSwap(false, true) {
		c.armWatch(run)
	}
	if rc, ok := w.ctx.(*requestCtx); ok {
		rc.reader, rc.run = c, run
	}
	c.serve(w)
	if !c.inline.CompareAndSwap(run, run&^inlineState) { // inlineIdle
		// The new reader may be waiting for input already: send the
		// response held just now.
		c.flushHeld()
		c.workerAfter()
		return false
	}
	if c.watchEachRun && c.watch.Stop() {
		c.watchArmed.Store(false)
	}
	c.releaseSlot()
	return true
}

// armWatch starts the watch timer for its next look at the run seen; the
// caller has set watchArmed.
func (c *Conn) armWatch(seen uint64) {
	c.watchSeen.Store(seen)
	budget := inlineBudget
	if seen&inlinePipelined != 0 {
		budget = pipelinedBudget
	}
	if c.watch == nil {
		// Armed below, once c.watch is set: watchInline reads it.
		c.watch = time.AfterFunc(math.MaxInt64, c.watchInline)
	}
	c.watch.Reset(budget)
}

// watchInline is the watch timer's look at the reader's inline runs: the
// run it saw last still going on has outlasted its budget, and this
// goroutine takes over reading; otherwise it looks again a budget later,
// unless no request ran since its last look.
func (c *Conn) watchInline() {
	for {
		now := c.inline.Load()
		if now == c.watchSeen.Load() {
			if now&inlineState == inlineRunning {
				if !c.inline.CompareAndSwap(now, now&^inlineState|inlineHandedOff) {
					continue // the run just ended
				}
				c.watchArmed.Store(false) // the new reader arms it again
				c.resume()
				return
			}
			// Idle since the last look: stop, unless a run started as
			// the watch stopped, and its reader saw it armed.
			c.watchArmed.Store(false)
			if c.inline.Load() == now || !c.watchArmed.CompareAndSwap(false, true) {
				return
			}
			now = c.inline.Load()
		}
		c.armWatch(now)
		return
	}
}

// releaseSlot gives up the worker slot of a request run inline: to a new
// worker if requests were queued meanwhile.
func (c *Conn) releaseSlot() {
	c.mu.Lock()
	if len(c.queue) > 0 && !c.closing {
		next := c.queue[0]
		c.queue[0] = work{}
		c.queue = c.queue[1:]
		c.mu.Unlock()
		go c.worker(next)
		return
	}
	c.active--
	c.mu.Unlock()
	c.workers.Done()
}

// inlineKey finds, in a handler's context, the requestCtx of the request
// the reader runs itself, if it is one.
type inlineKey struct{}

// writeRequest writes request m of a call to Conn to (roundTrip), about
// to wait for the response. When ctx is (or derives from) that of a
// request the reader of a Conn runs itself, and that run is still going
// on, another goroutine takes over reading at once rather than when the
// watch timer looks, if the reader is needed meanwhile: for the response,
// when the call goes to the reader's own peer; for the requests that wait
// already, read but not yet handled, when it goes to another (a gateway
// forwarding a request upstream, say). Otherwise the reader waits with
// its handler, which costs no goroutine, and the watch timer hands
// reading over if the wait is long.
//
// A request to another peer while a whole request waits (MessageBuffer)
// is held in to's stream when it can hold lines (HoldingStream), not
// written: the next reader reads the requests waiting, and the requests
// they forward to the same peer join it, all going out in one write when
// the reader has read what waited (readLoop flushes before Read may wait),
// or with any other write to that peer. The hold is registered before reading is handed
// over, so the reader that flushes it cannot have passed that point
// already. Otherwise reading is handed over before the write, so that the
// next requests are read during it and a line stream sends what they
// write meanwhile together.
func writeRequest(ctx context.Context, to *Conn, m *Message) error {
	rc, ok := ctx.Value(inlineKey{}).(*requestCtx)
	if !ok {
		return to.stream.Write(ctx, m)
	}
	c, run := rc.reader, rc.run
	if c.inline.Load() != run {
		return to.stream.Write(ctx, m) // the run is over, or was handed over already
	}
	waiting := c.stream.(Buffered).Buffered() > 0
	if c != to && !waiting || !c.inline.CompareAndSwap(run, run&^inlineState|inlineHandedOff) {
		return to.stream.Write(ctx, m)
	}
	// No other goroutine reads c until the one woken below.
	if hs, ok := to.stream.(HoldingStream); ok && c != to && messageWaiting(c.stream) {
		c.addForward(forward{to: to, id: m.ID})
		err := hs.WriteHeld(ctx, m)
		c.resumeAsync()
		return err
	}
	c.resumeAsync()
	return to.stream.Write(ctx, m)
}

// resumeAsync hands reading over to a spare goroutine, or a new one.
func (c *Conn) resumeAsync() {
	select {
	case c.spare <- struct{}{}:
	default:
		go c.takeOver()
	}
}

// forward is a request held in the stream of Conn to for the reader to
// send (writeRequest).
type forward struct {
	to *Conn // its stream is a HoldingStream
	id ID
}

// addForward registers f for the reader to flush.
func (c *Conn) addForward(f forward) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forwards = append(c.forwards, f)
	c.hasForwards.Store(true)
}

// flushForwards sends the requests held for the reader (writeRequest),
// one flush per stream. When that fails, each call held there returns
// the error, as it would had it written the line itself. (A held line
// that went out with another goroutine's write shares that write's fate:
// if it failed, the peer's stream is broken, and the call ends with the
// connection or its context.)
func (c *Conn) flushForwards() {
	if !c.hasForwards.Load() {
		return
	}
	c.mu.Lock()
	fs := c.forwards
	c.forwards = nil
	c.hasForwards.Store(false)
	c.mu.Unlock()
	for i, f := range fs {
		if slices.ContainsFunc(fs[:i], func(g forward) bool { return g.to == f.to }) {
			continue // flushed with the first of its stream
		}
		err := f.to.stream.(HoldingStream).FlushHeld()
		if err == nil {
			continue
		}
		for _, g := range fs[i:] {
			if g.to == f.to {
				g.to.deliver(FailedResponse(g.id, err))
			}
		}
	}
}

// resume hands reading over: to a spare goroutine if one stands by (its
// stack grown already by the requests it ran), or else to this one.
func (c *Conn) resume() {
	select {
	case c.spare <- struct{}{}:
	default:
		c.takeOver()
	}
}

// maxSpares bounds the goroutines a Conn keeps standing by to read again
// (standBy). With many requests in flight that each call a peer (a
// gateway forwarding them), a hand-over happens for about every request
// and a handler ends for about every one, in bursts: with a single spare,
// most hand-overs found it taken and started a goroutine whose stack grew
// again through the whole handler's path (12 to 20% of a gateway's CPU at 32
// in flight). Spares are kept only by Buffered streams (stdio, pipes: a
// few per process); each holds its stack while the Conn is idle.
const maxSpares = 32

// standBy makes this goroutine, a reader that handed reading over and then
// served as a worker, one of the Conn's spares: the next hand-over wakes it
// rather than starting a goroutine whose stack would grow again. It reports
// whether it reads again; false when maxSpares stand by already or reading
// has ended.
func (c *Conn) standBy() bool {
	c.mu.Lock()
	if c.readEnded || c.idleSpares >= maxSpares {
		c.mu.Unlock()
		return false
	}
	c.idleSpares++
	c.spares.Add(1) // before finish waits: readEnded is set first
	done := c.readDone.wait()
	c.mu.Unlock()
	defer c.spares.Done()
	select {
	case <-c.spare:
		c.mu.Lock()
		c.idleSpares--
		c.mu.Unlock()
		c.flushHeld() // as takeOver does
		return true
	case <-done:
		return false
	}
}

// takeOver runs when an inline handler outlasts its budget or waits for a
// call (handOff): this goroutine becomes the reader.
func (c *Conn) takeOver() {
	c.flushHeld() // answers held while the slow handler ran
	c.readLoop()
}

// workerAfter is worker's loop for a goroutine that has served one request
// already.
func (c *Conn) workerAfter() {
	c.mu.Lock()
	if len(c.queue) == 0 || c.closing {
		c.active--
		c.mu.Unlock()
		c.workers.Done()
		return
	}
	w := c.queue[0]
	c.queue[0] = work{}
	c.queue = c.queue[1:]
	c.mu.Unlock()
	c.worker(w)
}
