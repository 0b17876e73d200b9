package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A Handler answers the requests and notifications a Conn receives.
//
// Handle runs on one of the Conn's request workers for requests (or, while
// a worker slot is free, on the goroutine that received the request: see
// Inline), and on the Conn's single notification lane for
// notifications (so notifications are handled one at a time, in arrival
// order; ConnOptions.MaxQueuedNotifications bounds how many may wait). For
// a notification the result is discarded. An
// error of type *Error is sent as it is; any other error is sent as
// CodeInternalError. A panic is recovered and answered with
// CodeInternalError; the connection lives on.
//
// Every notification read before a response has returned from Handle
// before that response reaches its Call: what a peer sends before an
// answer (log messages, progress) is seen before the answer. A notification
// handler that calls the peer must therefore make the call with the
// context it was given, or one derived from it: such a call's response
// does not wait for the lane, which is busy with the handler itself (with
// an unrelated context the call waits until that context ends).
type Handler interface {
	Handle(ctx context.Context, m *Message) (result any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, m *Message) (any, error)

// Handle calls f(ctx, m).
func (f HandlerFunc) Handle(ctx context.Context, m *Message) (any, error) { return f(ctx, m) }

// ConnOptions configures a Conn. The zero value is usable: it answers every
// request with CodeMethodNotFound.
type ConnOptions struct {
	// Handler answers incoming messages.
	Handler Handler

	// MaxConcurrency bounds how many request handlers run at once,
	// counting those run inline (see Inline). Default 64.
	MaxConcurrency int

	// Inline says whether a request may run on the goroutine that
	// received it, while a worker slot is free, instead of on a worker.
	// The zero value, InlineWhenFree, lets it: the reader of a Buffered
	// stream runs such requests itself (handing reading over to another
	// goroutine when one takes long), and Push does when asked to.
	// InlineNever runs every request on a worker, whatever Push is told.
	Inline Inline

	// MaxQueued bounds how many requests may wait for a free handler slot;
	// past that a request is answered at once with CodeServerOverloaded.
	// Default 1024.
	MaxQueued int

	// MaxQueuedNotifications bounds how many incoming notifications may wait
	// on the lane for the notification handler. Past that a notification is
	// dropped: notifications get no reply and the reader must not wait for a
	// handler, so dropping is what keeps a peer that floods notifications at
	// a slow handler from growing memory without bound. Drops are logged at
	// Warn once per burst (the first drop, then the count when the lane has
	// drained), counted in Stats and reported to OnReject. Barrier
	// notifications are handled on the reader, never queued, so never
	// dropped. It also bounds the work left when the connection closes:
	// notifications already queued are still handled then (with a context
	// that is done), so that none that was read is lost. Default 1024.
	MaxQueuedNotifications int

	// CallTimeout, if positive, bounds every outgoing Call that has no
	// earlier deadline of its own.
	CallTimeout time.Duration

	// FirstID is the id of the first outgoing request; later ones count up
	// from it. Default (0 or less) 1. Connections that stand for one peer
	// session in several processes (Streamable HTTP replicas sharing a
	// session store) start at distinct, random places, so that two of them
	// never have the same id outstanding: the peer's answers reach every
	// process, and each takes only its own. Ids stay below 2^53, which
	// every JSON number reader holds exactly.
	FirstID int64

	// OnCancel, if set, is called when an outgoing Call gives up before its
	// response arrived (its context ended). MCP uses it to send
	// notifications/cancelled; JSON-RPC itself has no cancellation.
	OnCancel func(id ID, cause error)

	// Bind, if set, is called with the new Conn before it reads its first
	// message, so that a handler that keeps the Conn (to call the peer)
	// holds it before any message can reach it.
	Bind func(*Conn)

	// Barrier, if set, marks messages that are handled on the reader
	// goroutine, before any later message is dispatched: requests such as
	// MCP's initialize (a client may pipeline requests behind it), and
	// notifications that must never wait behind the lane nor be dropped,
	// such as MCP's cancellation. Such handlers must be quick and must not
	// call the peer. (Ordering notifications before the responses that
	// follow them needs no Barrier: the lane does that for all.)
	Barrier func(method string) bool

	// Logger receives diagnostics (handler panics, undeliverable responses,
	// dropped notifications and malformed responses). Default: discard.
	Logger *slog.Logger

	// OnReject, if set, is called for every incoming message the Conn refuses
	// or drops without calling the Handler, so that upper layers can count
	// them: an invalid message answered with CodeParseError or
	// CodeInvalidRequest (err is m.Invalid, the error sent), a malformed
	// response dropped unanswered (m.IsInvalidResponse(); err is m.Invalid,
	// saying why), a request refused because its id is in use or because
	// MaxQueued requests are waiting (err is the error sent), a notification
	// dropped because the lane is full (ErrNotificationDropped), a response
	// no call is waiting for (ErrUnknownResponse), and a batch refused by
	// Batches (m is the whole batch). Rejected messages are counted in Stats
	// whether or not OnReject is set.
	//
	// It runs on the goroutine dispatching m (the reader, or the caller of
	// Push), so it must not block, nor call Close (which waits for
	// the reader), and must not modify m.
	OnReject func(m *Message, err *Error)

	// Batches, if set, is asked whenever a batch arrives. If it returns an
	// error, the batch is not dispatched: it is answered with that single
	// error response (id null) and reported to OnReject. A protocol that
	// allows batches only in some revisions (MCP: only in 2025-03-26) uses
	// it to refuse them in the others. On a BatchGate stream, the stream
	// asks it, before decoding the batch's elements, and OnReject sees the
	// refused batch as an invalid message carrying the error.
	Batches func() *Error

	// OnDone, if set, is called once when the connection has ended, after
	// Done is closed and every handler has returned, on the goroutine that
	// ended it. It must not block. A server uses it to forget the
	// connection without keeping a goroutine per connection to wait for it.
	OnDone func()
}

// CodeServerOverloaded answers a request refused because MaxQueued requests
// are already waiting.
const CodeServerOverloaded = -32000

// The errors OnReject receives for messages that are dropped without a reply,
// so never sent. Compare them with ==; do not modify them.
var (
	// ErrNotificationDropped reports a notification dropped because
	// MaxQueuedNotifications notifications were already waiting for the
	// handler.
	ErrNotificationDropped = NewError(CodeServerOverloaded, "notification dropped: lane full")

	// ErrUnknownResponse reports a response no call is waiting for: its
	// call gave up already (a late response), its id was never used, or it
	// has a null id (the peer could not read something this side sent).
	ErrUnknownResponse = NewError(CodeInvalidRequest, "response dropped: no call is waiting for its id")
)

// ConnStats is a snapshot of a Conn's counters, for metrics, and for tests
// that want them without an OnReject hook.
type ConnStats struct {
	// DroppedNotifications counts the notifications dropped because
	// MaxQueuedNotifications were already waiting.
	DroppedNotifications uint64

	// Rejected counts every incoming message refused or dropped without
	// calling the Handler: one for each OnReject call (so dropped
	// notifications are counted here too).
	Rejected uint64

	// QueuedNotifications is how many notifications wait on the lane now
	// (not counting the one being handled): at most MaxQueuedNotifications.
	QueuedNotifications int
}

// connOptions is what a Conn keeps of its ConnOptions after NewConn: the
// fields it reads while running (an idle connection is memory a server
// holds per client, so it keeps no more).
type connOptions struct {
	MaxConcurrency         int
	MaxQueued              int
	MaxQueuedNotifications int
	CallTimeout            time.Duration
	OnCancel               func(id ID, cause error)
	Barrier                func(method string) bool
	OnDone                 func()
	OnReject               func(m *Message, err *Error)
	Batches                func() *Error
}

// Conn runs one JSON-RPC 2.0 peer over a Stream: it reads and dispatches
// incoming messages, correlates responses to outgoing calls, and writes
// replies. It is symmetric: both sides of a connection may call and serve.
//
// A Conn owns at most one reader goroutine, one notification goroutine while
// notifications are pending, and MaxConcurrency request workers while
// requests are pending; idle connections hold only the reader, and a Conn on
// a PushStream has no reader: an idle one holds no goroutine at all.
type Conn struct {
	stream  Stream
	handler Handler
	opts    connOptions
	log     *slog.Logger

	ctx      context.Context // ended when the connection closes
	detached context.Context // ctx without its cancellation, for writing replies
	cancel   context.CancelFunc

	nextID atomic.Int64

	mu        sync.Mutex
	pending   map[int64]chan answer          // outgoing calls awaiting a response
	inflight  map[ID]context.CancelCauseFunc // incoming requests queued or running
	queue     []work                         // requests waiting for a worker
	active    int                            // running request workers
	lane      []*Message                     // notifications, in arrival order
	laneDrops uint64                         // notifications dropped since the lane last drained
	laneBusy  bool                           // the lane goroutine is running
	laneRead  uint64                         // notifications ever queued on the lane
	laneWake  chan struct{}                  // closed when laneDone reaches laneAt; nil: no one waits
	laneAt    uint64                         // the least laneDone a Call waits for (see awaitLane)
	closing   bool                           // Close was called or the connection has ended
	readEnded bool                           // the stream delivers no more messages
	at        host                           // how the reader or pushers run requests; set once by NewConn
	err       error

	laneDone atomic.Uint64 // notifications the lane has handled; written under mu

	pushes sync.WaitGroup // Push calls in progress (PushStream only)

	dropped  atomic.Uint64 // ConnStats.DroppedNotifications
	rejected atomic.Uint64 // ConnStats.Rejected

	readDone signal // reading has stopped; guarded by mu
	done     signal // the connection has ended; guarded by mu
	workers  sync.WaitGroup

	// The reader runs a request itself while a worker slot is free (see
	// runInline); takeover, armed meanwhile, starts reading on another
	// goroutine if the handler takes longer than its budget.
	inline   atomic.Int32 // inlineIdle, inlineRunning or inlineHandedOff
	takeover *time.Timer
}

// The states of Conn.inline.
const (
	inlineIdle = iota
	inlineRunning
	inlineHandedOff
)

type work struct {
	m    *Message
	ctx  context.Context // the handler's
	wctx context.Context // for writing the response
	b    *batch
	i    int
	held bool // run by the reader: its response may be held (HoldingStream)
}

// batch collects the replies to one incoming batch.
type batch struct {
	mu        sync.Mutex
	replies   []*Message
	remaining int
}

// errPeerCancelled is the cancellation cause for requests the peer cancelled;
// such requests get no response.
var errPeerCancelled = errors.New("jsonrpc: request cancelled by peer")

// maxFirstID bounds ConnOptions.FirstID so that ids stay below 2^53 for
// the next 2^52 requests.
const maxFirstID = 1 << 52

// NewConn starts a Conn on s. The Conn reads until the stream ends or Close is
// called; if s is a PushStream, NewConn attaches to it instead and starts no
// goroutine.
func NewConn(s Stream, opts ConnOptions) *Conn {
	if opts.MaxConcurrency <= 0 {
		opts.MaxConcurrency = 64
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = 1024
	}
	if opts.MaxQueuedNotifications <= 0 {
		opts.MaxQueuedNotifications = 1024
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := opts.Handler
	if h == nil {
		h = HandlerFunc(func(_ context.Context, m *Message) (any, error) {
			return nil, Errorf(CodeMethodNotFound, "method not found: %s", m.Method)
		})
	}
	if g, ok := s.(BatchGate); ok && opts.Batches != nil {
		g.GateBatches(opts.Batches)
		opts.Batches = nil // decided where batches are decoded
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		stream:  s,
		handler: h,
		opts: connOptions{
			MaxConcurrency:         opts.MaxConcurrency,
			MaxQueued:              opts.MaxQueued,
			MaxQueuedNotifications: opts.MaxQueuedNotifications,
			CallTimeout:            opts.CallTimeout,
			OnCancel:               opts.OnCancel,
			Barrier:                opts.Barrier,
			OnDone:                 opts.OnDone,
			OnReject:               opts.OnReject,
			Batches:                opts.Batches,
		},
		log:      log,
		ctx:      ctx,
		detached: context.WithoutCancel(ctx),
		cancel:   cancel,
	}
	if opts.FirstID > 1 {
		c.nextID.Store(min(opts.FirstID, maxFirstID) - 1)
	}
	c.at = hostFor(s, opts.Inline)
	if opts.Bind != nil {
		opts.Bind(c)
	}
	if ps, ok := s.(PushStream); ok {
		ps.Attach(c)
		return c
	}
	go c.readLoop()
	return c
}

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
	at := c.at
	if inline == InlineNever {
		at = onWorker
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

// EndPush tells a Conn on a PushStream that the peer will send nothing more,
// because it went away (err nil or io.EOF) or the transport failed (err). It
// returns at once; as with a stream read to its end, requests already
// received still run and are answered, then the connection ends and closes
// the stream. Later calls do nothing.
func (c *Conn) EndPush(err error) {
	if c.endRead(err) {
		go c.finish(c.pushes.Wait)
	}
}

// endRead records that no more messages will arrive, and why; it reports
// false if that was already recorded.
func (c *Conn) endRead(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readEnded {
		return false
	}
	c.readEnded = true
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) && c.err == nil && !c.closing {
		c.err = err
	}
	return true
}

// finish ends the connection once reading has stopped: after drained has
// returned (messages still being dispatched), it lets the handlers of the
// requests received finish, then closes the stream.
func (c *Conn) finish(drained func()) {
	drained()
	c.mu.Lock()
	c.readDone.fire()
	c.mu.Unlock()
	c.workers.Wait()
	c.shutdown(nil)
	_ = c.stream.Close()
	c.mu.Lock()
	c.done.fire()
	c.mu.Unlock()
	if c.opts.OnDone != nil {
		c.opts.OnDone()
	}
}

// ReadDone returns a channel that is closed when the peer can send nothing
// more (end of stream, or Close). Requests already received still run; a
// handler that waits for the peer, such as a subscription stream, should
// stop waiting then.
func (c *Conn) ReadDone() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readDone.wait()
}

// Done returns a channel that is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done.wait()
}

