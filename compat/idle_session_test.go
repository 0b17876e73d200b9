package compat

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
)

// The memory an idle Streamable HTTP session costs a server: sessions are
// opened with raw requests (initialize, then notifications/initialized), so
// that no client state is counted, and then left alone. Every SDK answers
// with JSON (no stream stays open) in its default stateful mode.

// idleServers builds each SDK's stateful endpoint; the function returned
// with it releases what the endpoint holds.
var idleServers = []struct {
	name string
	new  func() (http.Handler, func())
}{
	{"gomcp", func() (http.Handler, func()) {
		h := gomcpHTTPHandler(kindHTTPJSON)
		return h, func() { h.Close() }
	}},
	{"gosdk", func() (http.Handler, func()) {
		return goSDKHTTPHandler(kindHTTPJSON, false), func() {}
	}},
	{"mcpgo", func() (http.Handler, func()) {
		return mcpgoserver.NewStreamableHTTPServer(newMCPGoBenchServer()), func() {}
	}},
}

// idleSessionOpener opens sessions on one endpoint with raw requests.
type idleSessionOpener struct {
	tb  testing.TB
	url string
	hc  *http.Client
}

const idleInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + statefulVersion +
	`","capabilities":{},"clientInfo":{"name":"idle","version":"1.0.0"}}}`

// post sends body in the session sid ("" for none) and returns the session
// id of the response, failing the test unless the server accepted it.
func (o *idleSessionOpener) post(sid, body string) string {
	req, err := http.NewRequest(http.MethodPost, o.url, strings.NewReader(body))
	if err != nil {
		o.tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", statefulVersion)
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		o.tb.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		o.tb.Fatalf("POST %.40s...: %s", body, resp.Status)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// open opens one initialized session and returns its id.
func (o *idleSessionOpener) open() string {
	sid := o.post("", idleInitialize)
	if sid == "" {
		o.tb.Fatal("the server issued no Mcp-Session-Id")
	}
	o.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// measureIdleSessions opens n sessions on h and returns the memory (heap and
// goroutine stacks) and the goroutines each one holds once the garbage collector has run, with the
// ids of the sessions (still open) and the opener that opened them.
func measureIdleSessions(tb testing.TB, h http.Handler, n int) (heapPerSession, goroutinesPerSession float64, ids []string, o *idleSessionOpener) {
	ts := httptest.NewServer(h)
	tb.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	o = &idleSessionOpener{tb: tb, url: ts.URL, hc: ts.Client()}
	for range 10 { // warm up the connection, pools and caches
		o.open()
	}
	var before, after runtime.MemStats
	settle()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	ids = make([]string, 0, n)
	for range n {
		ids = append(ids, o.open())
	}
	settle()
	runtime.ReadMemStats(&after)
	heap := float64(int64(after.HeapAlloc+after.StackInuse)-int64(before.HeapAlloc+before.StackInuse)) - float64(cap(ids)*16)
	return heap / float64(n), float64(runtime.NumGoroutine()-g0) / float64(n), ids, o
}

// settle lets goroutines that a request started finish, then collects
// garbage.
func settle() {
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	runtime.GC()
}

// BenchmarkIdleSession reports the memory (mem-B/session: heap plus
// goroutine stacks) and the goroutines (goroutines/session) that one idle
// session holds in each SDK's server, over 1,000 sessions per iteration.
func BenchmarkIdleSession(b *testing.B) {
	const n = 1000
	for _, s := range idleServers {
		b.Run(s.name, func(b *testing.B) {
			var heap, goroutines float64
			runs := 0
			for b.Loop() {
				h, release := s.new()
				hp, gr, _, _ := measureIdleSessions(b, h, n)
				release()
				heap += hp
				goroutines += gr
				runs++
			}
			b.ReportMetric(heap/float64(runs), "mem-B/session")
			b.ReportMetric(goroutines/float64(runs), "goroutines/session")
		})
	}
}

// TestIdleSessionHarness proves the measurement counts real sessions: every
// SDK issues a distinct id per session, and a session opened early is still
// usable after the others were opened.
func TestIdleSessionHarness(t *testing.T) {
	for _, s := range idleServers {
		t.Run(s.name, func(t *testing.T) {
			h, release := s.new()
			defer release()
			_, _, ids, o := measureIdleSessions(t, h, 20)
			seen := make(map[string]bool)
			for _, id := range ids {
				if seen[id] {
					t.Fatalf("session id %q issued twice", id)
				}
				seen[id] = true
			}
			o.post(ids[0], `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
		})
	}
}
