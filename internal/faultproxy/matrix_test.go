package faultproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/internal/faultproxy"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// The client fault matrix: long-lived client sessions, through the proxy,
// meet every fault in turn. They are the ones the issue that asked for it
// described: a 2025-11-25 session with its GET stream and a 2026-07-28
// session with its listen stream, both calling in a loop (one tool
// answered as JSON, one as SSE, each call with a deadline), and an idle
// 2025-11-25 session that only listens for a resource's updates. Checked:
// no call outlives its deadline (plus slack), every failure is typed,
// every session recovers (calls and notifications) within 5 s of the
// fault healing, and nothing leaks once the sessions are closed.

const (
	callDeadline = time.Second
	// deadlineSlack allows for scheduling under -race on a loaded machine.
	deadlineSlack = 500 * time.Millisecond
	faultTime     = 1200 * time.Millisecond
	recoverWithin = 5 * time.Second
)

// backend is one life of the server behind the proxy.
type backend struct {
	srv *mcp.Server
	h   *mcphttp.Handler
	ts  *httptest.Server
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "fault-matrix", Version: "1.0.0"}, nil)
	yes := true
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Annotations: &mcp.ToolAnnotations{IdempotentHint: &yes}},
		func(_ context.Context, _ *mcp.CallToolRequest, in in) (string, error) { return in.Text, nil })
	// progress reports progress before answering: the answer is an SSE
	// stream, open for a while.
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Annotations: &mcp.ToolAnnotations{IdempotentHint: &yes}},
		func(ctx context.Context, req *mcp.CallToolRequest, in in) (string, error) {
			if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
				return "", err
			}
			// Long enough for a fault to catch the stream mid-way.
			select {
			case <-time.After(150 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return in.Text, nil
		})
	if err := s.AddResource(&mcp.Resource{URI: "test://watched", Name: "watched"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: "test://watched", Text: "x"}}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{KeepAliveInterval: 200 * time.Millisecond, RetryInterval: 50 * time.Millisecond})
	return &backend{srv: s, h: h, ts: httptest.NewServer(h)}
}

func (b *backend) close() {
	b.h.Close()
	b.ts.Close()
}

// session is one long-lived client session and what it received.
type session struct {
	name    string
	cs      *mcp.ClientSession
	changes atomic.Int64 // list_changed or resources/updated received
}

// server is one life of a server behind the proxy: its base URL (scheme
// and host), the path of its MCP endpoint, what makes it notify its
// clients (nil: nothing, then notifications are not checked), and how to
// stop it.
type server struct {
	base, path string
	change     func()
	stop       func()
}

// target is a server implementation the matrix runs against.
type target struct {
	start func(t *testing.T) *server
	// idle runs the idle session that only listens (for a resource's
	// updates): the server must offer resource subscriptions and change.
	idle bool
	// idleTimeout is the client's StreamIdleTimeout: longer than the
	// server's keep-alive interval, if it sends keep-alives.
	idleTimeout time.Duration
}

func startBackend(t *testing.T) *server {
	be := newBackend(t)
	return &server{base: be.ts.URL, path: "/mcp", stop: be.close, change: func() {
		be.srv.ResourceUpdated(context.Background(), "test://watched")
		mcp.AddTool(be.srv, &mcp.Tool{Name: fmt.Sprintf("t%d", time.Now().UnixNano())},
			func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
	}}
}

// runMatrix runs the sessions against tgt through the proxy, and injects
// every fault in turn, then a restart.
func runMatrix(t *testing.T, tgt target) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := tgt.start(t)
	proxy, err := faultproxy.New(srv.base)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	copts := &mcphttp.ClientOptions{
		HTTPClient:        &http.Client{Transport: tr},
		ReconnectDelay:    50 * time.Millisecond,
		MaxReconnectDelay: 500 * time.Millisecond,
		StreamIdleTimeout: tgt.idleTimeout,
	}
	url := proxy.URL() + srv.path
	stateful, stateless := &session{name: "2025-11-25"}, &session{name: "2026-07-28"}
	stateful.cs = connect(t, url, copts, mcp.LatestStatefulVersion, stateful, false)
	stateless.cs = connect(t, url, copts, mcp.LatestVersion, stateless, false)
	if !stateless.cs.Stateless() || stateful.cs.Stateless() {
		t.Fatalf("eras: %v %v", stateless.cs.Stateless(), stateful.cs.Stateless())
	}
	all := []*session{stateful, stateless}
	if tgt.idle {
		idle := &session{name: "idle 2025-11-25"}
		idle.cs = connect(t, url, copts, mcp.LatestStatefulVersion, idle, true)
		all = append(all, idle)
	}

	// The calling sessions call in a loop for the whole test.
	stop := make(chan struct{})
	var loops sync.WaitGroup
	var failures sync.Map // error text -> count, for the log
	for _, s := range []*session{stateful, stateless} {
		loops.Add(1)
		go func() {
			defer loops.Done()
			callLoop(t, s, stop, &failures)
		}()
	}

	faults := []faultproxy.Fault{
		faultproxy.ResetRequest, faultproxy.ResetStreams, faultproxy.Stall, faultproxy.TruncateSSE,
		faultproxy.BadGateway, faultproxy.Unavailable, faultproxy.GatewayTimeout, faultproxy.Refuse,
	}
	for _, f := range faults {
		if err := proxy.Set(f); err != nil {
			t.Fatal(err)
		}
		if f == faultproxy.Stall {
			time.Sleep(tgt.idleTimeout + time.Second) // the streams it caught must be noticed dead
		} else {
			time.Sleep(faultTime)
		}
		if err := proxy.Heal(); err != nil {
			t.Fatal(err)
		}
		checkRecovery(t, f.String(), srv.change, all)
	}
	// A restart that loses every session.
	old := srv
	srv = tgt.start(t)
	if err := proxy.SetUpstream(srv.base); err != nil {
		t.Fatal(err)
	}
	old.stop()
	checkRecovery(t, "restart", srv.change, all)

	close(stop)
	loops.Wait()
	failures.Range(func(k, v any) bool {
		t.Logf("failed %d times: %s", v.(*atomic.Int64).Load(), k)
		return true
	})
	for _, s := range all {
		select {
		case <-s.cs.Done():
			t.Errorf("%s: the session ended: %v", s.name, s.cs.Wait())
		default:
		}
		s.cs.Close()
	}
	srv.stop()
	proxy.Close()
	tr.CloseIdleConnections()
}

