package authe2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// clock is the time of the authorization server and of the resource
// recorder is the HTTP transport of the client side. It records every
// exchange with the MCP endpoint ("POST 401 invalid_token") and the
// credentials sent, and lets a test tamper with a request on its way.
type recorder struct {
	base   http.RoundTripper
	path   string
	tamper func(r *http.Request) // requests to path only

	mu     sync.Mutex
	seen   []string
	proofs []string // DPoP headers sent to path
	auths  []string // Authorization headers sent to path
}

func (rec *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != rec.path {
		return rec.base.RoundTrip(r)
	}
	if rec.tamper != nil {
		r = r.Clone(r.Context())
		rec.tamper(r)
	}
	resp, err := rec.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	line := fmt.Sprintf("%s %d", r.Method, resp.StatusCode)
	if cs, err := oauth.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate")); err == nil && len(cs) > 0 {
		if e := cs[0].Params["error"]; e != "" {
			line += " " + e
		}
	}
	rec.mu.Lock()
	rec.seen = append(rec.seen, line)
	if p := r.Header.Get("DPoP"); p != "" {
		rec.proofs = append(rec.proofs, p)
	}
	rec.auths = append(rec.auths, r.Header.Get("Authorization"))
	rec.mu.Unlock()
	return resp, nil
}

func (rec *recorder) log() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return strings.Join(rec.seen, ", ")
}

// setup describes the servers of a test.
type setup struct {
	as *authtest.Options
	// audience, when set, is what the verifier wants instead of the
	// server's URL (a misconfigured or another server).
	audience string
	// resourceHost, when set, replaces the host name of the resource the
	// metadata names (the port stays: the metadata is still served).
	resourceHost string
	// issuers, when set, are the authorization servers the metadata names
	// instead of the authtest server.
	issuers []string
	// dpop makes the server accept (and require) DPoP-bound tokens.
	dpop *auth.DPoPOptions
	// introspect makes the tokens opaque, checked by introspection.
	introspect bool
	// leeway is the JWT verifier's tolerance of expired tokens. Default
	// its own (a minute).
	leeway time.Duration
}

// fixture is a protected MCP server and its authorization server.
type fixture struct {
	as    *authtest.Server
	srv   *mcp.Server
	url   string // the MCP endpoint, which is the resource
	clock *authtest.Clock
	rec   *recorder
	hc    *http.Client // sends through rec
}

// start runs an authtest server and an MCP server behind auth's
// middleware: every request needs the scope "mcp", the tool "wipe" also
// "admin"; the tool "whoami" answers the token's subject and key
// thumbprint.
func start(t *testing.T, s setup) *fixture {
	t.Helper()
	f := &fixture{clock: &authtest.Clock{}}
	asOpts := authtest.Options{}
	if s.as != nil {
		asOpts = *s.as
	}
	if asOpts.Scopes == nil {
		asOpts.Scopes = []string{"mcp", "admin", "offline_access"}
	}
	asOpts.Now = f.clock.Now
	if s.introspect {
		asOpts.Opaque = true
		asOpts.Clients = append(asOpts.Clients, authtest.Client{ID: "rs", Secret: "rs-secret"})
	}
	as, err := authtest.Start(&asOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	f.as = as

	f.srv = mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(f.srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		info := auth.TokenInfoFromContext(ctx)
		if info == nil {
			return "", errors.New("no token in the context")
		}
		return strings.TrimSpace(info.Subject + " " + info.JKT), nil
	})
	mcp.AddTool(f.srv, &mcp.Tool{Name: "wipe"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		return "wiped", nil
	})
	h := mcphttp.NewHandler(f.srv, &mcphttp.HandlerOptions{Principal: auth.Principal})
	t.Cleanup(func() { h.Close() })
	var protected http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { protected.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"

	audience := f.url
	if s.audience != "" {
		audience = s.audience
	}
	var v auth.Verifier
	if s.introspect {
		v, err = auth.NewIntrospectionVerifier(auth.IntrospectionOptions{URL: as.IntrospectionURL(),
			ClientID: "rs", ClientSecret: "rs-secret", Issuer: as.Issuer, Audience: audience})
	} else {
		v, err = auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: audience, JWKSURL: as.JWKSURL(), Now: f.clock.Now, Leeway: s.leeway})
	}
	if err != nil {
		t.Fatal(err)
	}
	resource := f.url
	if s.resourceHost != "" {
		u, _ := url.Parse(f.url)
		u.Host = s.resourceHost + ":" + u.Port()
		resource = u.String()
	}
	issuers := []string{as.Issuer}
	if s.issuers != nil {
		issuers = s.issuers
	}
	rs, err := auth.New(auth.Options{
		Resource: resource, AuthorizationServers: issuers, Verifier: v,
		ScopesSupported: []string{"mcp"}, Scopes: []string{"mcp"},
		ToolScopes: map[string][]string{"wipe": {"admin"}},
		DPoP:       s.dpop,
	})
	if err != nil {
		t.Fatal(err)
	}
	protected = rs.Wrap(h)
	f.rec = &recorder{base: http.DefaultTransport, path: "/mcp"}
	f.hc = &http.Client{Transport: f.rec}
	return f
}

