package mcphttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// TestShutdownDrains stops one of two Handlers sharing their stores while
// it holds a session's GET stream and runs one of its requests: the
// request is answered, the stream moves to the other Handler with nothing
// lost, and the session lives on.
func TestShutdownDrains(t *testing.T) {
	cl := newCluster(t)
	a, b := cl.b[0], cl.b[1]
	blk := addBlocker(a.srv)
	sid := clusterSession(t, a.url, "alice")
	if r := clusterPost(t, a.url, "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://r"}}`); r.status != 200 {
		t.Fatalf("subscribe: %d %s", r.status, r.body)
	}
	rdA, _ := openGET(t, a.url, "alice", sid, "")
	b.srv.ResourceUpdated(ctx(t), "test://r")
	id1, _ := updated(t, rdA)

	// A request in flight on A.
	answered := make(chan string, 1)
	go func() {
		body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{}}}`
		req, _ := http.NewRequest("POST", a.url, strings.NewReader(body))
		for k, v := range postHeaders(sid, mcp.Version20251125) {
			req.Header.Set(k, v)
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-User", "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		answered <- resp.Status + " " + string(out)
	}()
	<-blk.started

	shut := make(chan error, 1)
	go func() { shut <- a.h.Shutdown(ctx(t)) }()

	// The GET stream ends, telling the client when to come back.
	retry := time.Duration(0)
	for {
		ev, err := rdA.next()
		if err != nil {
			break
		}
		if ev.retry > 0 {
			retry = ev.retry
		}
	}
	if retry != DefaultRetryInterval {
		t.Errorf("the drained GET stream's retry hint: %v, want %v", retry, DefaultRetryInterval)
	}
	// Anything new is refused, to be sent again elsewhere; so is readiness.
	if r := clusterPost(t, a.url, "alice", sid, pingBody); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, `"error"`) {
		t.Errorf("POST while draining: %d %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	if rep := NewHealth(a.h, nil).Check(ctx(t)); rep.Ready {
		t.Errorf("ready while draining: %+v", rep)
	}
	// Published while no Handler has the stream live: A, still its holder,
	// stores it.
	b.srv.ResourceUpdated(ctx(t), "test://r")
	// The request in flight runs to its answer.
	close(blk.release)
	if got := <-answered; !strings.HasPrefix(got, "200") || !strings.Contains(got, "released") {
		t.Fatalf("the request in flight during the drain: %s", got)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) before the GET stream was taken over", err)
	default:
	}
	// The client resumes on B, which replays the update from the gap.
	rdB, _ := openGET(t, b.url, "alice", sid, id1)
	if id, uri := updated(t, rdB); uri != "test://r" || id == id1 {
		t.Fatalf("replayed on B: %s %s", id, uri)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	// B goes on live, and the session on.
	a.srv.ResourceUpdated(ctx(t), "test://r")
	if _, uri := updated(t, rdB); uri != "test://r" {
		t.Fatalf("live on B: %s", uri)
	}
	if r := clusterPost(t, b.url, "alice", sid, pingBody); r.status != 200 {
		t.Fatalf("the session after the drain: %d %s", r.status, r.body)
	}
}

// TestShutdownDeadline: a stream nobody takes over holds a drain only
// until its context ends.
func TestShutdownDeadline(t *testing.T) {
	cl := newCluster(t)
	a := cl.b[0]
	sid := clusterSession(t, a.url, "alice")
	openGET(t, a.url, "alice", sid, "")
	c, cancel := context.WithTimeout(ctx(t), 200*time.Millisecond)
	defer cancel()
	if err := a.h.Shutdown(c); err == nil {
		t.Fatal("Shutdown returned nil with a stream never taken over")
	}
	if a.h.SessionCount() != 0 {
		t.Fatalf("%d sessions held after Shutdown", a.h.SessionCount())
	}
	// Stopping a Handler never ends the session for the others.
	if r := clusterPost(t, cl.b[1].url, "alice", sid, pingBody); r.status != 200 {
		t.Fatalf("the session after the drain: %d %s", r.status, r.body)
	}
}

// TestClientRetriesBusy: a POST answered 503 with Retry-After is sent
// again by the client (behind a load balancer, maybe to another replica).
func TestClientRetriesBusy(t *testing.T) {
	h := NewHandler(testServer(), nil)
	t.Cleanup(func() { h.Close() })
	var refused atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" && refused.Load() < 2 {
			refused.Add(1)
			refuseDraining(w)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cs, _ := connectTo(t, ts, ts.URL, nil, &ClientOptions{DisableStandaloneStream: true})
	if got := callText(t, cs, "echo", `{"text":"again"}`); got != "again" {
		t.Fatalf("echo: %q", got)
	}
	if refused.Load() != 2 {
		t.Fatalf("refused %d POSTs, want 2", refused.Load())
	}
}

// hookNotifier is a MemoryNotifier that runs after (once delivered) each
// notice of one method.
type hookNotifier struct {
	*shared.MemoryNotifier
	method string
	after  func()
}

func (n *hookNotifier) Publish(c context.Context, nt *shared.Notice) error {
	err := n.MemoryNotifier.Publish(c, nt)
	if nt.Method == n.method && n.after != nil {
		n.after()
	}
	return err
}

