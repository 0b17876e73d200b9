package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// openSamplingSession initializes a session of alice's, whose client can
// sample, at url and returns its id.
func openSamplingSession(t *testing.T, url string) string {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.Version20251125 +
		`","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`
	r := clusterPost(t, url, "alice", "", init)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if r := clusterPost(t, url, "alice", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

// TestMultiProcessAnswer sends a server request (sampling) from one
// process and its answer to the other, and resumes the request's POST
// stream on the other, which follows it from the store until the result.
func TestMultiProcessAnswer(t *testing.T) {
	cl := newCluster(t)
	a, b := cl.b[0], cl.b[1]
	sid := openSamplingSession(t, a.url)

	// The tool call on A: its stream carries the sampling request.
	c, cut := context.WithCancel(ctx(t))
	defer cut()
	req, _ := http.NewRequestWithContext(c, "POST", a.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sample","arguments":{"text":"hi"}}}`))
	for k, v := range postHeaders(sid, mcp.Version20251125) {
		req.Header.Set(k, v)
	}
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("tools/call: %v %v", resp, err)
	}
	rd := newSSEReader(resp.Body, 1<<20)
	ev := nextData(t, rd)
	var sampling struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(ev.data, &sampling); err != nil || sampling.Method != "sampling/createMessage" {
		t.Fatalf("first event: %s", ev.data)
	}
	// The client loses the stream, and resumes it on B, which has nothing
	// more yet and follows it.
	cut()
	resp.Body.Close()
	rdB, _ := openGET(t, b.url, "alice", sid, ev.id)
	// The answer goes to B; A, whose call waits for it, gets it.
	answer := `{"jsonrpc":"2.0","id":` + string(sampling.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`
	if r := clusterPost(t, b.url, "alice", sid, answer); r.status != 202 {
		t.Fatalf("answer on B: %d %s", r.status, r.body)
	}
	res := nextData(t, rdB)
	if !strings.Contains(string(res.data), `"id":7`) || !strings.Contains(string(res.data), "model said hello") {
		t.Fatalf("result on the resumed stream: %s", res.data)
	}
	if _, err := rdB.next(); err == nil {
		t.Fatal("the resumed stream goes on after the result")
	}
}

// TestMultiProcessRequestIDs: two processes serving one session each ask
// the client something at the same time. Their requests carry different
// ids, so that each answer, which every process hears, is taken by the
// process that asked and no other.
func TestMultiProcessRequestIDs(t *testing.T) {
	cl := newCluster(t)
	a, b := cl.b[0], cl.b[1]
	sid := openSamplingSession(t, a.url)
	type call struct {
		rd *sseReader
		id json.RawMessage // of the sampling request
	}
	start := func(url, callID, text string) call {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx(t), "POST", url, strings.NewReader(
			`{"jsonrpc":"2.0","id":`+callID+`,"method":"tools/call","params":{"name":"sample","arguments":{"text":"`+text+`"}}}`))
		for k, v := range postHeaders(sid, mcp.Version20251125) {
			req.Header.Set(k, v)
		}
		req.Header.Set("X-User", "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("tools/call: %v %v", resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		rd := newSSEReader(resp.Body, 1<<20)
		var sampling struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if ev := nextData(t, rd); json.Unmarshal(ev.data, &sampling) != nil || sampling.Method != "sampling/createMessage" {
			t.Fatalf("first event: %s", ev.data)
		}
		return call{rd, sampling.ID}
	}
	onA, onB := start(a.url, "10", "a"), start(b.url, "20", "b")
	if string(onA.id) == string(onB.id) {
		t.Fatalf("both processes asked the client with id %s", onA.id)
	}
	// Each answer goes to the other process than the one that asked.
	answer := func(url string, id json.RawMessage, text string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"role":"assistant","content":{"type":"text","text":"` + text + `"},"model":"m"}}`
		if r := clusterPost(t, url, "alice", sid, body); r.status != 202 {
			t.Fatalf("answer: %d %s", r.status, r.body)
		}
	}
	answer(b.url, onA.id, "for a")
	answer(a.url, onB.id, "for b")
	for _, c := range []struct {
		call
		id, text string
	}{{onA, `"id":10`, "model said for a"}, {onB, `"id":20`, "model said for b"}} {
		res := nextData(t, c.rd)
		if !strings.Contains(string(res.data), c.id) || !strings.Contains(string(res.data), c.text) {
			t.Errorf("result: %s, want %s with %q", res.data, c.id, c.text)
		}
	}
}
