package redisstore

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
	"github.com/gomcp/sdk/transport/mcphttp"
)

// benchStores are the two configurations compared: the in-memory defaults
// and the Redis stores.
func benchStores(b *testing.B) []struct {
	name  string
	sopts *mcp.ServerOptions
	hopts *mcphttp.HandlerOptions
	redis func() int64 // bytes Redis uses, or nil
} {
	rdb, prefix := testRedis(b)
	opts := &Options{Prefix: prefix}
	n := NewNotifier(rdb, opts, nil)
	b.Cleanup(func() { n.Close() })
	used := func() int64 {
		var v int64
		info := rdb.Info(context.Background(), "memory").Val()
		for _, line := range strings.Split(info, "\r\n") {
			if s, ok := strings.CutPrefix(line, "used_memory:"); ok {
				_ = json.Unmarshal([]byte(s), &v)
			}
		}
		return v
	}
	return []struct {
		name  string
		sopts *mcp.ServerOptions
		hopts *mcphttp.HandlerOptions
		redis func() int64
	}{
		{"memory", nil, &mcphttp.HandlerOptions{}, nil},
		{"redis", &mcp.ServerOptions{Notifier: n}, &mcphttp.HandlerOptions{SessionStore: NewSessionStore(rdb, opts), EventStore: NewEventStore(rdb, opts)}, used},
	}
}

func benchServer(b *testing.B, sopts *mcp.ServerOptions, hopts *mcphttp.HandlerOptions) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, sopts)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (string, error) { return a.Text, nil })
	h := mcphttp.NewHandler(s, hopts)
	ts := httptest.NewServer(h)
	b.Cleanup(func() { ts.Close(); h.Close() })
	return ts
}

// BenchmarkToolCall measures one tools/call round trip of a 2025-11-25
// session over loopback HTTP, answered on an SSE stream (stored in the
// EventStore), with the in-memory stores and with Redis.
func BenchmarkToolCall(b *testing.B) {
	for _, st := range benchStores(b) {
		b.Run(st.name, func(b *testing.B) {
			ts := benchServer(b, st.sopts, st.hopts)
			c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
			cs, err := c.Connect(context.Background(), mcphttp.NewClientStream(ts.URL, &mcphttp.ClientOptions{HTTPClient: ts.Client()}))
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIdleSession measures what one initialized, idle session costs:
// server heap (heap-B/session) and, with Redis, Redis memory
// (redis-B/session).
func BenchmarkIdleSession(b *testing.B) {
	for _, st := range benchStores(b) {
		b.Run(st.name, func(b *testing.B) {
			hopts := *st.hopts
			hopts.MaxSessions, hopts.MaxSessionsPerClient = -1, -1 // one client opens them all
			ts := benchServer(b, st.sopts, &hopts)
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
				sid := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
				if sid == "" {
					b.Fatal("no session")
				}
				post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			for range 10 {
				open()
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var r0 int64
			if st.redis != nil {
				r0 = st.redis()
			}
			n := 0
			for b.Loop() {
				open()
				n++
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heap-B/session")
			if st.redis != nil {
				b.ReportMetric(float64(st.redis()-r0)/float64(n), "redis-B/session")
			}
		})
	}
}