// client makes an oauth.Client for the server, sending through the
// recorder, logging in headless unless cfg says otherwise.
func (f *fixture) client(t *testing.T, cfg oauth.Config) *oauth.Client {
	t.Helper()
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = f.hc
	}
	oc, err := oauth.New(f.url, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return oc
}

// connect opens an MCP session with oc as the authorizer.
func (f *fixture) connect(ctx context.Context, oc *oauth.Client, version string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	stream := mcphttp.NewClientStream(f.url, &mcphttp.ClientOptions{HTTPClient: f.hc, Authorizer: oc})
	o := mcp.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	return mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &o).Connect(ctx, stream)
}

func whoami(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	return callText(ctx, cs, "whoami")
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("%s: %+v", tool, res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("%s: %T content", tool, res.Content[0])
	}
	return tc.Text, nil
}

// grants returns the token requests' grant types (without scopes).
func grants(as *authtest.Server) []string {
	var g []string
	for _, r := range as.TokenRequests() {
		name, _, _ := strings.Cut(r, "(")
		g = append(g, name)
	}
	return g
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or a few seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestAuthorizationCode logs in with the authorization code flow and PKCE
// (dynamic registration, headless user agent) when the first request is
// refused, for the stateful revision with its GET stream and for the
// stateless 2026-07-28 revision.
func TestAuthorizationCode(t *testing.T) {
	for _, tc := range []struct {
		version    string
		introspect bool
	}{{mcp.LatestStatefulVersion, false}, {mcp.LatestVersion, false}, {mcp.LatestStatefulVersion, true}} {
		version := tc.version
		name := version
		if tc.introspect {
			name += "/introspection"
		}
		t.Run(name, func(t *testing.T) {
			f := start(t, setup{introspect: tc.introspect})
			ctx := testContext(t)
			changed := make(chan struct{}, 1)
			oc := f.client(t, oauth.Config{})
			cs, err := f.connect(ctx, oc, version, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
					select {
					case changed <- struct{}{}:
					default:
					}
				}})
			if err != nil {
				t.Fatalf("connect: %v (%s)", err, f.rec.log())
			}
			defer cs.Close()
			if got, err := whoami(ctx, cs); err != nil || got != "user" {
				t.Fatalf("whoami = %q, %v", got, err)
			}
			if g := grants(f.as); !slices.Equal(g, []string{"authorization_code"}) {
				t.Errorf("token requests %v, want one authorization_code", f.as.TokenRequests())
			}
			tok := oc.Token(ctx)
			if tok != nil && !slices.Contains(tok.Scopes, "mcp") {
				t.Errorf("scopes %v: want the scope of the metadata", tok.Scopes)
			}
			if tok == nil || tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Resource != f.url || tok.Issuer != f.as.Issuer {
				t.Errorf("token %+v", tok)
			}
			log := f.rec.log()
			if !strings.HasPrefix(log, "POST 401") || strings.Count(log, " 401") != 1 {
				t.Errorf("requests %s: want one refusal, the first", log)
			}
			if cs.ProtocolVersion() != mcp.LatestStatefulVersion {
				return // the stateless revision has no GET stream
			}
			// The GET stream is authenticated too: a notification sent
			// outside any request arrives on it.
			waitFor(t, "the GET stream", func() bool { return strings.Contains(f.rec.log(), "GET 200") })
			mcp.AddTool(f.srv, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
				return "", nil
			})
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("no tools/list_changed on the GET stream (%s)", f.rec.log())
			}
		})
	}
}

