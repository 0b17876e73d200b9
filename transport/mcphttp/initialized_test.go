package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// rootsResult is what an InitializedHandler's ListRoots returned.
type rootsResult struct {
	res *mcp.ListRootsResult
	err error
}

// rootsOnInitialized returns a server whose InitializedHandler lists the
// client's roots and reports the outcome on the channel.
func rootsOnInitialized(opts *mcp.ServerOptions) (*mcp.Server, chan rootsResult) {
	done := make(chan rootsResult, 1)
	var o mcp.ServerOptions
	if opts != nil {
		o = *opts
	}
	o.InitializedHandler = func(ctx context.Context, ss *mcp.ServerSession) {
		res, err := ss.ListRoots(ctx, nil)
		done <- rootsResult{res, err}
	}
	return mcp.NewServer(&mcp.Implementation{Name: "roots-on-initialized", Version: "1"}, &o), done
}

// initRoots runs the handshake of a client with the roots capability and
// returns the session id.
func initRoots(f *fixture, version string) string {
	f.t.Helper()
	body := strings.Replace(initBody(version), `"capabilities":{}`, `"capabilities":{"roots":{}}`, 1)
	r := f.do("POST", postHeaders("", ""), body)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		f.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if r = f.do("POST", postHeaders(sid, version), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		f.t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

// TestInitializedHandlerRequestWaitsForGET: a client opens its standalone
// GET stream only once its initialized notification is accepted, so a
// request the server sends from InitializedHandler comes before the stream
// exists. It waits for the GET, then goes out on it.
func TestInitializedHandlerRequestWaitsForGET(t *testing.T) {
	for _, version := range []string{mcp.Version20250326, mcp.Version20250618, mcp.Version20251125} {
		t.Run(version, func(t *testing.T) {
			srv, done := rootsOnInitialized(nil)
			f := newFixtureWith(t, srv, nil)
			sid := initRoots(f, version)
			// The request waits for the stream (or, without the wait, has
			// failed already).
			eventually(t, "ListRoots to wait for the GET stream", func() bool {
				s := f.h.lookup(sid)
				return len(done) > 0 || (s != nil && s.standaloneStream().waiting() > 0)
			})
			if len(done) > 0 {
				r := <-done
				t.Fatalf("ListRoots returned before the client opened its GET stream: %+v, %v", r.res, r.err)
			}
			resp, sse := f.openSSE("GET", map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}, "")
			defer resp.Body.Close()
			req := jsonrpc.Decode(nextData(t, sse).data)
			if req.Method != mcp.MethodRootsList || !req.IsRequest() {
				t.Fatalf("on the GET stream: %+v, want a roots/list request", req)
			}
			answer := `{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"roots":[{"uri":"file:///work","name":"work"}]}}`
			if r := f.do("POST", postHeaders(sid, version), answer); r.status != http.StatusAccepted {
				t.Fatalf("answer: %d %s", r.status, r.body)
			}
			select {
			case r := <-done:
				if r.err != nil || len(r.res.Roots) != 1 || r.res.Roots[0].URI != "file:///work" {
					t.Errorf("ListRoots: %+v, %v", r.res, r.err)
				}
			case <-ctx(t).Done():
				t.Fatal("ListRoots did not return")
			}
		})
	}
}

// TestInitializedHandlerRequestWithoutGET: a client that never opens a GET
// stream gets no request; the server's request fails when its context
// ends (here ServerOptions.RequestTimeout), and the session goes on.
func TestInitializedHandlerRequestWithoutGET(t *testing.T) {
	const timeout = 200 * time.Millisecond
	srv, done := rootsOnInitialized(&mcp.ServerOptions{RequestTimeout: timeout})
	f := newFixtureWith(t, srv, nil)
	start := time.Now()
	sid := initRoots(f, mcp.Version20251125)
	var r rootsResult
	select {
	case r = <-done:
	case <-ctx(t).Done():
		t.Fatal("ListRoots did not return")
	}
	if !errors.Is(r.err, errNoStream) || !errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("ListRoots: %v, want errNoStream after the request timeout", r.err)
	}
	if d := time.Since(start); d < timeout {
		t.Errorf("ListRoots failed after %v, before its timeout (%v)", d, timeout)
	}
	if r := f.do("POST", postHeaders(sid, mcp.Version20251125), pingBody); r.status != http.StatusOK {
		t.Errorf("ping after: %d %s", r.status, r.body)
	}
}

// TestInitializedHandlerRequestClient: the same with this package's client,
// which opens its GET stream after initialized: the server's roots/list
// from InitializedHandler reaches it.
func TestInitializedHandlerRequestClient(t *testing.T) {
	srv, done := rootsOnInitialized(nil)
	f := newFixtureWith(t, srv, nil)
	f.connect(&mcp.ClientOptions{Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}}}, nil)
	select {
	case r := <-done:
		if r.err != nil || len(r.res.Roots) != 1 {
			t.Errorf("ListRoots: %+v, %v", r.res, r.err)
		}
	case <-ctx(t).Done():
		t.Fatal("ListRoots did not return")
	}
}

// waiting reports how many requests wait for the stream (awaitHeld).
func (st *stream) waiting() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.waiters
}

// TestStandaloneWaitersBounded: at most maxHeldWaiters requests of a
// session wait for its standalone stream; one more fails at once.
func TestStandaloneWaitersBounded(t *testing.T) {
	f := newFixture(t, nil)
	sid := f.initSession(mcp.Version20251125)
	st := f.h.lookup(sid).standaloneStream()
	wctx, cancel := context.WithCancel(ctx(t))
	errs := make(chan error, maxHeldWaiters)
	for i := range maxHeldWaiters {
		go func() {
			errs <- st.send(wctx, jsonrpc.NewRequest(jsonrpc.Int64ID(int64(i+1)), mcp.MethodPing, nil), false)
		}()
	}
	eventually(t, "the waiters", func() bool { return st.waiting() == maxHeldWaiters })
	err := st.send(ctx(t), jsonrpc.NewRequest(jsonrpc.Int64ID(100), mcp.MethodPing, nil), false)
	if !errors.Is(err, errNoStream) || errors.Is(err, context.Canceled) {
		t.Errorf("one request beyond the bound: %v, want errNoStream at once", err)
	}
	cancel()
	for range maxHeldWaiters {
		if err := <-errs; !errors.Is(err, errNoStream) || !errors.Is(err, context.Canceled) {
			t.Errorf("a waiter whose context ended: %v", err)
		}
	}
	if n := st.waiting(); n != 0 {
		t.Errorf("%d waiters left", n)
	}
}
