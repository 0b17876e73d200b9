package mcphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

const (
	pingBody  = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	listBody  = `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`
	notifBody = `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
)

// with returns a copy of h with kv applied; an empty value deletes.
func with(h map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func TestHandlerStatusCodes(t *testing.T) {
	f := newFixture(t, &HandlerOptions{MaxBodyBytes: 2048})
	sid := f.initSession(mcp.Version20251125)
	sid0326 := f.initSession(mcp.Version20250326)
	h := postHeaders(sid, mcp.Version20251125)
	h0326 := postHeaders(sid0326, mcp.Version20250326)
	getH := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid}
	host := strings.TrimPrefix(f.ts.URL, "http://")
	tests := []struct {
		name     string
		method   string
		hdr      map[string]string
		body     string
		status   int
		contains string
	}{
		{"PUT", "PUT", h, pingBody, 405, "method not allowed"},
		{"PATCH", "PATCH", h, pingBody, 405, "GET, POST, DELETE"},
		{"wrong content type", "POST", with(h, "Content-Type", "text/plain"), pingBody, 415, "Content-Type"},
		{"no content type", "POST", with(h, "Content-Type", ""), pingBody, 415, ""},
		{"no Accept", "POST", with(h, "Accept", ""), pingBody, 406, "Accept"},
		{"Accept text/html", "POST", with(h, "Accept", "text/html"), pingBody, 406, ""},
		{"body too large", "POST", h, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 3000) + `"}}`, 413, "too large"},
		{"parse error", "POST", h, `{"jsonrpc":`, 400, "-32700"},
		{"empty body", "POST", h, "", 400, "-32700"},
		{"invalid request", "POST", h, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400, "-32600"},
		{"missing session", "POST", with(h, "Mcp-Session-Id", ""), pingBody, 400, "Mcp-Session-Id"},
		{"unknown session", "POST", with(h, "Mcp-Session-Id", "no-such-session"), pingBody, 404, "-32001"},
		{"unsupported version", "POST", with(h, "Mcp-Protocol-Version", "1999-01-01"), pingBody, 400, "unsupported"},
		{"version mismatch", "POST", with(h, "Mcp-Protocol-Version", mcp.Version20250618), pingBody, 400, "differs"},
		{"ping", "POST", h, pingBody, 200, `"id":7,"result":{}`},
		{"ping without version header", "POST", with(h, "Mcp-Protocol-Version", ""), pingBody, 200, `"result":{}`},
		{"ping, JSON only", "POST", with(h, "Accept", "application/json"), pingBody, 200, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"notification", "POST", h, notifBody, 202, ""},
		{"response nobody waits for", "POST", h, `{"jsonrpc":"2.0","id":99,"result":{}}`, 202, ""},
		{"batch at 2025-11-25", "POST", h, "[" + pingBody + "]", 400, "batches"},
		{"batch of notifications at 2025-03-26", "POST", h0326, "[" + notifBody + "," + notifBody + "]", 202, ""},
		{"empty batch", "POST", h0326, "[]", 400, "-32600"},
		{"initialize in a batch", "POST", with(h0326, "Mcp-Session-Id", ""), "[" + initBody(mcp.Version20250326) + "]", 400, "batch"},
		{"initialize, bad version header", "POST", postHeaders("", "2030-01-01"), initBody(mcp.Version20251125), 400, "unsupported"},
		{"initialize with version header", "POST", postHeaders("", mcp.Version20251125), initBody(mcp.Version20251125), 200, `"protocolVersion":"2025-11-25"`},
		{"GET without session", "GET", with(getH, "Mcp-Session-Id", ""), "", 400, "Mcp-Session-Id"},
		{"GET unknown session", "GET", with(getH, "Mcp-Session-Id", "nope"), "", 404, ""},
		{"GET without SSE Accept", "GET", with(getH, "Accept", "application/json"), "", 406, ""},
		{"GET bad Last-Event-ID", "GET", with(getH, "Last-Event-Id", "garbage"), "", 400, "Last-Event-ID"},
		{"GET bad version", "GET", with(getH, "Mcp-Protocol-Version", "x"), "", 400, ""},
		{"DELETE without session", "DELETE", nil, "", 400, ""},
		{"DELETE unknown session", "DELETE", map[string]string{"Mcp-Session-Id": "nope"}, "", 404, ""},
		{"rebinding Host", "POST", with(h, "Host", "evil.example.com"), pingBody, 403, "Host"},
		{"rebinding Host and Origin", "POST", with(h, "Host", "evil.example.com:80", "Origin", "http://evil.example.com:80"), initBody(mcp.Version20251125), 403, ""},
		{"foreign Origin", "POST", with(h, "Origin", "https://evil.example.com"), pingBody, 403, "Origin"},
		{"foreign Origin on GET", "GET", with(getH, "Origin", "https://evil.example.com"), "", 403, ""},
		{"localhost Host and Origin", "POST", with(h, "Host", "localhost:"+strings.Split(host, ":")[1], "Origin", "http://"+host), pingBody, 200, `"result":{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := doRaw(t, f.ts.Client(), tt.method, f.url, tt.hdr, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", r.status, tt.status, r.body)
			}
			if !strings.Contains(r.body, tt.contains) {
				t.Errorf("body %q does not contain %q", r.body, tt.contains)
			}
			if r.status == 405 && r.header.Get("Allow") == "" {
				t.Error("405 without Allow header")
			}
			if r.status >= 400 && r.header.Get("Content-Type") != "application/json" {
				t.Errorf("error body Content-Type %q", r.header.Get("Content-Type"))
			}
			if r.status >= 400 {
				if m := jsonrpc.Decode([]byte(r.body)); m.Error == nil {
					t.Errorf("error body is not a JSON-RPC error: %s", r.body)
				}
			}
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initSession(mcp.Version20251125)
	if !isVisibleASCII(sid) || len(sid) < 20 {
		t.Errorf("session id %q: want 20+ visible ASCII characters", sid)
	}
	if other := f.initSession(mcp.Version20251125); other == sid {
		t.Error("two sessions got the same id")
	}
	if n := f.h.SessionCount(); n != 2 {
		t.Errorf("SessionCount = %d, want 2", n)
	}
	h := postHeaders(sid, mcp.Version20251125)
	steps := []struct {
		method, body string
		status       int
	}{
		{"POST", pingBody, 200},
		{"DELETE", "", 204},
		{"POST", pingBody, 404},
		{"POST", notifBody, 404},
		{"GET", "", 404},
		{"DELETE", "", 404},
	}
	for i, s := range steps {
		hdr := h
		if s.method == "GET" {
			hdr = with(h, "Accept", "text/event-stream")
		}
		if r := f.do(s.method, hdr, s.body); r.status != s.status {
			t.Fatalf("step %d: %s: status %d, want %d (%s)", i, s.method, r.status, s.status, r.body)
		}
	}
	if n := f.h.SessionCount(); n != 1 {
		t.Errorf("SessionCount = %d after DELETE, want 1", n)
	}
}

func isVisibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return s != ""
}

func TestInitializeFailureCreatesNoSession(t *testing.T) {
	for _, accept := range []string{"application/json, text/event-stream", "text/event-stream"} {
		f := newFixture(t, nil)
		r := f.do("POST", map[string]string{"Content-Type": "application/json", "Accept": accept},
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
		if r.status != 200 || !strings.Contains(r.body, `"error"`) {
			t.Fatalf("Accept %s: %d %s", accept, r.status, r.body)
		}
		if accept != "text/event-stream" && r.header.Get("Mcp-Session-Id") != "" {
			t.Error("a failed initialize issued a session id")
		}
		eventually(t, "the failed session to go", func() bool { return f.h.SessionCount() == 0 })
	}
}

func TestSessionIdleExpiry(t *testing.T) {
	const timeout = 300 * time.Millisecond
	f := newFixture(t, &HandlerOptions{SessionIdleTimeout: timeout})
	idle := f.initSession(mcp.Version20251125)
	busy := f.initSession(mcp.Version20251125)
	active := f.initSession(mcp.Version20251125)
	// An open GET stream keeps a session alive.
	resp, _ := f.openSSE("GET", map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": busy}, "")
	defer resp.Body.Close()
	// So do requests, as long as they come more often than the timeout.
	start := time.Now()
	for time.Since(start) < 3*timeout {
		if r := f.do("POST", postHeaders(active, ""), pingBody); r.status != 200 {
			t.Fatalf("active session: status %d after %v", r.status, time.Since(start))
		}
		time.Sleep(timeout / 10)
	}
	// Expiry ends the Handler's copy of the idle session, not its stored
	// state: the next request rebuilds it.
	eventually(t, "the idle session to expire", func() bool { return f.h.lookup(idle) == nil })
	if f.h.lookup(busy) == nil || f.h.lookup(active) == nil {
		t.Fatal("a session in use expired")
	}
	if r := f.do("POST", postHeaders(idle, ""), pingBody); r.status != 200 || f.h.lookup(idle) == nil {
		t.Errorf("expired session: status %d, want 200 from a rebuilt copy", r.status)
	}
	if r := f.do("POST", postHeaders(busy, ""), pingBody); r.status != 200 {
		t.Errorf("listening session: status %d, want 200", r.status)
	}
}

// openSSE sends a request whose answer is an SSE stream and returns the
// response and a reader on it; the caller closes the body.
func (f *fixture) openSSE(method string, hdr map[string]string, body string) (*http.Response, *sseReader) {
	f.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx(f.t), method, f.url, rd)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	if resp.StatusCode != 200 || mediaType(resp) != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		f.t.Fatalf("%s: %s %s, want an SSE stream", method, resp.Status, b)
	}
	return resp, newSSEReader(resp.Body, 1<<20)
}

// nextData returns the next event carrying data.
func nextData(t *testing.T, r *sseReader) sseEvent {
	t.Helper()
	for {
		ev, err := r.next()
		if err != nil {
			t.Fatalf("reading SSE: %v", err)
		}
		if len(ev.data) > 0 {
			ev.data = bytes.Clone(ev.data)
			return ev
		}
	}
}

func TestStandaloneStream(t *testing.T) {
	f := newFixture(t, &HandlerOptions{RetryInterval: 250 * time.Millisecond})
	sid := f.initSession(mcp.Version20251125)
	getH := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20251125}
	resp, r := f.openSSE("GET", getH, "")
	defer resp.Body.Close()
	prime, err := r.next()
	if err != nil || !prime.hasID || len(prime.data) != 0 || prime.retry != 250*time.Millisecond {
		t.Fatalf("priming event %+v, %v", prime, err)
	}
	// A second GET without Last-Event-ID conflicts.
	if c := f.do("GET", getH, ""); c.status != http.StatusConflict {
		t.Errorf("second GET: %d, want 409", c.status)
	}
	// Unrelated notifications arrive on the standalone stream.
	f.srv.AddTool(&mcp.Tool{Name: "late"}, func(_ context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	ev := nextData(t, r)
	if !strings.Contains(string(ev.data), "notifications/tools/list_changed") || !ev.hasID {
		t.Fatalf("event %+v %s", ev, ev.data)
	}
	// Disconnect, let another notification happen, and resume.
	resp.Body.Close()
	eventually(t, "the server to notice the disconnect", func() bool {
		st := f.h.lookup(sid).standalone
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.conn == nil
	})
	f.srv.RemoveTools("late")
	time.Sleep(50 * time.Millisecond) // list_changed is debounced
	resp2, r2 := f.openSSE("GET", with(getH, "Last-Event-Id", ev.id), "")
	defer resp2.Body.Close()
	ev2 := nextData(t, r2)
	if !strings.Contains(string(ev2.data), "notifications/tools/list_changed") || ev2.id == ev.id {
		t.Fatalf("resumed event %+v %s", ev2, ev2.data)
	}
}

func TestMaxSessions(t *testing.T) {
	f := newFixture(t, &HandlerOptions{MaxSessions: 3})
	var sessions []*mcp.ClientSession
	for range 3 {
		cs, _ := f.connect(nil, nil)
		sessions = append(sessions, cs)
	}
	// A flood of initializes is refused, clearly, while existing sessions work.
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			r := f.do("POST", postHeaders("", ""), initBody(mcp.Version20251125))
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
				t.Errorf("initialize beyond the cap: %d %s", r.status, r.body)
			}
			m := jsonrpc.Decode([]byte(r.body))
			if m.Error == nil || m.Error.Code != CodeServerBusy || !strings.Contains(m.Error.Message, "session limit") || m.ID != jsonrpc.Int64ID(1) {
				t.Errorf("refusal body %s", r.body)
			}
		})
		wg.Go(func() {
			res, err := sessions[0].CallTool(ctx(t), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"still here"}`)})
			if err != nil || res.IsError {
				t.Errorf("existing session: %v %+v", err, res)
			}
		})
	}
	wg.Wait()
	// The mcp client sees the refusal as an initialize error.
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
	_, err := c.Connect(ctx(t), NewClientStream(f.url, &ClientOptions{HTTPClient: f.ts.Client()}))
	if err == nil || !strings.Contains(err.Error(), "session limit") {
		t.Errorf("Connect beyond the cap: %v", err)
	}
	// Ending a session makes room.
	sessions[2].Close()
	eventually(t, "room for a session", func() bool { return f.h.SessionCount() == 2 })
	f.connect(nil, nil)
}

