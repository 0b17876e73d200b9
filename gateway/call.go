package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/mcp"
)

// call is the context of one forwarded call, and the call itself in its
// upstream's list of calls in flight (calls). It answers the values the
// forwarding path puts in the context (the asker, the upstream's name, the
// capabilities the request declares, the progress callback) itself, and
// its timeout is the upstream's sweep rather than a timer of its own: one
// allocation and one cancellable context per call, where a context per
// value, a timer and a second cancellable context cost a tenth of the
// gateway's CPU under load.
type call struct {
	context.Context // the downstream request's, cancellable (a.cancel)
	a               asker
	u               *upstream
	caps            *mcp.ClientCapabilities
	progress        func(*mcp.ProgressNotificationParams) // nil: no progress asked
	deadline        time.Time

	// Guarded by u.calls.mu.
	shared     bool // in flight on the upstream's shared session (see only)
	expired    bool // the sweep ended it
	prev, next *call
}

// newCall starts a forwarded call of req (whose handler's context is ctx)
// on u: it ends with ctx, with a.cancel, or at u's timeout, and must be
// ended with u.calls.end.
func (u *upstream) newCall(ctx context.Context, req downReq) *call {
	c := &call{u: u, caps: callerCaps(req.ClientCapabilities())}
	c.Context, c.a.cancel = context.WithCancelCause(ctx)
	c.a.ctx, c.a.req = ctx, req
	if _, ok := req.ProgressToken(); ok {
		c.progress = func(p *mcp.ProgressNotificationParams) {
			_ = req.NotifyProgress(ctx, p.Progress, p.Total, p.Message)
		}
	}
	u.calls.begin(c, u)
	return c
}

// Deadline implements context.Context: the upstream's timeout, or the
// downstream request's own deadline when that is earlier.
func (c *call) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Err implements context.Context: context.DeadlineExceeded once the sweep
// ended the call, as a context.WithTimeout would say.
func (c *call) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// Value implements context.Context.
func (c *call) Value(key any) any {
	switch key {
	case askerKey{}:
		return &c.a
	case upstreamKey{}:
		return c.u.name
	case bridge.CapsKey: // hooks.WithClientCapabilities
		return c.caps
	case bridge.ProgressKey: // mcp.WithProgress
		if c.progress != nil {
			return c.progress
		}
	}
	return c.Context.Value(key)
}

// calls are an upstream's forwarded calls in flight, oldest first, and the
// one timer that ends those that outlive the upstream's timeout. As every
// call of an upstream has the same timeout, the oldest call is the next to
// time out: the timer is armed for it, only while calls are in flight.
type calls struct {
	mu         sync.Mutex
	head, tail *call
	shared     int  // how many are on the shared session
	armed      bool // timer is set for the oldest call that has not expired
	timer      *time.Timer
}

// begin adds c, giving it its deadline, u's timeout from now.
func (l *calls) begin(c *call, u *upstream) {
	l.mu.Lock()
	defer l.mu.Unlock()
	timeout := u.timeout
	c.deadline = time.Now().Add(timeout)
	c.prev = l.tail
	if l.tail != nil {
		l.tail.next = c
	} else {
		l.head = c
	}
	l.tail = c
	if !l.armed {
		l.armed = true
		if l.timer == nil {
			l.timer = time.AfterFunc(timeout, u.sweep)
		} else {
			l.timer.Reset(timeout)
		}
	}
}

// share marks c as in flight on the upstream's shared session.
func (l *calls) share(c *call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.shared = true
	l.shared++
}

// end removes c and releases its context.
func (l *calls) end(c *call) {
	l.mu.Lock()
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		l.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		l.tail = c.prev
	}
	c.prev, c.next = nil, nil
	if c.shared {
		l.shared--
	}
	l.mu.Unlock()
	c.a.cancel(nil)
}

// only returns the one call in flight on the shared session, or nil when
// there are none or several.
func (l *calls) only() *asker {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shared != 1 {
		return nil
	}
	for c := l.head; c != nil; c = c.next {
		if c.shared {
			return &c.a
		}
	}
	return nil
}

// sweep ends the calls of u whose deadline has passed, and arms the timer
// for the next one's.
func (u *upstream) sweep() {
	l := &u.calls
	var due []*call
	l.mu.Lock()
	l.armed = false
	now := time.Now()
	for c := l.head; c != nil; c = c.next {
		if c.expired {
			continue
		}
		if c.deadline.After(now) {
			l.armed = true
			l.timer.Reset(c.deadline.Sub(now))
			break
		}
		c.expired = true
		due = append(due, c)
	}
	l.mu.Unlock()
	for _, c := range due {
		c.a.cancel(context.DeadlineExceeded)
	}
}

// stop stops the timer (the upstream is closed).
func (l *calls) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
	}
	l.armed = false
}
