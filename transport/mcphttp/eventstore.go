package mcphttp

import (
	"container/list"
	"context"
	"sync"
)

// An EventStore keeps the SSE events a Handler sends, so that a client whose
// connection broke can resume a stream with GET and Last-Event-ID and receive
// every event it missed, exactly once.
//
// Within a session, each SSE stream has a number (0 is the standalone GET
// stream, POST streams count up from 1) and each event of a stream a sequence
// number (1, 2, 3, ... with no gaps); the event id the client sees is
// "<stream>_<seq>". The Handler calls Append for one stream from one
// goroutine at a time, in sequence order.
//
// The default is an in-memory store (NewMemoryEventStore). A shared store
// (Redis, a database) lets another process replay a stream, which matters
// once sessions themselves can move between processes (see Handler).
type EventStore interface {
	// Append stores an event. The store takes ownership of data: the
	// caller never modifies it afterwards.
	Append(ctx context.Context, session string, stream, seq int64, data []byte) error

	// Replay calls fn, in sequence order, for every stored event of the
	// stream whose sequence number is greater than after. Events evicted
	// to respect the store's bounds are skipped. fn must not retain data
	// beyond what the store promises (the in-memory store never modifies
	// it). An error from fn stops the replay and is returned.
	Replay(ctx context.Context, session string, stream, after int64, fn func(seq int64, data []byte) error) error

	// DeleteSession forgets every event of a session. The Handler calls it
	// when the session ends.
	DeleteSession(ctx context.Context, session string) error
}

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
// It is safe for concurrent use.
type MemoryEventStore struct {
	maxBytes, maxSessionBytes int

	mu       sync.Mutex
	bytes    int
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
	stream, seq int64
	data        []byte
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
func (s *MemoryEventStore) Append(_ context.Context, session string, stream, seq int64, data []byte) error {
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
	return nil
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
func (s *MemoryEventStore) Replay(ctx context.Context, session string, stream, after int64, fn func(seq int64, data []byte) error) error {
	var found []memEvent
	s.mu.Lock()
	if ms := s.sessions[session]; ms != nil {
		for _, e := range ms.events[ms.head:] {
			if e.stream == stream && e.seq > after {
				found = append(found, e)
			}
		}
	}
	s.mu.Unlock()
	for _, e := range found {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e.seq, e.data); err != nil {
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
