package jsonrpc

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
)

// Dispatching incoming messages, and running requests on workers.
//
// dispatch routes a message it is given (see receive): an invalid one is
// answered, a batch's elements dispatched one by one, a response handed
// to its call (lane.go), a notification queued on the lane, and a request
// registered as in flight and handed to a worker, or queued when
// MaxConcurrency run already. Workers exit when the queue is empty.

// work is one request to run: its message, its contexts, and where its
// reply goes (alone, or into batch b at index i).
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
