package mcphttp

import (
	"bufio"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// TestLazySSE: a client accepting both types gets JSON when the handler sends
// nothing before its answer, and an SSE stream, primed and resumable, as
// soon as it sends something.
func TestLazySSE(t *testing.T) {
	tests := []struct {
		name     string
		eager    bool
		body     string
		wantType string
		events   int // messages with data in the SSE stream
	}{
		{"answer only", false, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, "application/json", 0},
		{"progress first", false, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"n":2},"_meta":{"progressToken":"p"}}}`, "text/event-stream", 5},
		{"error answer", false, `{"jsonrpc":"2.0","id":4,"method":"no/such"}`, "application/json", 0},
		{"answer only, EagerSSE", true, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, "text/event-stream", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, &HandlerOptions{EagerSSE: tt.eager})
			sid := f.initSession(mcp.Version20251125)
			r := f.do("POST", postHeaders(sid, mcp.Version20251125), tt.body)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), tt.wantType) {
				t.Fatalf("%d %q %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if tt.events == 0 {
				if m := jsonrpc.Decode([]byte(r.body)); m.Invalid != nil || m.ID.String() != "4" {
					t.Fatalf("body %s", r.body)
				}
			} else {
				rd := newSSEReader(strings.NewReader(r.body), 1<<20)
				first, err := rd.next()
				if err != nil || len(first.data) != 0 || first.id == "" {
					t.Fatalf("want a priming event first, got %+v, %v", first, err)
				}
				n := 0
				for {
					ev, err := rd.next()
					if err != nil {
						break
					}
					if len(ev.data) > 0 {
						n++
					}
				}
				if n != tt.events {
					t.Errorf("%d events with data, want %d: %s", n, tt.events, r.body)
				}
			}
			s := f.h.lookup(sid)
			eventually(t, "no stream left", func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.requests.len() == 0 && len(s.streams) == 0
			})
		})
	}
}

// TestLazySSEKeepAlive: a handler that runs past the keep-alive interval
// without sending anything gets an SSE stream, so that the wait is kept
// alive and resumable; cancelling it then ends the stream.
func TestLazySSEKeepAlive(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{KeepAliveInterval: 20 * time.Millisecond})
	sid := f.initSession(mcp.Version20251125)
	resp, r := f.openSSE("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`)
	defer resp.Body.Close()
	<-b.started
	if mediaType(resp) != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	if ev, err := r.next(); err != nil || ev.id == "" || len(ev.data) != 0 {
		t.Fatalf("want a priming event first, got %+v, %v", ev, err)
	}
	if c := f.do("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`); c.status != 202 {
		t.Fatalf("cancel: %d", c.status)
	}
	<-b.cancelled
}

// TestLazyCancelled: a request cancelled before its handler sent anything
// is still answered with a content type a POSTed request may get (clients
// such as the TypeScript and Python SDKs' report any other as unexpected):
// an SSE stream that ends without a response and without an event id to
// resume from, when the client accepts SSE (also from a Handler that
// answers with JSON); otherwise a JSON error response for the id, which the
// client, having cancelled, ignores.
func TestLazyCancelled(t *testing.T) {
	tests := []struct {
		name     string
		opts     *HandlerOptions
		accept   string
		wantType string
	}{
		{"lazy", nil, "application/json, text/event-stream", "text/event-stream"},
		{"JSONResponse", &HandlerOptions{JSONResponse: true}, "application/json, text/event-stream", "text/event-stream"},
		{"JSON only", nil, "application/json", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := testServer()
			b := addBlocker(srv)
			f := newFixtureWith(t, srv, tt.opts)
			sid := f.initSession(mcp.Version20251125)
			done := make(chan raw, 1)
			go func() {
				done <- f.do("POST", with(postHeaders(sid, mcp.Version20251125), "Accept", tt.accept),
					`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`)
			}()
			<-b.started
			if c := f.do("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`); c.status != 202 {
				t.Fatalf("cancel: %d", c.status)
			}
			r := <-done
			if r.status != 200 || r.header.Get("Content-Type") != tt.wantType {
				t.Fatalf("%d %q %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if tt.wantType == "text/event-stream" {
				if r.body != "" {
					t.Errorf("the stream carried %q, want nothing", r.body)
				}
			} else if m := jsonrpc.Decode([]byte(r.body)); m.Error == nil || m.ID.String() != "5" {
				t.Errorf("body %s, want an error response for id 5", r.body)
			}
			<-b.cancelled
		})
	}
}

// TestLazyClientDisconnectCancelsRequest: a request whose handler runs on
// the POST's goroutine, its answer still possibly JSON, is cancelled when
// its client goes away, as a JSON client's is.
func TestLazyClientDisconnectCancelsRequest(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, nil)
	sid := f.initSession(mcp.Version20251125)
	postAndHangUp(t, f, b, postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`,
		"the tool was not cancelled when its client went away before any SSE event")
}

// TestLazySSEAfter: with SSEAfter short of the keep-alive interval, a
// quick answer still goes out as JSON, and a handler that runs past
// SSEAfter without sending anything gets a primed, resumable SSE stream
// then, not at the first keep-alive, which carries its answer.
func TestLazySSEAfter(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{KeepAliveInterval: time.Hour, SSEAfter: 20 * time.Millisecond})
	sid := f.initSession(mcp.Version20251125)
	q := f.do("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	if q.status != 200 || !strings.HasPrefix(q.header.Get("Content-Type"), "application/json") {
		t.Fatalf("a quick answer: %d %q %s", q.status, q.header.Get("Content-Type"), q.body)
	}
	resp, r := f.openSSE("POST", postHeaders(sid, mcp.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}`)
	defer resp.Body.Close()
	<-b.started
	if ev, err := r.next(); err != nil || ev.id == "" || len(ev.data) != 0 {
		t.Fatalf("want a priming event first, got %+v, %v", ev, err)
	}
	close(b.release)
	if ev := nextData(t, r); !strings.Contains(string(ev.data), "released") {
		t.Fatalf("answer %s", ev.data)
	}
}

// TestLazySSEAfterHeld: SSEAfter also upgrades a lazy stream whose POST
// goroutine holds it rather than running its handler (a batch, here at
// 2025-03-26), before the first keep-alive, and the keep-alive comments
// follow; its answer then goes out on the stream.
func TestLazySSEAfterHeld(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{KeepAliveInterval: 50 * time.Millisecond, SSEAfter: 10 * time.Millisecond})
	sid := f.initSession(mcp.Version20250326)
	release := sync.OnceFunc(func() { close(b.release) })
	// Should the stream never become SSE, or never get a comment, the
	// answer ends the wait, and the test fails.
	late := time.AfterFunc(5*time.Second, release)
	defer late.Stop()
	resp, _ := f.openSSE("POST", postHeaders(sid, mcp.Version20250326), `[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block"}}]`)
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	var seen strings.Builder
	for !strings.Contains(seen.String(), string(keepAliveComment)) {
		line, err := body.ReadString('\n')
		seen.WriteString(line)
		if err != nil || strings.Contains(line, "released") {
			t.Fatalf("no keep-alive comment before the answer: %q, %v", seen.String(), err)
		}
	}
	release()
	rest, err := io.ReadAll(body)
	if err != nil || !strings.Contains(string(rest), `"released"`) {
		t.Fatalf("answer %q, %v", rest, err)
	}
}
