package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/replicas"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestGatewayReplicas runs three mcp gateway --redis replicas behind a
// round-robin proxy, in front of one stateful (2025-11-25) upstream whose
// tools ask the client to sample, report a resource updated, and run as a
// task. A 2025-11-25 client that declared sampling (so its calls go over
// upstream sessions bound to it, one per replica it reaches) and a
// 2026-07-28 one call through the proxy: every call lands on some replica
// and its question reaches its client, the 2025-11-25 client's
// subscription delivers updates before and after its stream moves to
// another replica, and a task started through one replica is read and
// finished through others.
func TestGatewayReplicas(t *testing.T) {
	redisURL := replicas.StartRedis(t, false).URL()
	up, counts := startStatefulUpstream(t)
	cfg := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"mcpServers": {"up": {"url": %q}}}`, up), 0o600); err != nil {
		t.Fatal(err)
	}
	var targets []*url.URL
	var stops []func()
	for range 3 {
		addr, stop := startGatewayReplica(t, cfg, redisURL)
		u, err := url.Parse(strings.TrimSuffix(addr, "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, u)
		stops = append(stops, stop)
	}
	// The gateway speaks 2025-11-25 to the upstream: its sessions are
	// stateful, so the sampling client's calls go over bound ones.
	code, body := getProbe(t, targets[0].String(), "/readyz")
	if code != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("/readyz %d %s", code, body)
	}
	p := replicas.NewProxy(targets)
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)

	t.Run("2025-11-25", func(t *testing.T) { replicasStateful(t, p, proxy.URL+"/mcp", &counts.subscribes) })
	t.Run("2026-07-28", func(t *testing.T) { replicasStateless(t, proxy.URL+"/mcp") })
	t.Run("drain", func(t *testing.T) {
		replicasDrain(t, targets[0].String(), stops[0], proxy.URL+"/mcp", &counts.sleeping)
	})
}

// replicasDrain stops replica 0 as SIGTERM does while it serves a call:
// the call is answered, its readiness fails at once, and the client's
// next calls go on through the others (a request the draining replica
// refuses with 503 and Retry-After is sent again, and reaches another).
func replicasDrain(t *testing.T, base string, stop func(), endpoint string, sleeping *atomic.Int32) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := &replicaRecorder{base: http.DefaultTransport}
	cs := connectReplicaClient(t, ctx, endpoint, mcp.Version20251125, rec, make(chan string, 64))
	for i := range 3 {
		askThrough(t, ctx, cs, i)
	}
	// Three calls at once, one per replica, each in flight upstream when
	// replica 0 is told to stop.
	var calls sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		calls.Add(1)
		go func() {
			defer calls.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{}`)})
			if err == nil && toolText(res) != "slept" {
				err = fmt.Errorf("sleep: %+v", res)
			}
			errs <- err
		}()
	}
	for sleeping.Load() < 3 {
		if ctx.Err() != nil {
			t.Fatal("the sleep calls did not reach the upstream")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		stop()
	}()
	hc := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(5 * time.Second); ; {
		resp, err := hc.Get(base + "/readyz")
		if err != nil {
			break // drained and gone
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz of the draining replica still answers %d", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := 3; i < 9; i++ {
		askThrough(t, ctx, cs, i)
	}
	calls.Wait()
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("a call in flight during the drain: %v", err)
		}
	}
	if rec.count("tools/call", 0) == 0 {
		t.Error("no call reached replica 0")
	}
	<-stopped
	for i := 9; i < 12; i++ {
		askThrough(t, ctx, cs, i)
	}
}

// replicasStateful drives the 2025-11-25 client. Its calls and its
// subscription go through replicas 0 and 1, then its GET stream moves to
// replica 2, which has no upstream session bound to it: the updates its
// bound sessions on 0 and 1 hear must still reach it there.
func replicasStateful(t *testing.T, p *replicas.Proxy, endpoint string, subscribes *atomic.Int32) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := &replicaRecorder{base: http.DefaultTransport}
	updates := make(chan string, 64)
	only := func(reps ...int) {
		for i := range 3 {
			p.SetDown(i, !slices.Contains(reps, i))
		}
	}
	only(0, 1)
	defer only(0, 1, 2)
	cs := connectReplicaClient(t, ctx, endpoint, mcp.Version20251125, rec, updates)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "res://counter"}); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if i%2 == 1 { // each call is two requests (the call, the answer to its question): shift the turn
			if err := cs.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		}
		askThrough(t, ctx, cs, i)
	}
	if got := rec.distinct("tools/call"); got != 2 {
		t.Errorf("the calls reached %d replica(s); want them spread over replicas 0 and 1", got)
	}
	// The session bound on each replica is subscribed to what the client
	// subscribed to, through whichever replica it did.
	if got := subscribes.Load(); got != 2 {
		t.Errorf("the upstream got %d resources/subscribe; want one per replica bound to the client (2)", got)
	}
	touchUntilUpdated(t, ctx, cs, updates)
	only(2)
	moveStream(t, ctx, rec, 2)
	only(0, 1)
	touchUntilUpdated(t, ctx, cs, updates)
	if rec.count("tools/call", 2) != 0 {
		t.Fatal("a call reached replica 2")
	}
	only(0, 1, 2)
	for i := 6; i < 12; i++ { // the questions still come, through every replica
		if i%3 == 0 {
			if err := cs.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		}
		askThrough(t, ctx, cs, i)
	}
	if got := rec.distinct("tools/call"); got != 3 {
		t.Errorf("the calls reached %d replica(s), want 3", got)
	}
	if got := subscribes.Load(); got != 3 {
		t.Errorf("the upstream got %d resources/subscribe; want 3", got)
	}
	taskAcrossReplicas(t, ctx, cs, rec)
}

