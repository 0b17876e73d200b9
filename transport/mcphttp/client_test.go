package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

func callText(t *testing.T, cs *mcp.ClientSession, name, args string) string {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("CallTool %s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// progressLog collects the step numbers of the "progress" tool, from its
// progress notifications or its log messages.
type progressLog struct {
	mu  sync.Mutex
	got []float64
}

func (p *progressLog) add(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	p.got = append(p.got, n.Progress)
	p.mu.Unlock()
}

// log records the number a "progress" tool logs with each step.
func (p *progressLog) log(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageNotificationParams) {
	var n float64
	if json.Unmarshal(m.Data, &n) == nil {
		p.add(&mcp.ProgressNotificationParams{Progress: n})
	}
}

func (p *progressLog) snapshot() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.got)
}

// checkExactlyOnce waits for progress 1..n and checks each came once, in order.
func (p *progressLog) checkExactlyOnce(t *testing.T, n int) {
	t.Helper()
	eventually(t, "all progress notifications", func() bool { return len(p.snapshot()) >= n })
	time.Sleep(50 * time.Millisecond) // give duplicates a chance to show up
	got := p.snapshot()
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i + 1)
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress %v, want each of 1..%d exactly once, in order", got, n)
	}
}

func TestClientEndToEnd(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonMode), func(t *testing.T) {
			f := newFixture(t, &HandlerOptions{JSONResponse: jsonMode})
			var changed atomic.Int32
			var logs, progress progressLog
			cs, stream := f.connect(&mcp.ClientOptions{
				LoggingMessageHandler: logs.log,
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					in := req.Params.Messages[0].Content[0].(*mcp.TextContent).Text
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: []mcp.Content{mcp.NewTextContent("re: " + in)}}, nil
				},
				ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed.Add(1) },
			}, &ClientOptions{Header: http.Header{"X-Echo": {"from the client"}}})
			if stream.SessionID() == "" || stream.ProtocolVersion() != mcp.Version20251125 {
				t.Errorf("session %q, version %q", stream.SessionID(), stream.ProtocolVersion())
			}
			if got := callText(t, cs, "echo", `{"text":"hello"}`); got != "hello" {
				t.Errorf("echo: %q", got)
			}
			// The handler sees the HTTP request behind the message.
			if got := callText(t, cs, "header", `{"text":"X-Echo"}`); got != "from the client|POST|"+stream.SessionID() {
				t.Errorf("header: %q", got)
			}
			// Server requests reach the client: on the request's SSE stream,
			// or on the standalone stream in JSON mode.
			if got := callText(t, cs, "sample", `{"text":"hi"}`); got != "model said re: hi" {
				t.Errorf("sample: %q", got)
			}
			// Progress arrives on the request's stream (SSE mode) or the
			// standalone stream (JSON mode).
			pctx := mcp.WithProgress(ctx(t), progress.add)
			if _, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{"n":10}`)}); err != nil {
				t.Fatal(err)
			}
			logs.checkExactlyOnce(t, 10)
			// (The mcp client drops progress that it handles after the call
			// returned, so only check that none came twice.)
			if got := progress.snapshot(); !slices.IsSorted(got) || len(slices.Compact(got)) != len(got) {
				t.Errorf("progress %v", got)
			}
			// Unrelated notifications arrive on the standalone stream.
			f.srv.AddTool(&mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
			eventually(t, "tools/list_changed", func() bool { return changed.Load() > 0 })
			// Concurrent calls are routed to their own streams.
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					want := fmt.Sprintf("call %d", i)
					res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + want + `"}`)})
					if err != nil || res.Content[0].(*mcp.TextContent).Text != want {
						t.Errorf("concurrent call %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			// Close ends the session on the server (DELETE).
			cs.Close()
			eventually(t, "the session to end", func() bool { return f.h.SessionCount() == 0 })
		})
	}
}

