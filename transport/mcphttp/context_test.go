package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

type userKey struct{}

// TestRequestContextValues checks that what HTTP middleware stores in the
// request's context reaches tool handlers on both lifecycles.
func TestRequestContextValues(t *testing.T) {
	srv := testServer()
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "reads the middleware's value"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
			u, _ := ctx.Value(userKey{}).(string)
			return "user=" + u, nil
		})
	h := NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })
	mw := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, r.Header.Get("X-Test-User"))))
	})
	f := &fixture{t: t, srv: srv, h: h, ts: httptest.NewServer(mw)}
	f.url = f.ts.URL + "/mcp"
	t.Cleanup(f.ts.Close)

	sid := f.initSession(mcp.Version20251125)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami"}}`
	for _, accept := range []string{"application/json", "text/event-stream"} {
		r := f.do("POST", with(postHeaders(sid, mcp.Version20251125), "Accept", accept, "X-Test-User", "ada"), call)
		if r.status != 200 || !strings.Contains(r.body, "user=ada") {
			t.Errorf("stateful session, %s: %d %s", accept, r.status, r.body)
		}
	}
	r := f.do("POST", modernHeaders("tools/call", "Mcp-Name", "whoami", "X-Test-User", "grace"), modernBody(4, "tools/call", `{"name":"whoami"}`, ""))
	if r.status != 200 || !strings.Contains(r.body, "user=grace") {
		t.Errorf("stateless request: %d %s", r.status, r.body)
	}
}

// failingEvents is an EventStore whose appends fail on demand.
type failingEvents struct {
	EventStore
	fail atomic.Bool
}

func (s *failingEvents) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	if s.fail.Load() {
		return "", errors.New("store down")
	}
	return s.EventStore.Append(ctx, session, stream, data)
}

// TestEventStoreErrors checks that a failing append reaches the handler
// that sent the message, and that the answer still reaches a live client.
func TestEventStoreErrors(t *testing.T) {
	events := &failingEvents{EventStore: NewMemoryEventStore(nil)}
	f := newFixture(t, &HandlerOptions{EventStore: events})
	sid := f.initSession(mcp.Version20251125)
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"n":1}}}`
	r := f.do("POST", postHeaders(sid, mcp.Version20251125), call)
	if r.status != 200 || !strings.Contains(r.body, `"text":"done"`) {
		t.Fatalf("with a working store: %d %s", r.status, r.body)
	}
	events.fail.Store(true)
	r = f.do("POST", postHeaders(sid, mcp.Version20251125), call)
	if r.status != 200 || !strings.Contains(r.body, `"isError":true`) || !strings.Contains(r.body, "store down") {
		t.Errorf("with a failing store: %d %s", r.status, r.body)
	}
}
