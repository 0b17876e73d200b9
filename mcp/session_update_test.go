package mcp

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// pairedLoads is a SessionUpdater whose Load waits until two Loads are in
// progress (or a moment has passed), so that two read-change-save cycles
// interleave: the schedule in which the later save undoes the earlier.
type pairedLoads struct {
	*MemorySessionStore
	mu      sync.Mutex
	waiting int
	both    chan struct{}
}

func (p *pairedLoads) Load(ctx context.Context, id string) (*SessionState, error) {
	st, err := p.MemorySessionStore.Load(ctx, id)
	p.mu.Lock()
	if p.waiting++; p.waiting == 2 {
		close(p.both)
	}
	p.mu.Unlock()
	select {
	case <-p.both:
	case <-time.After(200 * time.Millisecond):
	}
	return st, err
}

// TestSessionUpdateConcurrent: two processes (two Servers, each with its
// copy of one session) subscribe the session to a resource each at the
// same moment. With a SessionUpdater store both subscriptions are kept;
// read-change-save would lose one.
func TestSessionUpdateConcurrent(t *testing.T) {
	ctx := context.Background()
	store := &pairedLoads{MemorySessionStore: NewMemorySessionStore(nil), both: make(chan struct{})}
	st := &SessionState{ID: "s", ProtocolVersion: Version20251125, Initialized: true}
	if err := store.Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, uri := range []string{"test://a", "test://b"} {
		ss := &ServerSession{server: NewServer(nil, nil), id: "s", store: store}
		ss.restore(st)
		wg.Go(func() {
			if err := ss.update(ctx, func(ss *ServerSession) {
				if ss.subs == nil {
					ss.subs = map[string]struct{}{}
				}
				ss.subs[uri] = struct{}{}
			}); err != nil {
				t.Error(err)
			}
			if !slices.Contains(ss.State().Subscriptions, uri) {
				t.Errorf("%s: the session's own copy lost its subscription", uri)
			}
		})
	}
	wg.Wait()
	got, err := store.MemorySessionStore.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"test://a", "test://b"}; !slices.Equal(got.Subscriptions, want) {
		t.Errorf("stored subscriptions %v, want %v", got.Subscriptions, want)
	}
}

// TestMemorySessionStoreUpdate: Update changes the stored state, keeps its
// id, hands out copies, and knows no session it does not hold.
func TestMemorySessionStoreUpdate(t *testing.T) {
	ctx := context.Background()
	s := NewMemorySessionStore(nil)
	if _, err := s.Update(ctx, "nope", func(*SessionState) { t.Error("change ran for an unknown session") }); !errors.Is(err, ErrNoSession) {
		t.Errorf("unknown session: %v", err)
	}
	if err := s.Save(ctx, &SessionState{ID: "s", Subscriptions: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Update(ctx, "s", func(st *SessionState) {
		st.ID = "other"
		st.LogLevel = LevelError
		st.Subscriptions = append(st.Subscriptions, "b")
	})
	if err != nil || out.ID != "s" || out.LogLevel != LevelError {
		t.Fatalf("Update: %+v, %v", out, err)
	}
	out.Subscriptions[0] = "changed by the caller"
	got, _ := s.Load(ctx, "s")
	if got.ID != "s" || got.LogLevel != LevelError || !slices.Equal(got.Subscriptions, []string{"a", "b"}) {
		t.Errorf("stored %+v", got)
	}
}
