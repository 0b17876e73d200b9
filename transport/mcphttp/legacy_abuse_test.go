package mcphttp

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// newLegacy serves srv over HTTP+SSE with opts, on a listener whose
// connections have small send buffers.
func newLegacy(t *testing.T, srv *mcp.Server, opts *SSEHandlerOptions) (*SSEHandler, *httptest.Server) {
	t.Helper()
	h := NewSSEHandler(srv, opts)
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	return h, ts
}

// legacyGET opens an HTTP+SSE session on a raw connection from the loopback
// address local, reads its endpoint event, and then reads nothing more. It
// returns the connection and the endpoint URL.
func legacyGET(t *testing.T, ts *httptest.Server, local string) (net.Conn, string, *http.Response) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := conn.Write([]byte("GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 512), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return conn, "", resp
	}
	ev, err := newSSEReader(resp.Body, 1<<10).next()
	if err != nil || ev.event != "endpoint" {
		t.Fatalf("endpoint event: %+v %v", ev, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn, ts.URL + string(ev.data), resp
}

// TestLegacySessionQuotaPerClient: an address at MaxSessionsPerClient gets
// 429 with Retry-After for one more stream, another address is served, and
// closing a stream gives the slot back.
func TestLegacySessionQuotaPerClient(t *testing.T) {
	h, ts := newLegacy(t, testServer(), &SSEHandlerOptions{MaxSessionsPerClient: 2})
	var conns []net.Conn
	for range 2 {
		c, ep, _ := legacyGET(t, ts, "127.0.0.1")
		if ep == "" {
			t.Fatal("a stream within the quota refused")
		}
		conns = append(conns, c)
	}
	_, ep, resp := legacyGET(t, ts, "127.0.0.1")
	if ep != "" || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a stream beyond the quota: %d %v", resp.StatusCode, resp.Header)
	}
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	if m := jsonrpc.Decode([]byte(b.String())); m.Error == nil || m.Error.Code != CodeServerBusy {
		t.Fatalf("the refusal's body: %s", b.String())
	}
	if _, ep, resp := legacyGET(t, ts, "127.0.0.2"); ep == "" {
		t.Fatalf("another client while the first is at its quota: %d", resp.StatusCode)
	}
	conns[0].Close()
	eventually(t, "the closed stream's session ended", func() bool { return h.SessionCount() == 2 })
	if _, ep, resp := legacyGET(t, ts, "127.0.0.1"); ep == "" {
		t.Fatalf("a stream after one closed: %d", resp.StatusCode)
	}
}

// TestLegacyBodiesInFlightBounded: while a stalled body holds
// MaxBodyBytesInFlight, another POST gets 503 with Retry-After; once it is
// gone, POSTs are accepted.
func TestLegacyBodiesInFlightBounded(t *testing.T) {
	h, ts := newLegacy(t, testServer(), &SSEHandlerOptions{MaxBodyBytesInFlight: 900})
	_, ep, _ := legacyGET(t, ts, "127.0.0.1")
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := strings.TrimPrefix(ep, ts.URL)
	_, err = conn.Write([]byte("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 800\r\n\r\n{\"jsonrpc\":"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stalled body counted", func() bool { return h.bodies.used.Load() == 800 })
	jsonH := map[string]string{"Content-Type": "application/json"}
	padded := pingBody + strings.Repeat(" ", 200) // 800 + its length > 900
	if r := doRaw(t, ts.Client(), "POST", ep, jsonH, padded); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("POST beyond the bodies in flight: %d %s", r.status, r.body)
	}
	conn.Close()
	eventually(t, "the stalled body released", func() bool { return h.bodies.used.Load() == 0 })
	if r := doRaw(t, ts.Client(), "POST", ep, jsonH, padded); r.status != http.StatusAccepted {
		t.Fatalf("POST once the stalled body is gone: %d %s", r.status, r.body)
	}
}

// TestLegacySlowReaderCut: a session whose client stops reading its stream,
// with large messages stuck in the connection, has its connection (and so
// its session) cut once MaxQueuedEvents messages wait, long before the
// write timeout; meanwhile the list_changed notifications of another
// client are not delayed.
func TestLegacySlowReaderCut(t *testing.T) {
	const (
		writeTimeout = 10 * time.Second
		maxQueued    = 4
	)
	srv := testServer()
	big := strings.Repeat("x", 256<<10)
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "logs a large message"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			return "ok", req.Log(ctx, mcp.LevelInfo, "shout", big)
		})
	h, ts := newLegacy(t, srv, &SSEHandlerOptions{WriteTimeout: writeTimeout, MaxQueuedEvents: maxQueued})

	// The reader: a client of the other session, reading everything.
	changed := make(chan time.Time, 64)
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20241105,
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- time.Now() }})
	cs, err := c.Connect(ctx(t), NewSSEClientStream(ts.URL+"/sse", &ClientOptions{HTTPClient: ts.Client()}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// The stalled one.
	_, ep, _ := legacyGET(t, ts, "127.0.0.1")
	jsonH := map[string]string{"Content-Type": "application/json"}
	post := func(body string) {
		t.Helper()
		if r := doRaw(t, ts.Client(), "POST", ep, jsonH, body); r.status != http.StatusAccepted && r.status != http.StatusNotFound {
			t.Fatalf("POST to the stalled session: %d %s", r.status, r.body)
		}
	}
	post(initBody(mcp.Version20241105))
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	start := time.Now()
	for i := range 2 * maxQueued {
		post(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":{"name":"shout","arguments":{}}}`)
	}
	var worst time.Duration
	rounds := 0
	for ; rounds < 3 || h.SessionCount() > 1; rounds++ {
		if time.Since(start) > writeTimeout/2 {
			t.Fatalf("the stalled reader was not cut within %v", time.Since(start))
		}
		at := time.Now()
		srv.RemoveTools("warmup")
		mcp.AddTool(srv, &mcp.Tool{Name: "warmup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
		select {
		case got := <-changed:
			worst = max(worst, got.Sub(at))
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: no list_changed for the reader", rounds)
		}
	}
	cut := time.Since(start)
	t.Logf("HTTP+SSE stalled reader cut after %v (WriteTimeout %v); worst list_changed delay for another client over %d rounds: %v", cut, writeTimeout, rounds, worst)
	if worst > time.Second {
		t.Errorf("worst list_changed delay %v: the stalled reader held up another client", worst)
	}
	if got := callText(t, cs, "echo", `{"text":"still here"}`); got != "still here" {
		t.Fatalf("the reader's session after the cut: %q", got)
	}
}

// TestLegacyPrincipal: with SSEHandlerOptions.Principal, a POST to a
// session from another principal than the one whose GET opened it gets
// 403 and reaches nothing; the owner's POST is accepted.
func TestLegacyPrincipal(t *testing.T) {
	_, ts := newLegacy(t, testServer(), &SSEHandlerOptions{
		Principal: func(r *http.Request) string { return r.Header.Get("X-User") },
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("X-User", "alice")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, err := newSSEReader(resp.Body, 1<<10).next()
	if err != nil || ev.event != "endpoint" {
		t.Fatalf("endpoint event: %+v %v", ev, err)
	}
	post := func(user string) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL+string(ev.data), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", user)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tt := range []struct {
		user string
		want int
	}{
		{"bob", http.StatusForbidden},
		{"", http.StatusForbidden},
		{"alice", http.StatusAccepted},
	} {
		if got := post(tt.user); got != tt.want {
			t.Errorf("POST as %q: %d, want %d", tt.user, got, tt.want)
		}
	}
}
