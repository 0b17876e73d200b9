package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestTransports: upstreams over Streamable HTTP, the legacy HTTP+SSE
// transport and a command over stdio, behind one gateway.
func TestTransports(t *testing.T) {
	web := httptest.NewServer(mcphttp.NewHandler(newUpstreamServer("web", nil), nil))
	t.Cleanup(web.Close)
	old := httptest.NewServer(mcphttp.NewSSEHandler(newUpstreamServer("old", nil), nil))
	t.Cleanup(old.Close)
	cfg := &gateway.Config{Separator: ".", Servers: map[string]*gateway.Upstream{
		"web": {URL: web.URL},
		"old": {Type: gateway.TransportSSE, URL: old.URL},
		"cmd": processUpstream("cmd", "serve"),
		"off": {Command: "/nonexistent", Disabled: true},
	}}
	g, err := gateway.New(cfg, &gateway.Options{Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The legacy transport carries whatever revision both ends speak.
	want := map[string]string{"web": mcp.LatestVersion, "old": mcp.LatestVersion, "cmd": mcp.LatestVersion}
	st := g.Status()
	if len(st) != 3 {
		t.Fatalf("status %+v: the disabled upstream is listed or one is missing", st)
	}
	for _, s := range st {
		if s.State != gateway.StateUp || s.ProtocolVersion != want[s.Name] {
			t.Errorf("%s: %+v, want up at %s", s.Name, s, want[s.Name])
		}
	}
	for _, v := range versions {
		cs := connectDown(t, g, v, nil)
		for name := range want {
			res, err := call(ctx, cs, name+".echo", "hi")
			if err != nil || res.IsError || text(t, res) != name+":hi" {
				t.Errorf("%s: %s.echo: %v %+v", v, name, err, res)
			}
		}
	}
}

// TestLogging: an upstream's log messages reach the downstream sessions
// that set a level, at or above it, with the upstream named, and no other.
func TestLogging(t *testing.T) {
	alpha := newUpstreamServer("alpha", nil)
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
		map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
	got := make(chan *mcp.LoggingMessageNotificationParams, 16)
	quiet := make(chan *mcp.LoggingMessageNotificationParams, 16)
	listening := connectDown(t, g, mcp.Version20251125, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) { got <- p }})
	connectDown(t, g, mcp.Version20251125, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) { quiet <- p }})
	ctx := context.Background()
	if err := listening.SetLoggingLevel(ctx, mcp.LevelWarning); err != nil {
		t.Fatal(err)
	}
	for _, ss := range alpha.Sessions() {
		_ = ss.Log(ctx, &mcp.LoggingMessageNotificationParams{Level: mcp.LevelInfo, Logger: "db", Data: json.RawMessage(`"below"`)})
		_ = ss.Log(ctx, &mcp.LoggingMessageNotificationParams{Level: mcp.LevelError, Logger: "db", Data: json.RawMessage(`"boom"`)})
	}
	select {
	case p := <-got:
		if string(p.Data) != `"boom"` || p.Logger != "alpha/db" || p.Level != mcp.LevelError {
			t.Errorf("log %+v (%s)", p, p.Data)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream's error log never came")
	}
	select {
	case p := <-got:
		t.Errorf("a second message: %s", p.Data)
	case p := <-quiet:
		t.Errorf("a session that set no level got %s", p.Data)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestSubscriptions: a downstream subscription is forwarded, and the
// upstream's updates reach the subscribed client, at both eras of the
// upstream.
func TestSubscriptions(t *testing.T) {
	for _, upv := range []string{mcp.Version20251125, mcp.LatestVersion} {
		t.Run(upv, func(t *testing.T) {
			alpha := newUpstreamServer("alpha", nil)
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: upv},
				map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
			updates := make(chan string, 16)
			cs := connectDown(t, g, mcp.Version20251125, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
					updates <- p.URI
				}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			const uri = "mem://alpha/k"
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			for {
				alpha.ResourceUpdated(ctx, uri)
				select {
				case got := <-updates:
					if got != uri {
						t.Fatalf("update of %q", got)
					}
					return
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					t.Fatal("no update reached the subscriber")
				}
			}
		})
	}
}

// TestSubscriptionsPerSession: an upstream that keeps subscriptions per
// session (as a stdio server does per process) sends its update on the
// session whose call changed the resource. A client that can be asked
// something calls over a session bound to it, so it must subscribe there
// too, and hear the update; a client that can be asked nothing uses the
// shared session for both. Neither hears the other's.
func TestSubscriptionsPerSession(t *testing.T) {
	const uri = "mem://alpha/k"
	alpha := newUpstreamServer("alpha", nil)
	// touch "changes" the resource: only its own session hears of it, and
	// only when subscribed on it.
	mcp.AddTool(alpha, &mcp.Tool{Name: "touch"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		ss, ok := req.Session()
		if !ok || !slices.Contains(ss.State().Subscriptions, in.Text) {
			return "not subscribed on this session", nil
		}
		return "touched", ss.Notify(ctx, mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: in.Text})
	})
	g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
		map[string]*mcp.Server{"alpha": alpha})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	connect := func(opts *mcp.ClientOptions) (*mcp.ClientSession, chan string) {
		updates := make(chan string, 16)
		opts.ResourceUpdatedHandler = func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updates <- p.URI
		}
		cs := connectDown(t, g, mcp.Version20251125, opts)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		return cs, updates
	}
	asked, askedUpdates := connect((&caller{name: "asked"}).options())
	plain, plainUpdates := connect(&mcp.ClientOptions{})
	for _, c := range []struct {
		name       string
		cs         *mcp.ClientSession
		own, other chan string
	}{{"sampling client", asked, askedUpdates, plainUpdates}, {"plain client", plain, plainUpdates, askedUpdates}} {
		res, err := call(ctx, c.cs, "touch", uri)
		if err != nil {
			t.Fatalf("%s: touch: %v", c.name, err)
		}
		if got := text(t, res); res.IsError || got != "touched" {
			t.Fatalf("%s: touch: %q, want the call to run where the client subscribed", c.name, got)
		}
		select {
		case got := <-c.own:
			if got != uri {
				t.Errorf("%s: update of %q", c.name, got)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the update never came", c.name)
		}
		select {
		case got := <-c.other:
			t.Errorf("%s: the other client heard its update of %q", c.name, got)
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Unsubscribed, the sampling client's session hears nothing more.
	if err := asked.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if res, err := call(ctx, asked, "touch", uri); err != nil || text(t, res) != "not subscribed on this session" {
		t.Errorf("after unsubscribe: %v %+v", err, res)
	}
}

// TestCompletion: completion/complete reaches the prompt's upstream under
// the upstream's own name.
func TestCompletion(t *testing.T) {
	servers := twoUpstreams()
	var gotRef mcp.CompleteReference
	beta := mcp.NewServer(&mcp.Implementation{Name: "beta", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			gotRef = req.Params.Ref
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"bea", "ben"}}}, nil
		}})
	_ = beta.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	servers["beta"] = beta
	g := startGateway(t, config("alpha", "beta"), nil, servers)
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref: mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "beta_greet"}, Argument: mcp.CompleteArgument{Name: "who", Value: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Completion.Values) != 2 || gotRef.Name != "greet" {
		t.Errorf("completion %+v, upstream saw %+v", res.Completion, gotRef)
	}
}