func connect(t *testing.T, url string, copts *mcphttp.ClientOptions, version string, s *session, idle bool) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{ProtocolVersion: version}
	if idle {
		opts.ResourceUpdatedHandler = func(context.Context, *mcp.ClientSession, *mcp.ResourceUpdatedNotificationParams) { s.changes.Add(1) }
	} else {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ClientSession) { s.changes.Add(1) }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: s.name, Version: "1"}, opts).Connect(ctx, mcphttp.NewClientStream(url, copts))
	if err != nil {
		t.Fatalf("%s: connect: %v", s.name, err)
	}
	if idle {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
			t.Fatalf("%s: subscribe: %v", s.name, err)
		}
	} else if _, err := cs.ListTools(ctx, nil); err != nil { // learns the annotations
		t.Fatalf("%s: list tools: %v", s.name, err)
	}
	return cs
}

// call calls a tool with the matrix's deadline, and checks that it ended
// by the deadline with a typed error or the right answer.
func call(t *testing.T, s *session, tool string) error {
	ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
	defer cancel()
	if tool == "progress" {
		ctx = mcp.WithProgress(ctx, func(*mcp.ProgressNotificationParams) {})
	}
	began := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{"text":"hi"}`)})
	if took := time.Since(began); took > callDeadline+deadlineSlack {
		t.Errorf("%s: %s took %v, past its deadline of %v: %v", s.name, tool, took, callDeadline, err)
	}
	var je *jsonrpc.Error
	switch {
	case err == nil:
		// echo answers its text; progress, at least something.
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || (tool == "echo" && tc.Text != "hi") || res.IsError {
			t.Errorf("%s: %s answered %+v", s.name, tool, res)
		}
	case errors.Is(err, jsonrpc.ErrNotSent), errors.Is(err, jsonrpc.ErrOutcomeUnknown), errors.As(err, &je):
	default:
		t.Errorf("%s: %s failed with an untyped error: %v", s.name, tool, err)
	}
	return err
}

func callLoop(t *testing.T, s *session, stop <-chan struct{}, failures *sync.Map) {
	for {
		for _, tool := range []string{"echo", "progress"} {
			select {
			case <-stop:
				return
			default:
			}
			if err := call(t, s, tool); err != nil {
				key := s.name + " " + tool + ": " + kind(err)
				n, _ := failures.LoadOrStore(key, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func kind(err error) string {
	switch {
	case errors.Is(err, jsonrpc.ErrNotSent):
		return "not sent: " + trim(err)
	case errors.Is(err, jsonrpc.ErrOutcomeUnknown):
		return "outcome unknown: " + trim(err)
	}
	return trim(err)
}

func trim(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i > 0 && len(s) > 80 {
		s = s[i+2:]
	}
	return s
}

// checkRecovery waits until every session works again after a fault
// healed: both tools answer on the calling sessions, and a change on the
// server reaches every session; all within recoverWithin.
func checkRecovery(t *testing.T, fault string, change func(), sessions []*session) {
	t.Helper()
	healed := time.Now()
	deadline := healed.Add(recoverWithin)
	var pending []string
	for _, s := range sessions {
		if s.name == "idle 2025-11-25" {
			continue
		}
		for _, tool := range []string{"echo", "progress"} {
			for {
				if err := call(t, s, tool); err == nil {
					break
				} else if time.Now().After(deadline) {
					pending = append(pending, fmt.Sprintf("%s %s: %v", s.name, tool, err))
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	// Notifications: a change on the server, made again until each
	// session has heard of one (one made while a stream was down may
	// be lost).
	if change == nil {
		report(t, fault, healed, pending)
		return
	}
	before := make([]int64, len(sessions))
	for i, s := range sessions {
		before[i] = s.changes.Load()
	}
	for {
		heard := true
		for i, s := range sessions {
			heard = heard && s.changes.Load() > before[i]
		}
		if heard {
			break
		}
		if time.Now().After(deadline) {
			for i, s := range sessions {
				if s.changes.Load() == before[i] {
					pending = append(pending, s.name+": no notification")
				}
			}
			break
		}
		change()
		time.Sleep(150 * time.Millisecond)
	}
	report(t, fault, healed, pending)
}

func report(t *testing.T, fault string, healed time.Time, pending []string) {
	t.Helper()
	if len(pending) > 0 {
		t.Errorf("after %s: not recovered within %v of healing: %s", fault, recoverWithin, strings.Join(pending, "; "))
	} else {
		t.Logf("after %s: recovered in %v", fault, time.Since(healed).Round(time.Millisecond))
	}
}
