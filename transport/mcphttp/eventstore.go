package mcphttp

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"
)

// An EventStore keeps the SSE events a Handler sends, so that a client whose
// connection broke can resume a stream with GET and Last-Event-ID and
// receive every event it missed, exactly once, from any Handler sharing the
// store, including one that never saw the session before.
//
// Within a session, each SSE stream has a name chosen by the Handler: the
// standalone GET stream is "0", and a POST stream is named after the Handler
// that opened it and a counter. The store assigns each event an id, unique
// and increasing within its stream; the event id a client sees is
// "<stream>_<id>", so that resuming finds the stream again. Store ids must
// not contain a line break or NUL (they travel in an SSE id field).
//
// The Handler appends to one stream in the order the events go out and
// never appends to one stream from two goroutines at once; a session's
// standalone stream is appended to by one Handler at a time (see Handler).
//
// The default is an in-memory store (NewMemoryEventStore), which serves one
// process. A store outside the process (Redis, a database) lets every
// process of a deployment resume every stream.
type EventStore interface {
	// Append stores data as the next event of the stream and returns its
	// id. The store takes ownership of data: the caller never modifies it
	// afterwards.
	Append(ctx context.Context, session, stream string, data []byte) (id string, err error)

	// Replay calls fn, in order, for every stored event of the stream that
	// came after the event with id after ("" means: from the start). Events
	// evicted to respect the store's bounds are skipped. fn must not retain
	// data beyond what the store promises (the in-memory store never
	// modifies it). An error from fn stops the replay and is returned. An
	// after the store cannot have issued gives an error wrapping
	// ErrUnknownEvent.
	Replay(ctx context.Context, session, stream, after string, fn func(id string, data []byte) error) error

	// DeleteSession forgets every event of a session. The Handler calls it
	// when the client ends the session (DELETE); sessions that merely
	// expire are left to the store's bounds.
	DeleteSession(ctx context.Context, session string) error
}

// An EventWaiter is an EventStore that can wait for a stream to grow, so
// that a GET resuming a POST stream that another process still serves
// sends each event as it is stored there, instead of polling the store.
type EventWaiter interface {
	// Wait returns once the stream may hold an event after the one with id
	// after ("" means: any event), when ctx ends, or after at most max,
	// whichever comes first; a store may return earlier. An error means
	// it could not wait: the Handler then waits max itself.
	Wait(ctx context.Context, session, stream, after string, max time.Duration) error
}

// A OnceAppender is an EventStore that stores the event a notice caused
// once per stream, however many Handlers append it. Every process holding
// a copy of a session hears a notice published to the deployment (a
// resource update) and sends it; while a standalone stream moves from one
// Handler to another, both store its events for an instant, and the
// client would get such an event twice. The Handler appends with
// AppendOnce every event that carries a notice id (mcp.NoticeID), and
// sends nothing when the store says the notice was stored already.
type OnceAppender interface {
	// AppendOnce is Append for an event caused by the notice key: if one
	// of the stream's last OnceWindow events was stored with the same key,
	// nothing is stored and dup is true (id is then ""). The check and the
	// append are one atomic step.
	AppendOnce(ctx context.Context, session, stream, key string, data []byte) (id string, dup bool, err error)
}

// OnceWindow is how many of a stream's newest events a OnceAppender at
// least compares a notice with: the copies of one notice are stored
// within a notice's delivery time of each other (milliseconds), far fewer
// events apart on one session's stream. It bounds the check's cost.
const OnceWindow = 64

// ErrUnknownEvent is returned by EventStore.Replay for an event id the
// store did not issue.
var ErrUnknownEvent = errors.New("mcphttp: unknown event id")

// MemoryEventStoreOptions bounds a MemoryEventStore. Zero values select the
// defaults.
//
// The bounds are meant to keep one session's traffic from costing another
// session its undelivered events: a session over its own bound loses its
// own events, and when the store as a whole is over its bound, the sessions
// holding the most lose theirs first, so a session with a small pending
// answer keeps it while others store large ones.
type MemoryEventStoreOptions struct {
	// MaxBytes bounds the data held for all sessions together. When an
	// append would exceed it, events are evicted from the session holding
	// the most bytes (within it, the oldest event of its largest stream)
	// until the store fits. Default 64 MiB.
	MaxBytes int
	// MaxSessionBytes bounds the data held for one session: past it, the
	// session's own events are evicted, oldest first, from the stream that
	// was appended to, so that one stream of the session (a flood of
	// notifications) costs its other streams (a pending answer) nothing;
	// only an event that is its stream's only one takes room from the
	// session's largest other stream. An event is never evicted by its own
	// append: one larger than the bound is kept, and its session, the
	// largest, is the first to pay when the store is full.
	// Default 1 MiB.
	MaxSessionBytes int
	// MaxEventAge evicts events older than this, whatever the space left:
	// a client resumes a stream within seconds of losing it, and an event
	// it has not come back for in this long is not worth its memory.
	// Default 15 minutes; negative means no age limit.
	MaxEventAge time.Duration
}

