package jsonrpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
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
	// notifications/cancelled; JSON-RPC itself has no cancellation. It runs
	// on a goroutine of its own, after the Call has returned (so a slow
	// peer never holds the call past its deadline); it must bound its own
	// work. Close waits for it before it closes the stream, so that a
	// cancellation made just before Close still goes out.
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
	noCancels bool                           // Close has begun: no more OnCancel calls
	readEnded bool                           // the stream delivers no more messages
	endCause  error                          // what the stream said when it ended, if more than io.EOF
	at        host                           // how the reader or pushers run requests; set once by NewConn
	err       error

	laneDone atomic.Uint64 // notifications the lane has handled; written under mu

	pushes sync.WaitGroup // Push calls in progress (PushStream only)

	dropped  atomic.Uint64 // ConnStats.DroppedNotifications
	rejected atomic.Uint64 // ConnStats.Rejected

	readDone signal // reading has stopped; guarded by mu
	done     signal // the connection has ended; guarded by mu
	workers  sync.WaitGroup
	cancels  sync.WaitGroup // OnCancel calls in progress

	// The reader runs a request itself while a worker slot is free (see
	// runInline); watch, a timer armed while the reader runs requests,
	// starts reading on another goroutine if one takes longer than its
	// budget.
	inline     atomic.Uint64 // the inline run: its number, pipelined bit and state (see inlineState)
	watch      *time.Timer   // runs watchInline; set once, by the reader
	watchArmed atomic.Bool   // watch is pending or running
	watchSeen  atomic.Uint64 // inline as watchInline last saw it
	// watchEachRun stops the watch after every run (see runInline): the
	// process had a single processor when the Conn was made.
	watchEachRun bool
	// spare wakes a goroutine that stands by to read again (standBy);
	// idleSpares (guarded by mu) counts those standing by, at most
	// maxSpares; spares counts them for finish.
	spare      chan struct{}
	idleSpares int
	spares     sync.WaitGroup
	// forwards (guarded by mu) are the other Conns' streams that hold
	// requests the handlers of this Conn's inline runs sent while more
	// input waited (writeRequest): the reader flushes them before it waits
	// for input, or ends. hasForwards says there are some.
	forwards    []forward
	hasForwards atomic.Bool
}

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
		spare:    make(chan struct{}),
	}
	if opts.FirstID > 1 {
		c.nextID.Store(min(opts.FirstID, maxFirstID) - 1)
	}
	c.at = hostFor(s, opts.Inline)
	c.watchEachRun = runtime.GOMAXPROCS(0) == 1
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
	if err != nil && err != io.EOF && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) {
		c.endCause = err // an end that says why (a server's exit)
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) && c.err == nil && !c.closing {
		c.err = err
	}
	return true
}

// closedErr is the error of a call that fails because the stream ended:
// ErrClosed, saying why when the stream did (a subprocess's exit status
// and last stderr lines). c.mu must be held.
func (c *Conn) closedErr() error {
	if c.endCause == nil {
		return ErrClosed
	}
	return &closedError{cause: c.endCause}
}

// closedError is ErrClosed with the reason the stream gave.
type closedError struct{ cause error }

func (e *closedError) Error() string        { return ErrClosed.Error() + ": " + e.cause.Error() }
func (e *closedError) Is(target error) bool { return target == ErrClosed }
func (e *closedError) Unwrap() error        { return e.cause }

// finish ends the connection once reading has stopped: after drained has
// returned (messages still being dispatched), it lets the handlers of the
// requests received finish, then closes the stream.
func (c *Conn) finish(drained func()) {
	drained()
	c.mu.Lock()
	c.readDone.fire()
	c.mu.Unlock()
	c.spares.Wait()
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

// Close ends the connection: it waits for OnCancel calls in progress (see
// ConnOptions.OnCancel), then cancels every running handler's context,
// fails pending calls with ErrClosed and closes the stream. Notifications
// already read are still handled, in order, with a context that is done. It
// returns once the reader has stopped, without waiting for handlers (so a
// handler may call it); use Wait for that.
func (c *Conn) Close() error {
	// The OnCancel calls of calls cancelled just before go out first
	// (they bound their own time).
	c.mu.Lock()
	c.noCancels = true
	c.mu.Unlock()
	c.cancels.Wait()
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
	c.cancels.Wait()
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