// TestTakeoverKeepsEvents: an update published just after a Handler took
// a standalone stream over, before its replay, is neither stored by the
// previous holder (which let the stream go) nor lost by the new one.
func TestTakeoverKeepsEvents(t *testing.T) {
	notifier := &hookNotifier{MemoryNotifier: shared.NewMemoryNotifier(), method: noticeStreamTaken}
	srvs, urls := handlerPair(t, func(int) shared.Notifier { return notifier }, shared.NewMemorySessionStore(nil), NewMemoryEventStore(nil), "test://x")
	sid := clusterSession(t, urls[0], "alice")
	if r := clusterPost(t, urls[0], "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://x"}}`); r.status != 200 {
		t.Fatalf("subscribe: %d %s", r.status, r.body)
	}
	if r := clusterPost(t, urls[1], "alice", sid, pingBody); r.status != 200 {
		t.Fatalf("ping on B: %d %s", r.status, r.body)
	}
	rdA, cutA := openGET(t, urls[0], "alice", sid, "")
	srvs[1].ResourceUpdated(ctx(t), "test://x")
	id1, _ := updated(t, rdA)
	cutA()
	var once atomic.Bool
	notifier.after = func() {
		if once.CompareAndSwap(false, true) {
			srvs[0].ResourceUpdated(context.Background(), "test://x")
		}
	}
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	if id, uri := updated(t, rdB); uri != "test://x" || id == id1 {
		t.Fatalf("after the takeover: %s %s", id, uri)
	}
}

// lateNotifier is a MemoryNotifier that holds takeover notices back until
// told, as a slow network would.
type lateNotifier struct {
	*shared.MemoryNotifier
	mu     sync.Mutex
	held   []*shared.Notice
	onTake func() // run when a takeover notice is held back
}

func (n *lateNotifier) Publish(c context.Context, nt *shared.Notice) error {
	if nt.Method == noticeStreamTaken {
		n.mu.Lock()
		n.held = append(n.held, nt)
		f := n.onTake
		n.onTake = nil
		n.mu.Unlock()
		if f != nil {
			f()
		}
		return nil
	}
	return n.MemoryNotifier.Publish(c, nt)
}

func (n *lateNotifier) deliver(c context.Context) {
	n.mu.Lock()
	held := n.held
	n.held = nil
	n.mu.Unlock()
	for _, nt := range held {
		_ = n.MemoryNotifier.Publish(c, nt)
	}
}

// TestTakeoverCatchUp: when the takeover notice reaches the old holder
// late, what it stored after the new holder's replay still reaches the
// client, and an update both heard reaches it once: live from the new
// holder if it stored the notice's event first, else in the catch-up.
func TestTakeoverCatchUp(t *testing.T) {
	notifier, events, srvs, urls, sid, id1 := lateCluster(t)
	// B takes the stream over; A does not know yet.
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	srvs[0].ResourceUpdated(ctx(t), "test://x") // heard by both, stored by the first
	// What A stores after B's replay read the store (its append was late).
	late := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://late"}}`
	if _, err := events.Append(ctx(t), sid, standaloneName, []byte(late)); err != nil {
		t.Fatal(err)
	}
	notifier.deliver(ctx(t)) // A lets go; B catches up
	srvs[1].ResourceUpdated(ctx(t), "test://end")
	for _, want := range []string{"test://x", "test://late", "test://end"} {
		if _, uri := updated(t, rdB); uri != want {
			t.Fatalf("got %s, want %s", uri, want)
		}
	}
}

// TestTakeoverReplayOnce: an update the old holder stored before the new
// holder's replay, and the new one heard after its takeover, reaches the
// client once.
func TestTakeoverReplayOnce(t *testing.T) {
	notifier, events, srvs, urls, sid, id1 := lateCluster(t)
	update := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://x"}}`
	notifier.onTake = func() { // A stores its copy between B's claim and replay
		if _, err := events.Append(context.Background(), sid, standaloneName, []byte(update)); err != nil {
			t.Error(err)
		}
	}
	rdB, _ := openGET(t, urls[1], "alice", sid, id1)
	if _, uri := updated(t, rdB); uri != "test://x" {
		t.Fatalf("replayed on B: %s", uri)
	}
	// B hears the same update (only B: A's copy is in the store already).
	for _, ss := range srvs[1].Sessions() {
		if ss.ID() == sid {
			if err := ss.Notify(ctx(t), mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: "test://x"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	notifier.deliver(ctx(t))
	srvs[1].ResourceUpdated(ctx(t), "test://end")
	if _, uri := updated(t, rdB); uri != "test://end" {
		t.Fatalf("got %s after the takeover, want test://end (the update once)", uri)
	}
}

// lateCluster is two Handlers sharing stores and a lateNotifier, with a
// session subscribed to test://x and test://end whose GET stream A held
// and the client left after event id1.
func lateCluster(t *testing.T) (notifier *lateNotifier, events EventStore, srvs [2]*mcp.Server, urls [2]string, sid, id1 string) {
	t.Helper()
	notifier = &lateNotifier{MemoryNotifier: shared.NewMemoryNotifier()}
	events = NewMemoryEventStore(nil)
	srvs, urls, sid = twoHandlers(t, func(int) shared.Notifier { return notifier }, events)
	rdA, cutA := openGET(t, urls[0], "alice", sid, "")
	srvs[1].ResourceUpdated(ctx(t), "test://x")
	id1, _ = updated(t, rdA)
	cutA()
	notifier.deliver(ctx(t)) // A's own takeover, at its GET
	return notifier, events, srvs, urls, sid, id1
}