// replicasStateless drives the 2026-07-28 client: its questions come as
// input-required rounds, retried wherever the proxy sends them.
func replicasStateless(t *testing.T, endpoint string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := &replicaRecorder{base: http.DefaultTransport}
	updates := make(chan string, 64)
	cs := connectReplicaClient(t, ctx, endpoint, mcp.LatestVersion, rec, updates)
	if v := cs.ProtocolVersion(); v != mcp.LatestVersion {
		t.Fatalf("negotiated %s", v)
	}
	for i := range 4 {
		askThrough(t, ctx, cs, i)
	}
	if got := rec.distinct("tools/call"); got < 2 {
		t.Errorf("the calls reached %d replica(s); want them spread over several", got)
	}
	lctx, stop := context.WithCancel(ctx)
	listened := make(chan error, 1)
	go func() {
		listened <- cs.Listen(lctx, &mcp.SubscriptionFilter{ResourceSubscriptions: []string{"res://counter"}})
	}()
	touchUntilUpdated(t, ctx, cs, updates)
	stop()
	<-listened
	taskAcrossReplicas(t, ctx, cs, rec)
}

// connectReplicaClient connects a client at version through the proxy,
// answering sampling with "answer-" and the question's text.
func connectReplicaClient(t *testing.T, ctx context.Context, endpoint, version string, rec *replicaRecorder, updates chan<- string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{
		ProtocolVersion: version,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			q := req.Params.Messages[0].Content[0].(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test",
				Content: []mcp.Content{mcp.NewTextContent("answer-" + q)}}, nil
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			select {
			case updates <- p.URI:
			default:
			}
		},
	}
	stream := mcphttp.NewClientStream(endpoint, &mcphttp.ClientOptions{HTTPClient: &http.Client{Transport: rec}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "replica-client", Version: "1"}, opts).Connect(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// askThrough calls the upstream's sampling tool and checks that the
// question reached this client.
func askThrough(t *testing.T, ctx context.Context, cs *mcp.ClientSession, i int) {
	t.Helper()
	q := fmt.Sprintf("q%d", i)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(fmt.Sprintf(`{"text": %q}`, q))})
	if err != nil {
		t.Fatalf("ask %s: %v", q, err)
	}
	if got, want := toolText(res), "sampled:answer-"+q; got != want || res.IsError {
		t.Fatalf("ask %s: %q (isError %v), want %q", q, got, res.IsError, want)
	}
}

// touchUntilUpdated has the upstream report res://counter updated until
// the client hears of it (a subscription made through one replica may
// take a moment to reach the upstream), then drains what else came (an
// update may arrive once per replica whose upstream session is subscribed).
func touchUntilUpdated(t *testing.T, ctx context.Context, cs *mcp.ClientSession, updates <-chan string) {
	t.Helper()
	for len(updates) > 0 {
		<-updates
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch", Arguments: json.RawMessage(`{}`)}); err != nil {
			t.Fatalf("touch: %v", err)
		}
		select {
		case uri := <-updates:
			if uri != "res://counter" {
				t.Fatalf("update of %q", uri)
			}
			time.Sleep(100 * time.Millisecond)
			for len(updates) > 0 {
				<-updates
			}
			return
		case <-time.After(time.Second):
		}
	}
	t.Fatal("no notifications/resources/updated reached the client")
}

