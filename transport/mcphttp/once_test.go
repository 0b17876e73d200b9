package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// hubPort is one process's Notifier on a noticeHub: a notice published on
// any port reaches every port's subscribers, unless the port holds it
// back (as a slow link to that process would) until release.
type hubPort struct {
	hub  *noticeHub
	mem  *shared.MemoryNotifier
	mu   sync.Mutex
	hold func(*shared.Notice) bool
	held []shared.Notice
}

// noticeHub links the hubPorts of the processes of a test deployment.
type noticeHub struct{ ports []*hubPort }

func (h *noticeHub) port() *hubPort {
	p := &hubPort{hub: h, mem: shared.NewMemoryNotifier()}
	h.ports = append(h.ports, p)
	return p
}

func (p *hubPort) Publish(ctx context.Context, n *shared.Notice) error {
	for _, q := range p.hub.ports {
		q.mu.Lock()
		if q.hold != nil && q.hold(n) {
			q.held = append(q.held, *n)
			q.mu.Unlock()
			continue
		}
		q.mu.Unlock()
		_ = q.mem.Publish(ctx, n)
	}
	return nil
}

func (p *hubPort) Subscribe(fn func(*shared.Notice)) func() { return p.mem.Subscribe(fn) }

// release delivers what the port held back, and holds nothing more.
func (p *hubPort) release(ctx context.Context) {
	p.mu.Lock()
	held := p.held
	p.held, p.hold = nil, nil
	p.mu.Unlock()
	for i := range held {
		_ = p.mem.Publish(ctx, &held[i])
	}
}

// TestTakeoverNoticeOnce: an update that reached the old holder of a
// standalone stream before a takeover, and the new holder only after it,
// reaches the client once: both Handlers store the event of the same
// notice, the store keeps one.
func TestTakeoverNoticeOnce(t *testing.T) {
	hub, srvs, urls, sid := hubCluster(t)
	rdA, cutA := openGET(t, urls[0], "alice", sid, "")
	// The update reaches A at once, B only after B took the stream over.
	b := hub.ports[1]
	b.mu.Lock()
	b.hold = func(n *shared.Notice) bool { return n.Method == mcp.NotificationResourceUpdated && n.URI == "test://x" }
	b.mu.Unlock()
	srvs[0].ResourceUpdated(ctx(t), "test://x")
	id1, uri := updated(t, rdA)
	if uri != "test://x" {
		t.Fatalf("live on A: %s", uri)
	}
	cutA()
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	b.release(ctx(t))
	srvs[1].ResourceUpdated(ctx(t), "test://end")
	if _, uri := updated(t, rdB); uri != "test://end" {
		t.Fatalf("got %s after the takeover, want test://end (test://x once, on A)", uri)
	}
}

// TestMemoryEventStoreAppendOnce: a notice's event is stored once per
// stream, whoever appends it; other streams and other notices are not
// affected.
func TestMemoryEventStoreAppendOnce(t *testing.T) {
	s := NewMemoryEventStore(nil)
	c := context.Background()
	id, dup, err := s.AppendOnce(c, "s", "0", "n1", []byte("a"))
	if err != nil || dup || id == "" {
		t.Fatalf("first: %q %v %v", id, dup, err)
	}
	if id, dup, _ := s.AppendOnce(c, "s", "0", "n1", []byte("a")); !dup || id != "" {
		t.Fatalf("second: %q %v, want a duplicate", id, dup)
	}
	for _, tc := range []struct{ session, stream, key string }{{"s", "0", "n2"}, {"s", "1", "n1"}, {"t", "0", "n1"}} {
		if _, dup, _ := s.AppendOnce(c, tc.session, tc.stream, tc.key, []byte("a")); dup {
			t.Errorf("%+v: a duplicate", tc)
		}
	}
	// Past the window, the check gives up: memory stays bounded.
	for range OnceWindow {
		if _, err := s.Append(c, "s", "0", []byte("b")); err != nil {
			t.Fatal(err)
		}
	}
	if _, dup, _ := s.AppendOnce(c, "s", "0", "n1", []byte("a")); dup {
		t.Error("a notice OnceWindow events back is still compared")
	}
	if n, _ := s.Len(); n != 1+3+OnceWindow+1 {
		t.Errorf("Len = %d", n)
	}
}

