package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

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

var chanPool = sync.Pool{New: func() any { return make(chan answer, 1) }}

// Call sends a request and waits for its response, decoding the result into
// result (which may be nil to discard it; a *json.RawMessage receives it
// as is). params may be nil, a json.RawMessage, or any value that encodes to a
// JSON object or array. An error response is returned as *Error.
//
// When ctx ends first, Call returns ctx's error (marked with
// ErrOutcomeUnknown) at once and OnCancel is invoked on a goroutine of its
// own; a response that arrives later is dropped. The response is returned only once
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
//
// Every error but the peer's error response is marked with ErrNotSent or
// ErrOutcomeUnknown (see there). A call whose context is Idempotent is
// sent again, under a new id, after it failed with ErrOutcomeUnknown.
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
	var id ID
	for attempt := 0; ; attempt++ {
		// A request sent again gets a new id: the peer may still be
		// running the first.
		n := c.nextID.Add(1)
		m := &Message{ID: Int64ID(n), Method: method, Params: p}
		written, res, err := c.roundTrip(ctx, n, m)
		if written {
			id = m.ID
		}
		if err == nil || !resendable(ctx, err, attempt) {
			return id, res, err
		}
		c.log.Debug("jsonrpc: sending an idempotent request again", "method", method, "err", err)
		if !pause(ctx, Backoff(attempt, 100*time.Millisecond, time.Second)) {
			return id, nil, err
		}
	}
}

// roundTrip writes request m (numbered n) and waits for its response. It
// reports whether m was written.
func (c *Conn) roundTrip(ctx context.Context, n int64, m *Message) (bool, json.RawMessage, error) {
	ch := chanPool.Get().(chan answer)
	c.mu.Lock()
	if c.closing || c.readEnded {
		err := c.closedErr()
		c.mu.Unlock()
		chanPool.Put(ch)
		return false, nil, NotSent(err)
	}
	if c.pending == nil {
		c.pending = make(map[int64]chan answer)
	}
	c.pending[n] = ch
	readDone := c.readDone.wait()
	c.mu.Unlock()

	if err := writeRequest(ctx, c, m); err != nil {
		c.forget(n, ch)
		if errors.Is(err, ErrClosed) {
			return false, nil, NotSent(err)
		}
		return false, nil, OutcomeUnknown(err)
	}
	var resp answer
	select {
	case resp = <-ch:
	case <-ctx.Done():
		if c.forget(n, ch) {
			c.cancelled(m.ID, context.Cause(ctx))
			return true, nil, OutcomeUnknown(ctx.Err())
		}
		resp = <-ch // the response won the race; deliver is handing it over
	case <-readDone:
		if c.forget(n, ch) {
			c.mu.Lock()
			err := c.closedErr()
			c.mu.Unlock()
			return true, nil, OutcomeUnknown(err)
		}
		resp = <-ch // it arrived just before the stream ended
	}
	chanPool.Put(ch)
	if resp.after > c.laneDone.Load() {
		// Notifications read before the response are still being handled.
		if err := c.awaitLane(ctx, resp.after); err != nil {
			return true, nil, OutcomeUnknown(err)
		}
	}
	if e := resp.m.Error; e != nil {
		if e.local != nil {
			return true, nil, e.local
		}
		return true, nil, e
	}
	return true, resp.m.Result, nil
}

// cancelled runs OnCancel for the call id on a goroutine of its own, so
// that the call returns by its deadline whatever telling the peer costs;
// Close and Wait wait for it.
func (c *Conn) cancelled(id ID, cause error) {
	if c.opts.OnCancel == nil {
		return
	}
	c.mu.Lock()
	if c.closing || c.noCancels {
		// Nothing more can be sent; and Close or Wait may be waiting
		// already.
		c.mu.Unlock()
		return
	}
	c.cancels.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.cancels.Done()
		c.opts.OnCancel(id, cause)
	}()
}

// pause waits d, or less if ctx ends; it reports whether it waited fully.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
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
