package mcphttp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// backend is one "process" of a cluster: an mcp.Server with its own
// Handler, counting the HTTP requests it serves.
type backend struct {
	srv    *mcp.Server
	h      *Handler
	ts     *httptest.Server
	url    string
	served atomic.Int64
}

// cluster is two backends sharing only a SessionStore, an EventStore and
// a shared.Notifier, behind a round-robin reverse proxy.
type cluster struct {
	b     [2]*backend
	proxy *httptest.Server
	url   string
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	return newClusterWith(t, NewMemoryEventStore(nil))
}

// newClusterWith is newCluster with the given event store.
func newClusterWith(t *testing.T, events EventStore) *cluster {
	t.Helper()
	notifier := shared.NewMemoryNotifier()
	states := shared.NewMemorySessionStore(nil)
	cl := &cluster{}
	var targets [2]*url.URL
	for i := range cl.b {
		srv := testServerWith(&mcp.ServerOptions{Notifier: notifier})
		srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		b := &backend{srv: srv}
		b.h = NewHandler(srv, &HandlerOptions{
			SessionStore: states,
			EventStore:   events,
			Principal:    func(r *http.Request) string { return r.Header.Get("X-User") },
		})
		b.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b.served.Add(1)
			b.h.ServeHTTP(w, r)
		}))
		b.url = b.ts.URL + "/mcp"
		t.Cleanup(b.ts.Close)
		t.Cleanup(func() { b.h.Close() })
		targets[i], _ = url.Parse(b.ts.URL)
		cl.b[i] = b
	}
	var next atomic.Int64
	cl.proxy = httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[next.Add(1)%2])
		},
		FlushInterval: -1, // stream SSE events as they come
	})
	t.Cleanup(cl.proxy.Close)
	cl.url = cl.proxy.URL + "/mcp"
	return cl
}

// post sends one message to url as user, for the session sid.
func clusterPost(t *testing.T, url, user, sid, body string) raw {
	t.Helper()
	hdr := postHeaders(sid, mcp.Version20251125)
	hdr["Accept"] = "application/json"
	if user != "" {
		hdr["X-User"] = user
	}
	return doRaw(t, http.DefaultClient, "POST", url, hdr, body)
}