// moveStream cuts the client's GET stream until it resumes on replica to
// (the proxy sends it nowhere else).
func moveStream(t *testing.T, ctx context.Context, rec *replicaRecorder, to int) {
	t.Helper()
	if rec.lastGET() < 0 {
		t.Fatal("the client opened no GET stream")
	}
	for range 10 {
		n := rec.getCount()
		rec.cut()
		for rec.getCount() == n {
			if ctx.Err() != nil {
				t.Fatal("the client did not resume its GET stream")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if rec.lastGET() == to {
			return
		}
	}
	t.Fatalf("the GET stream stayed on replica %d", rec.lastGET())
}

// taskAcrossReplicas starts the upstream's task tool as a task, reads it
// through other replicas than the one that started it, and waits for its
// result.
func taskAcrossReplicas(t *testing.T, ctx context.Context, cs *mcp.ClientSession, rec *replicaRecorder) {
	t.Helper()
	tc, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "slow", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc.Task == nil {
		t.Fatalf("the call is no task: %+v", tc.Result)
	}
	started := rec.last("tools/call")
	for range 3 {
		if _, err := tasks.Get(ctx, cs, tc.Task.TaskID); err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
	}
	res, err := tc.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(res); got != "slow done" {
		t.Errorf("task result %q", got)
	}
	if !rec.servedElsewhere("tasks/get", started) {
		t.Errorf("every tasks/get reached replica %d, which started the task", started)
	}
}

func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// replicaRecorder is the client's HTTP transport: it records which replica
// (the proxy's X-Replica) answered each JSON-RPC method, and keeps the
// bodies of the GET streams so that a test can cut them.
type replicaRecorder struct {
	base http.RoundTripper

	mu      sync.Mutex
	methods map[string][]int
	gets    []int
	bodies  []io.Closer
}

func (r *replicaRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var method string
	if req.Method == http.MethodPost && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		method = m.Method
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	rep, perr := strconv.Atoi(resp.Header.Get("X-Replica"))
	if perr != nil {
		return resp, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case req.Method == http.MethodGet && resp.StatusCode == http.StatusOK:
		r.gets = append(r.gets, rep)
		r.bodies = append(r.bodies, resp.Body)
	case method != "":
		if r.methods == nil {
			r.methods = map[string][]int{}
		}
		r.methods[method] = append(r.methods[method], rep)
	}
	return resp, nil
}

// distinct counts the replicas that answered method.
func (r *replicaRecorder) distinct(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[int]bool{}
	for _, i := range r.methods[method] {
		seen[i] = true
	}
	return len(seen)
}

// count counts the requests of method replica rep answered.
func (r *replicaRecorder) count(method string, rep int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, i := range r.methods[method] {
		if i == rep {
			n++
		}
	}
	return n
}

// last returns the replica that answered method last, or -1.
func (r *replicaRecorder) last(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.methods[method]; len(l) > 0 {
		return l[len(l)-1]
	}
	return -1
}

// servedElsewhere reports whether some request of method was answered by
// another replica than not.
func (r *replicaRecorder) servedElsewhere(method string, not int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range r.methods[method] {
		if i != not {
			return true
		}
	}
	return false
}

func (r *replicaRecorder) lastGET() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.gets) == 0 {
		return -1
	}
	return r.gets[len(r.gets)-1]
}

func (r *replicaRecorder) getCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.gets)
}

// cut closes the GET streams: the client resumes with Last-Event-ID.
func (r *replicaRecorder) cut() {
	r.mu.Lock()
	bodies := r.bodies
	r.bodies = nil
	r.mu.Unlock()
	for _, b := range bodies {
		b.Close()
	}
}

// startStatefulUpstream serves the upstream of TestGatewayReplicas over
// Streamable HTTP as a 2025-11-25 server (it answers the 2026-07-28 probe,
// server/discover, as such a server does: method not found), so that the
// gateway binds upstream sessions to the clients that can be asked
// something. Its tools: ask (sampling), touch (res://counter updated),
// slow (a task), sleep (half a second).
func startStatefulUpstream(t *testing.T) (string, *upstreamCounts) {
	t.Helper()
	counts := &upstreamCounts{}
	sleeping := &counts.sleeping
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	type textIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
		res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent(in.Text)}}}})
		if err != nil {
			return "", err
		}
		return "sampled:" + res.Content[0].(*mcp.TextContent).Text, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "touch"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		s.ResourceUpdated(ctx, "res://counter")
		return "touched", nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		sleeping.Add(1)
		defer sleeping.Add(-1)
		select {
		case <-time.After(500 * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	_ = s.AddResource(&mcp.Resource{URI: "res://counter", Name: "counter"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: req.Params.URI, Text: "1"}}}, nil
		})
	m, err := tasks.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = m.AddTool(&mcp.Tool{Name: "slow"}, mcp.TaskSupportOptional,
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("slow done")}}, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(b, &m) == nil && m.Method == mcp.MethodServerDiscover {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		_ = h.Close()
		_ = m.Close()
	})
	hooks.AddReceivingMiddleware(s, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == "resources/subscribe" {
				counts.subscribes.Add(1)
			}
			return next(ctx, r)
		}
	})
	return ts.URL + "/mcp", counts
}

// upstreamCounts is what the upstream of TestGatewayReplicas counts.
type upstreamCounts struct {
	sleeping   atomic.Int32 // calls of sleep in flight
	subscribes atomic.Int32 // resources/subscribe received
}

// startGatewayReplica runs mcp gateway --http --redis in this process
// and returns its URL, and a function that stops it as SIGTERM does (it
// drains) and waits for it; the test's end does that too.
func startGatewayReplica(t *testing.T, cfg, redisURL string) (string, func()) {
	t.Helper()
	return mcpServe(t, "gateway", "--http", "127.0.0.1:0", "--redis", redisURL, "--drain-timeout", "2s", cfg)
}