// TestRefresh refreshes an expired access token: before sending, when the
// client knows it has expired, and after the server's 401, when a token
// restored from the store has expired by the server's clock.
func TestRefresh(t *testing.T) {
	f := start(t, setup{as: &authtest.Options{TokenTTL: time.Second}})
	ctx := testContext(t)
	store := &oauth.MemoryStore{}
	oc := f.client(t, oauth.Config{Store: store})
	cs, err := f.connect(ctx, oc, mcp.LatestStatefulVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := oc.Token(ctx)
	time.Sleep(1100 * time.Millisecond)
	if got, err := whoami(ctx, cs); err != nil || got != "user" {
		t.Fatalf("whoami after expiry: %q, %v (%s)", got, err, f.rec.log())
	}
	cs.Close()
	second := oc.Token(ctx)
	if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "refresh_token"}) {
		t.Errorf("token requests %v, want a login and a refresh", f.as.TokenRequests())
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Error("the refresh did not replace the tokens")
	}

	// A new client (a new run of a program) with the same store, once the
	// server finds the token expired though the client does not know it.
	f.clock.Advance(2 * time.Hour)
	oc2 := f.client(t, oauth.Config{Store: store})
	n := len(f.rec.seen)
	cs2, err := f.connect(ctx, oc2, mcp.LatestStatefulVersion, nil)
	if err != nil {
		t.Fatalf("connect: %v (%s)", err, f.rec.log())
	}
	defer cs2.Close()
	if _, err := whoami(ctx, cs2); err != nil {
		t.Fatal(err)
	}
	if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "refresh_token", "refresh_token"}) {
		t.Errorf("token requests %v, want the second refresh", f.as.TokenRequests())
	}
	f.rec.mu.Lock()
	after := strings.Join(f.rec.seen[n:], ", ")
	f.rec.mu.Unlock()
	if !strings.HasPrefix(after, "POST 401 invalid_token, POST 200") {
		t.Errorf("requests %s: want the expired token refused once", after)
	}
}

// failingUA is a user agent with nobody to log in.
type failingUA struct{ oauth.HeadlessUserAgent }

func (failingUA) Authorize(context.Context, string) (url.Values, error) {
	return nil, errors.New("nobody to log in")
}

// TestExpiredNotRefreshable: once the refresh token has expired too, the
// client logs in again, and without a way to log in it fails clearly.
func TestExpiredNotRefreshable(t *testing.T) {
	f := start(t, setup{})
	ctx := testContext(t)
	store := &oauth.MemoryStore{}
	cs, err := f.connect(ctx, f.client(t, oauth.Config{Store: store}), mcp.LatestStatefulVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	f.clock.Advance(48 * time.Hour) // past the refresh token's day
	saved, _ := store.Load(ctx, "token "+f.url)

	_, err = f.connect(ctx, f.client(t, oauth.Config{Store: store, UserAgent: &failingUA{}}), mcp.LatestStatefulVersion, nil)
	if err == nil || !strings.Contains(err.Error(), "nobody to log in") {
		t.Fatalf("connect without a user: %v, want the user agent's error", err)
	}
	if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "refresh_token"}) {
		t.Errorf("token requests %v, want the refresh tried", f.as.TokenRequests())
	}

	_ = store.Save(ctx, "token "+f.url, saved)
	cs, err = f.connect(ctx, f.client(t, oauth.Config{Store: store}), mcp.LatestStatefulVersion, nil)
	if err != nil {
		t.Fatalf("connect: %v (%s)", err, f.rec.log())
	}
	defer cs.Close()
	if _, err := whoami(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "refresh_token", "refresh_token", "authorization_code"}) {
		t.Errorf("token requests %v, want a refresh tried then a login", f.as.TokenRequests())
	}
}