func TestResponseModes(t *testing.T) {
	tests := []struct {
		name     string
		json     bool
		accept   string
		wantType string
	}{
		// Nothing is sent before the answer: JSON when the client accepts it.
		{"SSE mode, both accepted", false, "application/json, text/event-stream", "application/json"},
		{"SSE mode, SSE only", false, "text/event-stream", "text/event-stream"},
		{"SSE mode, JSON only", false, "application/json", "application/json"},
		{"JSON mode, both accepted", true, "application/json, text/event-stream", "application/json"},
		{"JSON mode, SSE only", true, "text/event-stream", "text/event-stream"},
		{"wildcard", false, "*/*", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, &HandlerOptions{JSONResponse: tt.json})
			sid := f.initSession(mcp.Version20251125)
			r := f.do("POST", with(postHeaders(sid, mcp.Version20251125), "Accept", tt.accept), listBody)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), tt.wantType) {
				t.Fatalf("%d %q", r.status, r.header.Get("Content-Type"))
			}
			if !strings.Contains(r.body, `"id":8,"result":{"tools":[`) {
				t.Errorf("body %s", r.body)
			}
		})
	}
}

func TestBatch20250326(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		f := newFixture(t, &HandlerOptions{JSONResponse: jsonMode})
		sid := f.initSession(mcp.Version20250326)
		body := `[{"jsonrpc":"2.0","id":"a","method":"ping"},` + notifBody + `,{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},{"jsonrpc":"2.0","id":"c","method":"no/such"},{"bad":1}]`
		r := f.do("POST", postHeaders(sid, mcp.Version20250326), body)
		if r.status != 200 {
			t.Fatalf("json=%v: %d %s", jsonMode, r.status, r.body)
		}
		data := r.body // JSON either way: nothing went before the answer
		m := jsonrpc.Decode([]byte(data))
		if len(m.Batch) != 4 {
			t.Fatalf("json=%v: want 4 replies, got %s", jsonMode, data)
		}
		got := map[string]string{}
		for _, e := range m.Batch {
			switch {
			case e.Error != nil:
				got[e.ID.String()] = "error " + itoaTest(-e.Error.Code)
			default:
				got[e.ID.String()] = string(e.Result)
			}
		}
		if got[`"a"`] != "{}" || !strings.Contains(got[`"b"`], `"text":"hi"`) || got[`"c"`] != "error 32601" || got["<none>"] != "error 32600" {
			t.Errorf("json=%v: replies %q", jsonMode, got)
		}
	}
}