// cutter wraps a handler and cuts the TCP connection of the response that
// is about to carry a message event whose number (counted over all
// responses, from 1) is in cuts; that event and those after it are then
// only in the server's event store.
type cutter struct {
	h     http.Handler
	match string // only events containing this count
	mu    sync.Mutex
	n     int
	cuts  map[int]bool
	cut   int // connections cut
}

func (c *cutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.h.ServeHTTP(&cutWriter{ResponseWriter: w, c: c, r: r}, r)
}

type cutWriter struct {
	http.ResponseWriter
	c    *cutter
	r    *http.Request
	dead bool
}

func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.dead {
		return 0, errors.New("connection cut")
	}
	if bytes.Contains(b, []byte("event: message")) && bytes.Contains(b, []byte(w.c.match)) {
		w.c.mu.Lock()
		w.c.n++
		cut := w.c.cuts[w.c.n]
		if cut {
			w.c.cut++
		}
		w.c.mu.Unlock()
		if cut {
			w.dead = true
			_ = connOf(w.r).Close()
			return 0, errors.New("connection cut")
		}
	}
	return w.ResponseWriter.Write(b)
}

func TestClientResumesAfterConnectionCut(t *testing.T) {
	srv := testServer()
	h := NewHandler(srv, &HandlerOptions{RetryInterval: 20 * time.Millisecond})
	t.Cleanup(func() { h.Close() })
	cut := &cutter{h: h, match: `progress`, cuts: map[int]bool{4: true, 9: true, 15: true, 21: true}}
	ts := newCuttingServer(t, cut)
	var p progressLog
	cs, _ := connectTo(t, ts, ts.URL, &mcp.ClientOptions{LoggingMessageHandler: p.log}, nil)
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{"n":20}`)})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("CallTool: %v %+v", err, res.Content[0])
	}
	p.checkExactlyOnce(t, 20)
	cut.mu.Lock()
	defer cut.mu.Unlock()
	if cut.cut < 3 {
		t.Errorf("%d connections cut, want 3 or more (replayed events count too)", cut.cut)
	}
}

func TestClientResumesAfterServerClosesStream(t *testing.T) {
	// The server closes the POST stream after 5 events (SEP-1699 polling);
	// the client waits the retry interval and resumes with GET.
	f := newFixture(t, &HandlerOptions{RetryInterval: 200 * time.Millisecond})
	var p progressLog
	cs, _ := f.connect(&mcp.ClientOptions{LoggingMessageHandler: p.log}, nil)
	start := time.Now()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{"n":20,"closeAfter":5}`)})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("the client came back after %v, before the retry interval", d)
	}
	p.checkExactlyOnce(t, 20)
}

func TestClientReinitializesAfterRestart(t *testing.T) {
	srv := testServer()
	var cur atomic.Pointer[Handler]
	h1 := NewHandler(srv, nil)
	cur.Store(h1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cur.Load().ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { cur.Load().Close() })
	var logs atomic.Int32
	cs, stream := connectTo(t, ts, ts.URL, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) { logs.Add(1) },
	}, nil)
	if got := callText(t, cs, "echo", `{"text":"before"}`); got != "before" {
		t.Fatal(got)
	}
	sid1 := stream.SessionID()
	// "Restart": a new handler (no sessions) on the same address.
	h1.Close()
	h2 := NewHandler(srv, nil)
	cur.Store(h2)
	if got := callText(t, cs, "echo", `{"text":"after"}`); got != "after" {
		t.Fatal(got)
	}
	if sid2 := stream.SessionID(); sid2 == "" || sid2 == sid1 {
		t.Errorf("session id %q after re-initialization (was %q)", sid2, sid1)
	}
	if n := h2.SessionCount(); n != 1 {
		t.Errorf("new handler has %d sessions, want 1", n)
	}
	// The new session is complete: initialized, and its standalone stream
	// carries notifications.
	if ss := srv.Sessions(); len(ss) != 1 || ss[0].ClientInfo() == nil || ss[0].ClientInfo().Name != "mcphttp-test-client" {
		t.Fatalf("server sessions %v", ss)
	}
	eventually(t, "the standalone stream", func() bool {
		st := h2.lookup(stream.SessionID()).standalone
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.conn != nil
	})
	_ = srv.Sessions()[0].Log(ctx(t), &mcp.LoggingMessageNotificationParams{Level: mcp.LevelInfo, Data: json.RawMessage(`"hi"`)})
	eventually(t, "a log message on the new standalone stream", func() bool { return logs.Load() == 1 })
	// Concurrent calls that all hit the 404 share one re-initialization.
	h2.Close()
	h3 := NewHandler(srv, nil)
	cur.Store(h3)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			want := fmt.Sprint(i)
			if got := callText(t, cs, "echo", `{"text":"`+want+`"}`); got != want {
				t.Errorf("got %q", got)
			}
		})
	}
	wg.Wait()
	if n := h3.SessionCount(); n != 1 {
		t.Errorf("%d sessions after concurrent re-initialization, want 1", n)
	}
}

