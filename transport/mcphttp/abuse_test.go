package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
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

// TestStalledBodyIsCut: a client that sends its headers and half a body
// gets 408 once BodyReadTimeout has passed, and its connection is closed;
// a long SSE answer after a body read in time is not cut by the deadline.
func TestStalledBodyIsCut(t *testing.T) {
	const timeout = 150 * time.Millisecond
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{BodyReadTimeout: timeout})

	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := initBody(mcp.Version20251125)
	start := time.Now()
	_, err = conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body[:len(body)/2]))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // the test's own bound
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: status %d, want 408", resp.StatusCode)
	}
	if took < timeout || took > timeout+time.Second {
		t.Fatalf("stalled body cut after %v, want about %v", took, timeout)
	}
	t.Logf("stalled body cut after %v (BodyReadTimeout %v)", took, timeout)

	// A stream answering a call that outlives the timeout keeps going.
	cs, _ := f.connect(nil, nil)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
		done <- err
	}()
	<-b.started
	time.Sleep(2 * timeout) // the response stream is open past the body deadline: that is the point
	close(b.release)
	if err := <-done; err != nil {
		t.Fatalf("call outliving BodyReadTimeout: %v", err)
	}
}

// clientFrom returns an HTTP client whose connections come from the
// loopback address local (any of 127.0.0.0/8 reaches a server on
// 127.0.0.1), so a test can be two clients.
func clientFrom(t *testing.T, local string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestSessionQuotaPerClient: one address that fills its quota gets 429 with
// Retry-After and a JSON-RPC error, while another address still opens
// sessions; ending a session gives the first its slot back.
func TestSessionQuotaPerClient(t *testing.T) {
	f := newFixture(t, &HandlerOptions{MaxSessionsPerClient: 3})
	greedy, other := clientFrom(t, "127.0.0.1"), clientFrom(t, "127.0.0.2")
	initAs := func(hc *http.Client) raw {
		return doRaw(t, hc, "POST", f.url, postHeaders("", ""), initBody(mcp.Version20251125))
	}
	var sids []string
	for range 3 {
		r := initAs(greedy)
		if r.status != http.StatusOK {
			t.Fatalf("initialize within the quota: %d %s", r.status, r.body)
		}
		sids = append(sids, r.header.Get("Mcp-Session-Id"))
	}
	r := initAs(greedy)
	m := jsonrpc.Decode([]byte(r.body))
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" ||
		m.Error == nil || m.Error.Code != CodeServerBusy || m.ID != jsonrpc.Int64ID(1) {
		t.Fatalf("initialize beyond the quota: %d %v %s", r.status, r.header, r.body)
	}
	for range 3 {
		if r := initAs(other); r.status != http.StatusOK {
			t.Fatalf("another client, while the first is at its quota: %d %s", r.status, r.body)
		}
	}
	if r := doRaw(t, greedy, "DELETE", f.url, postHeaders(sids[0], ""), ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := initAs(greedy); r.status != http.StatusOK {
		t.Fatalf("initialize after ending a session: %d %s", r.status, r.body)
	}
}

// smallBuffers is a listener whose connections have small send buffers, so
// that a client that stops reading blocks the server's writes quickly.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// stallGET opens the standalone stream of session sid on a connection that
// does not read, and waits until the Handler holds it.
func stallGET(t *testing.T, f *fixture, sid string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	_, err = conn.Write([]byte("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + sid +
		"\r\nMcp-Protocol-Version: " + mcp.Version20251125 + "\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stalled GET attached", func() bool {
		s := f.h.lookup(sid)
		if s == nil {
			return false
		}
		st := s.standaloneStream()
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.conn != nil
	})
	return conn
}

// TestSlowReaderDelaysNobody: sessions whose clients never read their GET
// stream, each with a large message stuck in its connection, do not delay
// the list_changed notifications of another client, and a reader that lets
// MaxQueuedEvents pile up has its connection cut.
func TestSlowReaderDelaysNobody(t *testing.T) {
	const (
		// Long enough that a loaded CI machine under -race stays well inside
		// it: the checks below tell "did not wait for a stalled write" from
		// "waited for the write timeout", not fast from slow.
		writeTimeout = 3 * time.Second
		maxQueued    = 4
		rounds       = 6
		stalled      = 3
	)
	srv := testServer()
	big := strings.Repeat("x", 512<<10)
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "logs a large message"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			return "ok", req.Log(ctx, mcp.LevelInfo, "shout", big)
		})
	// JSONResponse: a request's log goes to the session's standalone stream.
	h := NewHandler(srv, &HandlerOptions{JSONResponse: true, WriteTimeout: writeTimeout, MaxQueuedEvents: maxQueued})
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	f := &fixture{t: t, srv: srv, h: h, ts: ts, url: ts.URL + "/mcp"}
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })

	var (
		stuck []string
		conns []net.Conn
	)
	for range stalled {
		sid := f.initSession(mcp.Version20251125)
		conns = append(conns, stallGET(t, f, sid))
		start := time.Now()
		r := f.do("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{}}}`)
		if r.status != http.StatusOK || time.Since(start) >= writeTimeout {
			t.Fatalf("shout: %d after %v", r.status, time.Since(start))
		}
		stuck = append(stuck, sid)
	}

	changed := make(chan time.Time, 16)
	f.connect(&mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- time.Now() }}, nil)
	waitChange := func(round int, since time.Time) time.Duration {
		t.Helper()
		select {
		case at := <-changed:
			return at.Sub(since)
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: no list_changed", round)
			return 0
		}
	}
	// The reader's GET is open once a change reaches it.
	eventually(t, "the reader's GET stream", func() bool {
		srv.RemoveTools("nothing")
		_ = mcp.AddTool(srv, &mcp.Tool{Name: "warmup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
		select {
		case <-changed:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
	var worst time.Duration
	for i := range rounds {
		start := time.Now()
		srv.RemoveTools("warmup")
		_ = mcp.AddTool(srv, &mcp.Tool{Name: "warmup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
		worst = max(worst, waitChange(i, start))
	}
	t.Logf("worst list_changed delay next to %d stalled readers: %v (WriteTimeout %v)", stalled, worst, writeTimeout)
	if worst > writeTimeout/3 {
		t.Errorf("worst list_changed delay %v: a slow reader held up the others", worst)
	}
	for _, sid := range stuck {
		eventually(t, "the stalled reader's connection cut", func() bool {
			st := f.h.lookup(sid).standaloneStream()
			st.mu.Lock()
			defer st.mu.Unlock()
			return st.conn == nil
		})
	}

	// Nothing is lost: the cut reader resumes from its priming event and
	// gets every event from the store, the large one and the list changes.
	_ = conns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conns[0]), nil)
	if err != nil {
		t.Fatalf("the stalled reader's response: %v", err)
	}
	prime, err := newSSEReader(resp.Body, 1<<20).next()
	resp.Body.Close()
	if err != nil || !prime.hasID {
		t.Fatalf("priming event: %+v %v", prime, err)
	}
	getH := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": stuck[0],
		"Mcp-Protocol-Version": mcp.Version20251125, "Last-Event-Id": prime.id}
	resp2, r2 := f.openSSE("GET", getH, "")
	defer resp2.Body.Close()
	if ev := nextData(t, r2); !strings.Contains(string(ev.data), "notifications/message") || len(ev.data) < len(big) {
		t.Fatalf("resumed: first event %.100s", ev.data)
	}
	for i := range rounds {
		if ev := nextData(t, r2); !strings.Contains(string(ev.data), "notifications/tools/list_changed") {
			t.Fatalf("resumed: event %d is %.100s", i+1, ev.data)
		}
	}
}

// TestReusedIDInFlight: a request reusing the id of one in flight is
// refused with an error of id null, and the live request still gets its
// own answer.
func TestReusedIDInFlight(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{JSONResponse: true})
	sid := f.initSession(mcp.Version20251125)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`
	answer := make(chan raw, 1)
	go func() { answer <- f.do("POST", postHeaders(sid, mcp.Version20251125), call) }()
	<-b.started
	r := f.do("POST", postHeaders(sid, mcp.Version20251125), call)
	m := jsonrpc.Decode([]byte(r.body))
	if r.status != http.StatusBadRequest || m.Error == nil || !m.ID.IsZero() {
		t.Fatalf("reused id: %d %s; want 400 with an error of id null", r.status, r.body)
	}
	close(b.release)
	r = <-answer
	m = jsonrpc.Decode([]byte(r.body))
	if r.status != http.StatusOK || m.ID != jsonrpc.Int64ID(7) || m.Error != nil || !strings.Contains(string(m.Result), "released") {
		t.Fatalf("the live request's answer: %d %s", r.status, r.body)
	}
}

// TestMCPHeadersDuplicatedOrRaw: MCP headers given twice, or holding raw
// non-ASCII bytes, are refused before anything acts on them.
func TestMCPHeadersDuplicatedOrRaw(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initSession(mcp.Version20251125)
	post := func(body string, hdr map[string]string, extra ...string) raw {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx(t), "POST", f.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			req.Header.Add(extra[i], extra[i+1])
		}
		resp, err := f.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		return raw{status: resp.StatusCode, header: resp.Header, body: b.String()}
	}
	echo := modernBody(3, "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`, "")
	if r := post(echo, modernHeaders("tools/call", "Mcp-Name", "echo")); r.status != http.StatusOK {
		t.Fatalf("well-formed modern request: %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		what  string
		body  string
		hdr   map[string]string
		extra []string
		code  int64
	}{
		{"MCP-Protocol-Version twice", echo, modernHeaders("tools/call", "Mcp-Name", "echo"),
			[]string{"Mcp-Protocol-Version", mcp.Version20251125}, mcp.CodeHeaderMismatch},
		{"Mcp-Name twice", echo, modernHeaders("tools/call", "Mcp-Name", "echo"), []string{"Mcp-Name", "other"}, mcp.CodeHeaderMismatch},
		{"Mcp-Param twice", echo, modernHeaders("tools/call", "Mcp-Name", "echo"),
			[]string{"Mcp-Param-Region", "a", "Mcp-Param-Region", "b"}, mcp.CodeHeaderMismatch},
		{"raw non-ASCII Mcp-Param", echo, modernHeaders("tools/call", "Mcp-Name", "echo", "Mcp-Param-Region", "Zürich"), nil, mcp.CodeHeaderMismatch},
		{"Mcp-Session-Id twice", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, postHeaders(sid, mcp.Version20251125),
			[]string{"Mcp-Session-Id", "another"}, jsonrpc.CodeInvalidRequest},
	} {
		r := post(c.body, c.hdr, c.extra...)
		m := jsonrpc.Decode([]byte(r.body))
		if r.status != http.StatusBadRequest || m.Error == nil || m.Error.Code != c.code || m.ID.IsZero() {
			t.Errorf("%s: %d %s; want 400 with error %d", c.what, r.status, r.body, c.code)
		}
	}
}

// TestBodiesInFlightBounded: while stalled bodies hold MaxBodyBytesInFlight,
// another POST gets 503 with Retry-After before its body is read; once they
// are gone it is served.
func TestBodiesInFlightBounded(t *testing.T) {
	f := newFixture(t, &HandlerOptions{MaxBodyBytesInFlight: 900})
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 800\r\n\r\n{\"jsonrpc\":"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stalled body counted", func() bool { return f.h.bodies.used.Load() == 800 })
	r := f.do("POST", postHeaders("", ""), initBody(mcp.Version20251125))
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("POST beyond the bodies in flight: %d %s", r.status, r.body)
	}
	conn.Close()
	eventually(t, "the stalled body released", func() bool { return f.h.bodies.used.Load() == 0 })
	if r := f.do("POST", postHeaders("", ""), initBody(mcp.Version20251125)); r.status != http.StatusOK {
		t.Fatalf("POST once the stalled body is gone: %d %s", r.status, r.body)
	}
}
