package mcphttp

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

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