func TestClientSessionSurvivesExpiry(t *testing.T) {
	// Expiry ends the Handler's copy; the session is rebuilt from the
	// SessionStore on the next request, and the client keeps its session.
	f := newFixture(t, &HandlerOptions{SessionIdleTimeout: 100 * time.Millisecond})
	cs, stream := f.connect(nil, &ClientOptions{DisableStandaloneStream: true})
	sid := stream.SessionID()
	eventually(t, "the session to expire", func() bool { return f.h.SessionCount() == 0 })
	if got := callText(t, cs, "echo", `{"text":"x"}`); got != "x" || stream.SessionID() != sid {
		t.Errorf("after expiry: %q, session %q, want %q", got, stream.SessionID(), sid)
	}
}

func TestClientReinitializesAfterStateExpiry(t *testing.T) {
	// Once the store forgot the session too, the client gets 404 and
	// initializes a new one.
	states := shared.NewMemorySessionStore(nil)
	f := newFixture(t, &HandlerOptions{SessionIdleTimeout: 100 * time.Millisecond, SessionStore: states})
	cs, stream := f.connect(nil, &ClientOptions{DisableStandaloneStream: true})
	sid := stream.SessionID()
	eventually(t, "the session to expire", func() bool { return f.h.SessionCount() == 0 })
	_ = states.Delete(ctx(t), sid)
	if got := callText(t, cs, "echo", `{"text":"x"}`); got != "x" || stream.SessionID() == sid {
		t.Errorf("after expiry: %q, session %q", got, stream.SessionID())
	}
}

// TestClientRequestCancelledEndsStream: a call cancelled while the server
// works on it, whether its answer is still pending (lazy, JSON) or an SSE
// stream with an event id is open (EagerSSE), fails with the cancellation
// alone: the tool is cancelled, nothing is left on the server, and the
// client does not try to resume the stream that ends without a response.
func TestClientRequestCancelledEndsStream(t *testing.T) {
	modes := []struct {
		name string
		opts HandlerOptions
	}{
		{"lazy", HandlerOptions{}},
		{"JSONResponse", HandlerOptions{JSONResponse: true}},
		{"EagerSSE", HandlerOptions{EagerSSE: true}},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			srv := testServer()
			b := addBlocker(srv)
			h := NewHandler(srv, &mode.opts)
			t.Cleanup(func() { h.Close() })
			var resumes atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Last-Event-ID") != "" {
					resumes.Add(1)
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			cs, stream := connectTo(t, ts, ts.URL, nil, &ClientOptions{ReconnectDelay: time.Millisecond})
			cctx, cancel := context.WithCancel(ctx(t))
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "block"})
				errc <- err
			}()
			<-b.started
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool: %v", err)
			}
			select {
			case <-b.cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the tool was not cancelled")
			}
			// The request's stream is finished on the server.
			s := h.lookup(stream.SessionID())
			eventually(t, "no request in flight", func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.requests.len() == 0 && len(s.streams) == 0
			})
			if got := callText(t, cs, "echo", `{"text":"after"}`); got != "after" {
				t.Errorf("echo after the cancellation: %q", got)
			}
			_ = cs.Close() // waits for the client's stream readers
			if n := resumes.Load(); n != 0 {
				t.Errorf("%d attempts to resume a cancelled request's stream", n)
			}
		})
	}
}

