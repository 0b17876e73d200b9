package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/replicas"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// TestMultiProcess runs one client session across two "processes" (each
// with its own Redis client, stores, Notifier, mcp.Server and Handler)
// behind a round-robin proxy: they share nothing but Redis.
func TestMultiProcess(t *testing.T) { eachRedis(t, testMultiProcess) }

func testMultiProcess(t *testing.T, shared redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	var targets []*url.URL
	var servers []*mcp.Server
	var handlers []*mcphttp.Handler
	for range 2 {
		rdb := anotherClient(t, shared)
		t.Cleanup(func() { rdb.Close() })
		n := NewNotifier(rdb, opts, nil)
		t.Cleanup(func() { n.Close() })
		s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{Notifier: n})
		type in struct {
			Text string `json:"text"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (string, error) { return a.Text, nil })
		s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		s.AddResource(&mcp.Resource{URI: "test://warm", Name: "warm"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{SessionStore: NewSessionStore(rdb, opts), EventStore: NewEventStore(rdb, opts)})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		handlers = append(handlers, h)
		u, _ := url.Parse(ts.URL)
		targets = append(targets, u)
		servers = append(servers, s)
	}
	rr := replicas.NewProxy(targets)
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	// First (cleanups run last in, first out) end the handlers, so that the
	// GET stream the proxy relays ends and the proxy's Close can return.
	t.Cleanup(func() {
		for _, h := range handlers {
			h.Close()
		}
	})

	updates := make(chan string, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.Version20251125,
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updates <- p.URI
		},
	})
	stream := mcphttp.NewClientStream(proxy.URL, nil)
	cs, err := c.Connect(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	sid := stream.SessionID()
	for range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
		if err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
	}
	if rr.Served(0) == 0 || rr.Served(1) == 0 {
		t.Fatalf("served %d and %d requests, want both", rr.Served(0), rr.Served(1))
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://r"}); err != nil {
		t.Fatal(err)
	}
	// The client opens its GET stream on its own time, and an update sent
	// before it is open reaches nobody: warm up until one arrives.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://warm"}); err != nil {
		t.Fatal(err)
	}
	warm := time.After(10 * time.Second)
warmup:
	for {
		servers[0].ResourceUpdated(ctx, "test://warm")
		select {
		case <-updates:
			break warmup
		case <-time.After(100 * time.Millisecond):
		case <-warm:
			t.Fatal("no update reached the client's GET stream")
		}
	}
	for drained := false; !drained; {
		select {
		case <-updates:
		case <-time.After(300 * time.Millisecond):
			drained = true
		}
	}
	// A change on either process reaches the client, once, on whichever
	// holds its GET stream.
	for i, s := range servers {
		deadline := time.After(10 * time.Second)
		s.ResourceUpdated(ctx, "test://r")
		select {
		case u := <-updates:
			if u != "test://r" {
				t.Fatalf("update %q", u)
			}
		case <-deadline:
			t.Fatalf("no update from process %d", i)
		}
	}
	select {
	case u := <-updates:
		t.Fatalf("update %q delivered twice", u)
	case <-time.After(200 * time.Millisecond):
	}
	if n := shared.Exists(ctx, prefix+"session:"+sid).Val(); n != 1 {
		t.Fatal("the session is not in Redis")
	}
	// Ending the session (DELETE) leaves nothing of it in Redis (the
	// stream of notices is the deployment's).
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	var left []string
	for range 50 {
		left = slices.DeleteFunc(keysOf(ctx, t, shared, prefix+"*"), func(k string) bool { return k == prefix+"notices" })
		if len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) != 0 {
		t.Fatalf("keys left after the session ended: %v", left)
	}
}
