package replicas

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Sizes of the rolling restart: clients of each kind, and the pause
// between calls of one client (a closed loop, paced so that the test's
// own clients do not starve three servers and Redis on two cores).
const (
	rollingSessions  = 16
	rollingStateless = 16
	rollingPace      = 10 * time.Millisecond
)

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

// TestReplicasRollingRestart stops each replica in turn with SIGTERM and
// starts it again while clients of both kinds call tools through the
// proxy, which, like a load balancer, takes a replica out of the rotation
// when its readiness probe fails: no call fails, no session is lost, and
// every resource update reaches its subscriber exactly once.
func TestReplicasRollingRestart(t *testing.T) {
	c := newCluster(t)
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { defer close(watched); c.proxy.Watch(wctx, 25*time.Millisecond) }()
	defer func() { stopWatch(); <-watched }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	impl := &mcp.Implementation{Name: "rolling-test", Version: "1"}
	var sessions []*sessionClient
	var stateless []*mcp.ClientSession
	defer func() {
		for _, sc := range sessions {
			sc.cs.Close()
		}
		for _, cs := range stateless {
			cs.Close()
		}
	}()
	for i := range rollingSessions {
		sc := &sessionClient{uri: fmt.Sprintf("test://rolling/%d", i)}
		cl := mcp.NewClient(impl, &mcp.ClientOptions{
			ProtocolVersion: mcp.Version20251125,
			ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
				if p.URI == sc.uri {
					sc.got.Add(1)
				}
			},
		})
		sc.stream = mcphttp.NewClientStream(c.url, nil)
		cs, err := cl.Connect(ctx, sc.stream)
		if err != nil {
			t.Fatalf("session client %d: %v", i, err)
		}
		sc.cs, sc.sid = cs, sc.stream.SessionID()
		sessions = append(sessions, sc)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: sc.uri}); err != nil {
			t.Fatalf("subscribe %d: %v", i, err)
		}
	}
	for i := range rollingStateless {
		cs, err := mcp.NewClient(impl, nil).Connect(ctx, mcphttp.NewClientStream(c.url, nil))
		if err != nil {
			t.Fatalf("stateless client %d: %v", i, err)
		}
		stateless = append(stateless, cs)
	}

	var calls, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(cs *mcp.ClientSession, sc *sessionClient) {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(rollingPace):
			}
			name, args := "test_simple_text", `{}`
			touch := sc != nil && n%4 == 0
			if touch {
				name, args = "replica_touch_resource", `{"uri":"`+sc.uri+`"}`
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
			calls.Add(1)
			if err != nil || res.IsError {
				failed.Add(1)
				t.Errorf("%s failed: %v %+v", name, err, res)
				continue
			}
			if touch {
				sc.touched.Add(1)
			}
		}
	}
	for _, sc := range sessions {
		wg.Add(1)
		go loop(sc.cs, sc)
	}
	for _, cs := range stateless {
		wg.Add(1)
		go loop(cs, nil)
	}

	time.Sleep(time.Second) // traffic on all three first
	for i := range c.reps {
		old := c.reps[i]
		start := time.Now()
		if err := old.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-old.done:
			if err != nil {
				t.Errorf("replica %d did not exit cleanly after SIGTERM: %v", i, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("replica %d still running 30s after SIGTERM", i)
		}
		old.done <- nil // for the cleanup
		t.Logf("replica %d drained and exited in %v", i, time.Since(start).Round(time.Millisecond))
		c.reps[i] = startReplica(t, c.bin, old.url.Host, c.flag, c.value)
		deadline := time.Now().Add(15 * time.Second)
		for c.proxy.Down(i) {
			if time.Now().After(deadline) {
				t.Fatalf("replica %d not back in the rotation 15s after its restart", i)
			}
			time.Sleep(25 * time.Millisecond)
		}
		time.Sleep(time.Second) // traffic on all three again
	}
	close(stop)
	wg.Wait()
	t.Logf("%d calls, %d failed", calls.Load(), failed.Load())

	// Every update reaches its subscriber, once.
	deadline := time.Now().Add(15 * time.Second)
	for _, sc := range sessions {
		for sc.got.Load() < sc.touched.Load() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond) // room for a duplicate to show
	var lost, dup, touched int64
	for i, sc := range sessions {
		got, want := sc.got.Load(), sc.touched.Load()
		touched += want
		if got < want {
			lost += want - got
		} else {
			dup += got - want
		}
		if sid := sc.stream.SessionID(); sid != sc.sid {
			t.Errorf("session client %d lost its session %s (now %s)", i, sc.sid, sid)
		} else if res, err := sc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
			t.Errorf("session client %d after the restarts: %v", i, err)
		}
	}
	t.Logf("%d resource updates: %d lost, %d duplicated", touched, lost, dup)
	if lost != 0 {
		t.Errorf("%d of %d resource updates lost", lost, touched)
	}
	// Each update is a notice with an id, whose event the replicas store
	// once per stream (mcphttp.OnceAppender): none reaches a client twice,
	// even one on its way to the new holder of a stream as it takes it over.
	if dup != 0 {
		t.Errorf("%d of %d resource updates duplicated", dup, touched)
	}
	c.alive()
}