func TestCancelledNotificationEndsSSEStream(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, nil)
	sid := f.initSession(mcp.Version20251125)
	h := postHeaders(sid, mcp.Version20251125)
	// SSE only: with both accepted the headers would wait for the answer.
	resp, r := f.openSSE("POST", with(h, "Accept", "text/event-stream"), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`)
	defer resp.Body.Close()
	<-b.started
	if c := f.do("POST", h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`); c.status != 202 {
		t.Fatalf("cancel: %d", c.status)
	}
	for {
		ev, err := r.next()
		if err != nil {
			break // the stream ended
		}
		if len(ev.data) > 0 {
			t.Fatalf("unexpected event after cancellation: %s", ev.data)
		}
	}
	<-b.cancelled
}

func TestJSONClientDisconnectCancelsRequest(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{JSONResponse: true})
	sid := f.initSession(mcp.Version20251125)
	postAndHangUp(t, f, b, postHeaders(sid, ""), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`,
		"the tool was not cancelled when its JSON client went away")
}

// postAndHangUp POSTs body, a call of b's blocking tool, closes the request
// once the tool runs, and fails with msg unless the tool is cancelled.
func postAndHangUp(t *testing.T, f *fixture, b *blocker, hdr map[string]string, body, msg string) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx(t))
	req, _ := http.NewRequestWithContext(cctx, "POST", f.url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := f.ts.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-b.started
	cancel()
	<-done
	select {
	case <-b.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal(msg)
	}
}

func TestLegacySSE(t *testing.T) {
	srv := testServer()
	h := NewSSEHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	stream := NewSSEClientStream(ts.URL+"/sse", &ClientOptions{HTTPClient: ts.Client(), Header: http.Header{"X-Echo": {"legacy"}}})
	var p progressLog
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		ProtocolVersion:       mcp.Version20241105,
		LoggingMessageHandler: p.log,
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
		},
	})
	cs, err := c.Connect(ctx(t), stream)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := callText(t, cs, "echo", `{"text":"old"}`); got != "old" {
		t.Errorf("echo: %q", got)
	}
	got := callText(t, cs, "header", `{"text":"X-Echo"}`)
	if !strings.HasPrefix(got, "legacy|POST|") || len(got) < len("legacy|POST|")+20 {
		t.Errorf("header: %q", got)
	}
	if got := callText(t, cs, "sample", `{"text":"x"}`); got != "model said ok" {
		t.Errorf("sample: %q", got)
	}
	if res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{"n":5}`)}); err != nil || res.IsError {
		t.Fatal(err, res.Content[0])
	}
	p.checkExactlyOnce(t, 5)
	if n := h.SessionCount(); n != 1 {
		t.Errorf("SessionCount %d", n)
	}
	// When the server ends the stream, the client session ends.
	h.Close()
	select {
	case <-cs.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client session did not end with the server's stream")
	}
}

