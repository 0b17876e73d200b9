package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// upstreamSubs counts the sessions of upstream s subscribed to uri.
func upstreamSubs(s *mcp.Server, uri string) int {
	n := 0
	for _, ss := range s.Sessions() {
		if slices.Contains(ss.State().Subscriptions, uri) {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// addTouch adds tool "touch" to s: it "changes" the resource named by its
// text, which only its own session hears of, and only when subscribed on
// it (a stateful upstream keeping subscriptions per session).
func addTouch(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "touch"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		ss, ok := req.Session()
		if !ok || !slices.Contains(ss.State().Subscriptions, in.Text) {
			return "not subscribed on this session", nil
		}
		return "touched", ss.Notify(ctx, mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: in.Text})
	})
}

// listening runs a listen stream of cs for uris until the returned stop is
// called, and returns the URIs the server acknowledged (acks receives them
// from the client's notification hook).
func listening(t *testing.T, cs *mcp.ClientSession, acks <-chan []string, uris ...string) (acked []string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cs.Listen(ctx, &mcp.SubscriptionFilter{ResourceSubscriptions: uris}) }()
	select {
	case acked = <-acks:
	case err := <-done:
		cancel()
		t.Fatalf("listen ended before its acknowledgement: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("no acknowledgement of the listen stream")
	}
	return acked, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listen: %v", err)
		}
	}
}

// ackHook records the resource subscriptions each listen acknowledgement
// of c names.
func ackHook(c *mcp.Client) <-chan []string {
	acks := make(chan []string, 4)
	hooks.OnNotification(c, func(_ context.Context, _ *mcp.ClientSession, r *mcp.Request) {
		if r.Method != mcp.NotificationSubscriptionsAcknowledged {
			return
		}
		var p struct {
			Notifications mcp.SubscriptionFilter `json:"notifications"`
		}
		_ = json.Unmarshal(r.Params, &p)
		acks <- p.Notifications.ResourceSubscriptions
	})
	return acks
}

// connectListener connects a 2026-07-28 client in memory that records
// its listen acknowledgements and resource updates.
func connectListener(t *testing.T, g *gateway.Gateway, opts *mcp.ClientOptions, so *mcp.SessionOptions) (*mcp.ClientSession, <-chan []string, <-chan string) {
	t.Helper()
	o := mcp.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = mcp.LatestVersion
	updates := make(chan string, 16)
	o.ResourceUpdatedHandler = func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
		updates <- p.URI
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1"}, &o)
	acks := ackHook(c)
	a, b := transport.Pipe()
	ss := g.Server().Connect(b, so)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
		_ = ss.Wait()
	})
	return cs, acks, updates
}

