package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// headerLog records the headers an upstream received.
type headerLog struct {
	mu   sync.Mutex
	auth []string
	keys []string
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.auth = append(l.auth, r.Header.Get("Authorization"))
		l.keys = append(l.keys, r.Header.Get("X-Api-Key"))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// TestAccessByPrincipalAndScope: behind the resource-server middleware,
// with tokens of the test authorization server, two principals with
// different scopes see different tools, and cannot call what they do not
// see, at both eras; the upstream, reached over Streamable HTTP with the
// gateway's own header, never sees a downstream token.
func TestAccessByPrincipalAndScope(t *testing.T) {
	as, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)

	var seen headerLog
	alpha := httptest.NewServer(seen.wrap(mcphttp.NewHandler(newUpstreamServer("alpha", nil), nil)))
	t.Cleanup(alpha.Close) // after the gateway's Close (cleanups run last first)

	mux := http.NewServeMux()
	front := httptest.NewServer(mux)
	t.Cleanup(front.Close)
	resource := front.URL + "/mcp"
	alice := strconv.Quote(as.Issuer) + " sub " + strconv.Quote("alice")
	cfg := &gateway.Config{Servers: map[string]*gateway.Upstream{
		"alpha": {URL: alpha.URL, Headers: map[string]string{"X-Api-Key": "gateway-key"}},
		"beta":  {Command: "unused"},
	}}
	g := startGateway(t, cfg, &gateway.Options{Access: []gateway.Rule{
		{Upstream: "alpha", Scopes: []string{"alpha:use"}},
		{Upstream: "beta", Scopes: []string{"beta:use"}},
		{Upstream: "beta", Names: []string{"echo"}, Principals: []string{alice}},
	}}, map[string]*mcp.Server{"beta": newUpstreamServer("beta", nil)})
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: resource, JWKSURL: as.JWKSURL()})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Options{Resource: resource, AuthorizationServers: []string{as.Issuer}, Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(g.Server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	mux.Handle("/mcp", rs.Wrap(h))

	tokens := map[string]string{}
	for who, scope := range map[string]string{"alice": "alpha:use", "bob": "beta:use"} {
		tok, err := as.Mint(authtest.Token{Subject: who, Audience: []string{resource}, Scopes: []string{scope}})
		if err != nil {
			t.Fatal(err)
		}
		tokens[who] = tok
	}
	sees := map[string][]string{
		"alice": {"alpha_ask", "alpha_echo", "alpha_elicit", "alpha_log", "alpha_roots", "alpha_wait", "beta_echo"},
		"bob":   {"beta_ask", "beta_echo", "beta_elicit", "beta_log", "beta_roots", "beta_wait"},
	}
	hidden := map[string]string{"alice": "beta_wait", "bob": "alpha_echo"}
	for _, version := range versions {
		for _, who := range []string{"alice", "bob"} {
			t.Run(version+"/"+who, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				hdr := http.Header{"Authorization": {"Bearer " + tokens[who]}}
				c := mcp.NewClient(&mcp.Implementation{Name: who, Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
				cs, err := c.Connect(ctx, mcphttp.NewClientStream(resource, &mcphttp.ClientOptions{Header: hdr}))
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				names := toolNames(t, ctx, cs)
				slices.Sort(names)
				if !slices.Equal(names, sees[who]) {
					t.Errorf("%s sees %v, want %v", who, names, sees[who])
				}
				res, err := call(ctx, cs, hidden[who], "x")
				if err == nil && !res.IsError {
					t.Errorf("%s called %s, which it does not see", who, hidden[who])
				}
				if who == "alice" {
					res, err := call(ctx, cs, "alpha_echo", "x")
					if err != nil || text(t, res) != "alpha:x" {
						t.Errorf("alice calling alpha_echo: %v", err)
					}
				}
			})
		}
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if len(seen.auth) == 0 {
		t.Fatal("the HTTP upstream received nothing")
	}
	for i, a := range seen.auth {
		if a != "" || seen.keys[i] != "gateway-key" {
			t.Fatalf("upstream request %d: Authorization %q, X-Api-Key %q: want none and the gateway's", i, a, seen.keys[i])
		}
	}
	for _, tok := range tokens {
		for _, a := range seen.auth {
			if strings.Contains(a, tok) {
				t.Fatal("a downstream token reached the upstream")
			}
		}
	}
}