// Err returns why the connection ended (nil for a clean close or EOF), or nil
// while it is still open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: it cancels every running handler's context,
// fails pending calls with ErrClosed and closes the stream. Notifications
// already read are still handled, in order, with a context that is done. It
// returns once the reader has stopped, without waiting for handlers (so a
// handler may call it); use Wait for that.
func (c *Conn) Close() error {
	c.shutdown(nil)
	err := c.stream.Close()
	<-c.ReadDone()
	return err
}

// Wait blocks until the connection has ended and every handler has returned,
// and reports why it ended (nil for EOF or Close).
func (c *Conn) Wait() error {
	<-c.Done()
	c.workers.Wait()
	return c.Err()
}

func (c *Conn) shutdown(err error) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	if err != nil && c.err == nil {
		c.err = err
	}
	c.queue = nil
	c.mu.Unlock()
	c.cancel() // every request's context derives from c.ctx
}

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
// before another goroutine takes over reading. A cheap handler (most are
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

// readLoop reads until the stream ends. When the peer ends the stream (EOF
// or an error), requests already received still run to completion and their
// responses are written before the stream is closed, so a client that writes
// requests and closes its end still gets every answer. Outgoing calls fail
// at once: no response can arrive any more.
func (c *Conn) readLoop() {
	var err error
	for {
		var m *Message
		if m, err = c.stream.Read(c.ctx); err != nil {
			break
		}
		if !c.receive(m, c.at) {
			return // another goroutine reads now
		}
	}
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

// runInline runs w on the reader's goroutine, with a timer armed that
// hands reading over to a new goroutine after inlineBudget
// (pipelinedBudget when more input waits behind the request): a slow
// handler, or one that calls the peer, holds up reading (cancellations
// included) no longer than the budget. While more input waits, the
// response is held (HoldingStream), to go out in one write with the
// response of the last request of the run.
//
// It reports whether the caller is still the reader: false when the
// handler outlasted its budget and another goroutine took over reading,
// in which case this one went on as a worker until the queue was empty.
func (c *Conn) runInline(w work, pipelined bool) bool {
	budget := inlineBudget
	if pipelined {
		budget = pipelinedBudget
	}
	// The last answer of a run goes out at once, with the ones held
	// before it.
	w.held = pipelined
	c.inline.Store(inlineRunning)
	if c.takeover == nil {
		// Armed below, once c.takeover is set: the goroutine the timer
		// starts reads it.
		c.takeover = time.AfterFunc(math.MaxInt64, c.takeOver)
	}
	c.takeover.Reset(budget)
	c.serve(w)
	if !c.inline.CompareAndSwap(inlineRunning, inlineIdle) {
		// The new reader may be waiting for input already: send the
		// response held just now.
		c.flushHeld()
		c.workerAfter()
		return false
	}
	c.takeover.Stop()
	c.releaseSlot()
	return true
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

// takeOver runs when an inline handler outlasts its budget: this goroutine
// (the timer's) becomes the reader. A late timer finds the state changed
// and does nothing.
func (c *Conn) takeOver() {
	if c.inline.CompareAndSwap(inlineRunning, inlineHandedOff) {
		c.flushHeld() // answers held while the slow handler ran
		c.readLoop()
	}
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

// dispatch routes one incoming message. It never blocks on handlers.
func (c *Conn) dispatch(m *Message) {
	switch {
	case m.Invalid != nil:
		if r := c.refuseInvalid(m); r != nil {
			c.reply(c.detached, r)
		}
	case m.Batch != nil:
		if c.opts.Batches != nil {
			if e := c.opts.Batches(); e != nil {
				c.reject(m, e)
				c.reply(c.detached, NewErrorResponse(ID{}, e))
				return
			}
		}
		c.dispatchBatch(m.Batch)
	case m.Method == "":
		c.deliver(m)
	case m.ID.IsZero() && c.opts.Barrier != nil && c.opts.Barrier(m.Method):
		ctx, _ := c.requestContexts(c.ctx, m)
		_, _ = c.call(ctx, m)
	case m.ID.IsZero():
		c.enqueueLane(m)
	case c.opts.Barrier != nil && c.opts.Barrier(m.Method):
		ctx, wctx := c.requestContexts(c.ctx, m)
		result, err := c.call(ctx, m)
		c.reply(wctx, c.response(m.ID, result, err))
	default:
		if r := c.enqueueRequest(m, nil, 0); r != nil {
			c.reply(c.detached, r)
		}
	}
}

// refuseInvalid reports the invalid message m and returns the reply it gets:
// none for a malformed response, whose id is one of this side's own.
func (c *Conn) refuseInvalid(m *Message) *Message {
	c.reject(m, m.Invalid)
	if m.IsInvalidResponse() {
		c.log.Warn("jsonrpc: dropped a malformed response", "id", m.ID, "err", m.Invalid.Message)
		return nil
	}
	return NewErrorResponse(m.ID, m.Invalid)
}

// reject counts m, refused or dropped without calling the handler, and
// reports it to OnReject.
func (c *Conn) reject(m *Message, err *Error) {
	c.rejected.Add(1)
	if c.opts.OnReject != nil {
		c.opts.OnReject(m, err)
	}
}

// Stats returns the Conn's counters. It is safe to call at any time, from
// any goroutine.
func (c *Conn) Stats() ConnStats {
	c.mu.Lock()
	queued := len(c.lane)
	c.mu.Unlock()
	return ConnStats{
		DroppedNotifications: c.dropped.Load(),
		Rejected:             c.rejected.Load(),
		QueuedNotifications:  queued,
	}
}

func (c *Conn) dispatchBatch(elems []*Message) {
	b := &batch{replies: make([]*Message, len(elems))}
	var same *Message // the reply to the last invalid element without an id
	b.mu.Lock()       // hold until every element is dispatched, so no worker finishes the batch early
	for i, m := range elems {
		switch {
		case m.Invalid != nil && same != nil && m.ID.IsZero() && same.Error == m.Invalid:
			// Invalid for the same reason (Decode shares the error):
			// the same reply, not one more of its own.
			c.reject(m, m.Invalid)
			b.replies[i] = same
		case m.Invalid != nil:
			if b.replies[i] = c.refuseInvalid(m); m.ID.IsZero() {
				same = b.replies[i]
			}
		case m.Method == "":
			c.deliver(m)
		case m.ID.IsZero():
			c.enqueueLane(m)
		default:
			b.remaining++
			if r := c.enqueueRequest(m, b, i); r != nil {
				b.replies[i] = r
				b.remaining--
			}
		}
	}
	finished := b.remaining == 0
	b.mu.Unlock()
	if finished {
		c.finishBatch(b)
	}
}

func (c *Conn) finishBatch(b *batch) {
	out := b.replies[:0]
	for _, r := range b.replies {
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) > 0 {
		c.reply(c.detached, &Message{Batch: out})
	}
}

// enqueueRequest registers m as in flight and hands it to a worker. It returns
// an immediate error reply when m cannot be accepted, having reported m to
// OnReject.
//
// A request whose id is in flight already is refused with an error whose id
// is null, not the request's: JSON-RPC ids must be unique among a peer's
// requests in flight, and an error carrying the id would reach the caller
// waiting for the live request with that id as if it were its answer (and
// the real answer would then be dropped). The live request is not
// disturbed.
func (c *Conn) enqueueRequest(m *Message, b *batch, i int) *Message {
	if e := c.admitRequest(m, b, i); e != nil {
		c.reject(m, e)
		id := m.ID
		if e.Code == CodeInvalidRequest {
			id = ID{} // the id is in use: see above
		}
		return NewErrorResponse(id, e)
	}
	return nil
}

// errIDInUse refuses a request whose id is in flight already.
func errIDInUse(id ID) *Error {
	return Errorf(CodeInvalidRequest, "invalid request: id %s is already in use by a request in flight (this error has id null so that it is not taken for that request's answer)", id)
}

// admitRequest does the work of enqueueRequest under c.mu, returning the
// error that refuses m, if any.
func (c *Conn) admitRequest(m *Message, b *batch, i int) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil
	}
	if _, dup := c.inflight[m.ID]; dup {
		return errIDInUse(m.ID)
	}
	if c.active >= c.opts.MaxConcurrency && len(c.queue) >= c.opts.MaxQueued {
		return NewError(CodeServerOverloaded, "server overloaded: too many concurrent requests")
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	if c.inflight == nil {
		c.inflight = make(map[ID]context.CancelCauseFunc)
	}
	c.inflight[m.ID] = cancel
	hctx, wctx := c.requestContexts(ctx, m)
	w := work{m: m, ctx: hctx, wctx: wctx, b: b, i: i}
	if c.active < c.opts.MaxConcurrency {
		c.active++
		c.workers.Add(1)
		go c.worker(w)
	} else {
		c.queue = append(c.queue, w)
	}
	return nil
}

// worker runs w, then keeps taking queued requests until none are left.
func (c *Conn) worker(w work) {
	defer c.workers.Done()
	for {
		c.serve(w)
		c.mu.Lock()
		if len(c.queue) == 0 || c.closing {
			c.active--
			c.mu.Unlock()
			return
		}
		w = c.queue[0]
		c.queue[0] = work{}
		c.queue = c.queue[1:]
		c.mu.Unlock()
	}
}

func (c *Conn) serve(w work) {
	m := w.m
	var reply *Message
	if context.Cause(w.ctx) != errPeerCancelled {
		result, err := c.call(w.ctx, m)
		reply = c.response(m.ID, result, err)
	}
	c.mu.Lock()
	cancel := c.inflight[m.ID]
	delete(c.inflight, m.ID)
	c.mu.Unlock()
	peerCancelled := context.Cause(w.ctx) == errPeerCancelled
	if cancel != nil {
		cancel(nil)
	}
	if peerCancelled {
		reply = nil // MCP: a cancelled request gets no response
	}
	if w.b == nil {
		if reply != nil {
			if w.held {
				c.replyHeld(w.wctx, reply)
			} else {
				c.reply(w.wctx, reply)
			}
		}
		return
	}
	w.b.mu.Lock()
	w.b.replies[w.i] = reply
	w.b.remaining--
	finished := w.b.remaining == 0
	w.b.mu.Unlock()
	if finished {
		c.finishBatch(w.b)
	}
}

// call runs the handler, turning a panic into an error.
func (c *Conn) call(ctx context.Context, m *Message) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jsonrpc: handler panicked", "method", m.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, NewError(CodeInternalError, "internal error")
		}
	}()
	return c.handler.Handle(ctx, m)
}

