package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

func TestParseWWWAuthenticate(t *testing.T) {
	tests := []struct {
		in      string
		want    []Challenge
		wantErr bool
	}{
		{`Bearer resource_metadata="https://x/prm", scope="a b", error="invalid_token"`,
			[]Challenge{{"Bearer", map[string]string{"resource_metadata": "https://x/prm", "scope": "a b", "error": "invalid_token"}}}, false},
		{`Bearer error="insufficient_scope",scope="mcp:write" , resource_metadata="u"`,
			[]Challenge{{"Bearer", map[string]string{"error": "insufficient_scope", "scope": "mcp:write", "resource_metadata": "u"}}}, false},
		{`DPoP algs="ES256", error=use_dpop_nonce`,
			[]Challenge{{"DPoP", map[string]string{"algs": "ES256", "error": "use_dpop_nonce"}}}, false},
		{`Basic realm="x", Bearer scope="a"`,
			[]Challenge{{"Basic", map[string]string{"realm": "x"}}, {"Bearer", map[string]string{"scope": "a"}}}, false},
		{`Negotiate abc123==, Bearer Scope="q\"x"`,
			[]Challenge{{"Negotiate", map[string]string{}}, {"Bearer", map[string]string{"scope": `q"x`}}}, false},
		{`Bearer`, []Challenge{{"Bearer", map[string]string{}}}, false},
		{``, nil, false},
		{`Bearer scope="unterminated`, nil, true},
		{`Bearer a=1 b=2`, nil, true},
		{`Bearer a="1", a="2"`, nil, true},
		{`"quoted-scheme"`, nil, true},
		{`Bearer scope="a" junk`, nil, true},
	}
	for _, tt := range tests {
		got, err := ParseWWWAuthenticate([]string{tt.in})
		if (err != nil) != tt.wantErr {
			t.Errorf("%q: err = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
	if _, err := ParseWWWAuthenticate([]string{"Bearer x=\"" + strings.Repeat("a", 1<<20) + "\""}); err == nil {
		t.Error("a huge header parsed")
	}
}

func FuzzParseWWWAuthenticate(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://x/prm", scope="a b"`)
	f.Add(`DPoP error="use_dpop_nonce", Basic realm=x, Negotiate ab==`)
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseWWWAuthenticate([]string{s}) })
}

func TestMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://as.example", []string{"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"}},
		{"https://as.example/", []string{"https://as.example/.well-known/oauth-authorization-server", "https://as.example/.well-known/openid-configuration"}},
		{"https://as.example/tenant1", []string{
			"https://as.example/.well-known/oauth-authorization-server/tenant1",
			"https://as.example/.well-known/openid-configuration/tenant1",
			"https://as.example/tenant1/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		got, err := metadataURLs(tt.issuer)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.issuer, got, err, tt.want)
		}
	}
	for _, bad := range []string{"http://as.example", "ftp://x", "https://u:p@as.example", "https://as.example/?q=1", "::"} {
		if _, err := metadataURLs(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestDiscoveryOrder checks each metadata location is found, by probing the
// specification's URLs in order, never the root for a path issuer.
func TestDiscoveryOrder(t *testing.T) {
	tests := []struct {
		name, prefix, metaPath string
		wantProbes             []string
	}{
		{"root oauth", "", "/.well-known/oauth-authorization-server", []string{"/.well-known/oauth-authorization-server"}},
		{"root oidc", "", "/.well-known/openid-configuration", []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"path oauth", "/t1", "/.well-known/oauth-authorization-server/t1", []string{"/.well-known/oauth-authorization-server/t1"}},
		{"path oidc insert", "/t1", "/.well-known/openid-configuration/t1", []string{"/.well-known/oauth-authorization-server/t1", "/.well-known/openid-configuration/t1"}},
		{"path oidc append", "/t1", "/t1/.well-known/openid-configuration", []string{"/.well-known/oauth-authorization-server/t1", "/.well-known/openid-configuration/t1", "/t1/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newFakeAS(t, tt.prefix)
			as.metaPath = tt.metaPath
			rs := newFakeRS(t, as)
			c := mustNew(t, rs.URL(), nil)
			sendOK(t, c, http.MethodPost, rs.URL())
			var probes []string
			for _, r := range as.log() {
				if strings.Contains(r, ".well-known") {
					probes = append(probes, strings.TrimPrefix(r, "GET "))
				}
			}
			if !reflect.DeepEqual(probes, tt.wantProbes) {
				t.Errorf("probes %v, want %v", probes, tt.wantProbes)
			}
		})
	}
}

// TestFlow runs the whole authorization-code flow and checks what the
// servers saw: PKCE, the resource sent verbatim, the token only in the
// Authorization header of requests to the server.
func TestFlow(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.inHeader = false // found at the path-based well-known URL
	c := mustNew(t, rs.URL(), nil)
	for range 2 {
		resp, err := send(t, c, http.MethodPost, rs.URL())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("body %q", b)
		}
	}
	if len(as.authReq) != 1 || len(as.tokenReq) != 1 {
		t.Fatalf("%d authorization and %d token requests, want 1 each", len(as.authReq), len(as.tokenReq))
	}
	aq, tq := as.authReq[0], as.tokenReq[0]
	if aq.Get("code_challenge_method") != "S256" || aq.Get("code_challenge") != s256(tq.Get("code_verifier")) {
		t.Errorf("PKCE: challenge %q method %q, verifier %q", aq.Get("code_challenge"), aq.Get("code_challenge_method"), tq.Get("code_verifier"))
	}
	if aq.Get("resource") != rs.URL() || tq.Get("resource") != rs.URL() {
		t.Errorf("resource %q / %q, want %q", aq.Get("resource"), tq.Get("resource"), rs.URL())
	}
	if aq.Get("client_id") != "registered" || as.tokenHdr[0].Get("Authorization") == "" && tq.Get("client_id") != "registered" {
		t.Errorf("client identity not used: %v %v", aq, tq)
	}
	for _, r := range append(rs.requests, as.log()...) {
		if strings.Contains(r, "tok-") {
			t.Errorf("token in a URL: %s", r)
		}
	}
	// Requests to another origin never carry the token.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer other.Close()
	req, _ := http.NewRequest(http.MethodGet, other.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer stale")
	if err := c.Authorize(req); err != nil {
		t.Fatal(err)
	}
	if h := req.Header.Get("Authorization"); h != "" {
		t.Errorf("request to another origin got Authorization %q", h)
	}
}

// TestStepUp: a 403 insufficient_scope re-authorizes once with the union
// of the scopes; a challenge for scopes already granted is not retried.
func TestStepUp(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c := mustNew(t, rs.URL(), nil)
	sendOK(t, c, http.MethodPost, rs.URL())
	rs.needScope = "mcp:write"
	sendOK(t, c, http.MethodPost, rs.URL())
	if n := len(as.authReq); n != 2 || !strings.Contains(as.authReq[1].Get("scope"), "mcp:write") {
		t.Fatalf("authorizations %d, last scope %q", n, as.authReq[n-1].Get("scope"))
	}
	// Now the server wants a scope the AS never grants: no endless loop.
	rs.needScope = "mcp:admin"
	as.deny = "mcp:admin"
	_, err := send(t, c, http.MethodPost, rs.URL())
	if err == nil {
		t.Fatal("no error for a scope never granted")
	}
	if n := len(as.authReq); n != 3 {
		t.Errorf("%d authorizations, want a bounded number", n)
	}
}

// TestRefusals: each bad answer is a clear error and no token request.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(as *fakeAS, rs *fakeRS)
		want  string
	}{
		{"resource on another host", func(as *fakeAS, rs *fakeRS) { rs.resource = "https://evil.example/mcp" }, "not for"},
		{"resource on another path", func(as *fakeAS, rs *fakeRS) { rs.resource = rs.srv.URL + "/other" }, "not for"},
		{"metadata issuer mismatch", func(as *fakeAS, rs *fakeRS) { as.issuer = "https://attacker.example" }, "names issuer"},
		{"issuer with a trailing slash", func(as *fakeAS, rs *fakeRS) { as.issuer = as.Issuer() + "/" }, "names issuer"},
		{"no PKCE", func(as *fakeAS, rs *fakeRS) { as.noPKCE = true }, "PKCE"},
		{"bad state", func(as *fakeAS, rs *fakeRS) { as.badState = true }, "state"},
		{"wrong iss", func(as *fakeAS, rs *fakeRS) { as.iss = "https://evil.example" }, "issuer"},
		{"normalized iss", func(as *fakeAS, rs *fakeRS) { as.iss = as.Issuer() + "/" }, "issuer"},
		{"huge metadata", func(as *fakeAS, rs *fakeRS) { as.huge = true }, "larger than"},
		{"invalid metadata", func(as *fakeAS, rs *fakeRS) { as.invalid = true }, "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newFakeAS(t, "")
			rs := newFakeRS(t, as)
			tt.setup(as, rs)
			c := mustNew(t, rs.URL(), &Config{MaxResponseBytes: 64 << 10})
			_, err := send(t, c, http.MethodPost, rs.URL())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
			if len(as.tokenReq) != 0 {
				t.Errorf("%d token requests after a refusal", len(as.tokenReq))
			}
		})
	}
}