// TestReadyHandler: /readyz is 200 with every upstream up, 503 with one
// down, and names each.
func TestReadyHandler(t *testing.T) {
	g := startGateway(t, config("alpha", "gone"), &gateway.Options{StartTimeout: time.Second,
		Backoff: gateway.Backoff{Min: time.Minute, Max: time.Minute}},
		map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil)})
	rec := httptest.NewRecorder()
	g.ReadyHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var body struct {
		Upstreams []gateway.UpstreamStatus `json:"upstreams"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusServiceUnavailable || len(body.Upstreams) != 2 ||
		body.Upstreams[0].State != gateway.StateUp || body.Upstreams[1].State != gateway.StateDown {
		t.Errorf("readyz %d %s", rec.Code, rec.Body)
	}
	ok := startGateway(t, config("alpha"), nil, map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil)})
	rec = httptest.NewRecorder()
	ok.ReadyHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("readyz with every upstream up: %d %s", rec.Code, rec.Body)
	}
}

// TestLogDuringCall: what the upstream logs about a call reaches the
// caller, at every pair of eras (a 2026-07-28 caller has no session: the
// log goes with its request).
func TestLogDuringCall(t *testing.T) {
	for _, era := range eras {
		t.Run(era[0]+"_up/"+era[1]+"_down", func(t *testing.T) {
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: era[0]}, twoUpstreams())
			got := make(chan string, 8)
			cs := connectDown(t, g, era[1], &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
					got <- string(p.Data)
				}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
				t.Fatal(err)
			}
			if _, err := call(ctx, cs, "alpha_log", "note"); err != nil {
				t.Fatal(err)
			}
			select {
			case d := <-got:
				if d != `"note"` {
					t.Errorf("log %s", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the upstream's log never reached the caller")
			}
		})
	}
}

// TestRootsChanged: a downstream client's roots/list_changed reaches the
// upstream sessions bound to it, and the upstream then reads the new roots.
func TestRootsChanged(t *testing.T) {
	heard := make(chan *mcp.ServerSession, 8)
	alpha := mcp.NewServer(&mcp.Implementation{Name: "alpha", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) { heard <- ss }})
	mcp.AddTool(alpha, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		res, err := req.ListRoots(ctx)
		if err != nil || len(res.Roots) == 0 {
			return "", err
		}
		return res.Roots[0].URI, nil
	})
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
		map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
	c := mcp.NewClient(&mcp.Implementation{Name: "down", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.Version20251125, Roots: []*mcp.Root{{URI: "file:///one"}}})
	a, b := transport.Pipe()
	ss := g.Server().Connect(b, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); _ = ss.Wait() }()
	first := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha_roots"})
		if err != nil {
			t.Fatal(err)
		}
		return text(t, res)
	}
	if got := first(); got != "file:///one" {
		t.Fatalf("roots %q", got)
	}
	c.SetRoots(&mcp.Root{URI: "file:///two"})
	select {
	case <-heard:
	case <-ctx.Done():
		t.Fatal("the upstream never heard of the roots change")
	}
	if got := first(); got != "file:///two" {
		t.Errorf("roots after the change %q", got)
	}
}

// TestUpstreamNamed: the gateway's client-side middleware (tracing's) sees
// which upstream each message goes to.
func TestUpstreamNamed(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	mw := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == "tools/call" {
				name, _ := gateway.UpstreamFromContext(ctx)
				mu.Lock()
				seen[string(r.Params)] = name
				mu.Unlock()
			}
			return next(ctx, r)
		}
	}
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{Sending: []mcp.Middleware{mw}}, twoUpstreams())
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	for _, up := range []string{"alpha", "beta"} {
		if _, err := call(context.Background(), cs, up+"_echo", up+"-call"); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("middleware saw %v", seen)
	}
	for params, name := range seen {
		if !strings.Contains(params, name+"-call") {
			t.Errorf("a call with params %s was labelled %q", params, name)
		}
	}
}