// response builds the reply for a finished request (see NewReply),
// logging what the peer will only see as an internal error.
func (c *Conn) response(id ID, result any, err error) *Message {
	return newReply(id, result, err, c.log)
}

// Marshal encodes params or a result as a Conn sends them: raw JSON as it
// is, an Appender through AppendJSON, anything else with encoding/json.
func Marshal(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case Appender:
		return v.AppendJSON(nil)
	}
	return json.Marshal(v)
}

// An Appender encodes itself by appending compact, valid JSON to b. Conn
// uses it instead of encoding/json for results and params that implement
// it: no reflection, and no second pass to validate and compact the output
// of a MarshalJSON method.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// requestContexts returns, in one allocation, the context for the handler of
// the request m (a child of parent) and the one for writing its response
// (which the end of the handler or of the connection does not cancel). Both
// carry m's id and transport info.
func (c *Conn) requestContexts(parent context.Context, m *Message) (handler, write context.Context) {
	p := &[2]requestCtx{
		{Context: parent, id: m.ID, info: m.Info},
		{Context: c.detached, id: m.ID, info: m.Info},
	}
	return &p[0], &p[1]
}

// reply writes m. ctx must not be one that ends with the connection
// (c.detached, or a write context from requestContexts), so that replies
// already due are still written while it shuts down.
func (c *Conn) reply(ctx context.Context, m *Message) {
	if err := c.stream.Write(ctx, m); err != nil && !errors.Is(err, ErrClosed) {
		c.log.Debug("jsonrpc: write failed", "err", err)
	}
}