// clusterSession initializes a session through url as user.
func clusterSession(t *testing.T, url, user string) string {
	t.Helper()
	r := clusterPost(t, url, user, "", initBody(mcp.Version20251125))
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if r := clusterPost(t, url, user, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

// openGET opens the standalone stream of sid at url (resuming after last,
// if set) and returns a reader on it and a function that cuts it.
func openGET(t *testing.T, url, user, sid, last string) (*sseReader, func()) {
	t.Helper()
	c, cancel := context.WithCancel(ctx(t))
	req, _ := http.NewRequestWithContext(c, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("X-User", user)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET: %d %s", resp.StatusCode, b)
	}
	cut := func() {
		cancel()
		resp.Body.Close()
	}
	t.Cleanup(cut)
	return newSSEReader(resp.Body, 1<<20), cut
}

// updated reads the next event and returns its id and the URI of the
// notifications/resources/updated it must carry.
func updated(t *testing.T, rd *sseReader) (id, uri string) {
	t.Helper()
	ev := nextData(t, rd)
	var m struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if err := json.Unmarshal(ev.data, &m); err != nil || m.Method != mcp.NotificationResourceUpdated {
		t.Fatalf("event %q: %s", ev.id, ev.data)
	}
	return ev.id, m.Params.URI
}

// TestMultiProcess runs one session across two Handlers of two servers
// that share only their stores and a Notifier.
func TestMultiProcess(t *testing.T) {
	cl := newCluster(t)
	a, b := cl.b[0], cl.b[1]

	t.Run("a client is served by both", func(t *testing.T) {
		served0, served1 := a.served.Load(), b.served.Load()
		hc := cl.proxy.Client()
		cs, stream := connectTo(t, cl.proxy, cl.url, nil, &ClientOptions{HTTPClient: hc, DisableStandaloneStream: true})
		for i := range 6 {
			text := "n" + itoaTest(int64(i))
			if got := callText(t, cs, "echo", `{"text":"`+text+`"}`); got != text {
				t.Fatalf("echo: %q", got)
			}
		}
		if a.served.Load() == served0 || b.served.Load() == served1 {
			t.Errorf("served %d and %d requests; want both to serve", a.served.Load()-served0, b.served.Load()-served1)
		}
		if a.h.lookup(stream.SessionID()) == nil || b.h.lookup(stream.SessionID()) == nil {
			t.Error("the session is not held by both handlers")
		}
	})

	t.Run("GET stream moves between handlers", func(t *testing.T) {
		sid := clusterSession(t, a.url, "alice")
		for _, u := range []string{"test://1", "test://2", "test://3", "test://4", "test://end"} {
			if r := clusterPost(t, a.url, "alice", sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+u+`"}}`); r.status != 200 {
				t.Fatalf("subscribe: %d %s", r.status, r.body)
			}
		}
		// B serves the session too, so that both hold a copy and both
		// hear every update.
		if r := clusterPost(t, b.url, "alice", sid, listBody); r.status != 200 || b.h.lookup(sid) == nil {
			t.Fatalf("B: %d %s", r.status, r.body)
		}
		rdA, cutA := openGET(t, a.url, "alice", sid, "")
		// An update made on B reaches the subscription made on A, on A's
		// stream, once.
		b.srv.ResourceUpdated(ctx(t), "test://1")
		id1, uri := updated(t, rdA)
		if uri != "test://1" {
			t.Fatalf("first event: %s", uri)
		}
		cutA()
		// While the client is away, A still holds the stream: it stores
		// what happens, whichever server it happens on.
		b.srv.ResourceUpdated(ctx(t), "test://2")
		a.srv.ResourceUpdated(ctx(t), "test://3")
		// The client comes back on B, which replays the gap and then goes
		// on live; A stores nothing more.
		rdB, cutB := openGET(t, b.url, "alice", sid, id1)
		a.srv.ResourceUpdated(ctx(t), "test://4")
		a.srv.ResourceUpdated(ctx(t), "test://end")
		expect := func(rd *sseReader, uris ...string) {
			t.Helper()
			ids := map[string]bool{id1: true}
			for _, want := range uris {
				id, uri := updated(t, rd)
				if uri != want || ids[id] {
					t.Fatalf("got %s (id %q), want %s with a new id; ids so far %v", uri, id, want, ids)
				}
				ids[id] = true
			}
		}
		expect(rdB, "test://2", "test://3", "test://4", "test://end")
		// What the store kept is exactly what the client saw: resuming
		// from the same point once more, back on A, replays the same events
		// (none stored twice, by two holders), then goes on live.
		cutB()
		rdA, _ = openGET(t, a.url, "alice", sid, id1)
		b.srv.ResourceUpdated(ctx(t), "test://1")
		expect(rdA, "test://2", "test://3", "test://4", "test://end", "test://1")
	})

	t.Run("another principal is refused", func(t *testing.T) {
		sid := clusterSession(t, a.url, "alice")
		heldByB := b.h.SessionCount()
		for _, be := range []*backend{a, b} {
			r := clusterPost(t, be.url, "mallory", sid, pingBody)
			if r.status != http.StatusForbidden || !strings.Contains(r.body, "another principal") || !strings.Contains(r.body, `"error"`) {
				t.Errorf("POST by another principal: %d %s", r.status, r.body)
			}
			for _, m := range []string{"GET", "DELETE"} {
				r := doRaw(t, http.DefaultClient, m, be.url, map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "X-User": "mallory"}, "")
				if r.status != http.StatusForbidden {
					t.Errorf("%s by another principal: %d %s", m, r.status, r.body)
				}
			}
		}
		if b.h.lookup(sid) != nil || b.h.SessionCount() != heldByB {
			t.Error("B rebuilt the session for another principal")
		}
		// The owner goes on, on both.
		for _, be := range []*backend{a, b} {
			if r := clusterPost(t, be.url, "alice", sid, pingBody); r.status != 200 {
				t.Errorf("owner: %d %s", r.status, r.body)
			}
		}
		// DELETE on B ends A's copy too, and the stored state.
		if r := doRaw(t, http.DefaultClient, "DELETE", b.url, map[string]string{"Mcp-Session-Id": sid, "X-User": "alice"}, ""); r.status != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}
		if a.h.lookup(sid) != nil {
			t.Error("A still holds the deleted session")
		}
		for _, be := range []*backend{a, b} {
			if r := clusterPost(t, be.url, "alice", sid, pingBody); r.status != http.StatusNotFound {
				t.Errorf("after DELETE: %d %s", r.status, r.body)
			}
		}
	})
}
