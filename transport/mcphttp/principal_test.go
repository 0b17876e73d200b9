package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// asUser records the X-User header as the request's principal, as
// authentication middleware does with WithPrincipal.
func asUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(WithPrincipal(r.Context(), u))
		}
		h.ServeHTTP(w, r)
	})
}

// TestSessionBoundByDefault: behind middleware that records principals,
// and with no Principal option, a session belongs to the principal that
// created it: another one's requests (bob, or no one) get 403, unless
// UnboundSessions says otherwise.
func TestSessionBoundByDefault(t *testing.T) {
	for _, unbound := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "UnboundSessions"}[unbound], func(t *testing.T) {
			srv := testServer()
			h := NewHandler(srv, &HandlerOptions{UnboundSessions: unbound})
			ts := httptest.NewServer(asUser(h))
			t.Cleanup(ts.Close)
			t.Cleanup(func() { h.Close() })
			f := &fixture{t: t, srv: srv, h: h, ts: ts, url: ts.URL + "/mcp"}
			as := func(user, sid string) map[string]string {
				return with(postHeaders(sid, mcp.Version20251125), "X-User", user)
			}
			r := f.do("POST", as("alice", ""), initBody(mcp.Version20251125))
			sid := r.header.Get("Mcp-Session-Id")
			if r.status != http.StatusOK || sid == "" {
				t.Fatalf("alice's initialize: %d %s", r.status, r.body)
			}
			if r := f.do("POST", as("alice", sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
				t.Fatalf("initialized: %d %s", r.status, r.body)
			}
			want := http.StatusForbidden
			if unbound {
				want = http.StatusOK
			}
			for _, user := range []string{"bob", ""} {
				if r := f.do("POST", as(user, sid), pingBody); r.status != want {
					t.Errorf("%q pinging alice's session: %d, want %d (%s)", user, r.status, want, r.body)
				}
			}
			if r := f.do("POST", as("alice", sid), pingBody); r.status != http.StatusOK {
				t.Errorf("alice pinging her session: %d %s", r.status, r.body)
			}
			if !unbound {
				if r := f.do("DELETE", as("bob", sid), ""); r.status != http.StatusForbidden {
					t.Errorf("bob ending alice's session: %d, want 403", r.status)
				}
			}
		})
	}
}

// TestLegacySessionBoundByDefault: the same for the HTTP+SSE transport.
func TestLegacySessionBoundByDefault(t *testing.T) {
	for _, unbound := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "UnboundSessions"}[unbound], func(t *testing.T) {
			h := NewSSEHandler(testServer(), &SSEHandlerOptions{UnboundSessions: unbound})
			ts := httptest.NewServer(asUser(h))
			t.Cleanup(ts.Close)
			t.Cleanup(func() { h.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
			req.Header.Set("X-User", "alice")
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			ev, err := newSSEReader(resp.Body, 1<<10).next()
			if err != nil || ev.event != "endpoint" {
				t.Fatalf("endpoint event: %+v %v", ev, err)
			}
			post := func(user string) int {
				t.Helper()
				hdr := map[string]string{"Content-Type": "application/json", "X-User": user}
				return doRaw(t, ts.Client(), http.MethodPost, ts.URL+string(ev.data), hdr, `{"jsonrpc":"2.0","id":1,"method":"ping"}`).status
			}
			want := http.StatusForbidden
			if unbound {
				want = http.StatusAccepted
			}
			if got := post("bob"); got != want {
				t.Errorf("bob posting to alice's session: %d, want %d", got, want)
			}
			if got := post("alice"); got != http.StatusAccepted {
				t.Errorf("alice posting to her session: %d", got)
			}
		})
	}
}

// TestExplicitPrincipalWins: a Principal function, when set, names the
// caller instead of the principal recorded on the context.
func TestExplicitPrincipalWins(t *testing.T) {
	h := NewHandler(testServer(), &HandlerOptions{UnboundSessions: true,
		Principal: func(r *http.Request) string { return strings.ToLower(r.Header.Get("X-Tenant")) }})
	defer h.Close()
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("X-Tenant", "ACME")
	r = r.WithContext(WithPrincipal(r.Context(), "alice"))
	if got := h.principal(r); got != "acme" {
		t.Errorf("principal %q, want the option's", got)
	}
}
