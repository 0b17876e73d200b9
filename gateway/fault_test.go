package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// processUpstream is the test binary run as an upstream over stdio.
func processUpstream(name, mode string) *gateway.Upstream {
	return &gateway.Upstream{Command: os.Args[0], Args: []string{"-test.run=^$"},
		Env: map[string]string{upstreamEnv: mode, "GATEWAY_TEST_NAME": name}}
}

// echoWorks calls alpha_echo n times and fails the test if one fails or
// is slow.
func echoWorks(t *testing.T, cs *mcp.ClientSession, n int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := call(ctx, cs, "alpha_echo", "x")
		cancel()
		if err != nil || res.IsError || text(t, res) != "alpha:x" {
			t.Fatalf("alpha_echo %d while another upstream fails: %v %+v", i, err, res)
		}
	}
}

func statusOf(g *gateway.Gateway, name string) gateway.UpstreamStatus {
	for _, s := range g.Status() {
		if s.Name == name {
			return s
		}
	}
	return gateway.UpstreamStatus{}
}

// TestUpstreamKilled: an upstream process killed mid-call fails that call
// at once; the other upstream keeps working; the dead one is restarted by
// itself and its tools come back.
func TestUpstreamKilled(t *testing.T) {
	cfg := config("alpha")
	cfg.Servers["proc"] = processUpstream("proc", "serve")
	cfg.Servers["proc"].Timeout = 30 * time.Second
	g := startGateway(t, cfg, &gateway.Options{Stderr: io.Discard, ProtocolVersion: mcp.Version20251125,
		Backoff: gateway.Backoff{Min: 50 * time.Millisecond, Max: 400 * time.Millisecond}},
		map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil)})
	if st := statusOf(g, "proc"); st.State != gateway.StateUp {
		t.Fatalf("proc: %+v", st)
	}
	changed := make(chan struct{}, 64)
	cs := connectDown(t, g, mcp.Version20251125, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pid := procPID(t, ctx, cs)

	callErr := make(chan error, 1)
	go func() {
		res, err := call(ctx, cs, "proc_wait", "w")
		if err == nil && res.IsError {
			err = errors.New(text(t, res))
		}
		callErr <- err
	}()
	time.Sleep(200 * time.Millisecond) // the call is upstream
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-callErr:
		if err == nil {
			t.Fatal("the call to the killed upstream succeeded")
		}
		if d := time.Since(killed); d > 3*time.Second {
			t.Errorf("the call failed only after %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call to the killed upstream still waits")
	}
	echoWorks(t, cs, 5)

	for { // it comes back by itself, and its tools with it
		if st := statusOf(g, "proc"); st.State == gateway.StateUp && st.Restarts >= 1 &&
			slices.Contains(toolNames(t, ctx, cs), "proc_echo") {
			break
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("proc never came back: %+v", statusOf(g, "proc"))
		}
	}
	if again := procPID(t, ctx, cs); again == pid {
		t.Errorf("the same process %d answers", pid)
	}
}

