package mcphttp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// replayAll returns the events of a stream after seq as "seq:data".
func replayAll(t *testing.T, s EventStore, session string, stream, after int64) []string {
	t.Helper()
	var got []string
	err := s.Replay(context.Background(), session, stream, after, func(seq int64, data []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", seq, data))
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return got
}

func TestMemoryEventStore(t *testing.T) {
	bg := context.Background()
	s := NewMemoryEventStore(nil)
	for i := int64(1); i <= 3; i++ {
		_ = s.Append(bg, "A", 1, i, fmt.Appendf(nil, "a1-%d", i))
		_ = s.Append(bg, "A", 2, i, fmt.Appendf(nil, "a2-%d", i))
		_ = s.Append(bg, "B", 1, i, fmt.Appendf(nil, "b1-%d", i))
	}
	tests := []struct {
		session       string
		stream, after int64
		want          string
	}{
		{"A", 1, 0, "1:a1-1 2:a1-2 3:a1-3"},
		{"A", 1, 1, "2:a1-2 3:a1-3"},
		{"A", 2, 2, "3:a2-3"},
		{"A", 2, 3, ""},
		{"B", 1, 0, "1:b1-1 2:b1-2 3:b1-3"},
		{"B", 2, 0, ""},
		{"C", 1, 0, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(replayAll(t, s, tt.session, tt.stream, tt.after), " "); got != tt.want {
			t.Errorf("Replay(%s, %d, after %d) = %q, want %q", tt.session, tt.stream, tt.after, got, tt.want)
		}
	}
	if n, _ := s.Len(); n != 9 {
		t.Errorf("Len = %d events, want 9", n)
	}
	_ = s.DeleteSession(bg, "A")
	if got := replayAll(t, s, "A", 1, 0); len(got) != 0 {
		t.Errorf("after DeleteSession: %q", got)
	}
	if n, b := s.Len(); n != 3 || b != 3*(4+eventOverhead) {
		t.Errorf("Len = %d events, %d bytes; want 3, %d", n, b, 3*(4+eventOverhead))
	}
	// A replay stops at fn's error.
	calls := 0
	err := s.Replay(bg, "B", 1, 0, func(int64, []byte) error { calls++; return fmt.Errorf("stop") })
	if err == nil || calls != 1 {
		t.Errorf("Replay with failing fn: err %v after %d calls", err, calls)
	}
}

func TestMemoryEventStoreBounds(t *testing.T) {
	bg := context.Background()
	data := func(i int) []byte { return []byte(fmt.Sprintf("%052d", i)) } // 52 + 48 overhead = 100 bytes each
	t.Run("per session", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxSessionBytes: 1000})
		for i := 1; i <= 25; i++ {
			_ = s.Append(bg, "A", 1, int64(i), data(i))
		}
		got := replayAll(t, s, "A", 1, 0)
		if len(got) != 10 || !strings.HasPrefix(got[0], "16:") || !strings.HasPrefix(got[9], "25:") {
			t.Errorf("kept %d events %q..., want the newest 10 (16-25)", len(got), got)
		}
		// Other sessions are unaffected.
		_ = s.Append(bg, "B", 1, 1, data(1))
		if got := replayAll(t, s, "B", 1, 0); len(got) != 1 {
			t.Errorf("session B: %q", got)
		}
	})
	t.Run("global, least recently appended session first", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytes: 1000, MaxSessionBytes: 1000})
		for i := 1; i <= 5; i++ {
			_ = s.Append(bg, "old", 1, int64(i), data(i))
		}
		for i := 1; i <= 5; i++ {
			_ = s.Append(bg, "new", 1, int64(i), data(i))
		}
		_ = s.Append(bg, "new", 1, 6, data(6)) // over by one event: "old" loses its oldest
		if got := replayAll(t, s, "old", 1, 0); len(got) != 4 || !strings.HasPrefix(got[0], "2:") {
			t.Errorf("old: %q", got)
		}
		if got := replayAll(t, s, "new", 1, 0); len(got) != 6 {
			t.Errorf("new: %q", got)
		}
		for i := 7; i <= 20; i++ {
			_ = s.Append(bg, "new", 1, int64(i), data(i))
		}
		if got := replayAll(t, s, "old", 1, 0); len(got) != 0 {
			t.Errorf("old should be gone: %q", got)
		}
		if n, b := s.Len(); n != 10 || b != 1000 {
			t.Errorf("Len = %d, %d; want 10 events, 1000 bytes", n, b)
		}
	})
	t.Run("one event larger than the bounds is kept alone", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytes: 100, MaxSessionBytes: 100})
		_ = s.Append(bg, "A", 1, 1, data(1))
		_ = s.Append(bg, "A", 1, 2, make([]byte, 500))
		if got := replayAll(t, s, "A", 1, 0); len(got) != 1 || !strings.HasPrefix(got[0], "2:") {
			t.Errorf("got %d events", len(got))
		}
	})
	t.Run("steady eviction compacts", func(t *testing.T) {
		s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxSessionBytes: 1000})
		for i := 1; i <= 10000; i++ {
			_ = s.Append(bg, "A", 1, int64(i), data(i))
		}
		s.mu.Lock()
		n := cap(s.sessions["A"].events)
		s.mu.Unlock()
		if n > 200 {
			t.Errorf("event slice capacity %d after steady eviction; it should stay small", n)
		}
	})
}