// replyHeld writes m, the response of a request the reader ran itself,
// with WriteHeld when the stream has it.
func (c *Conn) replyHeld(ctx context.Context, m *Message) {
	hs, ok := c.stream.(HoldingStream)
	if !ok {
		c.reply(ctx, m)
		return
	}
	if err := hs.WriteHeld(ctx, m); err != nil && !errors.Is(err, ErrClosed) {
		c.log.Debug("jsonrpc: write failed", "err", err)
	}
}

// flushHeld sends the responses the stream holds, if it holds any.
func (c *Conn) flushHeld() {
	if hs, ok := c.stream.(HoldingStream); ok {
		if err := hs.FlushHeld(); err != nil && !errors.Is(err, ErrClosed) {
			c.log.Debug("jsonrpc: write failed", "err", err)
		}
	}
}

// CancelIncoming cancels the context of the incoming request id, queued or
// running, and suppresses its response. It reports whether such a request was
// in flight. MCP calls it on notifications/cancelled.
//
// A queued request leaves the queue at once, so that a storm of requests
// cancelled before they ran does not hold MaxQueued places and get later
// requests refused as overloaded. (A request of a batch waits for its turn:
// the batch's reply is assembled when its last request is done.)
func (c *Conn) CancelIncoming(id ID) bool {
	c.mu.Lock()
	cancel := c.inflight[id]
	if cancel != nil {
		for i, w := range c.queue {
			if w.m.ID == id && w.b == nil {
				copy(c.queue[i:], c.queue[i+1:])
				c.queue[len(c.queue)-1] = work{}
				c.queue = c.queue[:len(c.queue)-1]
				delete(c.inflight, id)
				break
			}
		}
	}
	c.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel(errPeerCancelled)
	return true
}

