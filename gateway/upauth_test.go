package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// authtest.Clock is the time of the authorization server and of the resource
// servers that verify its tokens, moved forward by the tests to expire
// errNoLogin is what the gateway's user agent answers: it never logs in
// interactively.
var errNoLogin = errors.New("no interactive login in a gateway: log in first")

type noLoginAgent struct{}

func (noLoginAgent) RedirectURL(context.Context) (string, error) { return "", errNoLogin }
func (noLoginAgent) Authorize(context.Context, string) (url.Values, error) {
	return nil, errNoLogin
}

// protected serves h behind the resource-server middleware for the tokens
// of as meant for URL/mcp, verified at clk's time, and returns that URL.
func protected(t *testing.T, as *authtest.Server, clk *authtest.Clock, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: resource, JWKSURL: as.JWKSURL(),
		Now: clk.Now, Leeway: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Options{Resource: resource, AuthorizationServers: []string{as.Issuer}, Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", rs.Wrap(h))
	return resource
}

// TestUpstreamOAuth: an HTTP upstream protected by the resource-server
// middleware is reached with the gateway's own OAuth login (the token a
// prior login stored), refreshed when the upstream refuses it as expired;
// when it can no longer be refreshed, the upstream is down with the
// authorizer's error (Status, /readyz), no login is attempted, and the
// other upstreams serve on. The downstream callers, themselves behind the
// middleware, never have their token sent upstream.
func TestUpstreamOAuth(t *testing.T) {
	clk := &authtest.Clock{}
	as, err := authtest.Start(&authtest.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	var seen headerLog
	upH := mcphttp.NewHandler(newUpstreamServer("alpha", nil), nil)
	t.Cleanup(func() { _ = upH.Close() })
	upURL := protected(t, as, clk, seen.wrap(upH))

	// The login (what mcp login does): a token, with a refresh token, in
	// the store.
	store := &oauth.MemoryStore{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	login, err := oauth.New(upURL, &oauth.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	lcs, err := mcp.NewClient(&mcp.Implementation{Name: "login", Version: "1"}, nil).
		Connect(ctx, mcphttp.NewClientStream(upURL, &mcphttp.ClientOptions{Authorizer: login}))
	if err != nil {
		t.Fatal(err)
	}
	_ = lcs.Close()
	first := login.Token(ctx)
	if first == nil || first.RefreshToken == "" {
		t.Fatalf("the login stored %+v", first)
	}

	cfg := config("beta")
	cfg.Servers["alpha"] = &gateway.Upstream{URL: upURL, Auth: gateway.AuthOAuth}
	g := startGateway(t, cfg, &gateway.Options{HealthInterval: -1,
		Backoff: gateway.Backoff{Min: 20 * time.Millisecond, Max: 100 * time.Millisecond},
		Authorizer: func(name string, u *gateway.Upstream) (mcphttp.Authorizer, error) {
			return oauth.New(u.URL, &oauth.Config{Store: store, UserAgent: noLoginAgent{}})
		}}, map[string]*mcp.Server{"beta": newUpstreamServer("beta", nil)})

	// The downstream side: the gateway behind the middleware too.
	h := mcphttp.NewHandler(g.Server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	front := protected(t, as, clk, h)
	down, err := as.Mint(authtest.Token{Subject: "carol", Audience: []string{front}, Expiry: clk.Now().Add(1000 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "carol", Version: "1"}, nil).Connect(ctx,
		mcphttp.NewClientStream(front, &mcphttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + down}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	echo := func(name string) error {
		res, err := call(ctx, cs, name, "x")
		if err == nil && res.IsError {
			err = errors.New(text(t, res))
		}
		return err
	}
	if err := echo("alpha_echo"); err != nil {
		t.Fatalf("alpha_echo with the stored token: %v", err)
	}

	clk.Advance(2 * time.Hour) // the stored token expires; its refresh token does not
	if err := echo("alpha_echo"); err != nil {
		t.Fatalf("alpha_echo once the token expired: %v", err)
	}
	if !slices.ContainsFunc(as.TokenRequests(), func(s string) bool { return strings.HasPrefix(s, "refresh_token") }) {
		t.Errorf("no refresh: token requests %q", as.TokenRequests())
	}
	if st := statusOf(g, "alpha"); st.State != gateway.StateUp {
		t.Fatalf("alpha after the refresh: %+v", st)
	}

	clk.Advance(48 * time.Hour) // now the refreshed token expires, and no refresh can follow
	if err := echo("alpha_echo"); err == nil {
		t.Fatal("alpha_echo succeeded with an expired login")
	}
	for st := statusOf(g, "alpha"); st.State != gateway.StateDown || !strings.Contains(st.Error, errNoLogin.Error()); st = statusOf(g, "alpha") {
		if ctx.Err() != nil {
			t.Fatalf("alpha is not down with the authorizer's error: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rec := httptest.NewRecorder()
	g.ReadyHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var ready struct{ Upstreams []gateway.UpstreamStatus }
	if err := json.Unmarshal(rec.Body.Bytes(), &ready); err != nil || rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz: %d %s", rec.Code, rec.Body)
	}
	for _, st := range ready.Upstreams {
		if st.Name == "alpha" && !strings.Contains(st.Error, "log in first") {
			t.Errorf("/readyz says of alpha: %+v", st)
		}
	}
	if err := echo("beta_echo"); err != nil {
		t.Errorf("beta_echo while alpha is down: %v", err)
	}
	if slices.Contains(toolNames(t, ctx, cs), "alpha_echo") {
		t.Error("alpha's tools are listed while it is down")
	}

	seen.mu.Lock()
	defer seen.mu.Unlock()
	var tokens []string
	for _, a := range seen.auth {
		if strings.Contains(a, down) {
			t.Fatal("the downstream token reached the upstream")
		}
		if a != "" && !slices.Contains(tokens, a) {
			tokens = append(tokens, a)
		}
	}
	// The login's token, the refreshed one (the probe of a login that
	// found no token sends none).
	if len(tokens) != 2 || tokens[0] != "Bearer "+first.AccessToken {
		t.Errorf("the upstream saw the credentials %d %q, want the stored token then the refreshed one", len(tokens), tokens)
	}
}

// TestUpstreamOAuthNeedsAuthorizer: "auth": "oauth" without an authorizer
// is refused by New, and so is an authorizer's error.
func TestUpstreamOAuthNeedsAuthorizer(t *testing.T) {
	cfg := &gateway.Config{Servers: map[string]*gateway.Upstream{"web": {URL: "http://127.0.0.1:1/mcp", Auth: gateway.AuthOAuth}}}
	if _, err := gateway.New(cfg, nil); err == nil || !strings.Contains(err.Error(), `"web"`) {
		t.Errorf("New without an authorizer: %v", err)
	}
	_, err := gateway.New(cfg, &gateway.Options{Authorizer: func(string, *gateway.Upstream) (mcphttp.Authorizer, error) {
		return nil, errors.New("no login stored")
	}})
	if err == nil || !strings.Contains(err.Error(), "no login stored") {
		t.Errorf("New with a failing authorizer: %v", err)
	}
	cfg.Servers["web"].Auth = "token"
	if _, err := gateway.New(cfg, nil); err == nil {
		t.Error(`New accepted "auth": "token"`)
	}
}
