package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// downEventStore is a MemoryEventStore whose Replay fails while down is
// set, as a store in Redis does while Redis is unreachable.
type downEventStore struct {
	*MemoryEventStore
	down atomic.Bool
}

func (s *downEventStore) Replay(ctx context.Context, session, stream, after string, fn func(string, []byte) error) error {
	if s.down.Load() {
		return errors.New("store unreachable")
	}
	return s.MemoryEventStore.Replay(ctx, session, stream, after, fn)
}

// TestResumeWhileStoreDown: a GET resuming a stream while the event store
// fails gets 503 with a JSON-RPC error, and the same Last-Event-ID works
// once the store is back.
func TestResumeWhileStoreDown(t *testing.T) {
	store := &downEventStore{MemoryEventStore: NewMemoryEventStore(nil)}
	f := newFixture(t, &HandlerOptions{EventStore: store})
	sid := f.initSession(mcp.Version20251125)
	id, err := store.Append(ctx(t), sid, "0", []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20251125, "Last-Event-ID": "0_0"}
	store.down.Store(true)
	r := f.do("GET", hdr, "")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, `"error"`) {
		t.Fatalf("resume while the store is down: %d %v %s", r.status, r.header, r.body)
	}
	store.down.Store(false)
	resp, rd := f.openSSE("GET", hdr, "")
	defer resp.Body.Close()
	if ev := nextData(t, rd); ev.id != "0_"+id {
		t.Fatalf("replayed %q, want 0_%s", ev.id, id)
	}
}

// touchingStore counts the Touch calls of a SessionStore that has them.
type touchingStore struct {
	*shared.MemorySessionStore
	touches atomic.Int32
}

func (s *touchingStore) Touch(context.Context, string) error {
	s.touches.Add(1)
	return nil
}

// TestSessionTouch: a shared store with Touch hears of the sessions in use
// (at most once per touchEvery each), which a Handler holding them never
// loads or saves.
func TestSessionTouch(t *testing.T) {
	defer func(d time.Duration) { touchEvery = d }(touchEvery)
	touchEvery = 5 * time.Millisecond
	store := &touchingStore{MemorySessionStore: shared.NewMemorySessionStore(nil)}
	f := newFixture(t, &HandlerOptions{SessionStore: store})
	sid := f.initSession(mcp.Version20251125)
	for i := range 3 {
		time.Sleep(10 * time.Millisecond)
		if r := f.do("POST", postHeaders(sid, mcp.Version20251125), pingBody); r.status != 200 {
			t.Fatalf("ping %d: %d %s", i, r.status, r.body)
		}
	}
	touchEvery = time.Hour
	for range 3 {
		f.do("POST", postHeaders(sid, mcp.Version20251125), pingBody)
	}
	if n := store.touches.Load(); n != 3 {
		t.Fatalf("%d touches, want one per ping spaced beyond touchEvery (3)", n)
	}
}
