package mcphttp

import "context"

// takeover is what a Handler keeps while it takes a session's standalone
// stream over from another (a client resuming it here with Last-Event-ID)
// until that Handler lets it go (noticeStreamReleased). With a Notifier that
// delivers later (Redis), the two overlap: the new holder stores the
// session's events from just before its noticeStreamTaken (claim), the old
// one until it hears it. So that the client gets every event once:
//
//   - an update published in that instant is stored once, by whichever
//     appends it first, when the EventStore is a OnceAppender (the other
//     sends nothing); else both store it, and whichever copy the client
//     gets first, the other is not sent (they are matched by content,
//     which for the notices that reach every copy, resource updates, is
//     the notice);
//   - what the old holder stored after the new one's replay read the store
//     (its appends racing the replay) is sent once it has let go
//     (catchUp), every one of its appends being done by then.
//
// An update published while the stream moves is stored by one of them as
// long as the Notifier keeps its order (see shared.Notifier): one the new
// holder delivered before its claim, so did not store, reaches the old
// holder before noticeStreamTaken does, while it still stores; one the
// old holder published reaches its own copy of the session before the new
// holder hears it.
//
// Events of the old holder from before the takeover are never matched: only
// those after mark, the newest event in the store when the stream was
// claimed, can be copies. Nor are this Handler's events that a OnceAppender
// stored (unique): the store keeps one event per notice, so no copy of
// them exists, and matching them by content would take a later update of
// the same resource, whose bytes are the same, for a copy and drop it.
type takeover struct {
	mark     string          // the store's newest event of the stream at the claim
	stored   map[string]bool // events this Handler stored since, by store id: whether unique
	replayed bool            // the takeover's replay ran
	from     string          // the store id it ended at
	mine     map[string]int  // own events the client got, by data, not matched yet
	theirs   map[string]int  // the old holder's events since mark the client got, likewise
}

// own records an event this Handler stored while the takeover lasts, and
// reports whether it goes to the client now: not before the replay (which
// reads it from the store), nor when the client got the old holder's copy
// (which a unique event has not).
// Past max events it gives the matching up (the release never came) and
// reports true.
func (tk *takeover) own(id string, data []byte, unique bool, max int) bool {
	if len(tk.stored) >= max {
		tk.mine, tk.theirs = nil, nil
		return true
	}
	tk.stored[id] = unique
	if !tk.replayed {
		return false
	}
	if unique {
		return true
	}
	return tk.send(tk.mine, tk.theirs, data)
}

// pass reports whether an event read from the store during the takeover
// (by its replay or its catch-up) goes to the client; pastMark says whether
// the event comes after mark.
func (tk *takeover) pass(id string, data []byte, pastMark bool) bool {
	if unique, ok := tk.stored[id]; ok {
		return unique || tk.send(tk.mine, tk.theirs, data)
	}
	if !pastMark {
		return true
	}
	return tk.send(tk.theirs, tk.mine, data)
}

// send matches an event of one side against the unmatched events of the
// other the client got: a match is not sent.
func (tk *takeover) send(side, other map[string]int, data []byte) bool {
	if side == nil {
		return true // matching given up
	}
	if n := other[string(data)]; n > 0 {
		other[string(data)] = n - 1
		return false
	}
	side[string(data)]++
	return true
}

// claim makes this Handler the holder of the standalone stream before it
// tells the others (noticeStreamTaken), storing its events from now on
// (with no live connection yet), and starts a takeover; after is the
// client's Last-Event-ID. It reports whether the stream was held elsewhere,
// or by no one, before.
func (st *stream) claim(ctx context.Context, after string) bool {
	st.order.Lock()
	defer st.order.Unlock()
	st.mu.Lock()
	was := st.held
	st.holdLocked()
	st.mu.Unlock()
	if was {
		return false
	}
	tk := &takeover{mark: after, stored: make(map[string]bool), mine: make(map[string]int), theirs: make(map[string]int)}
	err := st.s.h.events.Replay(ctx, st.s.id, st.name, after, func(id string, _ []byte) error {
		tk.mark = id
		return nil
	})
	if err == nil {
		st.tk = tk
	}
	return true
}

// replayTakeover is Handler.replay for the takeover's replay: the events
// after the store id after go to c unless the client gets the other copy.
func (st *stream) replayTakeover(ctx context.Context, after string, c *sseConn) (string, error) {
	tk := st.tk
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	last, past := after, tk.mark == after
	err := st.s.h.events.Replay(ctx, st.s.id, st.name, after, func(id string, data []byte) error {
		send := tk.pass(id, data, past)
		past = past || id == tk.mark
		last = id
		if !send {
			return nil
		}
		b = appendStoredEvent(b[:0], st.name, id, true, data)
		return c.write(b)
	})
	putBuf(bp, b)
	if err == nil {
		tk.replayed, tk.from = true, last
	}
	return last, err
}

// catchUp ends the takeover once the old holder let the stream go: what it
// stored after the takeover's replay read the store goes to the live
// connection, but for the copies of events the client got from this
// Handler. Those late events go out without event ids (their store ids
// come before the ones the client has), so they are not replayed when the
// client resumes; one the connection did not take before it broke is lost.
func (st *stream) catchUp(ctx context.Context) {
	st.order.Lock()
	defer st.order.Unlock()
	tk := st.tk
	st.tk = nil
	if tk == nil || !tk.replayed {
		return // nothing to catch up, or the replay comes after every append
	}
	var late []queuedEvent
	_ = st.s.h.events.Replay(ctx, st.s.id, st.name, tk.from, func(id string, data []byte) error {
		if _, ok := tk.stored[id]; !ok && tk.pass(id, data, true) {
			// Without an event id: it is older than what the client got
			// from this Handler, and a resumption must start after that.
			late = append(late, queuedEvent{data: data})
		}
		return nil
	})
	st.mu.Lock()
	defer st.mu.Unlock()
	if c := st.conn; c != nil && st.held {
		for _, ev := range late {
			st.enqueueLocked(c, ev)
		}
	}
}