// TestRedirectElsewhere: metadata that redirects to another host is refused.
func TestRedirectElsewhere(t *testing.T) {
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request reached the other host: %s", r.URL)
	}))
	defer evil.Close()
	as := newFakeAS(t, "")
	as.metaPath = "/nowhere"
	rs := newFakeRS(t, as)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	}))
	defer redirector.Close()
	c := mustNew(t, rs.URL(), nil)
	err := c.getJSON(context.Background(), redirector.URL+"/.well-known/x", nil, &ServerMetadata{})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("err = %v", err)
	}
}

// TestPreRegisteredIssuerChosen: among several authorization servers, the
// one the pre-registered credentials are for is used.
func TestPreRegisteredIssuerChosen(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.extraAS = []string{"https://first.example"}
	c, _ := New(rs.URL(), &Config{ClientID: "me", ClientSecret: "x", ClientIssuer: as.Issuer()})
	sendOK(t, c, http.MethodPost, rs.URL())
	if len(as.authReq) != 1 || as.authReq[0].Get("client_id") != "me" {
		t.Errorf("authorization requests %v", as.authReq)
	}
}

func TestPreRegisteredOtherIssuer(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c := mustNew(t, rs.URL(), &Config{ClientID: "me", ClientSecret: "x", ClientIssuer: "https://other.example"})
	if _, err := send(t, c, http.MethodPost, rs.URL()); err == nil || !strings.Contains(err.Error(), "pre-registered") {
		t.Fatalf("err = %v", err)
	}
	if len(as.authReq) != 0 {
		t.Error("credentials of another issuer were used")
	}
}