func TestLegacySSEStatusCodes(t *testing.T) {
	h := NewSSEHandler(testServer(), &SSEHandlerOptions{MaxBodyBytes: 100, MaxSessions: 1})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	// Open one session by hand and read its endpoint.
	req, _ := http.NewRequestWithContext(ctx(t), "GET", ts.URL+"/sse", nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, err := newSSEReader(resp.Body, 1<<10).next()
	if err != nil || ev.event != "endpoint" || !strings.HasPrefix(string(ev.data), "/sse?sessionId=") {
		t.Fatalf("endpoint event %+v %s, %v", ev, ev.data, err)
	}
	endpoint := ts.URL + string(ev.data)
	jsonH := map[string]string{"Content-Type": "application/json"}
	tests := []struct {
		name, method, url string
		hdr               map[string]string
		body              string
		status            int
	}{
		{"POST", "POST", endpoint, jsonH, pingBody, 202},
		{"second GET beyond MaxSessions", "GET", ts.URL + "/sse", nil, "", 503},
		{"no session", "POST", ts.URL + "/sse", jsonH, pingBody, 400},
		{"unknown session", "POST", ts.URL + "/sse?sessionId=nope", jsonH, pingBody, 404},
		{"wrong content type", "POST", endpoint, map[string]string{"Content-Type": "text/plain"}, pingBody, 415},
		{"too large", "POST", endpoint, jsonH, `{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("x", 200) + `"}}`, 413},
		{"parse error", "POST", endpoint, jsonH, "{", 400},
		{"DELETE", "DELETE", endpoint, nil, "", 405},
		{"rebinding", "POST", endpoint, with(jsonH, "Host", "evil.example.com"), pingBody, 403},
	}
	for _, tt := range tests {
		if r := doRaw(t, ts.Client(), tt.method, tt.url, tt.hdr, tt.body); r.status != tt.status {
			t.Errorf("%s: %d, want %d (%s)", tt.name, r.status, tt.status, r.body)
		}
	}
	// The ping's answer arrived on the stream.
	rd := newSSEReader(resp.Body, 1<<10)
	if ev, err := rd.next(); err != nil || ev.event != "message" || !strings.Contains(string(ev.data), `"id":7`) {
		t.Errorf("answer event %+v %s, %v", ev, ev.data, err)
	}
}

func TestClientFallsBackToLegacySSE(t *testing.T) {
	srv := testServer()
	legacy := NewSSEHandler(srv, nil)
	ts := httptest.NewServer(legacy) // only HTTP+SSE at this URL
	t.Cleanup(ts.Close)
	t.Cleanup(func() { legacy.Close() })
	cs, stream := connectTo(t, ts, ts.URL+"/mcp", nil, nil)
	if got := callText(t, cs, "echo", `{"text":"fallback"}`); got != "fallback" {
		t.Errorf("echo: %q", got)
	}
	if stream.SessionID() != "" || legacy.SessionCount() != 1 {
		t.Errorf("session id %q, legacy sessions %d", stream.SessionID(), legacy.SessionCount())
	}
	// With the fallback disabled, the POST's refusal is the error.
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
	_, err := c.Connect(ctx(t), NewClientStream(ts.URL+"/mcp", &ClientOptions{HTTPClient: ts.Client(), DisableSSEFallback: true}))
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 400 {
		t.Errorf("Connect without fallback: %v", err)
	}
}

func TestClientHTTPErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"500", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) }, "500 Internal Server Error: boom"},
		{"401", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "who are you", http.StatusUnauthorized) }, "401"},
		{"JSON-RPC error for the request", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			var m struct{ ID json.RawMessage }
			_ = json.NewDecoder(r.Body).Decode(&m)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"custom refusal"}}`, m.ID)
		}, "custom refusal"},
		{"garbage JSON", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("{nope"))
		}, "invalid response body"},
		{"SSE ending without a response", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: \n\n"))
		}, "ended before the response"},
		{"202 for a request", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(202) }, "no content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(tt.handler)
			t.Cleanup(ts.Close)
			c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
			stream := NewClientStream(ts.URL, &ClientOptions{HTTPClient: ts.Client(), DisableSSEFallback: true})
			_, err := c.Connect(ctx(t), stream)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Connect: %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestClientStreamClosed(t *testing.T) {
	s := NewClientStream("http://127.0.0.1:1/mcp", nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx(t), jsonrpc.NewNotification("x", nil)); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if _, err := s.Read(ctx(t)); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	_ = s.Close() // idempotent
}