// MemoryEventStore is the default EventStore: bounded, in process memory
// (see MemoryEventStoreOptions for how it evicts). Its event ids are
// decimal numbers from one counter for the whole store, so they keep
// increasing within a stream even after its events were all evicted. It is
// safe for concurrent use.
type MemoryEventStore struct {
	maxBytes, maxSessionBytes int
	maxAge                    time.Duration
	now                       func() time.Time // time.Now; tests replace it

	mu       sync.Mutex
	bytes    int
	seq      int64 // the id of the last event appended
	sessions map[string]*memSession
	bySize   sessionHeap // the session holding the most bytes first
	byAge    sessionHeap // the session with the oldest event first
}

// memSession holds one session's events, by stream.
type memSession struct {
	id      string
	streams map[string]*memStream
	bytes   int
	oldest  int64  // unix nanoseconds of its oldest event
	index   [2]int // in bySize and byAge
}

// memStream holds one stream's events in append order.
type memStream struct {
	events []memEvent // events[head:] are live
	head   int
	bytes  int
}

type memEvent struct {
	seq  int64
	at   int64 // unix nanoseconds of the append
	data []byte
	once string // the notice that caused it (AppendOnce), if any
}

// eventOverhead is what one stored event costs beyond its data, counted
// against the bounds so that many tiny events are bounded too.
const eventOverhead = 48

// DefaultMaxEventAge is MemoryEventStoreOptions.MaxEventAge's default.
const DefaultMaxEventAge = 15 * time.Minute

// NewMemoryEventStore returns an empty in-memory store. opts may be nil.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	s := &MemoryEventStore{maxBytes: 64 << 20, maxSessionBytes: 1 << 20, maxAge: DefaultMaxEventAge, now: time.Now, sessions: make(map[string]*memSession)}
	s.bySize = sessionHeap{which: 0, less: func(a, b *memSession) bool { return a.bytes > b.bytes }}
	s.byAge = sessionHeap{which: 1, less: func(a, b *memSession) bool { return a.oldest < b.oldest }}
	if opts != nil {
		if opts.MaxBytes > 0 {
			s.maxBytes = opts.MaxBytes
		}
		if opts.MaxSessionBytes > 0 {
			s.maxSessionBytes = opts.MaxSessionBytes
		}
		if opts.MaxEventAge != 0 {
			s.maxAge = opts.MaxEventAge
		}
	}
	return s
}

var _ OnceAppender = (*MemoryEventStore)(nil)

// Append implements EventStore.
func (s *MemoryEventStore) Append(_ context.Context, session, stream string, data []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(session, stream, "", data), nil
}

// AppendOnce implements OnceAppender, comparing key with the notices of
// the stream's last OnceWindow events.
func (s *MemoryEventStore) AppendOnce(_ context.Context, session, stream, key string, data []byte) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ms := s.sessions[session]; ms != nil && key != "" {
		if mst := ms.streams[stream]; mst != nil {
			live := mst.events[mst.head:]
			for i := len(live) - 1; i >= max(0, len(live)-OnceWindow); i-- {
				if live[i].once == key {
					return "", true, nil
				}
			}
		}
	}
	return s.appendLocked(session, stream, key, data), false, nil
}

// appendLocked stores data, caused by the notice once if not "", as the
// next event of the stream and returns its id; s.mu is held.
func (s *MemoryEventStore) appendLocked(session, stream, once string, data []byte) string {
	size := len(data) + len(once) + eventOverhead
	now := s.now().UnixNano()
	s.expire(now)
	ms := s.sessions[session]
	if ms == nil {
		ms = &memSession{id: session, streams: make(map[string]*memStream, 1), oldest: now}
		s.sessions[session] = ms
		heap.Push(&s.bySize, ms)
		heap.Push(&s.byAge, ms)
	}
	mst := ms.streams[stream]
	if mst == nil {
		mst = &memStream{}
		ms.streams[stream] = mst
	}
	s.seq++
	seq := s.seq
	mst.events = append(mst.events, memEvent{seq: seq, at: now, data: data, once: once})
	mst.bytes += size
	ms.bytes += size
	s.bytes += size
	heap.Fix(&s.bySize, ms.index[0])
	// The session's own bound first: it pays for its own traffic, and
	// within it the stream appended to, unless the event just appended is
	// all that stream holds.
	for ms.bytes > s.maxSessionBytes {
		if len(mst.events)-mst.head > 1 {
			s.evictOldest(ms, mst)
		} else if !s.evictLargest(ms, seq) {
			break
		}
	}
	for s.bytes > s.maxBytes {
		victim := s.bySize.s[0]
		if !s.evictLargest(victim, seq) {
			// The largest session holds only the event just appended: the
			// next largest pays.
			if victim = s.bySize.second(); victim == nil || !s.evictLargest(victim, seq) {
				break
			}
		}
	}
	return strconv.FormatInt(seq, 10)
}