// TestStepUp asks for a tool's scope when the server answers 403
// insufficient_scope, keeping the scopes already granted.
func TestStepUp(t *testing.T) {
	for _, version := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
		t.Run(version, func(t *testing.T) {
			f := start(t, setup{})
			ctx := testContext(t)
			oc := f.client(t, oauth.Config{})
			cs, err := f.connect(ctx, oc, version, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, err := callText(ctx, cs, "wipe"); err != nil || got != "wiped" {
				t.Fatalf("wipe: %q, %v (%s)", got, err, f.rec.log())
			}
			if !strings.Contains(f.rec.log(), "POST 403 insufficient_scope") {
				t.Errorf("requests %s: want a 403 insufficient_scope", f.rec.log())
			}
			if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "authorization_code"}) {
				t.Errorf("token requests %v, want a second login", f.as.TokenRequests())
			}
			if tok := oc.Token(ctx); !slices.Contains(tok.Scopes, "admin") || !slices.Contains(tok.Scopes, "mcp") {
				t.Errorf("scopes %v", tok.Scopes)
			}
			// Calls that need less still work with the wider token.
			if _, err := whoami(ctx, cs); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDPoP gets a DPoP-bound token and sends a fresh proof with every
// request, the GET stream included; with server nonces too.
func TestDPoP(t *testing.T) {
	for _, tc := range []struct {
		name           string
		nonce, refresh bool
	}{{"plain", false, false}, {"nonce", true, false}, {"refresh", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &auth.DPoPOptions{Required: true}
			if tc.nonce {
				opts.Nonce = auth.NewRotatingNonce(time.Hour)
			}
			s := setup{dpop: opts}
			if tc.refresh {
				s.as = &authtest.Options{TokenTTL: time.Second}
			}
			f := start(t, s)
			ctx := testContext(t)
			oc := f.client(t, oauth.Config{DPoP: true})
			cs, err := f.connect(ctx, oc, mcp.LatestStatefulVersion, nil)
			if err != nil {
				t.Fatalf("connect: %v (%s)", err, f.rec.log())
			}
			defer cs.Close()
			if tc.refresh {
				time.Sleep(1100 * time.Millisecond)
			}
			got, err := whoami(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			if g := grants(f.as); tc.refresh && !slices.Equal(g, []string{"authorization_code", "refresh_token"}) {
				t.Errorf("token requests %v, want a login and a refresh with the same key", f.as.TokenRequests())
			}
			sub, jkt, _ := strings.Cut(got, " ")
			if sub != "user" || jkt == "" {
				t.Errorf("whoami = %q, want the user and a key thumbprint", got)
			}
			if tok := oc.Token(ctx); tok.TokenType != "DPoP" {
				t.Errorf("token type %q", tok.TokenType)
			}
			waitFor(t, "the GET stream", func() bool { return strings.Contains(f.rec.log(), "GET 200") })
			f.rec.mu.Lock()
			proofs := slices.Clone(f.rec.proofs)
			f.rec.mu.Unlock()
			slices.Sort(proofs)
			if len(proofs) < 3 || len(slices.Compact(proofs)) != len(proofs) {
				t.Errorf("%d proofs, some repeated: want a fresh one per request", len(proofs))
			}
			if tc.nonce && !strings.Contains(f.rec.log(), "use_dpop_nonce") {
				t.Errorf("requests %s: want a nonce challenge", f.rec.log())
			}
		})
	}
}

// TestClientCredentials authenticates a client on its own behalf, with a
// secret and with a private key (private_key_jwt).
func TestClientCredentials(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		client authtest.Client
		cfg    oauth.Config
	}{
		{"secret", authtest.Client{ID: "svc", Secret: "s3cret"},
			oauth.Config{Grant: oauth.ClientCredentials, ClientID: "svc", ClientSecret: "s3cret"}},
		{"private_key_jwt", authtest.Client{ID: "svc-key", PublicKey: &key.PublicKey},
			oauth.Config{Grant: oauth.ClientCredentials, ClientID: "svc-key", PrivateKey: key}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t, setup{as: &authtest.Options{Clients: []authtest.Client{tc.client}}})
			ctx := testContext(t)
			for _, version := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
				cs, err := f.connect(ctx, f.client(t, tc.cfg), version, nil)
				if err != nil {
					t.Fatalf("%s: connect: %v (%s)", version, err, f.rec.log())
				}
				got, err := whoami(ctx, cs)
				cs.Close()
				if err != nil || got != tc.client.ID {
					t.Errorf("%s: whoami = %q, %v; want the client", version, got, err)
				}
			}
			if g := grants(f.as); !slices.Equal(g, []string{"client_credentials", "client_credentials"}) {
				t.Errorf("token requests %v", f.as.TokenRequests())
			}
		})
	}
	// A token that expires moments after it was obtained (a short TTL) is
	// replaced, not taken for a refused one.
	t.Run("expired", func(t *testing.T) {
		f := start(t, setup{as: &authtest.Options{TokenTTL: time.Second, Clients: []authtest.Client{{ID: "svc", Secret: "s3cret"}}},
			leeway: time.Millisecond})
		ctx := testContext(t)
		cs, err := f.connect(ctx, f.client(t, oauth.Config{Grant: oauth.ClientCredentials, ClientID: "svc", ClientSecret: "s3cret"}), mcp.LatestStatefulVersion, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		time.Sleep(1100 * time.Millisecond)
		if got, err := whoami(ctx, cs); err != nil || got != "svc" {
			t.Fatalf("whoami after expiry: %q, %v (%s)", got, err, f.rec.log())
		}
		if g := grants(f.as); !slices.Equal(g, []string{"client_credentials", "client_credentials"}) {
			t.Errorf("token requests %v, want a second grant", f.as.TokenRequests())
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		f := start(t, setup{as: &authtest.Options{Clients: []authtest.Client{{ID: "svc", Secret: "s3cret"}}}})
		_, err := f.connect(testContext(t), f.client(t, oauth.Config{Grant: oauth.ClientCredentials, ClientID: "svc", ClientSecret: "guess"}), mcp.LatestVersion, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid_client") {
			t.Errorf("connect with a wrong secret: %v, want invalid_client", err)
		}
	})
}

// tamperingUA changes the issuer of the authorization response, as a
// mix-up attack would.
type tamperingUA struct{ oauth.HeadlessUserAgent }

func (u *tamperingUA) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	q, err := u.HeadlessUserAgent.Authorize(ctx, authURL)
	if err == nil {
		q.Set("iss", "https://attacker.example")
	}
	return q, err
}