func TestTokenEndpointAuth(t *testing.T) {
	for _, m := range []string{"client_secret_basic", "client_secret_post", "none"} {
		t.Run(m, func(t *testing.T) {
			as := newFakeAS(t, "")
			as.authMeths = []string{m}
			rs := newFakeRS(t, as)
			c, _ := New(rs.URL(), nil)
			sendOK(t, c, http.MethodPost, rs.URL())
			hdr, form := as.tokenHdr[0].Get("Authorization"), as.tokenReq[0]
			got := "none"
			switch {
			case strings.HasPrefix(hdr, "Basic "):
				got = "client_secret_basic"
			case form.Get("client_secret") != "":
				got = "client_secret_post"
			}
			if got != m {
				t.Errorf("used %s", got)
			}
		})
	}
}

func TestPrivateKeyJWTAndDPoP(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	key, err := ParsePrivateKeyPEM(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := clientAssertion(key, "", "cid", "https://as.example")
	if err != nil || strings.Count(a, ".") != 2 {
		t.Fatalf("assertion %q, %v", a, err)
	}
	p, err := dpopProof(key, "POST", "https://rs.example/mcp", "tok", "n")
	if err != nil || strings.Count(p, ".") != 2 {
		t.Fatalf("proof %q, %v", p, err)
	}
	if _, err := ParsePrivateKeyPEM([]byte("junk")); err == nil {
		t.Error("junk parsed as a key")
	}
}

func TestStores(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.json")
	for name, s := range map[string]TokenStore{"memory": &MemoryStore{Max: 2}, "file": NewFileStore(path)} {
		t.Run(name, func(t *testing.T) {
			if b, err := s.Load(ctx, "k"); b != nil || err != nil {
				t.Fatalf("empty store: %q, %v", b, err)
			}
			if err := s.Save(ctx, "k", []byte("v")); err != nil {
				t.Fatal(err)
			}
			if b, _ := s.Load(ctx, "k"); string(b) != "v" {
				t.Fatalf("got %q", b)
			}
			if err := s.Delete(ctx, "k"); err != nil {
				t.Fatal(err)
			}
			if b, _ := s.Load(ctx, "k"); b != nil {
				t.Fatalf("deleted key: %q", b)
			}
		})
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", st.Mode().Perm())
	}
	m := &MemoryStore{Max: 2}
	for _, k := range []string{"a", "b", "c"} {
		_ = m.Save(ctx, k, []byte(k))
	}
	if len(m.m) != 2 {
		t.Errorf("memory store holds %d entries, bound 2", len(m.m))
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFileStore(path).Load(ctx, "k"); err == nil {
		t.Error("a corrupt file loaded")
	}
}

// TestFileStorePersists: a second Client with the same file needs no login.
func TestFileStorePersists(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	path := filepath.Join(t.TempDir(), "tokens.json")
	for range 2 {
		c, _ := New(rs.URL(), &Config{Store: NewFileStore(path)})
		sendOK(t, c, http.MethodPost, rs.URL())
	}
	if len(as.authReq) != 1 {
		t.Errorf("%d logins, want 1", len(as.authReq))
	}
}

// TestRefreshOn401: a refused token with a refresh token is refreshed, not
// logged in again; the refresh request carries the resource.
func TestRefreshOn401(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c, _ := New(rs.URL(), nil)
	sendOK(t, c, http.MethodPost, rs.URL())
	rs.reject(c.Token(context.Background()).AccessToken)
	c.mu.Lock()
	c.tok.issued = time.Time{} // as if it had served for a while
	c.mu.Unlock()
	sendOK(t, c, http.MethodPost, rs.URL())
	if len(as.authReq) != 1 || len(as.tokenReq) != 2 {
		t.Fatalf("%d logins, %d token requests; want 1 and 2", len(as.authReq), len(as.tokenReq))
	}
	if f := as.tokenReq[1]; f.Get("grant_type") != "refresh_token" || !strings.HasPrefix(f.Get("refresh_token"), "refresh-") || f.Get("resource") != rs.URL() {
		t.Errorf("refresh request %v", f)
	}
}

// TestMigration: when the server's authorization server changes, the
// client registers at the new one and sends it nothing of the old one.
func TestMigration(t *testing.T) {
	as1 := newFakeAS(t, "")
	as2 := newFakeAS(t, "")
	rs := newFakeRS(t, as1)
	c, _ := New(rs.URL(), nil)
	sendOK(t, c, http.MethodPost, rs.URL())
	rs.mu.Lock()
	rs.as = as2
	rs.mu.Unlock()
	rs.reject(c.Token(context.Background()).AccessToken)
	sendOK(t, c, http.MethodPost, rs.URL())
	if len(as2.authReq) != 1 || len(as2.tokenReq) != 1 {
		t.Fatalf("AS2 saw %d logins and %d token requests", len(as2.authReq), len(as2.tokenReq))
	}
	for _, f := range as2.tokenReq {
		if strings.HasPrefix(f.Get("refresh_token"), "refresh-") && f.Get("grant_type") == "refresh_token" {
			t.Errorf("AS1's refresh token sent to AS2: %v", f)
		}
	}
	if len(as1.tokenReq) != 1 {
		t.Errorf("AS1 got %d token requests after the move", len(as1.tokenReq)-1)
	}
	if c.Token(context.Background()).Issuer != as2.Issuer() {
		t.Error("token not from AS2")
	}
}

func TestHeadlessUserAgentRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was contacted: %s", r.URL)
	}))
	defer other.Close()
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/authorize":
			http.Redirect(w, r, "/login", http.StatusFound)
		case "/login":
			http.Redirect(w, r, "http://localhost:3000/callback?code=c&state=s", http.StatusFound)
		case "/evil":
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/x?code=c", http.StatusFound)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer as.Close()
	ua := &HeadlessUserAgent{}
	q, err := ua.Authorize(context.Background(), as.URL+"/authorize")
	if err != nil || q.Get("code") != "c" || q.Get("state") != "s" {
		t.Errorf("got %v, %v", q, err)
	}
	if _, err := ua.Authorize(context.Background(), as.URL+"/evil"); err == nil {
		t.Error("a redirect to another host was accepted")
	}
	if _, err := ua.Authorize(context.Background(), as.URL+"/page"); err == nil {
		t.Error("a page without a redirect was accepted")
	}
}

