package mcphttp

import (
	"container/list"
	"context"
	"errors"
	"strconv"
	"sync"
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

// ErrUnknownEvent is returned by EventStore.Replay for an event id the
// store did not issue.
var ErrUnknownEvent = errors.New("mcphttp: unknown event id")

// MemoryEventStoreOptions bounds a MemoryEventStore. Zero values select the
// defaults.
type MemoryEventStoreOptions struct {
	// MaxBytes bounds the data held for all sessions together. When an
	// append would exceed it, the oldest events of the session that
	// appended least recently are evicted first. Default 64 MiB.
	MaxBytes int
	// MaxSessionBytes bounds the data held for one session; its oldest
	// events are evicted first. Default 1 MiB.
	MaxSessionBytes int
}

// MemoryEventStore is the default EventStore: bounded, in process memory.
// Its event ids are decimal numbers from one counter for the whole store,
// so they keep increasing within a stream even after its events were all
// evicted. It is safe for concurrent use.
type MemoryEventStore struct {
	maxBytes, maxSessionBytes int

	mu       sync.Mutex
	bytes    int
	seq      int64 // the id of the last event appended
	sessions map[string]*memSession
	lru      list.List // of *memSession, least recently appended first
}

// memSession holds one session's events in append order.
type memSession struct {
	id     string
	events []memEvent // events[head:] are live
	head   int
	bytes  int
	elem   *list.Element
}

type memEvent struct {
	stream string
	seq    int64
	data   []byte
}

// eventOverhead is what one stored event costs beyond its data, counted
// against the bounds so that many tiny events are bounded too.
const eventOverhead = 48

// NewMemoryEventStore returns an empty in-memory store. opts may be nil.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	s := &MemoryEventStore{maxBytes: 64 << 20, maxSessionBytes: 1 << 20, sessions: make(map[string]*memSession)}
	if opts != nil {
		if opts.MaxBytes > 0 {
			s.maxBytes = opts.MaxBytes
		}
		if opts.MaxSessionBytes > 0 {
			s.maxSessionBytes = opts.MaxSessionBytes
		}
	}
	return s
}

// Append implements EventStore.
func (s *MemoryEventStore) Append(_ context.Context, session, stream string, data []byte) (string, error) {
	size := len(data) + eventOverhead
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.sessions[session]
	if ms == nil {
		ms = &memSession{id: session}
		ms.elem = s.lru.PushBack(ms)
		s.sessions[session] = ms
	} else {
		s.lru.MoveToBack(ms.elem)
	}
	s.seq++
	seq := s.seq
	ms.events = append(ms.events, memEvent{stream: stream, seq: seq, data: data})
	ms.bytes += size
	s.bytes += size
	for ms.bytes > s.maxSessionBytes && ms.head < len(ms.events)-1 {
		s.evictOldest(ms)
	}
	for s.bytes > s.maxBytes {
		oldest := s.lru.Front().Value.(*memSession)
		if oldest == ms && ms.head >= len(ms.events)-1 {
			break // never evict the event just appended
		}
		s.evictOldest(oldest)
	}
	return strconv.FormatInt(seq, 10), nil
}

// evictOldest drops the oldest event of ms, and ms itself once empty.
func (s *MemoryEventStore) evictOldest(ms *memSession) {
	e := &ms.events[ms.head]
	size := len(e.data) + eventOverhead
	*e = memEvent{}
	ms.head++
	ms.bytes -= size
	s.bytes -= size
	if ms.head == len(ms.events) {
		s.lru.Remove(ms.elem)
		delete(s.sessions, ms.id)
		return
	}
	// Compact once the dead prefix dominates, so the slice does not grow
	// without bound under steady eviction.
	if ms.head > 32 && ms.head*2 > len(ms.events) {
		n := copy(ms.events, ms.events[ms.head:])
		clear(ms.events[n:])
		ms.events = ms.events[:n]
		ms.head = 0
	}
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
	s.mu.Lock()
	if from > s.seq {
		s.mu.Unlock()
		return ErrUnknownEvent
	}
	if ms := s.sessions[session]; ms != nil {
		for _, e := range ms.events[ms.head:] {
			if e.stream == stream && e.seq > from {
				found = append(found, e)
			}
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
		s.lru.Remove(ms.elem)
		delete(s.sessions, session)
	}
	return nil
}

// Len reports how many events and bytes of data (with per-event overhead)
// the store holds. It is meant for tests and metrics.
func (s *MemoryEventStore) Len() (events, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ms := range s.sessions {
		events += len(ms.events) - ms.head
	}
	return events, s.bytes
}