// TestTakeoverDistinctUpdatesSameURI: during a takeover that the old holder
// hears of late, the new holder stores one update of a resource and the old
// holder another update of the same resource (two notices, the same
// bytes). The client gets both: the new holder's own event, which a
// OnceAppender stored once, is no copy of the old holder's. Matching them
// by content lost one update in about fifty takeovers of the hour-long
// soak (BENCHMARKS.md).
func TestTakeoverDistinctUpdatesSameURI(t *testing.T) {
	hub, srvs, urls, sid := hubCluster(t)
	rdA, cutA := openGET(t, urls[0], "alice", sid, "")
	srvs[0].ResourceUpdated(ctx(t), "test://end")
	id1, _ := updated(t, rdA)
	cutA()
	a, b := hub.ports[0], hub.ports[1]
	setHold := func(p *hubPort, f func(*shared.Notice) bool) { p.mu.Lock(); p.hold = f; p.mu.Unlock() }
	isX := func(n *shared.Notice) bool { return n.Method == mcp.NotificationResourceUpdated && n.URI == "test://x" }
	// A hears neither the takeover nor the first update yet.
	setHold(a, func(n *shared.Notice) bool { return n.Method == noticeStreamTaken || isX(n) })
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	srvs[1].ResourceUpdated(ctx(t), "test://x") // the first: B stores it, and sends it live
	if _, uri := updated(t, rdB); uri != "test://x" {
		t.Fatalf("live on B: %s", uri)
	}
	// The second: only A hears it, and stores it as the stream's holder.
	setHold(b, isX)
	a.mu.Lock()
	heldByA := a.held
	a.held = nil
	a.hold = func(n *shared.Notice) bool { return n.Method == noticeStreamTaken }
	a.mu.Unlock()
	srvs[0].ResourceUpdated(ctx(t), "test://x")
	// A hears the takeover (and the first update, stored already): it lets
	// go, and B catches up with what A stored.
	a.mu.Lock()
	a.held = append(heldByA, a.held...)
	a.mu.Unlock()
	a.release(ctx(t))
	if _, uri := updated(t, rdB); uri != "test://x" {
		t.Fatalf("caught up on B: %s, want the second update of test://x", uri)
	}
	b.release(ctx(t))
	srvs[1].ResourceUpdated(ctx(t), "test://end")
	if _, uri := updated(t, rdB); uri != "test://end" {
		t.Fatalf("got %s, want test://end", uri)
	}
}

// hubCluster is two Handlers sharing stores and a noticeHub (a port each),
// with a session of alice's subscribed to test://x and test://end, known
// to both.
func hubCluster(t *testing.T) (hub *noticeHub, srvs [2]*mcp.Server, urls [2]string, sid string) {
	t.Helper()
	hub = &noticeHub{}
	srvs, urls, sid = twoHandlers(t, func(int) shared.Notifier { return hub.port() }, NewMemoryEventStore(nil))
	return hub, srvs, urls, sid
}

// handlerPair is two Handlers sharing states and events, each serving the
// resources uris, its server's notifier from notifierOf; the caller is
// named by the X-User header.
func handlerPair(t *testing.T, notifierOf func(i int) shared.Notifier, states shared.SessionStore, events EventStore, uris ...string) (srvs [2]*mcp.Server, urls [2]string) {
	t.Helper()
	for i := range srvs {
		srvs[i] = testServerWith(&mcp.ServerOptions{Notifier: notifierOf(i)})
		for _, u := range uris {
			srvs[i].AddResource(&mcp.Resource{URI: u, Name: u}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			})
		}
		h := NewHandler(srvs[i], &HandlerOptions{SessionStore: states, EventStore: events, Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		t.Cleanup(func() { h.Close() })
		urls[i] = ts.URL + "/mcp"
	}
	return srvs, urls
}

// twoHandlers is a cluster of two Handlers sharing a session store and
// events: the notifier of each server from notifierOf, the resources
// test://x and test://end on both. Alice's session is made on the first,
// subscribed there to both, and known to the second by a ping.
func twoHandlers(t *testing.T, notifierOf func(i int) shared.Notifier, events EventStore) (srvs [2]*mcp.Server, urls [2]string, sid string) {
	t.Helper()
	srvs, urls = handlerPair(t, notifierOf, shared.NewMemorySessionStore(nil), events, "test://x", "test://end")
	sid = clusterSession(t, urls[0], "alice")
	for _, u := range []string{"test://x", "test://end"} {
		if r := clusterPost(t, urls[0], "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+u+`"}}`); r.status != 200 {
			t.Fatalf("subscribe: %d %s", r.status, r.body)
		}
	}
	if r := clusterPost(t, urls[1], "alice", sid, pingBody); r.status != 200 {
		t.Fatalf("ping on B: %d %s", r.status, r.body)
	}
	return srvs, urls, sid
}
