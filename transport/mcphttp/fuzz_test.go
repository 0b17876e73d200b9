package mcphttp

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/alloctest"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// FuzzHandlerPost drives Handler.ServeHTTP with arbitrary POST bodies and
// MCP headers (protocol version, session, Accept, Content-Type, one more
// header of the fuzzer's choosing), against sessions of 2025-03-26 (with
// batches) and 2025-11-25 and as stateless requests: the Handler never
// panics, never allocates more than a small multiple of the body for
// itself, and always answers with a well-formed response: 202 and no body,
// 200 with JSON-RPC responses as JSON or as SSE events, or an error status
// with one JSON-RPC error response.
func FuzzHandlerPost(f *testing.F) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	h := NewHandler(srv, &HandlerOptions{MaxBodyBytes: 64 << 10, MaxBatch: 16})
	f.Cleanup(func() { h.Close() })
	sessions := []string{"", "", "no-such-session"}
	for _, v := range []string{mcp.Version20250326, mcp.Version20251125} {
		rec := postTo(h, postHeaders("", ""), []byte(initBody(v)))
		sid := rec.Header().Get(headerSessionID)
		if rec.Code != http.StatusOK || sid == "" {
			f.Fatalf("initialize %s: %d %s", v, rec.Code, rec.Body.Bytes())
		}
		postTo(h, postHeaders(sid, v), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		sessions = append(sessions, sid)
	}
	statelessCall := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, seed := range []struct {
		body    string
		version string
		session uint8
		accept  uint8
		extra   string
	}{
		{pingBody, mcp.Version20251125, 4, 0, ""},
		{"[" + pingBody + "," + notifBody + "]", mcp.Version20250326, 3, 0, ""},
		{"[" + pingBody + "," + listBody + "]", "", 3, 1, ""},
		{string(alloctest.TinyBatch(17)), mcp.Version20250326, 3, 0, ""},
		{string(alloctest.TinyBatch(20000)), mcp.Version20250326, 3, 0, ""},
		{string(alloctest.TinyBatch(20000)), "", 0, 0, ""},
		{"[{},1,[]]", mcp.Version20250326, 3, 2, ""},
		{"[" + pingBody + "]", mcp.Version20251125, 4, 0, ""},
		{"[" + pingBody + "]", "", 0, 0, ""},
		{"[]", mcp.Version20250326, 3, 0, ""},
		{statelessCall, mcp.Version20260728, 0, 0, "Mcp-Name: echo"},
		{"[" + statelessCall + "]", mcp.Version20260728, 0, 0, ""},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, mcp.Version20251125, 4, 1, "Mcp-Name: echo"},
		{initBody(mcp.Version20250326), "", 0, 0, ""},
		{`{"jsonrpc":"2.0","id":9,"result":{}}`, mcp.Version20250326, 3, 0, ""},
		{`{"jsonrpc":`, "", 2, 0, ""},
		{pingBody, "1999-01-01", 4, 3, "Mcp-Session-Id: x"},
	} {
		f.Add([]byte(seed.body), seed.version, seed.session, seed.accept, seed.extra)
	}
	accepts := []string{"application/json, text/event-stream", "application/json", "text/event-stream", "text/html", ""}
	f.Fuzz(func(t *testing.T, body []byte, version string, session, accept uint8, extra string) {
		hdr := map[string]string{"Content-Type": "application/json", "Accept": accepts[int(accept)%len(accepts)]}
		if accept >= 128 {
			hdr["Content-Type"] = "text/plain"
		}
		if version != "" {
			hdr[headerProtocolVersion] = version
		}
		if sid := sessions[int(session)%len(sessions)]; sid != "" {
			hdr[headerSessionID] = sid
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Host = "127.0.0.1" // not example.com, which the rebinding check refuses
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if k, v, ok := strings.Cut(extra, ":"); ok && validHeader(k, v) {
			req.Header.Add(k, strings.TrimSpace(v))
		}
		ctx, cancel := context.WithTimeout(req.Context(), 5*time.Second)
		defer cancel()
		rec := httptest.NewRecorder()
		n := alloctest.Allocated(func() { h.ServeHTTP(rec, req.WithContext(ctx)) })
		// Beyond the body, a batch of up to MaxBatch messages and its
		// answers, and the session machinery: 1 MiB is far above what
		// any input needs, and far below what a body of 64 KiB of tiny
		// elements would cost decoded element by element.
		if limit := uint64(8*len(body) + 1<<20); n > limit {
			t.Errorf("the Handler allocated %d bytes for a %d-byte body", n, len(body))
		}
		checkPostAnswer(t, rec)
	})
}

// validHeader reports whether k: v can be sent as an HTTP header field.
func validHeader(k, v string) bool {
	if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n\x00") {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// checkPostAnswer checks that rec is a well-formed answer to a POST.
func checkPostAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	ct := rec.Header().Get("Content-Type")
	switch {
	case rec.Code == http.StatusAccepted:
		if len(body) != 0 {
			t.Errorf("202 with a body: %.300s", body)
		}
	case rec.Code == http.StatusOK && ct == "application/json":
		checkResponses(t, body)
	case rec.Code == http.StatusOK && ct == "text/event-stream":
		for _, ev := range bytes.Split(body, []byte("\n\n")) {
			for _, line := range bytes.Split(ev, []byte("\n")) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(data) > 0 {
					if m := jsonrpc.Decode(data); m.Invalid != nil {
						t.Errorf("SSE event with an invalid message: %.300s", data)
					}
				}
			}
		}
	case rec.Code >= 400 && rec.Code < 600:
		m := jsonrpc.Decode(body)
		if ct != "application/json" || m.Invalid != nil || m.Error == nil {
			t.Errorf("%d (%s) without one JSON-RPC error: %.300s", rec.Code, ct, body)
		}
	default:
		t.Errorf("unexpected answer %d (%s): %.300s", rec.Code, ct, body)
	}
}

// checkResponses checks that body holds a JSON-RPC response or a batch of
// them.
func checkResponses(t *testing.T, body []byte) {
	t.Helper()
	m := jsonrpc.Decode(body)
	if m.Invalid != nil {
		t.Errorf("JSON answer that is no message: %.300s", body)
		return
	}
	for _, r := range append([]*jsonrpc.Message{m}, m.Batch...) {
		if r.Batch == nil && !r.IsResponse() {
			t.Errorf("JSON answer that is not a response: %.300s", body)
		}
	}
}
