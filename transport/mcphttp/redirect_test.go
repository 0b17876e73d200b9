package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// A server that redirects to another origin (here another port of the same
// host) gets none of the request's credentials there: neither
// Authorization, from Header or from the Authorizer, nor a custom header,
// whatever the caller's own http.Client would allow.
func TestRedirectKeepsCredentialsOnOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	h := NewHandler(testServer(), nil)
	t.Cleanup(func() { h.Close() })
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, k := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(k); v != "" {
				mu.Lock()
				leaked = append(leaked, k+": "+v)
				mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(target.Close)
	redirector := httptest.NewServer(http.RedirectHandler(target.URL+"/mcp", http.StatusTemporaryRedirect))
	t.Cleanup(redirector.Close)
	hdr := http.Header{"Authorization": {"Bearer secret"}, "X-Api-Key": {"key"}}
	followAll := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	for name, o := range map[string]*ClientOptions{
		"Header":                 {Header: hdr},
		"Authorizer":             {Header: http.Header{"X-Api-Key": {"key"}}, Authorizer: &fakeAuthorizer{token: "secret"}},
		"caller's CheckRedirect": {Header: hdr, HTTPClient: followAll},
	} {
		t.Run(name, func(t *testing.T) {
			stream := NewClientStream(redirector.URL+"/mcp", o)
			c := mcp.NewClient(&mcp.Implementation{Name: "redirected", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
			cs, err := c.Connect(ctx(t), stream)
			if err == nil {
				cs.Close()
			}
			mu.Lock()
			if len(leaked) > 0 {
				t.Errorf("the other origin received %q", leaked)
			}
			mu.Unlock()
			if err == nil || !strings.Contains(err.Error(), "another origin") {
				t.Errorf("Connect: %v, want the refused redirect", err)
			}
		})
	}
}

// A redirect within the origin is followed, with the credentials, and the
// caller's CheckRedirect still has its say there.
func TestRedirectWithinOrigin(t *testing.T) {
	h := NewHandler(testServer(), nil)
	t.Cleanup(func() { h.Close() })
	mux := http.NewServeMux()
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	var mu sync.Mutex
	var auth []string
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	var consulted bool
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { consulted = true; return nil }}
	cs, _ := connectTo(t, ts, ts.URL+"/old", nil, &ClientOptions{HTTPClient: hc, Header: http.Header{"Authorization": {"Bearer secret"}}, DisableStandaloneStream: true})
	if got := callText(t, cs, "echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo = %q", got)
	}
	if !consulted {
		t.Error("the caller's CheckRedirect was not consulted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer secret" {
		t.Errorf("Authorization at /mcp: %q", auth)
	}
}
