package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replayAll returns the data of a stream's events after id after, as
// strings.
func replayAll(t *testing.T, s EventStore, session, stream, after string) []string {
	t.Helper()
	var got []string
	err := s.Replay(context.Background(), session, stream, after, func(_ string, data []byte) error {
		got = append(got, string(data))
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return got
}

// appendAll appends data to a stream and returns the ids the store gave.
func appendAll(t *testing.T, s EventStore, session, stream string, data ...string) []string {
	t.Helper()
	var ids []string
	for _, d := range data {
		id, err := s.Append(context.Background(), session, stream, []byte(d))
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestMemoryEventStore(t *testing.T) {
	bg := context.Background()
	s := NewMemoryEventStore(nil)
	var a1, a2, b1 []string
	for i := 1; i <= 3; i++ {
		a1 = append(a1, appendAll(t, s, "A", "1", fmt.Sprintf("a1-%d", i))...)
		a2 = append(a2, appendAll(t, s, "A", "2", fmt.Sprintf("a2-%d", i))...)
		b1 = append(b1, appendAll(t, s, "B", "1", fmt.Sprintf("b1-%d", i))...)
	}
	seen := map[string]bool{}
	for _, id := range append(append(append([]string{}, a1...), a2...), b1...) {
		if seen[id] || strings.ContainsAny(id, "\r\n\x00") {
			t.Fatalf("id %q repeated or unfit for SSE", id)
		}
		seen[id] = true
	}
	tests := []struct {
		session, stream, after string
		want                   string
	}{
		{"A", "1", "", "a1-1 a1-2 a1-3"},
		{"A", "1", a1[0], "a1-2 a1-3"},
		{"A", "2", a2[1], "a2-3"},
		{"A", "2", a2[2], ""},
		{"A", "1", a2[2], ""}, // an id of another stream: only what came after it
		{"B", "1", "", "b1-1 b1-2 b1-3"},
		{"B", "2", "", ""},
		{"C", "1", "", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(replayAll(t, s, tt.session, tt.stream, tt.after), " "); got != tt.want {
			t.Errorf("Replay(%s, %s, after %q) = %q, want %q", tt.session, tt.stream, tt.after, got, tt.want)
		}
	}
	for _, bad := range []string{"x", "-1", "999999"} {
		if err := s.Replay(bg, "A", "1", bad, func(string, []byte) error { return nil }); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("Replay after %q: %v, want ErrUnknownEvent", bad, err)
		}
	}
	if n, _ := s.Len(); n != 9 {
		t.Errorf("Len = %d events, want 9", n)
	}
	_ = s.DeleteSession(bg, "A")
	if got := replayAll(t, s, "A", "1", ""); len(got) != 0 {
		t.Errorf("after DeleteSession: %q", got)
	}
	if n, b := s.Len(); n != 3 || b != 3*(4+eventOverhead) {
		t.Errorf("Len = %d events, %d bytes; want 3, %d", n, b, 3*(4+eventOverhead))
	}
	// Ids keep increasing after a session's events are all gone.
	if id := appendAll(t, s, "A", "1", "again")[0]; seen[id] {
		t.Errorf("id %q reused", id)
	}
	// A replay stops at fn's error.
	calls := 0
	err := s.Replay(bg, "B", "1", "", func(string, []byte) error { calls++; return fmt.Errorf("stop") })
	if err == nil || calls != 1 {
		t.Errorf("Replay with failing fn: err %v after %d calls", err, calls)
	}
}

func TestMemoryEventStoreBounds(t *testing.T) {
	bg := context.Background()
	data := func(i int) []byte { return []byte(fmt.Sprintf("%052d", i)) } // 52 + 48 overhead = 100 bytes each
	first := func(got []string) int {
		n, _ := strconv.Atoi(strings.TrimLeft(got[0], "0"))
		return n
	}
	t.Run("per session", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxSessionBytes: 1000})
		for i := 1; i <= 25; i++ {
			_, _ = s.Append(bg, "A", "1", data(i))
		}
		got := replayAll(t, s, "A", "1", "")
		if len(got) != 10 || first(got) != 16 {
			t.Errorf("kept %d events %q..., want the newest 10 (16-25)", len(got), got)
		}
		// Other sessions are unaffected.
		_, _ = s.Append(bg, "B", "1", data(1))
		if got := replayAll(t, s, "B", "1", ""); len(got) != 1 {
			t.Errorf("session B: %q", got)
		}
	})
	t.Run("global, largest session first", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytes: 1000, MaxSessionBytes: 1000})
		for i := 1; i <= 3; i++ {
			_, _ = s.Append(bg, "small", "1", data(i))
		}
		for i := 1; i <= 7; i++ {
			_, _ = s.Append(bg, "big", "1", data(i))
		}
		_, _ = s.Append(bg, "small", "1", data(4)) // over by one event: "big" loses its oldest
		if got := replayAll(t, s, "small", "1", ""); len(got) != 4 {
			t.Errorf("small: %q", got)
		}
		if got := replayAll(t, s, "big", "1", ""); len(got) != 6 || first(got) != 2 {
			t.Errorf("big: %q", got)
		}
		for i := 8; i <= 20; i++ {
			_, _ = s.Append(bg, "big", "1", data(i))
		}
		if got := replayAll(t, s, "small", "1", ""); len(got) != 4 {
			t.Errorf("small lost events to big's traffic: %q", got)
		}
		if n, b := s.Len(); n != 10 || b != 1000 {
			t.Errorf("Len = %d, %d; want 10 events, 1000 bytes", n, b)
		}
	})
	t.Run("within a session, largest stream first", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxSessionBytes: 1000})
		_, _ = s.Append(bg, "A", "answer", data(1))
		for i := 1; i <= 20; i++ {
			_, _ = s.Append(bg, "A", "0", data(i))
		}
		if got := replayAll(t, s, "A", "answer", ""); len(got) != 1 {
			t.Errorf("the answer was evicted by the session's notifications: %q", got)
		}
		if got := replayAll(t, s, "A", "0", ""); len(got) != 9 || first(got) != 12 {
			t.Errorf("notifications: %q", got)
		}
		// A large answer takes its room from the largest other stream.
		_, _ = s.Append(bg, "A", "answer2", make([]byte, 452)) // 500 bytes
		if got := replayAll(t, s, "A", "0", ""); len(got) != 4 || first(got) != 17 {
			t.Errorf("notifications after a large answer: %q", got)
		}
		if got := replayAll(t, s, "A", "answer", ""); len(got) != 1 {
			t.Errorf("the first answer: %q", got)
		}
	})
	t.Run("a small pending answer survives large answers of other sessions", func(t *testing.T) {
		// The attack, at 1/1024 scale: the default bounds (64 MiB, 1 MiB a
		// session), 20 sessions each storing a 3.9 MB answer after the
		// victim stored its own small one.
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytes: 64 << 10, MaxSessionBytes: 1 << 10})
		_, _ = s.Append(bg, "victim", "answer", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		for i := range 20 {
			_, _ = s.Append(bg, fmt.Sprint("attacker", i), "1", make([]byte, 3994))
		}
		if got := replayAll(t, s, "victim", "answer", ""); len(got) != 1 {
			t.Fatalf("the victim's answer was evicted by other sessions' answers")
		}
		if _, b := s.Len(); b > 64<<10 {
			t.Errorf("store holds %d bytes, bound %d", b, 64<<10)
		}
	})
	t.Run("age", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxEventAge: time.Minute})
		now := time.Unix(1000, 0)
		s.now = func() time.Time { return now }
		_, _ = s.Append(bg, "A", "1", data(1))
		now = now.Add(30 * time.Second)
		_, _ = s.Append(bg, "B", "1", data(2))
		now = now.Add(31 * time.Second) // A's event is 61 s old, B's 31 s
		if got := replayAll(t, s, "A", "1", ""); len(got) != 0 {
			t.Errorf("A kept an expired event: %q", got)
		}
		if got := replayAll(t, s, "B", "1", ""); len(got) != 1 {
			t.Errorf("B: %q", got)
		}
		if n, _ := s.Len(); n != 1 {
			t.Errorf("Len = %d events, want 1", n)
		}
	})
	t.Run("one event larger than the bounds is kept alone", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytes: 100, MaxSessionBytes: 100})
		_, _ = s.Append(bg, "A", "1", data(1))
		_, _ = s.Append(bg, "A", "1", make([]byte, 500))
		if got := replayAll(t, s, "A", "1", ""); len(got) != 1 || len(got[0]) != 500 {
			t.Errorf("got %d events", len(got))
		}
	})
	t.Run("steady eviction compacts", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxSessionBytes: 1000})
		for i := 1; i <= 10000; i++ {
			_, _ = s.Append(bg, "A", "1", data(i))
		}
		s.mu.Lock()
		n := cap(s.sessions["A"].streams["1"].events)
		s.mu.Unlock()
		if n > 200 {
			t.Errorf("event slice capacity %d after steady eviction; it should stay small", n)
		}
	})
}
