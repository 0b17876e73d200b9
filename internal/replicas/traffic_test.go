package replicas

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Sizes of the traffic the rolling restart and the failover run under:
// clients of each kind, and the pause between calls of one client (a
// closed loop, paced so that the test's own clients do not starve three
// servers and Redis on two cores).
const (
	trafficSessions  = 16
	trafficStateless = 16
)

// trafficPace is the pause between calls of one client (the soak's
// -soak.pace sets it).
var trafficPace = 10 * time.Millisecond

// sessionClient is a 2025-11-25 client with a session, a standalone GET
// stream and one subscription, counting the updates it is told of.
type sessionClient struct {
	cs      *mcp.ClientSession
	stream  *mcphttp.ClientStream
	sid     string
	uri     string
	touched atomic.Int64 // updates caused (successful touches)
	got     atomic.Int64 // updates received
}

// traffic is clients of both kinds calling tools through a proxy in closed
// loops: each session client touches the resource it subscribed to every
// fourth call, through whichever replica the proxy picks, so that most
// updates travel between replicas; the stateless (2026-07-28) clients
// call a plain tool.
type traffic struct {
	t         *testing.T
	ctx       context.Context
	sessions  []*sessionClient
	stateless []*mcp.ClientSession
	calls     atomic.Int64
	failed    atomic.Int64
	stop      chan struct{}
	wg        sync.WaitGroup
}

// startTraffic connects the clients to url (their sessions' URIs named
// after name) and starts their loops; the test's cleanup stops them.
func startTraffic(t *testing.T, ctx context.Context, url, name string) *traffic {
	t.Helper()
	tr := &traffic{t: t, ctx: ctx, stop: make(chan struct{})}
	impl := &mcp.Implementation{Name: name + "-test", Version: "1"}
	t.Cleanup(func() {
		tr.halt()
		for _, sc := range tr.sessions {
			sc.cs.Close()
		}
		for _, cs := range tr.stateless {
			cs.Close()
		}
	})
	for i := range trafficSessions {
		sc := &sessionClient{uri: fmt.Sprintf("test://%s/%d", name, i)}
		cl := mcp.NewClient(impl, &mcp.ClientOptions{
			ProtocolVersion: mcp.Version20251125,
			ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
				if p.URI == sc.uri {
					sc.got.Add(1)
				}
			},
		})
		sc.stream = mcphttp.NewClientStream(url, nil)
		cs, err := cl.Connect(ctx, sc.stream)
		if err != nil {
			t.Fatalf("session client %d: %v", i, err)
		}
		sc.cs, sc.sid = cs, sc.stream.SessionID()
		tr.sessions = append(tr.sessions, sc)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: sc.uri}); err != nil {
			t.Fatalf("subscribe %d: %v", i, err)
		}
	}
	for i, sc := range tr.sessions {
		tr.prime(i, sc)
	}
	for i := range trafficStateless {
		cs, err := mcp.NewClient(impl, nil).Connect(ctx, mcphttp.NewClientStream(url, nil))
		if err != nil {
			t.Fatalf("stateless client %d: %v", i, err)
		}
		tr.stateless = append(tr.stateless, cs)
	}
	for _, sc := range tr.sessions {
		tr.wg.Add(1)
		go tr.loop(sc.cs, sc)
	}
	for _, cs := range tr.stateless {
		tr.wg.Add(1)
		go tr.loop(cs, nil)
	}
	return tr
}

// prime touches sc's resource until its update arrives: the client opens
// its GET stream as soon as the session is initialized, and the replica it
// lands on must deliver an update for the subscription made just before,
// whichever replica saved it. Its copy of the session used to miss it now
// and then (a reload overtaken by an older read; fixed by ordering the
// reads, and by re-reading the state when a replica takes the stream
// over), and this subscribed again; it is a failure now.
func (tr *traffic) prime(i int, sc *sessionClient) {
	t := tr.t
	t.Helper()
	before := sc.got.Load()
	res, err := sc.cs.CallTool(tr.ctx, &mcp.CallToolParams{Name: "replica_touch_resource", Arguments: json.RawMessage(`{"uri":"` + sc.uri + `"}`)})
	if err != nil || res.IsError {
		t.Fatalf("session client %d: first touch: %v %+v", i, err, res)
	}
	sc.touched.Add(1)
	for deadline := time.Now().Add(10 * time.Second); sc.got.Load() == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("session client %d never heard of its resource's first update", i)
		}
	}
}

// loop calls tools on cs until halt; sc is cs's session client, nil for a
// stateless one.
func (tr *traffic) loop(cs *mcp.ClientSession, sc *sessionClient) {
	defer tr.wg.Done()
	for n := 0; ; n++ {
		select {
		case <-tr.stop:
			return
		case <-time.After(trafficPace):
		}
		name, args := "test_simple_text", `{}`
		touch := sc != nil && n%4 == 0
		if touch {
			name, args = "replica_touch_resource", `{"uri":"`+sc.uri+`"}`
		}
		res, err := cs.CallTool(tr.ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if tr.ctx.Err() != nil {
			return // the test failed or timed out: its error says why
		}
		tr.calls.Add(1)
		if err != nil || res.IsError {
			tr.failed.Add(1)
			tr.t.Errorf("%s failed: %v %+v", name, err, res)
			continue
		}
		if touch {
			sc.touched.Add(1)
		}
	}
}

// halt stops the loops and waits for them.
func (tr *traffic) halt() {
	select {
	case <-tr.stop:
	default:
		close(tr.stop)
	}
	tr.wg.Wait()
}

// check stops the loops and fails the test unless every update reached its
// subscriber exactly once and every session is still there; it returns
// the number of updates.
func (tr *traffic) check() int64 {
	t := tr.t
	t.Helper()
	tr.halt()
	t.Logf("%d calls, %d failed", tr.calls.Load(), tr.failed.Load())
	deadline := time.Now().Add(15 * time.Second)
	for _, sc := range tr.sessions {
		for sc.got.Load() < sc.touched.Load() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show
	var lost, dup, touched int64
	for i, sc := range tr.sessions {
		got, want := sc.got.Load(), sc.touched.Load()
		touched += want
		if got < want {
			lost += want - got
			t.Logf("session client %d (%s): %d of %d updates received", i, sc.sid, got, want)
		} else {
			dup += got - want
		}
		if sid := sc.stream.SessionID(); sid != sc.sid {
			t.Errorf("session client %d lost its session %s (now %s)", i, sc.sid, sid)
		} else if res, err := sc.cs.CallTool(tr.ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
			t.Errorf("session client %d afterwards: %v", i, err)
		}
	}
	t.Logf("%d resource updates: %d lost, %d duplicated", touched, lost, dup)
	if lost != 0 {
		t.Errorf("%d of %d resource updates lost", lost, touched)
	}
	// Each update is a notice with an id, whose event the replicas store
	// once per stream (mcphttp.OnceAppender), and a notice appended again
	// after a failed append is heard once (redisstore): none reaches a
	// client twice.
	if dup != 0 {
		t.Errorf("%d of %d resource updates duplicated", dup, touched)
	}
	return touched
}
