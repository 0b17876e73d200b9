package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/internal/replicas"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestGatewayReplicasShareStores runs two gateways as replicas sharing
// their stores and Notifier (in memory here; Redis in a deployment, see
// TestGatewayReplicas in cmd/mcp/internal/cli) behind a round-robin proxy.
// A 2025-11-25 client that declared sampling holds its GET stream on
// replica 1, and subscribes and calls through replica 0 only, where its
// upstream session is bound: the update that bound session hears reaches
// the client through replica 1, and the upstream's question reaches it
// during its call.
func TestGatewayReplicasShareStores(t *testing.T) {
	up := newUpstreamServer("alpha", nil)
	mcp.AddTool(up, &mcp.Tool{Name: "touch"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		up.ResourceUpdated(ctx, "file:///shared.txt")
		return "touched", nil
	})
	notifier := shared.NewMemoryNotifier()
	sessions := shared.NewMemorySessionStore(nil)
	events := mcphttp.NewMemoryEventStore(nil)
	taskStore := tasks.NewMemoryStore(nil)
	key := []byte("0123456789abcdef0123456789abcdef")
	var targets []*url.URL
	var gets [2]atomic.Int32 // GET streams each replica was given
	for i := range 2 {
		g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.Version20251125,
			Server: &mcp.ServerOptions{Notifier: notifier, RequestStateKey: key},
			Tasks:  &tasks.Options{Store: taskStore}}, map[string]*mcp.Server{"alpha": up})
		h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{SessionStore: sessions, EventStore: events})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets[i].Add(1)
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(func() { _ = h.Close(); ts.Close() })
		u, _ := url.Parse(ts.URL)
		targets = append(targets, u)
	}
	p := replicas.NewProxy(targets)
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	updates := make(chan string, 16)
	p.SetDown(0, true) // the session begins on replica 1, with its GET stream
	opts := &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			q := req.Params.Messages[0].Content[0].(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.NewTextContent("yes " + q)}}, nil
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			select {
			case updates <- p.URI:
			default:
			}
		},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "1"}, opts).
		Connect(ctx, mcphttp.NewClientStream(proxy.URL+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	for gets[1].Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the client opened no GET stream")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.SetDown(0, false)
	p.SetDown(1, true) // everything else through replica 0
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///shared.txt"}); err != nil {
		t.Fatal(err)
	}
	res, err := call(ctx, cs, "ask", "q")
	if err != nil || text(t, res) != "sampled:yes q" {
		t.Fatalf("ask: %v %+v", err, res)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
		t.Fatalf("touch: %v %+v", err, res)
	}
	select {
	case uri := <-updates:
		if uri != "file:///shared.txt" {
			t.Errorf("update of %q", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the update heard on replica 0's bound session did not reach the client's stream on replica 1")
	}
	if gets[0].Load() != 0 {
		t.Errorf("replica 0 was given %d GET streams; the test means the stream to stay on replica 1", gets[0].Load())
	}
}

// TestReplicaRebindChecksAccess: a binding opened on another replica
// subscribes to what the stored session holds only where the caller may
// still see it. The client subscribes to two resources through replica 1;
// one is then hidden from it; its next call, on replica 0, binds an
// upstream session there that must not subscribe to the hidden resource,
// neither while binding (restoreSubs) nor when replica 0 takes up the
// rebuilt session's subscriptions in the background (sessionRegistered).
func TestReplicaRebindChecksAccess(t *testing.T) {
	const hiddenURI, visibleURI = "file:///shared.txt", "file:///visible.txt"
	up := newUpstreamServer("alpha", nil)
	_ = up.AddResource(&mcp.Resource{URI: visibleURI, Name: "visible"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: req.Params.URI, Text: "v"}}}, nil
		})
	var subscribes atomic.Int32 // resources/subscribe of hiddenURI
	hooks.AddReceivingMiddleware(up, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			var p mcp.SubscribeParams
			if r.Method == mcp.MethodResourcesSubscribe && json.Unmarshal(r.Params, &p) == nil && p.URI == hiddenURI {
				subscribes.Add(1)
			}
			return next(ctx, r)
		}
	})
	var hidden atomic.Bool
	sessions, events := shared.NewMemorySessionStore(nil), mcphttp.NewMemoryEventStore(nil)
	notifier := shared.NewMemoryNotifier()
	var targets []*url.URL
	var gws []*gateway.Gateway
	for range 2 {
		g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.Version20251125,
			Server: &mcp.ServerOptions{Notifier: notifier}}, map[string]*mcp.Server{"alpha": up})
		g.Server().AddVisibleFunc(func(_ context.Context, _ mcp.Caller, f mcp.Feature) bool {
			return !hidden.Load() || f.Kind != mcp.FeatureResource || f.Name() != hiddenURI
		})
		h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{SessionStore: sessions, EventStore: events})
		ts := httptest.NewServer(h)
		t.Cleanup(func() { _ = h.Close(); ts.Close() })
		u, _ := url.Parse(ts.URL)
		targets = append(targets, u)
		gws = append(gws, g)
	}
	p := replicas.NewProxy(targets)
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p.SetDown(0, true)
	opts := &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125, // it can be asked: its calls bind
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("not asked")
		}}
	stream := mcphttp.NewClientStream(proxy.URL+"/mcp", nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "1"}, opts).Connect(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	for _, uri := range []string{hiddenURI, visibleURI} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if n := subscribes.Load(); n != 1 {
		t.Fatalf("the upstream got %d resources/subscribe of %s through replica 1; want 1", n, hiddenURI)
	}
	hidden.Store(true)
	p.SetDown(0, false)
	p.SetDown(1, true)
	if res, err := call(ctx, cs, "echo", "x"); err != nil || res.IsError {
		t.Fatalf("echo on replica 0: %v %+v", err, res)
	}
	// The background path takes the stored subscriptions up in their
	// order (sorted: hiddenURI first); once it holds visibleURI it has
	// been through hiddenURI.
	for !slices.Contains(gateway.HeldFor(gws[0], stream.SessionID()), visibleURI) {
		if ctx.Err() != nil {
			t.Fatalf("replica 0 never took up the stored subscription to %s (holds %q)", visibleURI, gateway.HeldFor(gws[0], stream.SessionID()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if held := gateway.HeldFor(gws[0], stream.SessionID()); slices.Contains(held, hiddenURI) {
		t.Errorf("replica 0 took up the subscription to %s, which its caller no longer sees (holds %q)", hiddenURI, held)
	}
	if n := subscribes.Load(); n != 1 {
		t.Errorf("the upstream got %d resources/subscribe of %s; the binding on replica 0 subscribed to a resource its caller no longer sees", n, hiddenURI)
	}
}

// TestReplicaUnsubscribeKeepsOthers: the subscriptions of clients that
// bind nothing are counted per replica, on that replica's own shared
// upstream session, so the last unsubscribe on one replica unsubscribes
// its session alone: a client subscribed through another replica still
// hears the upstream's updates.
func TestReplicaUnsubscribeKeepsOthers(t *testing.T) {
	const uri = "file:///shared.txt"
	up := newUpstreamServer("alpha", nil)
	var unsubscribes atomic.Int32
	hooks.AddReceivingMiddleware(up, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == mcp.MethodResourcesUnsubscribe {
				unsubscribes.Add(1)
			}
			return next(ctx, r)
		}
	})
	sessions, events := shared.NewMemorySessionStore(nil), mcphttp.NewMemoryEventStore(nil)
	notifier := shared.NewMemoryNotifier()
	var endpoints []string
	for range 2 {
		g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.Version20251125,
			Server: &mcp.ServerOptions{Notifier: notifier}}, map[string]*mcp.Server{"alpha": up})
		h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{SessionStore: sessions, EventStore: events})
		ts := httptest.NewServer(h)
		t.Cleanup(func() { _ = h.Close(); ts.Close() })
		endpoints = append(endpoints, ts.URL+"/mcp")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	updates := make(chan string, 16)
	connect := func(endpoint string, heard chan<- string) *mcp.ClientSession {
		opts := &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125, // it can be asked nothing: it binds nothing
			ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
				if heard != nil {
					heard <- p.URI
				}
			}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "1"}, opts).
			Connect(ctx, mcphttp.NewClientStream(endpoint, nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	connect(endpoints[0], updates)
	other := connect(endpoints[1], nil)
	if err := other.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if n := unsubscribes.Load(); n != 1 {
		t.Fatalf("the upstream got %d resources/unsubscribe from replica 1's last unsubscribe; want 1", n)
	}
	up.ResourceUpdated(ctx, uri)
	select {
	case got := <-updates:
		if got != uri {
			t.Errorf("update of %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the client subscribed through replica 0 heard nothing after the last unsubscribe on replica 1")
	}
}