// peerCancelled reports whether ctx is (or derives from) the context of an
// incoming request the peer cancelled: nothing more is sent for it.
func peerCancelled(ctx context.Context) bool {
	return context.Cause(ctx) == errPeerCancelled
}

var chanPool = sync.Pool{New: func() any { return make(chan answer, 1) }}

// Call sends a request and waits for its response, decoding the result into
// result (which may be nil to discard it; a *json.RawMessage receives it
// as is). params may be nil, a json.RawMessage, or any value that encodes to a
// JSON object or array. An error response is returned as *Error.
//
// When ctx ends first, Call returns ctx's error and OnCancel is invoked; a
// response that arrives later is dropped. The response is returned only once
// every notification the peer sent before it has been handled (see
// Handler); if ctx ends meanwhile, Call returns ctx's error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("jsonrpc: decoding %s result: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the raw result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	_, res, err := c.CallRawID(ctx, method, params)
	return res, err
}

// CallRawID is CallRaw that also returns the id the request was written
// with (zero when it was not written), for middleware that records it on
// a trace span.
func (c *Conn) CallRawID(ctx context.Context, method string, params any) (ID, json.RawMessage, error) {
	p, err := Marshal(params)
	if err != nil {
		return ID{}, nil, fmt.Errorf("jsonrpc: encoding %s params: %w", method, err)
	}
	if c.opts.CallTimeout > 0 {
		// WithTimeout keeps ctx's own deadline when that is earlier.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.CallTimeout)
		defer cancel()
	}
	if peerCancelled(ctx) {
		return ID{}, nil, context.Canceled // see Notify
	}
	n := c.nextID.Add(1)
	ch := chanPool.Get().(chan answer)
	c.mu.Lock()
	if c.closing || c.readEnded {
		c.mu.Unlock()
		chanPool.Put(ch)
		return ID{}, nil, ErrClosed
	}
	if c.pending == nil {
		c.pending = make(map[int64]chan answer)
	}
	c.pending[n] = ch
	readDone := c.readDone.wait()
	c.mu.Unlock()

	if err := c.stream.Write(ctx, &Message{ID: Int64ID(n), Method: method, Params: p}); err != nil {
		c.forget(n, ch)
		return ID{}, nil, err
	}
	var resp answer
	select {
	case resp = <-ch:
	case <-ctx.Done():
		if c.forget(n, ch) {
			if c.opts.OnCancel != nil {
				c.opts.OnCancel(Int64ID(n), context.Cause(ctx))
			}
			return Int64ID(n), nil, ctx.Err()
		}
		resp = <-ch // the response won the race; deliver is handing it over
	case <-readDone:
		if c.forget(n, ch) {
			return Int64ID(n), nil, ErrClosed
		}
		resp = <-ch // it arrived just before the stream ended
	}
	chanPool.Put(ch)
	if resp.after > c.laneDone.Load() {
		// Notifications read before the response are still being handled.
		if err := c.awaitLane(ctx, resp.after); err != nil {
			return Int64ID(n), nil, err
		}
	}
	if resp.m.Error != nil {
		return Int64ID(n), nil, resp.m.Error
	}
	return Int64ID(n), resp.m.Result, nil
}

