package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// BenchmarkHTTPToolsCall measures one tools/call round trip through this
// package's client and server on loopback, per response form.
func BenchmarkHTTPToolsCall(b *testing.B) {
	modes := []struct {
		name    string
		opts    HandlerOptions
		version string
	}{
		{"json", HandlerOptions{JSONResponse: true}, mcp.LatestStatefulVersion},
		{"sse", HandlerOptions{}, mcp.LatestStatefulVersion},
		{"stateless-2026", HandlerOptions{}, mcp.Version20260728},
	}
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			srv := testServer()
			h := NewHandler(srv, &mode.opts)
			ts := httptest.NewServer(h)
			defer ts.Close()
			defer h.Close()
			c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mode.version})
			cs, err := c.Connect(context.Background(), NewClientStream(ts.URL, &ClientOptions{HTTPClient: ts.Client()}))
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIdleSession measures the server heap one initialized, idle
// session holds (reported as heap-B/session), with the sessions opened by
// raw requests so that no client state is counted.
func BenchmarkIdleSession(b *testing.B) {
	srv := testServer()
	// Every session comes from one address, and b.N may pass 10,000: no
	// session bounds.
	h := NewHandler(srv, &HandlerOptions{JSONResponse: true, MaxSessions: -1, MaxSessionsPerClient: -1})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	hc := ts.Client()
	post := func(sid, body string) string {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id")
	}
	open := func() {
		sid := post("", initBody(mcp.Version20251125))
		if sid == "" {
			b.Fatal("no session")
		}
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	for range 10 { // warm up connections and pools
		open()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	n := 0
	b.ResetTimer()
	for b.Loop() {
		open()
		n++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heap-B/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(n), "goroutines/session")
}
