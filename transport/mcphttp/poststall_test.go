package mcphttp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// TestStalledPOSTStreamIsCut: a client that stops reading the SSE stream
// answering its POST, with large messages stuck in the connection, has the
// connection cut by the write deadline (WriteTimeout): the handler
// goroutine returns, the request's handler is not held for longer, and the
// session keeps answering on other connections.
func TestStalledPOSTStreamIsCut(t *testing.T) {
	const writeTimeout = 300 * time.Millisecond
	srv := testServer()
	big := strings.Repeat("x", 256<<10)
	toolDone := make(chan time.Time, 1)
	mcp.AddTool(srv, &mcp.Tool{Name: "flood", Description: "logs large messages"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			defer func() { toolDone <- time.Now() }()
			for range 16 {
				if err := req.Log(ctx, mcp.LevelInfo, "flood", big); err != nil {
					return "", err
				}
			}
			return "ok", nil
		})
	h := NewHandler(srv, &HandlerOptions{WriteTimeout: writeTimeout})
	var postReturned atomic.Int64 // unix nanos of the last POST handler return
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == http.MethodPost {
			postReturned.Store(time.Now().UnixNano())
		}
	}))
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	f := &fixture{t: t, srv: srv, h: h, ts: ts, url: ts.URL + "/mcp"}
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	sid := f.initSession(mcp.Version20251125)

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"flood","arguments":{}}}`
	postReturned.Store(0)
	start := time.Now()
	_, err = conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Mcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: " + mcp.Version20251125 + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the stalled POST's handler returned", func() bool { return postReturned.Load() != 0 })
	cut := time.Unix(0, postReturned.Load()).Sub(start)
	var toolTook time.Duration
	select {
	case at := <-toolDone:
		toolTook = at.Sub(start)
	case <-time.After(10 * time.Second):
		t.Fatal("the tool writing to a stalled stream never returned")
	}
	t.Logf("stalled POST stream: handler goroutine returned after %v, the tool after %v (WriteTimeout %v)", cut, toolTook, writeTimeout)
	if cut > writeTimeout+2*time.Second {
		t.Errorf("the stalled POST stream held its handler for %v", cut)
	}
	// The session still answers.
	r := f.do("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if r.status != http.StatusOK {
		t.Fatalf("ping after the cut: %d %s", r.status, r.body)
	}
}
