package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
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
		err := c.closedErr()
		c.mu.Unlock()
		chanPool.Put(ch)
		return ID{}, nil, err
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
			c.mu.Lock()
			err := c.closedErr()
			c.mu.Unlock()
			return Int64ID(n), nil, err
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
