package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// waitingStore is a MemoryEventStore that can wait for a stream to grow,
// as a store shared between processes can (redisstore's blocks on Redis).
type waitingStore struct {
	*MemoryEventStore
	mu    sync.Mutex
	grew  chan struct{} // closed and replaced at every Append
	waits atomic.Int64
}

func newWaitingStore() *waitingStore {
	return &waitingStore{MemoryEventStore: NewMemoryEventStore(nil), grew: make(chan struct{})}
}

func (w *waitingStore) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	id, err := w.MemoryEventStore.Append(ctx, session, stream, data)
	w.mu.Lock()
	close(w.grew)
	w.grew = make(chan struct{})
	w.mu.Unlock()
	return id, err
}

func (w *waitingStore) Wait(ctx context.Context, session, stream, after string, max time.Duration) error {
	w.waits.Add(1)
	w.mu.Lock()
	grew := w.grew
	w.mu.Unlock()
	more := false
	_ = w.Replay(ctx, session, stream, after, func(string, []byte) error { more = true; return nil })
	if more {
		return nil
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-grew:
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

var _ EventWaiter = (*waitingStore)(nil)

// TestFollowWaits: a GET following another process's POST stream waits on
// a store that can wait (EventWaiter) instead of polling it, and sends
// the stream's answer as soon as it is stored.
func TestFollowWaits(t *testing.T) {
	store := newWaitingStore()
	cl := newClusterWith(t, store)
	a, b := cl.b[0], cl.b[1]
	sid := openSamplingSession(t, a.url)
	c, cut := context.WithCancel(ctx(t))
	defer cut()
	req, _ := http.NewRequestWithContext(c, "POST", a.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sample","arguments":{"text":"hi"}}}`))
	for k, v := range postHeaders(sid, mcp.Version20251125) {
		req.Header.Set(k, v)
	}
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("tools/call: %v %v", resp, err)
	}
	ev := nextData(t, newSSEReader(resp.Body, 1<<20))
	cut()
	resp.Body.Close()
	rdB, _ := openGET(t, b.url, "alice", sid, ev.id)
	// B follows the stream; after two seconds idle, a poll would come once
	// a second, a wait at once.
	time.Sleep(2 * time.Second)
	if store.waits.Load() == 0 {
		t.Fatal("the follower never waited on the store")
	}
	var sampling struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(ev.data, &sampling); err != nil {
		t.Fatal(err)
	}
	answered := time.Now()
	answer := `{"jsonrpc":"2.0","id":` + string(sampling.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`
	if r := clusterPost(t, b.url, "alice", sid, answer); r.status != 202 {
		t.Fatalf("answer on B: %d %s", r.status, r.body)
	}
	res := nextData(t, rdB)
	if !strings.Contains(string(res.data), `"id":7`) {
		t.Fatalf("result on the resumed stream: %s", res.data)
	}
	if d := time.Since(answered); d > 500*time.Millisecond {
		t.Fatalf("the result reached the follower %v after the answer", d)
	}
}
