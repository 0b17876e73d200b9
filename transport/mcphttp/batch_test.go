package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gomcp/sdk/internal/alloctest"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// postTo serves one POST of body to /mcp with headers hdr on h, on this
// goroutine.
func postTo(h http.Handler, hdr map[string]string, body []byte) *httptest.ResponseRecorder {
	return postAt(h, "/mcp", hdr, body)
}

// postAt is postTo for the request target target.
func postAt(h http.Handler, target string, hdr map[string]string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	// httptest's Host is example.com and its request has no local address,
	// which the rebinding check refuses; an IP literal passes it.
	req.Host = "127.0.0.1"
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// isOneError reports whether body is a single JSON-RPC error response with
// a null id and code -32600.
func isOneError(body []byte) bool {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *jsonrpc.Error  `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && string(m.ID) == "null" && m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidRequest
}

// TestBatchBomb POSTs a 4 MiB body of empty objects ([{},{},...]), the
// default MaxBodyBytes, without a session, in sessions of every stateful
// kind and as a stateless request: each gets 400 with one short error
// (none is accepted, not even at 2025-03-26, where it is over MaxBatch),
// and the Handler allocates a small multiple of the body at most.
func TestBatchBomb(t *testing.T) {
	f := newFixture(t, nil)
	sid0326 := f.initSession(mcp.Version20250326)
	sid1125 := f.initSession(mcp.Version20251125)
	body := alloctest.TinyBatch(DefaultMaxBodyBytes / 3)
	tests := []struct {
		name string
		hdr  map[string]string
	}{
		{"no session", postHeaders("", "")},
		{"no session, 2025-03-26", postHeaders("", mcp.Version20250326)},
		{"no session, 2025-11-25", postHeaders("", mcp.Version20251125)},
		{"2026-07-28", postHeaders("", mcp.Version20260728)},
		{"2025-03-26 session", postHeaders(sid0326, mcp.Version20250326)},
		{"2025-03-26 session, no version header", postHeaders(sid0326, "")},
		{"2025-11-25 session", postHeaders(sid1125, mcp.Version20251125)},
		{"2025-11-25 session, no version header", postHeaders(sid1125, "")},
		{"unknown session", postHeaders("nope", mcp.Version20250326)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec *httptest.ResponseRecorder
			n := alloctest.Allocated(func() { rec = postTo(f.h, tt.hdr, body) })
			t.Logf("allocated %d bytes, %.1f× the body", n, float64(n)/float64(len(body)))
			if limit := uint64(8 * len(body)); n > limit {
				t.Errorf("the Handler allocated %d bytes for a %d-byte body (%.0f×), want at most 8×", n, len(body), float64(n)/float64(len(body)))
			}
			if rec.Code != http.StatusBadRequest || rec.Body.Len() > 1024 || !isOneError(rec.Body.Bytes()) {
				t.Errorf("answer %d (%d bytes): %.300s", rec.Code, rec.Body.Len(), rec.Body.Bytes())
			}
		})
	}
	if r := f.do("POST", postHeaders(sid0326, mcp.Version20250326), "["+pingBody+"]"); r.status != http.StatusOK || !strings.Contains(r.body, `"id":7,"result":{}`) {
		t.Errorf("a batch at 2025-03-26 after the bombs: %d %s", r.status, r.body)
	}
}

// TestBatchRefusedBeforeDecoding checks that a batch a POST may not carry
// (no session, the stateless revision, a session of a revision without
// batches, told by the header or by the session held) is refused before its
// elements are decoded: a batch of MaxBatch empty objects, within the
// bound, costs the Handler little more than its body, where decoding it
// would take some 200 bytes an element.
func TestBatchRefusedBeforeDecoding(t *testing.T) {
	f := newFixture(t, nil)
	sid1125 := f.initSession(mcp.Version20251125)
	sid0618 := f.initSession(mcp.Version20250618)
	body := alloctest.TinyBatch(jsonrpc.DefaultMaxBatch)
	for name, hdr := range map[string]map[string]string{
		"no session":                            postHeaders("", ""),
		"2026-07-28":                            postHeaders("", mcp.Version20260728),
		"2025-11-25 session":                    postHeaders(sid1125, mcp.Version20251125),
		"2025-11-25 session, no version header": postHeaders(sid1125, ""),
		"2025-06-18 session, no version header": postHeaders(sid0618, ""),
	} {
		t.Run(name, func(t *testing.T) {
			postTo(f.h, hdr, body) // warm up: the first request of a kind allocates more
			var rec *httptest.ResponseRecorder
			n := alloctest.Allocated(func() { rec = postTo(f.h, hdr, body) })
			if n > 64<<10 {
				t.Errorf("the Handler allocated %d bytes to refuse a %d-byte batch", n, len(body))
			}
			if rec.Code != http.StatusBadRequest || !isOneError(rec.Body.Bytes()) || !strings.Contains(rec.Body.String(), "2025-03-26") {
				t.Errorf("answer %d: %s", rec.Code, rec.Body.Bytes())
			}
		})
	}
}

// TestMaxBatch checks HandlerOptions.MaxBatch: a batch of MaxBatch requests
// is served, one more is refused whole with one error.
func TestMaxBatch(t *testing.T) {
	f := newFixture(t, &HandlerOptions{MaxBatch: 2, JSONResponse: true})
	sid := f.initSession(mcp.Version20250326)
	h := postHeaders(sid, mcp.Version20250326)
	ping := func(id int) string { return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"ping"}` }
	r := f.do("POST", h, "["+ping(1)+","+ping(2)+"]")
	var answers []json.RawMessage
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &answers) != nil || len(answers) != 2 {
		t.Errorf("a batch of MaxBatch: %d %s", r.status, r.body)
	}
	r = f.do("POST", h, "["+ping(3)+","+ping(4)+","+ping(5)+"]")
	if r.status != http.StatusBadRequest || !isOneError([]byte(r.body)) || !strings.Contains(r.body, "at most 2") {
		t.Errorf("a batch of MaxBatch+1: %d %s", r.status, r.body)
	}
}

// TestLegacyBatchRefusedBeforeDecoding checks that the HTTP+SSE transport
// refuses a batch its session may not carry (here, before initialize)
// before decoding its elements, with 400 and one error, and bounds a
// batch by MaxBatch.
func TestLegacyBatchRefusedBeforeDecoding(t *testing.T) {
	h, ts := newLegacy(t, testServer(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, err := newSSEReader(resp.Body, 1<<10).next()
	if err != nil || ev.event != "endpoint" {
		t.Fatalf("endpoint event: %+v %v", ev, err)
	}
	hdr := map[string]string{"Content-Type": "application/json"}
	for _, n := range []int{jsonrpc.DefaultMaxBatch, DefaultMaxBodyBytes / 3} {
		body := alloctest.TinyBatch(n)
		postAt(h, string(ev.data), hdr, body) // warm up
		var rec *httptest.ResponseRecorder
		allocs := alloctest.Allocated(func() { rec = postAt(h, string(ev.data), hdr, body) })
		if limit := uint64(len(body) + 64<<10); allocs > limit {
			t.Errorf("the SSEHandler allocated %d bytes to refuse a %d-byte batch", allocs, len(body))
		}
		if rec.Code != http.StatusBadRequest || !isOneError(rec.Body.Bytes()) || !strings.Contains(rec.Body.String(), "before initialize") {
			t.Errorf("answer %d: %.300s", rec.Code, rec.Body.Bytes())
		}
	}
}