func TestGzipJSON(t *testing.T) {
	f := newFixture(t, &HandlerOptions{JSONResponse: true})
	sid := f.initSession(mcp.Version20251125)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big"}}`
	r := f.do("POST", with(postHeaders(sid, ""), "Accept-Encoding", "gzip"), call)
	if r.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", r.header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil || !strings.Contains(string(plain), "compressible compressible") || len(r.body) > len(plain)/5 {
		t.Errorf("gzip body: %v, %d bytes for %d", err, len(r.body), len(plain))
	}
	// Small bodies and clients without gzip get plain JSON. ("identity":
	// with no Accept-Encoding, net/http asks for gzip and hides it.)
	for _, tc := range []struct{ body, enc string }{{pingBody, "gzip"}, {call, "identity"}} {
		r := f.do("POST", with(postHeaders(sid, ""), "Accept-Encoding", tc.enc), tc.body)
		if r.header.Get("Content-Encoding") != "" || !strings.HasPrefix(r.body, "{") {
			t.Errorf("%s with Accept-Encoding %q: encoded %q", tc.body, tc.enc, r.header.Get("Content-Encoding"))
		}
		// Small and large bodies alike are sent with their length, not
		// chunked.
		if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.body)) {
			t.Errorf("%s: Content-Length %q for a %d-byte body", tc.body, got, len(r.body))
		}
	}
	// The client stream decompresses transparently.
	cs, _ := f.connect(nil, nil)
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "big"})
	if err != nil || len(res.Content[0].(*mcp.TextContent).Text) != 13000 {
		t.Errorf("CallTool big: %v", err)
	}
}