// forget removes a pending call. It reports whether the call was still
// pending (and returns ch to the pool if so). If not, deliver took the call
// and is sending its response on ch, which the caller must receive.
func (c *Conn) forget(n int64, ch chan answer) bool {
	c.mu.Lock()
	_, ok := c.pending[n]
	delete(c.pending, n)
	c.mu.Unlock()
	if ok {
		chanPool.Put(ch)
	}
	return ok
}

// Notify sends a notification. ctx is passed to the stream (so a transport
// can relate it to the request being handled). With the context of a
// request the peer cancelled, Notify sends nothing and returns
// context.Canceled: the peer has given up on the request, and progress or
// logs about it would only cost it work.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	p, err := Marshal(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encoding %s params: %w", method, err)
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return ErrClosed
	}
	if peerCancelled(ctx) {
		return context.Canceled
	}
	return c.stream.Write(ctx, &Message{Method: method, Params: p})
}

// signal is a channel closed once, made only when somebody waits for it, so
// that a connection nobody watches keeps none. Guarded by Conn.mu.
type signal struct {
	ch    chan struct{}
	fired bool
}

// closedChan is what wait returns for a signal fired before anyone waited.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (s *signal) wait() <-chan struct{} {
	if s.ch == nil {
		if s.fired {
			return closedChan
		}
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) fire() {
	s.fired = true
	if s.ch != nil {
		close(s.ch)
	}
}
