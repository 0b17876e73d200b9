package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// TestRebuiltSessionsCountAgainstQuota: a client whose sessions another
// replica created cannot make this one rebuild more of them than
// MaxSessionsPerClient; the one beyond gets 429 with Retry-After and an
// error carrying the request's id, and the sessions it holds keep working.
func TestRebuiltSessionsCountAgainstQuota(t *testing.T) {
	states := shared.NewMemorySessionStore(nil)
	events := NewMemoryEventStore(nil)
	notifier := shared.NewMemoryNotifier()
	var urls [2]string
	var handlers [2]*Handler
	for i, quota := range []int{-1, 2} { // replica 0 has no quota, replica 1 a quota of 2
		srv := testServerWith(&mcp.ServerOptions{Notifier: notifier})
		h := NewHandler(srv, &HandlerOptions{
			SessionStore: states, EventStore: events, MaxSessionsPerClient: quota,
			ClientKey: func(r *http.Request) string { return r.Header.Get("X-Client") },
		})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		t.Cleanup(func() { h.Close() })
		urls[i], handlers[i] = ts.URL+"/mcp", h
	}
	post := func(url, client, sid, body string) raw {
		t.Helper()
		hdr := postHeaders(sid, mcp.Version20251125)
		hdr["Accept"] = "application/json"
		hdr["X-Client"] = client
		return doRaw(t, http.DefaultClient, "POST", url, hdr, body)
	}
	var sids []string
	for range 3 {
		r := post(urls[0], "a", "", initBody(mcp.Version20251125))
		sid := r.header.Get("Mcp-Session-Id")
		if r.status != http.StatusOK || sid == "" {
			t.Fatalf("initialize on replica 0: %d %s", r.status, r.body)
		}
		post(urls[0], "a", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		sids = append(sids, sid)
	}
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	for i, sid := range sids[:2] {
		if r := post(urls[1], "a", sid, ping); r.status != http.StatusOK {
			t.Fatalf("session %d rebuilt on replica 1 within the quota: %d %s", i, r.status, r.body)
		}
	}
	r := post(urls[1], "a", sids[2], ping)
	m := jsonrpc.Decode([]byte(r.body))
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" ||
		m.Error == nil || m.Error.Code != CodeServerBusy || m.ID != jsonrpc.Int64ID(9) {
		t.Fatalf("a third session rebuilt for the client: %d %v %s; want 429 with Retry-After", r.status, r.header, r.body)
	}
	if n := handlers[1].SessionCount(); n != 2 {
		t.Fatalf("replica 1 holds %d sessions, want 2", n)
	}
	// The held ones keep working, and a new initialize there is refused too.
	if r := post(urls[1], "a", sids[0], ping); r.status != http.StatusOK {
		t.Fatalf("a held session after the refusal: %d %s", r.status, r.body)
	}
	if r := post(urls[1], "a", "", initBody(mcp.Version20251125)); r.status != http.StatusTooManyRequests {
		t.Fatalf("initialize on replica 1 at the quota: %d %s", r.status, r.body)
	}
	// Ending a session there gives the slot back.
	if r := doRaw(t, http.DefaultClient, "DELETE", urls[1], map[string]string{"Mcp-Session-Id": sids[0], "X-Client": "a"}, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := post(urls[1], "a", sids[2], ping); r.status != http.StatusOK {
		t.Fatalf("rebuild after a slot is freed: %d %s", r.status, r.body)
	}
}

// TestStatelessRequestsPerClient: a client with MaxStatelessRequestsPerClient
// stateless requests in progress gets 429 for one more, with Retry-After and
// an error carrying the request's id, while another client is served; at
// MaxStatelessRequests everyone gets 503; once the requests end, the slots
// are free again.
func TestStatelessRequestsPerClient(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{MaxStatelessRequests: 3, MaxStatelessRequestsPerClient: 2})
	clients := []*http.Client{clientFrom(t, "127.0.0.1"), clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")}
	hdr := modernHeaders("tools/call", "Mcp-Name", "block")
	hdr["Accept"] = "application/json"
	call := func(c, id int) raw {
		return doRaw(t, clients[c], "POST", f.url, hdr, modernBody(id, "tools/call", `{"name":"block","arguments":{}}`, ""))
	}
	answers := make(chan raw, 3)
	for i, c := range []int{0, 0, 1} {
		go func() { answers <- call(c, 10+i) }()
		<-b.started
	}
	for _, c := range []struct {
		what   string
		client int
		status int
	}{
		{"a third request of client 0", 0, http.StatusTooManyRequests},
		{"a request of client 2 at the global bound", 2, http.StatusServiceUnavailable},
	} {
		r := call(c.client, 20)
		m := jsonrpc.Decode([]byte(r.body))
		if r.status != c.status || r.header.Get("Retry-After") == "" || m.Error == nil ||
			m.Error.Code != CodeServerBusy || m.ID != jsonrpc.Int64ID(20) {
			t.Errorf("%s: %d %v %s; want %d with Retry-After", c.what, r.status, r.header, r.body, c.status)
		}
	}
	close(b.release)
	for range 3 {
		if r := <-answers; r.status != http.StatusOK {
			t.Fatalf("a request within the bounds: %d %s", r.status, r.body)
		}
	}
	eventually(t, "the slots freed", func() bool { return f.h.statelessReq.held("") == 0 })
	if r := call(0, 30); r.status != http.StatusOK {
		t.Fatalf("after the requests ended: %d %s", r.status, r.body)
	}
}