// TestRefusals checks what must fail does, end to end, with a clear error
// and no loop of logins.
func TestRefusals(t *testing.T) {
	otherKey, err := authtest.NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	// A second host that serves the authtest metadata as its own.
	var mirrorOf *authtest.Server
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mirrorOf.ServeHTTP(w, r) }))
	defer mirror.Close()

	for _, tc := range []struct {
		name   string
		setup  setup
		cfg    oauth.Config
		tamper func(f *fixture) func(r *http.Request)
		mirror bool
		want   string // in the error
		seen   string // in the recorded exchanges
		logins int    // authorization requests made
	}{
		{name: "wrong audience", setup: setup{audience: "http://elsewhere.example/mcp"},
			want: "refused the token", seen: "POST 401 invalid_token", logins: 1},
		{name: "bad DPoP proof", setup: setup{dpop: &auth.DPoPOptions{Required: true}}, cfg: oauth.Config{DPoP: true},
			tamper: func(*fixture) func(*http.Request) {
				return func(r *http.Request) {
					if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP "); ok {
						u := *r.URL
						u.RawQuery = ""
						p, _ := otherKey.Proof(r.Method, u.String(), tok)
						r.Header.Set("DPoP", p)
					}
				}
			}, want: "refused the token", seen: "POST 401 invalid_token", logins: 1}, // the key is not the token's
		{name: "replayed DPoP proof", setup: setup{dpop: &auth.DPoPOptions{Required: true}}, cfg: oauth.Config{DPoP: true},
			tamper: func(*fixture) func(*http.Request) {
				var mu sync.Mutex
				var first string
				return func(r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					if p := r.Header.Get("DPoP"); p != "" && r.Method == http.MethodPost {
						if first == "" {
							first = p
						} else {
							r.Header.Set("DPoP", first)
						}
					}
				}
			}, want: "refused the token", seen: "POST 200, POST 401 invalid_dpop_proof", logins: 1},
		{name: "tampered iss", cfg: oauth.Config{UserAgent: &tamperingUA{}},
			want: "comes from issuer \"https://attacker.example\"", logins: 0},
		{name: "resource on another host", setup: setup{resourceHost: "localhost"},
			want: "protected-resource metadata is for", logins: 0},
		{name: "authorization server metadata of another host", mirror: true,
			want: "names issuer", logins: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup
			if tc.mirror {
				s.issuers = []string{mirror.URL}
			}
			f := start(t, s)
			mirrorOf = f.as
			if tc.tamper != nil {
				f.rec.tamper = tc.tamper(f)
			}
			ctx := testContext(t)
			cs, err := f.connect(ctx, f.client(t, tc.cfg), mcp.LatestStatefulVersion, nil)
			if err == nil {
				_, err = whoami(ctx, cs)
				cs.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q (%s)", err, tc.want, f.rec.log())
			}
			if !strings.Contains(f.rec.log(), tc.seen) {
				t.Errorf("requests %s, want %s", f.rec.log(), tc.seen)
			}
			if n := len(f.as.TokenRequests()); n != tc.logins {
				t.Errorf("token requests %v, want %d", f.as.TokenRequests(), tc.logins)
			}
		})
	}
}

