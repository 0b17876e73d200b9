package mcphttp

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
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