// TestSubscriptionsEndWithSession: a downstream session that ends without
// unsubscribing (its connection dropped, deleted over HTTP, expired, or a
// listen stream closed) gives up its subscriptions: the upstream is
// unsubscribed after the last subscriber, and another client's later
// unsubscribe still ends the upstream's subscription.
func TestSubscriptionsEndWithSession(t *testing.T) {
	const uri = "mem://alpha/k"
	setup := func(t *testing.T) (*gateway.Gateway, *mcp.Server) {
		alpha := newUpstreamServer("alpha", nil)
		g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
			map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
		return g, alpha
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	subscribed := func(t *testing.T, alpha *mcp.Server, want int) {
		t.Helper()
		waitFor(t, "the upstream's subscriptions are as many as wanted", func() bool { return upstreamSubs(alpha, uri) == want })
	}

	t.Run("connection dropped", func(t *testing.T) {
		g, alpha := setup(t)
		stays, _, _ := pipeDown(t, g, mcp.Version20251125, nil, nil)
		if err := stays.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		gone, conn, ss := pipeDown(t, g, mcp.Version20251125, nil, nil)
		if err := gone.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		subscribed(t, alpha, 1)
		_ = conn.Close() // the client's end goes away without a word
		_ = ss.Wait()
		if err := stays.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		subscribed(t, alpha, 0)
	})

	t.Run("listen stream closed", func(t *testing.T) {
		g, alpha := setup(t)
		for _, opts := range []*mcp.ClientOptions{nil, (&caller{name: "asked"}).options()} {
			cs, acks, _ := connectListener(t, g, opts, nil)
			acked, stop := listening(t, cs, acks, uri)
			if !slices.Equal(acked, []string{uri}) {
				t.Fatalf("acknowledged %v", acked)
			}
			subscribed(t, alpha, 1)
			stop()
			subscribed(t, alpha, 0)
		}
	})

	serve := func(t *testing.T, g *gateway.Gateway) string {
		h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{SessionIdleTimeout: 300 * time.Millisecond})
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		t.Cleanup(func() { _ = h.Close() })
		return srv.URL
	}

	t.Run("http deleted", func(t *testing.T) {
		g, alpha := setup(t)
		url := serve(t, g)
		c := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
		cs, err := c.Connect(ctx, mcphttp.NewClientStream(url, nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		subscribed(t, alpha, 1)
		_ = cs.Close() // DELETE
		subscribed(t, alpha, 0)

		// A 2026-07-28 client's listen stream, closed.
		c = mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion})
		acks := ackHook(c)
		if cs, err = c.Connect(ctx, mcphttp.NewClientStream(url, nil)); err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		_, stop := listening(t, cs, acks, uri)
		subscribed(t, alpha, 1)
		stop()
		subscribed(t, alpha, 0)
	})

	t.Run("http expired", func(t *testing.T) {
		g, alpha := setup(t)
		url := serve(t, g)
		// A client subscribes, then is heard of no more.
		sid := rawSession(t, url)
		rawPost(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`)
		subscribed(t, alpha, 1)
		subscribed(t, alpha, 0) // after the idle timeout
		// The client comes back: its session, rebuilt from the session
		// store, holds its subscription, and so does the upstream again.
		rawPost(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		subscribed(t, alpha, 1)
	})
}

// rawSession opens a 2025-11-25 session over HTTP by hand (no standing GET
// stream keeps it alive) and returns its id.
func rawSession(t *testing.T, url string) string {
	t.Helper()
	sid := rawPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if sid == "" {
		t.Fatal("no session id")
	}
	rawPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

func rawPost(t *testing.T, url, sid, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("POST %s: %s %s", body, resp.Status, buf.String())
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// TestSubscribeAccess: a caller cannot subscribe to a resource it may not
// see (by a template rule here): the answer is the one for an unknown
// resource, nothing is subscribed upstream, and no update of it reaches
// the caller, whether it subscribes on the shared session, on one bound to
// it, or with a listen stream.
func TestSubscribeAccess(t *testing.T) {
	const uri, unknown = "mem://alpha/k", "mem://nowhere/k"
	alpha := newUpstreamServer("alpha", nil)
	addTouch(alpha)
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125,
		Access: []gateway.Rule{{Upstream: "alpha", Names: []string{"mem://alpha/{key}"}, Principals: []string{"alice"}}}},
		map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	updates := map[string]chan string{}
	connect := func(who string, opts *mcp.ClientOptions) *mcp.ClientSession {
		ch := make(chan string, 16)
		updates[who] = ch
		opts.ResourceUpdatedHandler = func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) { ch <- p.URI }
		cs, _, _ := pipeDown(t, g, mcp.Version20251125, opts, &mcp.SessionOptions{Principal: who})
		return cs
	}
	alice := connect("alice", &mcp.ClientOptions{})
	bob := connect("bob", &mcp.ClientOptions{})
	bobAsked := connect("bob-asked", (&caller{name: "bob"}).options()) // calls over a bound session

	if err := alice.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice's subscription reaches the upstream", func() bool { return upstreamSubs(alpha, uri) == 1 })
	for _, cs := range []*mcp.ClientSession{bob, bobAsked} {
		errHidden := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		errUnknown := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: unknown})
		if (errHidden == nil) != (errUnknown == nil) {
			t.Errorf("subscribe to a hidden resource: %v; to an unknown one: %v", errHidden, errUnknown)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mem://alpha/bobs"}); err != nil {
			t.Fatal(err)
		}
	}
	// A visible subscription after the hidden ones: once it is upstream,
	// the hidden ones would be too.
	if err := alice.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///shared.txt"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice's second subscription reaches the upstream", func() bool { return upstreamSubs(alpha, "file:///shared.txt") == 1 })
	if n := upstreamSubs(alpha, "mem://alpha/bobs"); n != 0 {
		t.Errorf("a resource bob may not see is subscribed on %d upstream sessions", n)
	}
	if n := upstreamSubs(alpha, uri); n != 1 {
		t.Errorf("%s is subscribed on %d upstream sessions, want alice's shared one", uri, n)
	}
	// The upstream changes the resource for every session subscribed,
	// and for bob's bound session alone.
	alpha.ResourceUpdated(ctx, uri)
	if res, err := call(ctx, bobAsked, "alpha_touch", uri); err != nil || text(t, res) != "not subscribed on this session" {
		t.Errorf("touch on bob's bound session: %v %+v", err, res)
	}
	select {
	case got := <-updates["alice"]:
		if got != uri {
			t.Errorf("alice: update of %q", got)
		}
	case <-ctx.Done():
		t.Fatal("alice's update never came")
	}
	select {
	case got := <-updates["bob"]:
		t.Errorf("bob heard of %q", got)
	case got := <-updates["bob-asked"]:
		t.Errorf("bob (bound) heard of %q", got)
	case <-time.After(200 * time.Millisecond):
	}

	// At 2026-07-28, the listen acknowledgement leaves out what the caller
	// may not see as it leaves out what does not exist.
	// (The principal of a 2026-07-28 request comes from its transport.)
	h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-Who") }})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer func() { _ = h.Close() }()
	for who, want := range map[string][]string{"alice": {uri}, "bob": nil} {
		c := mcp.NewClient(&mcp.Implementation{Name: who, Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion})
		acks := ackHook(c)
		cs, err := c.Connect(ctx, mcphttp.NewClientStream(srv.URL, &mcphttp.ClientOptions{Header: http.Header{"X-Who": {who}}}))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		acked, stop := listening(t, cs, acks, uri, unknown)
		stop()
		if !slices.Equal(acked, want) {
			t.Errorf("%s's listen acknowledged %v, want %v", who, acked, want)
		}
	}
}

// TestListenUpdateFromCallingSession: a 2026-07-28 client that can be
// asked something calls a stateful (2025-11-25) upstream over one-call
// sessions, and subscribes with its listen stream; the upstream tells of a
// change only the session whose call made it. The update reaches the
// listen stream, and once the stream is closed the one-call sessions are
// no longer subscribed.
func TestListenUpdateFromCallingSession(t *testing.T) {
	const uri = "mem://alpha/k"
	alpha := newUpstreamServer("alpha", nil)
	addTouch(alpha)
	g := startGateway(t, config("alpha"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
		map[string]*mcp.Server{"alpha": alpha})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, acks, updates := connectListener(t, g, (&caller{name: "asked"}).options(), nil)
	_, stop := listening(t, cs, acks, uri)
	res, err := call(ctx, cs, "touch", uri)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	if got := text(t, res); got != "touched" {
		stop()
		t.Fatalf("touch: %q, want the calling session subscribed", got)
	}
	select {
	case got := <-updates:
		if got != uri {
			t.Errorf("update of %q", got)
		}
	case <-ctx.Done():
		t.Error("the update never reached the listen stream")
	}
	stop()
	waitFor(t, "the shared session is unsubscribed", func() bool { return upstreamSubs(alpha, uri) <= 1 })
	if res, err := call(ctx, cs, "touch", uri); err != nil || text(t, res) != "not subscribed on this session" {
		t.Errorf("after the listen stream closed: %v %+v", err, res)
	}
}

// TestElicitationComplete: an upstream's notifications/elicitation/complete
// reaches the client whose URL-mode elicitation it completes, with its
// elicitationId, and no other: for an elicitation/create in URL mode, and
// for the elicitations of a URLElicitationRequired error.
func TestElicitationComplete(t *testing.T) {
	alpha := newUpstreamServer("alpha", nil)
	complete := func(ctx context.Context, req *mcp.CallToolRequest, id string) error {
		ss, ok := req.Session()
		if !ok {
			return nil
		}
		return ss.Notify(ctx, mcp.NotificationElicitationComplete, &mcp.ElicitationCompleteNotificationParams{ElicitationID: id})
	}
	mcp.AddTool(alpha, &mcp.Tool{Name: "urlelicit"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, ElicitationID: in.Text,
			URL: "https://example.com/" + in.Text, Message: "sign in"}); err != nil {
			return "", err
		}
		return "done", complete(ctx, req, in.Text)
	})
	mcp.AddTool(alpha, &mcp.Tool{Name: "needurl"}, func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (string, error) {
		return "", jsonrpc.NewError(mcp.CodeURLElicitationRequired, "sign in first").WithData(mcp.URLElicitationRequiredData{
			Elicitations: []*mcp.ElicitParams{{Mode: mcp.ElicitModeURL, ElicitationID: in.Text, URL: "https://example.com/" + in.Text, Message: "sign in"}}})
	})
	mcp.AddTool(alpha, &mcp.Tool{Name: "finish"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		return "finished", complete(ctx, req, in.Text)
	})
	for _, shared := range []bool{false, true} {
		name := "bound"
		if shared {
			name = "shared"
		}
		t.Run(name, func(t *testing.T) {
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125},
				map[string]*mcp.Server{"alpha": alpha, "beta": newUpstreamServer("beta", nil)})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var mu sync.Mutex
			heard := map[string][]string{}
			connect := func(who string) *mcp.ClientSession {
				o := &mcp.ClientOptions{ElicitationURL: true,
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
					},
					ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteNotificationParams) {
						mu.Lock()
						heard[who] = append(heard[who], p.ElicitationID)
						mu.Unlock()
					}}
				if shared { // a client that can answer nothing calls over the shared session
					o.ElicitationHandler = nil
				}
				cs, _, _ := pipeDown(t, g, mcp.Version20251125, o, nil)
				return cs
			}
			ann, bob := connect("ann"), connect("bob")
			_ = bob
			want := []string{"el-2"}
			if !shared {
				want = []string{"el-1", "el-2"}
				if res, err := call(ctx, ann, "alpha_urlelicit", "el-1"); err != nil || text(t, res) != "done" {
					t.Fatalf("urlelicit: %v %+v", err, res)
				}
			}
			if _, err := call(ctx, ann, "alpha_needurl", "el-2"); err == nil {
				t.Fatal("needurl: no error")
			}
			if _, err := call(ctx, ann, "alpha_finish", "el-2"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "ann heard every completion", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(heard["ann"]) == len(want)
			})
			time.Sleep(100 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(heard["ann"], want) || len(heard["bob"]) != 0 {
				t.Errorf("heard %v, want ann %v and bob nothing", heard, want)
			}
		})
	}
}
