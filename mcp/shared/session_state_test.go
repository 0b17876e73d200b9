package shared

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

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
		st.LogLevel = "error"
		st.Subscriptions = append(st.Subscriptions, "b")
	})
	if err != nil || out.ID != "s" || out.LogLevel != "error" {
		t.Fatalf("Update: %+v, %v", out, err)
	}
	out.Subscriptions[0] = "changed by the caller"
	got, _ := s.Load(ctx, "s")
	if got.ID != "s" || got.LogLevel != "error" || !slices.Equal(got.Subscriptions, []string{"a", "b"}) {
		t.Errorf("stored %+v", got)
	}
}

// TestMemorySessionStoreTouch: Touch keeps a session in use alive past
// its TTL counted from its save, and brings back nothing.
func TestMemorySessionStoreTouch(t *testing.T) {
	ctx := context.Background()
	const ttl = time.Second
	s := NewMemorySessionStore(&MemorySessionStoreOptions{TTL: ttl})
	if err := s.Save(ctx, &SessionState{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl * 6 / 10)
	if err := s.Touch(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, "nope"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl * 6 / 10)
	if _, err := s.Load(ctx, "s"); err != nil {
		t.Errorf("touched session: %v", err)
	}
	if _, err := s.Load(ctx, "nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("touched unknown session: %v, want ErrNoSession", err)
	}
}
