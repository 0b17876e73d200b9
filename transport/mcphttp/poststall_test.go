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
	for _, stateless := range []bool{false, true} {
		name := "session"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) { testStalledPOSTStream(t, stateless) })
	}
}

func testStalledPOSTStream(t *testing.T, stateless bool) {
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

	var head, body string
	if stateless {
		body = modernBody(5, "tools/call", `{"name":"flood","arguments":{}}`,
			`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}`)
		head = "Accept: text/event-stream\r\nMcp-Protocol-Version: " + mcp.Version20260728 + "\r\nMcp-Method: tools/call\r\nMcp-Name: flood\r\n"
	} else {
		sid := f.initSession(mcp.Version20251125)
		body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"flood","arguments":{}}}`
		head = "Accept: application/json, text/event-stream\r\nMcp-Session-Id: " + sid + "\r\nMcp-Protocol-Version: " + mcp.Version20251125 + "\r\n"
	}
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	postReturned.Store(0)
	start := time.Now()
	_, err = conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + head +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
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
	// The handler may take as long as the tool's own work (16 large log
	// messages encoded, slow under -race on a loaded machine) but no longer
	// than a write deadline and some slack after it; without the deadline
	// neither the tool nor the handler returns at all.
	if cut > writeTimeout+2*time.Second && cut > toolTook+writeTimeout+time.Second {
		t.Errorf("the stalled POST stream held its handler for %v, the tool returned after %v", cut, toolTook)
	}
	// The server still answers.
	ping := f.do("POST", postHeaders("", ""), initBody(mcp.Version20251125))
	if ping.status != http.StatusOK {
		t.Fatalf("initialize after the cut: %d %s", ping.status, ping.body)
	}
}