func procPID(t *testing.T, ctx context.Context, cs *mcp.ClientSession) int {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "proc_pid"})
	if err != nil || res.IsError {
		t.Fatalf("proc_pid: %v %+v", err, res)
	}
	var out struct {
		PID int `json:"result"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out.PID == 0 {
		t.Fatalf("pid %s: %v", res.StructuredContent, err)
	}
	return out.PID
}

// TestUpstreamHangs: a call to an upstream that never answers fails after
// the upstream's timeout, and one that never even completes the handshake
// is reported down; the other upstream is not affected.
func TestUpstreamHangs(t *testing.T) {
	cfg := config("alpha", "slow", "mute")
	cfg.Servers["slow"].Timeout = 300 * time.Millisecond
	servers := map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "slow": newUpstreamServer("slow", nil)}
	var mu sync.Mutex
	var mutes []jsonrpc.Stream
	p := &inProcess{servers: servers}
	dial := func(ctx context.Context, name string, u *gateway.Upstream) (jsonrpc.Stream, error) {
		if name != "mute" {
			return p.dial(ctx, name, u)
		}
		a, b := transport.Pipe() // nobody reads b: the upstream never answers
		mu.Lock()
		mutes = append(mutes, b)
		mu.Unlock()
		return a, nil
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range mutes {
			_ = b.Close()
		}
	})
	g := startGateway(t, cfg, &gateway.Options{Dial: dial, StartTimeout: 500 * time.Millisecond,
		Backoff: gateway.Backoff{Min: time.Second, Max: time.Second}}, servers)
	if st := statusOf(g, "mute"); st.State != gateway.StateDown || st.Error == "" {
		t.Errorf("mute: %+v", st)
	}
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := call(ctx, cs, "slow_wait", "w")
	if err == nil && !res.IsError {
		t.Fatal("the call to the hung upstream succeeded")
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else {
		msg = text(t, res)
	}
	if d := time.Since(start); d > 3*time.Second || !strings.Contains(msg, "did not answer") {
		t.Errorf("after %v: %q", d, msg)
	}
	echoWorks(t, cs, 5)
	if slices.ContainsFunc(toolNames(t, ctx, cs), func(n string) bool { return strings.HasPrefix(n, "mute_") }) {
		t.Error("a down upstream's tools are listed")
	}
}

// TestCallTimeoutsStaggered: calls to an upstream that never answers,
// started one after another, each fail at the upstream's timeout counted
// from its own start (the upstream's one deadline sweep re-arms for the
// next call, and again for a call started once all have ended), and each
// is cancelled upstream; the other upstream is not affected.
func TestCallTimeoutsStaggered(t *testing.T) {
	const timeout = 400 * time.Millisecond
	pr := newProbe()
	cfg := config("alpha", "slow")
	cfg.Servers["slow"].Timeout = timeout
	servers := map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "slow": newUpstreamServer("slow", pr)}
	g := startGateway(t, cfg, nil, servers)
	cs := connectDown(t, g, mcp.Version20251125, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	timesOut := func(arg string) error {
		start := time.Now()
		res, err := call(ctx, cs, "slow_wait", arg)
		d := time.Since(start)
		switch {
		case err == nil && !res.IsError:
			return fmt.Errorf("%s: the call to the hung upstream succeeded", arg)
		case err == nil:
			err = errors.New(text(t, res))
		}
		if !strings.Contains(err.Error(), "did not answer within "+timeout.String()) {
			return fmt.Errorf("%s: after %v: %v", arg, d, err)
		}
		if d < timeout || d > timeout+2*time.Second {
			return fmt.Errorf("%s: timed out after %v, want %v", arg, d, timeout)
		}
		return nil
	}
	errs := make(chan error, 4)
	for i := range 4 {
		go func() { errs <- timesOut(fmt.Sprint("w", i)) }()
		time.Sleep(timeout / 3) // each call's deadline falls between two others'
	}
	echoWorks(t, cs, 3)
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := timesOut("again"); err != nil {
		t.Error(err)
	}
	got := map[string]bool{}
	for len(got) < 5 {
		select {
		case arg := <-pr.cancelled:
			got[arg] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("cancelled upstream: %v, want w0 to w3 and again", got)
		}
	}
}

// TestUpstreamFloods: an upstream that sends notifications without end
// leaves the other upstream's calls working.
func TestUpstreamFloods(t *testing.T) {
	noisy := newUpstreamServer("noisy", nil)
	servers := map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "noisy": noisy}
	g := startGateway(t, config("alpha", "noisy"), &gateway.Options{ProtocolVersion: mcp.Version20251125}, servers)
	cs := connectDown(t, g, mcp.Version20251125, nil)
	if err := cs.SetLoggingLevel(context.Background(), mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, ss := range noisy.Sessions() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := json.RawMessage(`"` + strings.Repeat("x", 512) + `"`)
			for ctx.Err() == nil {
				_ = ss.Log(ctx, &mcp.LoggingMessageNotificationParams{Level: mcp.LevelInfo, Data: data})
				_ = ss.Notify(ctx, "notifications/tools/list_changed", nil)
				_ = ss.Notify(ctx, "notifications/progress", map[string]any{"progressToken": 42, "progress": 1})
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	echoWorks(t, cs, 50)
	cancel()
	wg.Wait()
}

// TestUpstreamGarbage: an upstream process that writes lines that are not
// JSON-RPC (and answers to nothing it asked) leaves the other upstream's
// calls working, and its own calls end.
func TestUpstreamGarbage(t *testing.T) {
	cfg := config("alpha")
	cfg.Servers["junk"] = processUpstream("junk", "garbage")
	cfg.Servers["junk"].Timeout = 2 * time.Second
	g := startGateway(t, cfg, &gateway.Options{Stderr: io.Discard, StartTimeout: 5 * time.Second},
		map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil)})
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	echoWorks(t, cs, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t.Logf("junk: %+v", statusOf(g, "junk"))
	if statusOf(g, "junk").State == gateway.StateUp {
		res, err := call(ctx, cs, "junk_echo", "x")
		if ctx.Err() != nil {
			t.Fatalf("junk_echo hung: %v", err)
		}
		if err != nil || text(t, res) != "junk:x" {
			t.Errorf("junk_echo between the garbage: %v %+v", err, res)
		}
	}
	echoWorks(t, cs, 20)
}

// TestConcurrencyLimit: no more calls are in flight to an upstream than
// its MaxConcurrency; the others wait for a slot.
func TestConcurrencyLimit(t *testing.T) {
	busy := newUpstreamServer("busy", nil)
	var now, peak atomic.Int32
	mcp.AddTool(busy, &mcp.Tool{Name: "work"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ textIn) (string, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		return "done", nil
	})
	cfg := config("alpha", "busy")
	cfg.Servers["busy"].MaxConcurrency = 2
	g := startGateway(t, cfg, nil, map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "busy": busy})
	cs := connectDown(t, g, mcp.Version20251125, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if res, err := call(ctx, cs, "busy_work", ""); err != nil || res.IsError {
				t.Errorf("busy_work: %v %+v", err, res)
			}
		}()
	}
	echoWorks(t, cs, 3)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("%d calls were in flight at once, want the limit, 2", p)
	}
}

// TestHealthPing: pinging keeps a healthy upstream up, at both eras (a
// ping the upstream refused would take it down).
func TestHealthPing(t *testing.T) {
	for _, upv := range []string{mcp.Version20251125, mcp.LatestVersion} {
		g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: upv, HealthInterval: 20 * time.Millisecond},
			twoUpstreams())
		time.Sleep(200 * time.Millisecond)
		for _, st := range g.Status() {
			if st.State != gateway.StateUp || st.Restarts != 0 {
				t.Errorf("%s: a healthy upstream after pings: %+v", upv, st)
			}
		}
	}
}

// TestUpstreamStopsAnswering: an HTTP upstream that stops answering is
// found out by its pings and taken down (its tools leave the list), and
// comes back once it answers again.
func TestUpstreamStopsAnswering(t *testing.T) {
	var hang atomic.Bool
	stop := make(chan struct{})
	inner := mcphttp.NewHandler(newUpstreamServer("web", nil), nil)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			_, _ = io.Copy(io.Discard, r.Body) // so that the client's going away is seen
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(web.Close)
	t.Cleanup(func() { close(stop); _ = inner.Close() })
	cfg := config("alpha")
	cfg.Servers["web"] = &gateway.Upstream{URL: web.URL, Timeout: 300 * time.Millisecond}
	g := startGateway(t, cfg, &gateway.Options{HealthInterval: 50 * time.Millisecond, StartTimeout: time.Second,
		Backoff: gateway.Backoff{Min: 50 * time.Millisecond, Max: 200 * time.Millisecond}},
		map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil)})
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				t.Fatalf("%s: %+v", what, statusOf(g, "web"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	listed := func() bool { return slices.Contains(toolNames(t, ctx, cs), "web_echo") }
	waitFor("web up", listed)
	hang.Store(true)
	waitFor("web taken down", func() bool { return statusOf(g, "web").State == gateway.StateDown && !listed() })
	echoWorks(t, cs, 3)
	hang.Store(false)
	waitFor("web back", func() bool { return statusOf(g, "web").State == gateway.StateUp && listed() })
	res, err := call(ctx, cs, "web_echo", "again")
	if err != nil || text(t, res) != "web:again" {
		t.Errorf("web_echo after it came back: %v", err)
	}
}