// browser plays the user's browser for a LoopbackUserAgent: it follows
// the authorization URL's redirects back to the loopback listener.
func browser(ctx context.Context) func(string) error {
	return func(authURL string) error {
		go func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
			if err != nil {
				return
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

// TestRedirectChange logs in twice with the same store and another
// redirect URL each time: through a LoopbackUserAgent (a new port, which
// the authorization server allows for loopback IPs), and through headless
// user agents on localhost ports, which it matches exactly: the client
// registers the new redirect URL rather than reuse a registration that
// does not allow it.
func TestRedirectChange(t *testing.T) {
	for _, tc := range []struct {
		name string
		ua   func(ctx context.Context, i int) oauth.UserAgent
	}{
		{"loopback", func(ctx context.Context, _ int) oauth.UserAgent { return &oauth.LoopbackUserAgent{Open: browser(ctx)} }},
		{"headless", func(_ context.Context, i int) oauth.UserAgent {
			return &oauth.HeadlessUserAgent{Redirect: fmt.Sprintf("http://localhost:%d/callback", 3000+i)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t, setup{})
			ctx := testContext(t)
			store := &oauth.MemoryStore{}
			for i := range 2 {
				ua := tc.ua(ctx, i)
				cs, err := f.connect(ctx, f.client(t, oauth.Config{Store: store, UserAgent: ua}), mcp.LatestVersion, nil)
				if err != nil {
					t.Fatalf("login %d: %v", i, err)
				}
				if got, err := whoami(ctx, cs); err != nil || got != "user" {
					t.Errorf("login %d: whoami = %q, %v", i, got, err)
				}
				cs.Close()
				if l, ok := ua.(*oauth.LoopbackUserAgent); ok {
					l.Close()
				}
				if err := store.Delete(ctx, "token "+f.url); err != nil {
					t.Fatal(err)
				}
			}
			if g := grants(f.as); !slices.Equal(g, []string{"authorization_code", "authorization_code"}) {
				t.Errorf("token requests %v, want two logins", f.as.TokenRequests())
			}
		})
	}
}