// TestLoopbackUserAgent: the browser's visit to the redirect URL hands the
// code over, and the browser gets the whole page even though Authorize
// returns (and the listener goes) as soon as the code is in.
func TestLoopbackUserAgent(t *testing.T) {
	page := make(chan string, 1)
	ua := &LoopbackUserAgent{Open: func(authURL string) error {
		go func() {
			resp, err := http.Get(authURL)
			if err != nil {
				page <- err.Error()
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			page <- fmt.Sprint(resp.StatusCode, " ", string(b), err)
		}()
		return nil
	}}
	redirect, err := ua.RedirectURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The "browser" goes straight to the redirect URL, as an AS would send it.
	q, err := ua.Authorize(context.Background(), redirect+"?code=abc&state=xyz")
	if err != nil || q.Get("code") != "abc" || q.Get("state") != "xyz" {
		t.Fatalf("got %v, %v", q, err)
	}
	if got := <-page; !strings.HasPrefix(got, "200 Authorization complete") || !strings.HasSuffix(got, "<nil>") {
		t.Errorf("the browser got %q", got)
	}
	// A listener started for a login that never happens can be released.
	if _, err := ua.RedirectURL(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ua.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentChallenges: requests refused together lead to one login.
func TestConcurrentChallenges(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c, _ := New(rs.URL(), nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := send(t, c, http.MethodPost, rs.URL())
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(as.authReq); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// TestDPoPProof checks a proof's header and claims (RFC 9449 §4.2).
func TestDPoPProof(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p, err := dpopProof(k, "POST", "https://rs.example/mcp", "the-token", "n1")
	if err != nil {
		t.Fatal(err)
	}
	jws, err := jose.ParseSignedCompact(p, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		t.Fatalf("header %+v", h)
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	if claims["htm"] != "POST" || claims["htu"] != "https://rs.example/mcp" || claims["ath"] != s256("the-token") ||
		claims["nonce"] != "n1" || claims["jti"] == "" || claims["iat"] == nil {
		t.Errorf("claims %v", claims)
	}
	p2, _ := dpopProof(k, "POST", "https://rs.example/mcp", "the-token", "n1")
	if p2 == p {
		t.Error("two proofs are identical (jti reused)")
	}
}

// TestFreshTokenRefused: a server that refuses the token just issued gets
// an error, not a loop of logins.
func TestFreshTokenRefused(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.reject("tok-" + strings.TrimPrefix(as.srv.URL, "http://127.0.0.1:") + "-1")
	c, _ := New(rs.URL(), nil)
	_, err := send(t, c, http.MethodPost, rs.URL())
	if err == nil || !strings.Contains(err.Error(), "moments ago") {
		t.Fatalf("err = %v", err)
	}
	if len(as.authReq) != 1 {
		t.Errorf("%d logins, want 1", len(as.authReq))
	}
	if _, err := New(rs.URL(), &Config{ClientMetadataURL: "http://client.example/doc"}); err == nil {
		t.Error("an http client metadata URL was accepted")
	}
}

func TestClientCredentials(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tests := []struct {
		name string
		cfg  Config
		want func(form url.Values, hdr http.Header) bool
	}{
		{"secret", Config{Grant: ClientCredentials, ClientID: "svc", ClientSecret: "pw"},
			func(f url.Values, h http.Header) bool { return h.Get("Authorization") == "Basic c3ZjOnB3" }},
		{"private key", Config{Grant: ClientCredentials, ClientID: "svc", PrivateKey: k},
			func(f url.Values, h http.Header) bool {
				return f.Get("client_assertion_type") == assertionTypeJWT && f.Get("client_assertion") != "" && h.Get("Authorization") == ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newFakeAS(t, "")
			rs := newFakeRS(t, as)
			c := mustNew(t, rs.URL(), &tt.cfg)
			sendOK(t, c, http.MethodPost, rs.URL())
			if len(as.authReq) != 0 || len(as.tokenReq) != 1 {
				t.Fatalf("%d logins, %d token requests", len(as.authReq), len(as.tokenReq))
			}
			f := as.tokenReq[0]
			if f.Get("grant_type") != "client_credentials" || f.Get("resource") != rs.URL() || !tt.want(f, as.tokenHdr[0]) {
				t.Errorf("token request %v %v", f, as.tokenHdr[0])
			}
		})
	}
	if _, err := New("https://x/mcp", &Config{Grant: ClientCredentials}); err == nil {
		t.Error("ClientCredentials without credentials accepted")
	}
}

// TestJWTBearerNoRetry: a refused assertion is final: no second attempt,
// no other grant.
func TestJWTBearerNoRetry(t *testing.T) {
	as := newFakeAS(t, "")
	as.refuse = "invalid_grant"
	rs := newFakeRS(t, as)
	c := mustNew(t, rs.URL(), &Config{Grant: JWTBearer, Assertion: func(context.Context) (string, error) { return "a.b.c", nil }})
	for range 2 {
		if _, err := send(t, c, http.MethodPost, rs.URL()); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
			t.Fatalf("err = %v", err)
		}
	}
	if len(as.tokenReq) != 1 || len(as.authReq) != 0 {
		t.Fatalf("%d token requests, %d logins; want 1 and 0", len(as.tokenReq), len(as.authReq))
	}
	if f := as.tokenReq[0]; f.Get("grant_type") != grantJWTBearer || f.Get("assertion") != "a.b.c" {
		t.Errorf("token request %v", f)
	}
}

// TestEnterpriseManaged: the ID token is exchanged at the identity provider
// for an ID-JAG for this issuer and resource, which the client presents.
func TestEnterpriseManaged(t *testing.T) {
	var idpForm url.Values
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		idpForm = r.PostForm
		writeJSON(w, http.StatusOK, map[string]string{"access_token": "the-jag", "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	}))
	defer idp.Close()
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c, err := New(rs.URL(), &Config{Grant: EnterpriseManaged, ClientID: "app", ClientSecret: "pw",
		Enterprise: &Enterprise{TokenEndpoint: idp.URL + "/token", ClientID: "idp-app",
			IDToken: func(context.Context) (string, error) { return "the-id-token", nil }}})
	if err != nil {
		t.Fatal(err)
	}
	sendOK(t, c, http.MethodPost, rs.URL())
	want := url.Values{"grant_type": {grantTokenExchange}, "requested_token_type": {tokenTypeIDJAG}, "audience": {as.Issuer()},
		"resource": {rs.URL()}, "subject_token": {"the-id-token"}, "subject_token_type": {tokenTypeIDToken}, "client_id": {"idp-app"}}
	if !reflect.DeepEqual(idpForm, want) {
		t.Errorf("token exchange %v, want %v", idpForm, want)
	}
	if len(as.tokenReq) != 1 {
		t.Fatalf("%d token requests", len(as.tokenReq))
	}
	if f := as.tokenReq[0]; f.Get("grant_type") != grantJWTBearer || f.Get("assertion") != "the-jag" || !strings.HasPrefix(as.tokenHdr[0].Get("Authorization"), "Basic ") {
		t.Errorf("token request %v %v", f, as.tokenHdr[0])
	}
}

// TestDPoPFlow: with DPoP on and an authorization server that supports it,
// the token request carries a proof, and every request to the server the
// DPoP scheme and a fresh proof bound to the token.
func TestDPoPFlow(t *testing.T) {
	as := newFakeAS(t, "")
	as.dpop = true
	rs := newFakeRS(t, as)
	c := mustNew(t, rs.URL(), &Config{DPoP: true})
	for range 2 {
		sendOK(t, c, http.MethodPost, rs.URL())
	}
	if as.tokenHdr[0].Get("DPoP") == "" {
		t.Error("token request without a DPoP proof")
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	last := len(rs.auths) - 1
	tok := strings.TrimPrefix(rs.auths[last], "DPoP ")
	if !strings.HasPrefix(rs.auths[last], "DPoP tok-") || rs.proofs[last] == "" || rs.proofs[last] == rs.proofs[last-1] {
		t.Fatalf("authorization %q, proofs %q", rs.auths[last-1:], rs.proofs[last-1:])
	}
	jws, err := jose.ParseSignedCompact(rs.proofs[last], []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jws.Verify(jws.Signatures[0].Protected.JSONWebKey)
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	if claims["ath"] != s256(tok) || claims["htu"] != rs.URL() || claims["htm"] != "POST" {
		t.Errorf("claims %v", claims)
	}
}

// TestLegacyServer: a 2025-03-26 server, without protected-resource
// metadata: the authorization server is its origin, with metadata there or
// else the default endpoints.
func TestLegacyServer(t *testing.T) {
	for _, withMeta := range []bool{true, false} {
		t.Run(fmt.Sprint("metadata=", withMeta), func(t *testing.T) {
			var mu sync.Mutex
			var paths []string
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				paths = append(paths, r.URL.Path)
				mu.Unlock()
				base := ""
				if withMeta {
					base = "/oauth"
				}
				switch r.URL.Path {
				case "/mcp":
					if r.Header.Get("Authorization") != "Bearer legacy-token" {
						w.Header().Set("WWW-Authenticate", "Bearer")
						w.WriteHeader(http.StatusUnauthorized)
					}
				case "/.well-known/oauth-authorization-server":
					if !withMeta {
						http.NotFound(w, r)
						return
					}
					writeJSON(w, http.StatusOK, map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/oauth/authorize",
						"token_endpoint": srv.URL + "/oauth/token", "registration_endpoint": srv.URL + "/oauth/register",
						"code_challenge_methods_supported": []string{"S256"}})
				case base + "/authorize":
					q := r.URL.Query()
					http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
				case base + "/token":
					writeJSON(w, http.StatusOK, map[string]any{"access_token": "legacy-token", "token_type": "bearer"})
				case base + "/register":
					writeJSON(w, http.StatusCreated, map[string]any{"client_id": "legacy-client"})
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			c, _ := New(srv.URL+"/mcp", nil)
			sendOK(t, c, http.MethodPost, srv.URL+"/mcp")
			mu.Lock()
			defer mu.Unlock()
			joined := strings.Join(paths, " ")
			if !strings.Contains(joined, "/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource /.well-known/oauth-authorization-server") {
				t.Errorf("requests %s", joined)
			}
		})
	}
}

// TestLoopbackUserAgentIgnoresForgedCallbacks: callbacks without the
// authorization's state (missing, wrong, repeated) get an error page and do
// not end the wait; the real one then does.
func TestLoopbackUserAgentIgnoresForgedCallbacks(t *testing.T) {
	forged := make(chan []string, 1)
	ua := &LoopbackUserAgent{Timeout: time.Minute, Open: func(authURL string) error {
		redirect, _, _ := strings.Cut(authURL, "?")
		go func() {
			var statuses []string
			for _, q := range []string{"?code=evil&state=wrong", "?code=evil", "?code=evil&state=real&state=wrong", "?code=evil&state=REAL"} {
				resp, err := http.Get(redirect + q)
				if err != nil {
					statuses = append(statuses, err.Error())
					continue
				}
				resp.Body.Close()
				statuses = append(statuses, resp.Status)
			}
			forged <- statuses
			resp, err := http.Get(redirect + "?code=good&state=real")
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}}
	redirect, err := ua.RedirectURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q, err := ua.Authorize(context.Background(), redirect+"?state=real")
	if err != nil || q.Get("code") != "good" {
		t.Fatalf("got %v, %v", q, err)
	}
	for _, s := range <-forged {
		if s != "400 Bad Request" {
			t.Errorf("a forged callback got %q", s)
		}
	}
}

// TestResourceMetadataOtherOrigin: a resource_metadata URL of another
// origin (here another port of this machine) is never fetched; discovery
// goes to the server's well-known URL instead.
func TestResourceMetadataOtherOrigin(t *testing.T) {
	var hits atomic.Int32
	victim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer victim.Close()
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	rs.prmURL = victim.URL + "/admin/purge?all=1"
	c := mustNew(t, rs.URL(), nil)
	sendOK(t, c, http.MethodPost, rs.URL())
	if n := hits.Load(); n != 0 {
		t.Errorf("the URL of another origin was fetched %d times", n)
	}
}

// TestPreRegisteredPinned: pre-registered credentials without ClientIssuer
// belong to the first authorization server they are used with. When the
// server moves to another, that one gets neither the credentials nor the
// tokens, in this Client or a later one on the same Store.
func TestPreRegisteredPinned(t *testing.T) {
	as1 := newFakeAS(t, "")
	as2 := newFakeAS(t, "")
	rs := newFakeRS(t, as1)
	store := NewFileStore(filepath.Join(t.TempDir(), "tokens.json"))
	cfg := &Config{Grant: ClientCredentials, ClientID: "me", ClientSecret: "s3cret", Store: store}
	c := mustNew(t, rs.URL(), cfg)
	sendOK(t, c, http.MethodPost, rs.URL())
	rs.mu.Lock()
	rs.as = as2
	rs.mu.Unlock()
	rs.reject(c.Token(context.Background()).AccessToken)
	if _, err := send(t, c, http.MethodPost, rs.URL()); err == nil || !strings.Contains(err.Error(), "pre-registered") {
		t.Fatalf("after the move: %v", err)
	}
	later := mustNew(t, rs.URL(), cfg)
	if _, err := send(t, later, http.MethodPost, rs.URL()); err == nil || !strings.Contains(err.Error(), "pre-registered") {
		t.Fatalf("a later client: %v", err)
	}
	as2.mu.Lock()
	defer as2.mu.Unlock()
	if len(as2.tokenReq) != 0 || len(as2.authReq) != 0 {
		t.Errorf("AS2 got %d token and %d authorization requests", len(as2.tokenReq), len(as2.authReq))
	}
}

// TestRefreshedTokenExpired: a token obtained by refreshing that the
// server refuses as it expires (a short lifetime, the resource server's
// clock ahead, a slow machine) is refreshed again, not replaced by a new
// login; one refused while still valid still calls for a login.
func TestRefreshedTokenExpired(t *testing.T) {
	as := newFakeAS(t, "")
	rs := newFakeRS(t, as)
	c := mustNew(t, rs.URL(), nil)
	sendOK(t, c, http.MethodPost, rs.URL())
	refuse := func(expiry time.Time) {
		rs.reject(c.Token(context.Background()).AccessToken)
		c.mu.Lock()
		c.tok.issued = time.Time{} // as if it had served for a while
		if !expiry.IsZero() {
			c.tok.Expiry = expiry
		}
		c.mu.Unlock()
	}
	refuse(time.Time{})
	sendOK(t, c, http.MethodPost, rs.URL()) // refreshed
	refuse(time.Now().Add(time.Second))     // about to expire
	sendOK(t, c, http.MethodPost, rs.URL())
	if len(as.authReq) != 1 || len(as.tokenReq) != 3 || as.tokenReq[2].Get("grant_type") != "refresh_token" {
		t.Fatalf("%d logins, %d token requests; want 1 and 3, the last a refresh", len(as.authReq), len(as.tokenReq))
	}
	refuse(time.Time{}) // valid for an hour
	sendOK(t, c, http.MethodPost, rs.URL())
	if len(as.authReq) != 2 {
		t.Errorf("%d logins after a valid refreshed token was refused, want 2", len(as.authReq))
	}
}
