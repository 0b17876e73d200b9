package jsonrpc

import "context"

// The notification lane, and the order of responses after it.
//
// Notifications are handled on the lane, one goroutine started when the
// first one arrives, which exits when none is left: never on the reader, so
// that a slow notification handler never stops the reading of requests,
// cancellations and responses. The lane numbers the notifications it queues
// (laneRead) and counts those it has handled (laneDone). A response is
// handed to its Call with the value laneRead had when the response was
// read, and the Call returns only once laneDone has reached it: whatever the
// peer sent before its answer has been handled by then. The common case, no
// notification pending, costs the Call one atomic load; otherwise it waits
// on laneWake, which the lane closes when laneDone reaches the least value
// a Call waits for. The price of the order is that a slow notification
// handler delays the responses read after it (never the reading of them).

// answer is a response handed to its Call, with the number of
// notifications queued on the lane before it was read.
type answer struct {
	m     *Message
	after uint64
}

// laneKey marks the context of a notification handler: a Call made with it
// (or a context derived from it) does not wait for the lane, which is busy
// with that handler.
type laneKey struct{}

// enqueueLane appends a notification to the ordered lane, or drops it when
// MaxQueuedNotifications are waiting already. It never blocks.
func (c *Conn) enqueueLane(m *Message) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	if len(c.lane) >= c.opts.MaxQueuedNotifications {
		c.laneDrops++
		first := c.laneDrops == 1
		c.mu.Unlock()
		c.dropped.Add(1)
		if first {
			c.log.Warn("jsonrpc: notification lane full, dropping notifications until it drains",
				"method", m.Method, "limit", c.opts.MaxQueuedNotifications)
		}
		c.reject(m, ErrNotificationDropped)
		return
	}
	c.lane = append(c.lane, m)
	c.laneRead++
	start := !c.laneBusy
	if start {
		c.laneBusy = true
		c.workers.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.runLane()
	}
}

// runLane handles the lane's notifications in order until none is left.
// Closing the connection does not stop it: the notifications already read
// (at most MaxQueuedNotifications) are handled first, with a context that is
// done, so that a peer's last words before it went away are not lost.
func (c *Conn) runLane() {
	defer c.workers.Done()
	ctx := context.WithValue(c.ctx, laneKey{}, c)
	c.mu.Lock()
	for len(c.lane) > 0 {
		m := c.lane[0]
		c.lane[0] = nil
		c.lane = c.lane[1:]
		c.mu.Unlock()
		if _, err := c.call(withInfo(ctx, m.Info), m); err != nil {
			c.log.Debug("jsonrpc: notification handler failed", "method", m.Method, "err", err)
		}
		c.mu.Lock()
		if done := c.laneDone.Add(1); c.laneWake != nil && done >= c.laneAt {
			close(c.laneWake)
			c.laneWake = nil
		}
	}
	c.laneBusy = false
	c.lane = nil
	drops := c.laneDrops // the burst, if any, is over
	c.laneDrops = 0
	c.mu.Unlock()
	if drops > 0 {
		c.log.Warn("jsonrpc: notification lane drained", "dropped", drops)
	}
}

// awaitLane returns once the lane has handled the first n notifications it
// queued, or with ctx's error when ctx ends first. A Call from a
// notification handler does not wait (see Handler).
func (c *Conn) awaitLane(ctx context.Context, n uint64) error {
	if ctx.Value(laneKey{}) == c {
		return nil
	}
	for {
		c.mu.Lock()
		if c.laneDone.Load() >= n {
			c.mu.Unlock()
			return nil
		}
		if c.laneWake == nil || n < c.laneAt {
			// Wake the others too: each waits again for its own n.
			if c.laneWake != nil {
				close(c.laneWake)
			}
			c.laneWake = make(chan struct{})
			c.laneAt = n
		}
		wake := c.laneWake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// deliver hands a response to the call waiting for it, with the number of
// notifications read before it. It never waits: the Call does (awaitLane).
func (c *Conn) deliver(m *Message) {
	id, ok := m.ID.Int64()
	var ch chan answer
	var after uint64
	if ok {
		c.mu.Lock()
		ch = c.pending[id]
		delete(c.pending, id)
		after = c.laneRead
		c.mu.Unlock()
	}
	if ch == nil {
		// Late (cancelled), unknown, or id-less error responses are dropped.
		if m.Error != nil {
			c.log.Debug("jsonrpc: error response for no pending call", "id", m.ID, "code", m.Error.Code, "message", m.Error.Message)
		}
		c.reject(m, ErrUnknownResponse)
		return
	}
	ch <- answer{m: m, after: after}
}