// expire evicts the events older than the age bound, oldest first.
func (s *MemoryEventStore) expire(now int64) {
	if s.maxAge <= 0 {
		return
	}
	limit := now - int64(s.maxAge)
	for len(s.byAge.s) > 0 {
		ms := s.byAge.s[0]
		if ms.oldest > limit {
			return
		}
		var old *memStream
		for _, mst := range ms.streams {
			if old == nil || mst.events[mst.head].at < old.events[old.head].at {
				old = mst
			}
		}
		s.evictOldest(ms, old)
	}
}

// evictLargest evicts the oldest event of ms's largest stream, never the
// event keep. It reports false when ms holds nothing else.
func (s *MemoryEventStore) evictLargest(ms *memSession, keep int64) bool {
	var big *memStream
	for _, mst := range ms.streams {
		if mst.events[mst.head].seq == keep {
			continue // keep is its stream's only event: it is the newest of the store
		}
		if big == nil || mst.bytes > big.bytes {
			big = mst
		}
	}
	if big == nil {
		return false
	}
	s.evictOldest(ms, big)
	return true
}

// evictOldest drops the oldest event of mst, a stream of ms, and the stream
// and the session once empty.
func (s *MemoryEventStore) evictOldest(ms *memSession, mst *memStream) {
	e := &mst.events[mst.head]
	size := len(e.data) + len(e.once) + eventOverhead
	*e = memEvent{}
	mst.head++
	mst.bytes -= size
	ms.bytes -= size
	s.bytes -= size
	if mst.head == len(mst.events) {
		for name, m := range ms.streams {
			if m == mst {
				delete(ms.streams, name)
				break
			}
		}
	} else if mst.head > 32 && mst.head*2 > len(mst.events) {
		// Compact once the dead prefix dominates, so the slice does not
		// grow without bound under steady eviction.
		n := copy(mst.events, mst.events[mst.head:])
		clear(mst.events[n:])
		mst.events = mst.events[:n]
		mst.head = 0
	}
	if len(ms.streams) == 0 {
		s.drop(ms)
		return
	}
	ms.oldest = math.MaxInt64
	for _, m := range ms.streams {
		ms.oldest = min(ms.oldest, m.events[m.head].at)
	}
	heap.Fix(&s.bySize, ms.index[0])
	heap.Fix(&s.byAge, ms.index[1])
}

// drop forgets ms, whose bytes are already uncounted from the store's.
func (s *MemoryEventStore) drop(ms *memSession) {
	heap.Remove(&s.bySize, ms.index[0])
	heap.Remove(&s.byAge, ms.index[1])
	delete(s.sessions, ms.id)
}

// sessionHeap orders sessions for eviction (container/heap); which is the
// slot of memSession.index it maintains.
type sessionHeap struct {
	s     []*memSession
	which int
	less  func(a, b *memSession) bool
}

func (h *sessionHeap) Len() int           { return len(h.s) }
func (h *sessionHeap) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *sessionHeap) Swap(i, j int) {
	h.s[i], h.s[j] = h.s[j], h.s[i]
	h.s[i].index[h.which] = i
	h.s[j].index[h.which] = j
}
func (h *sessionHeap) Push(x any) {
	ms := x.(*memSession)
	ms.index[h.which] = len(h.s)
	h.s = append(h.s, ms)
}
func (h *sessionHeap) Pop() any {
	n := len(h.s) - 1
	ms := h.s[n]
	h.s[n] = nil
	h.s = h.s[:n]
	return ms
}

// second returns the element after the top in the heap's order, if any.
func (h *sessionHeap) second() *memSession {
	switch len(h.s) {
	case 0, 1:
		return nil
	case 2:
		return h.s[1]
	}
	if h.less(h.s[2], h.s[1]) {
		return h.s[2]
	}
	return h.s[1]
}

// Replay implements EventStore. fn runs without the store's lock held.
func (s *MemoryEventStore) Replay(ctx context.Context, session, stream, after string, fn func(id string, data []byte) error) error {
	var from int64
	if after != "" {
		n, err := strconv.ParseInt(after, 10, 64)
		if err != nil || n < 0 {
			return ErrUnknownEvent
		}
		from = n
	}
	var found []memEvent
	now := s.now().UnixNano()
	s.mu.Lock()
	if from > s.seq {
		s.mu.Unlock()
		return ErrUnknownEvent
	}
	s.expire(now)
	if ms := s.sessions[session]; ms != nil {
		if mst := ms.streams[stream]; mst != nil {
			live := mst.events[mst.head:]
			i := sort.Search(len(live), func(i int) bool { return live[i].seq > from })
			found = append(found, live[i:]...)
		}
	}
	s.mu.Unlock()
	for _, e := range found {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(strconv.FormatInt(e.seq, 10), e.data); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSession implements EventStore.
func (s *MemoryEventStore) DeleteSession(_ context.Context, session string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ms := s.sessions[session]; ms != nil {
		s.bytes -= ms.bytes
		s.drop(ms)
	}
	return nil
}

// Len reports how many events and bytes of data (with per-event overhead)
// the store holds. It is meant for tests and metrics.
func (s *MemoryEventStore) Len() (events, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ms := range s.sessions {
		for _, mst := range ms.streams {
			events += len(mst.events) - mst.head
		}
	}
	return events, s.bytes
}
