package authtest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"time"

	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
)

const resource = "https://mcp.example.com/mcp"

type client struct {
	t  *testing.T
	as *authtest.Server
	hc *http.Client
}

func newClient(t *testing.T, opts *authtest.Options) *client {
	as, err := authtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &client{t: t, as: as, hc: hc}
}

// post sends a form (or JSON when body starts with '{') and decodes the answer.
func (c *client) post(path string, body string, header http.Header) (int, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.as.Issuer+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if strings.HasPrefix(body, "{") {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		c.t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

// authorize runs the authorize endpoint and returns the redirect's query.
func (c *client) authorize(q url.Values) (int, url.Values) {
	c.t.Helper()
	resp, err := c.hc.Get(c.as.Issuer + "/authorize?" + q.Encode())
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return resp.StatusCode, nil
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, loc.Query()
}

func pkce(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestCodeFlowDPoPRefreshStepUp(t *testing.T) {
	c := newClient(t, &authtest.Options{Scopes: []string{"read", "write"}})
	status, reg := c.post("/register", `{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none","client_name":"t"}`, nil)
	if status != http.StatusCreated || reg["client_id"] == "" || reg["client_secret"] != nil {
		t.Fatalf("register: %d %v", status, reg)
	}
	id := reg["client_id"].(string)
	key, _ := authtest.NewDPoPKey()
	verifier := strings.Repeat("v", 50)
	authz := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"code_challenge": {pkce(verifier)}, "code_challenge_method": {"S256"}, "state": {"st"}, "scope": {"read"}, "resource": {resource}}
	_, q := c.authorize(authz)
	if q.Get("state") != "st" || q.Get("iss") != c.as.Issuer || q.Get("code") == "" {
		t.Fatalf("authorize: %v", q)
	}
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "code_verifier": {verifier},
		"redirect_uri": {"http://127.0.0.1:9/cb"}, "client_id": {id}, "resource": {resource}}
	bad, _ := key.ProofWith(authtest.ProofClaims{HTM: "GET", HTU: c.as.TokenURL()}, "")
	if status, out := c.post("/token", exchange.Encode(), http.Header{"Dpop": {bad}}); status != 400 || out["error"] != "invalid_dpop_proof" {
		t.Fatalf("a bad proof at the token endpoint: %d %v", status, out)
	}
	_, q = c.authorize(authz) // the failed request did not consume a new code; get one
	exchange.Set("code", q.Get("code"))
	proof, _ := key.Proof("POST", c.as.TokenURL(), "")
	status, tok := c.post("/token", exchange.Encode(), http.Header{"Dpop": {proof}})
	if status != 200 || tok["token_type"] != "DPoP" || tok["scope"] != "read" || tok["refresh_token"] == nil {
		t.Fatalf("code exchange: %d %v", status, tok)
	}
	if status, out := c.post("/token", exchange.Encode(), nil); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a code used twice: %d %v", status, out)
	}
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: c.as.Issuer, Audience: resource, JWKSURL: c.as.JWKSURL()})
	info, err := v.Verify(context.Background(), tok["access_token"].(string))
	if err != nil || info.JKT != key.JKT() || info.Subject != "user" || info.ClientID != id {
		t.Fatalf("the issued token: %+v, %v", info, err)
	}

	// Refresh rotates: the old refresh token is spent.
	rt := tok["refresh_token"].(string)
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {id}}
	proof, _ = key.Proof("POST", c.as.TokenURL(), "")
	status, tok2 := c.post("/token", refresh.Encode(), http.Header{"Dpop": {proof}})
	if status != 200 || tok2["refresh_token"] == rt || tok2["token_type"] != "DPoP" {
		t.Fatalf("refresh: %d %v", status, tok2)
	}
	if status, _ := c.post("/token", refresh.Encode(), nil); status != 400 {
		t.Errorf("a spent refresh token: %d", status)
	}
	// A bound refresh token needs its key.
	other, _ := authtest.NewDPoPKey()
	proof, _ = other.Proof("POST", c.as.TokenURL(), "")
	refresh.Set("refresh_token", tok2["refresh_token"].(string))
	if status, out := c.post("/token", refresh.Encode(), http.Header{"Dpop": {proof}}); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a bound refresh token with another key: %d %v", status, out)
	}

	// Step-up: a new authorization for more scopes.
	authz.Set("scope", "read write")
	_, q = c.authorize(authz)
	exchange.Set("code", q.Get("code"))
	status, tok3 := c.post("/token", exchange.Encode(), nil)
	if status != 200 || tok3["scope"] != "read write" || tok3["token_type"] != "Bearer" {
		t.Fatalf("step-up: %d %v", status, tok3)
	}
	if got := strings.Join(c.as.TokenRequests(), ","); got != "authorization_code(),authorization_code(),authorization_code(),refresh_token(),refresh_token(),refresh_token(),authorization_code()" {
		t.Errorf("TokenRequests = %s", got)
	}
}

func TestAuthorizeRefusals(t *testing.T) {
	c := newClient(t, &authtest.Options{Scopes: []string{"read"}, Clients: []authtest.Client{{ID: "app", RedirectURIs: []string{"https://app/cb"}}}})
	base := func() url.Values {
		return url.Values{"response_type": {"code"}, "client_id": {"app"}, "redirect_uri": {"https://app/cb"},
			"code_challenge": {pkce("x")}, "code_challenge_method": {"S256"}, "state": {"s"}}
	}
	tests := []struct {
		name   string
		change func(url.Values)
		status int
		err    string
	}{
		{"unknown client", func(q url.Values) { q.Set("client_id", "nobody") }, 400, ""},
		{"unregistered redirect", func(q url.Values) { q.Set("redirect_uri", "https://app/cb/") }, 400, ""},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge") }, 302, "invalid_request"},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, 302, "invalid_request"},
		{"unknown scope", func(q url.Values) { q.Set("scope", "root") }, 302, "invalid_scope"},
		{"token response type", func(q url.Values) { q.Set("response_type", "token") }, 302, "unsupported_response_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := base()
			tt.change(q)
			status, ans := c.authorize(q)
			if status != tt.status || ans.Get("error") != tt.err || (status == 302 && (ans.Get("code") != "" || ans.Get("iss") != c.as.Issuer)) {
				t.Errorf("%d %v, want %d error %q", status, ans, tt.status, tt.err)
			}
		})
	}
	_, q := c.authorize(base())
	ex := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "code_verifier": {"wrong"}, "client_id": {"app"}}
	if status, out := c.post("/token", ex.Encode(), nil); status != 400 || out["error"] != "invalid_grant" {
		t.Errorf("a wrong code_verifier: %d %v", status, out)
	}
}

func TestClientCredentialsAndIntrospection(t *testing.T) {
	c := newClient(t, &authtest.Options{Clients: []authtest.Client{{ID: "svc", Secret: "pw"}, {ID: "pub"}}})
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"jobs"}, "resource": {resource}}
	basic := func(id, pw string) http.Header {
		return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+pw))}}
	}
	if status, _ := c.post("/token", form.Encode(), basic("svc", "nope")); status != 401 {
		t.Errorf("a wrong secret: %d", status)
	}
	form.Set("client_id", "pub")
	if status, _ := c.post("/token", form.Encode(), nil); status != 401 {
		t.Errorf("client credentials for a public client: %d", status)
	}
	form.Del("client_id")
	status, tok := c.post("/token", form.Encode(), basic("svc", "pw"))
	if status != 200 || tok["refresh_token"] != nil {
		t.Fatalf("client credentials: %d %v", status, tok)
	}
	status, in := c.post("/introspect", url.Values{"token": {tok["access_token"].(string)}}.Encode(), basic("svc", "pw"))
	if status != 200 || in["active"] != true || in["sub"] != "svc" || in["scope"] != "jobs" {
		t.Errorf("introspection: %d %v", status, in)
	}
	c.as.Revoke(tok["access_token"].(string))
	if _, in := c.post("/introspect", url.Values{"token": {tok["access_token"].(string)}}.Encode(), basic("svc", "pw")); in["active"] != false {
		t.Errorf("introspection of a revoked token: %v", in)
	}
	if status, _ := c.post("/introspect", url.Values{"token": {"x"}}.Encode(), nil); status != 401 {
		t.Errorf("introspection without client authentication: %d", status)
	}
}

func TestMetadata(t *testing.T) {
	c := newClient(t, nil)
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		resp, err := c.hc.Get(c.as.Issuer + p)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if md["issuer"] != c.as.Issuer || md["jwks_uri"] != c.as.JWKSURL() || md["authorization_response_iss_parameter_supported"] != true {
			t.Errorf("%s: %v", p, md)
		}
	}
}

func TestIssuerPath(t *testing.T) {
	c := newClient(t, &authtest.Options{IssuerPath: "/tenant1"})
	if !strings.HasSuffix(c.as.Issuer, "/tenant1") {
		t.Fatalf("issuer %s", c.as.Issuer)
	}
	base := strings.TrimSuffix(c.as.Issuer, "/tenant1")
	for _, u := range []string{base + "/.well-known/oauth-authorization-server/tenant1",
		base + "/.well-known/openid-configuration/tenant1", c.as.Issuer + "/.well-known/openid-configuration"} {
		resp, err := c.hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if md["issuer"] != c.as.Issuer || md["token_endpoint"] != c.as.Issuer+"/token" {
			t.Errorf("%s: %v", u, md)
		}
	}
	resp, err := c.hc.Get(base + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("root metadata for a path issuer: %d", resp.StatusCode)
	}
	if status, reg := c.post("/register", `{"redirect_uris":["https://a/cb"]}`, nil); status != 201 {
		t.Errorf("register under the path: %d %v", status, reg)
	}
}

func TestDPoPNonce(t *testing.T) {
	c := newClient(t, &authtest.Options{DPoPNonce: auth.NewRotatingNonce(0), Clients: []authtest.Client{{ID: "svc", Secret: "pw"}}})
	key, _ := authtest.NewDPoPKey()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"svc"}, "client_secret": {"pw"}}.Encode()
	proof, _ := key.Proof("POST", c.as.TokenURL(), "")
	req, _ := http.NewRequest("POST", c.as.TokenURL(), strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("DPoP", proof)
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != 400 || nonce == "" {
		t.Fatalf("a proof without the nonce: %d %q", resp.StatusCode, nonce)
	}
	proof, _ = key.ProofWith(authtest.ProofClaims{HTM: "POST", HTU: c.as.TokenURL(), Nonce: nonce}, "")
	if status, tok := c.post("/token", form, http.Header{"Dpop": {proof}}); status != 200 || tok["token_type"] != "DPoP" {
		t.Errorf("with the nonce: %d %v", status, tok)
	}
}

func TestPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	c := newClient(t, &authtest.Options{Clients: []authtest.Client{{ID: "bot", PublicKey: &key.PublicKey}}})
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	assertion := func(iss, aud string, exp time.Time, jti string) string {
		s, _ := jwt.Signed(signer).Claims(map[string]any{"iss": iss, "sub": iss, "aud": aud, "exp": exp.Unix(), "iat": time.Now().Unix(), "jti": jti}).Serialize()
		return s
	}
	form := func(a string) string {
		return url.Values{"grant_type": {"client_credentials"}, "scope": {"jobs"}, "resource": {resource},
			"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {a}}.Encode()
	}
	soon := time.Now().Add(time.Minute)
	good := assertion("bot", c.as.Issuer, soon, "1")
	if status, tok := c.post("/token", form(good), nil); status != 200 || tok["access_token"] == nil {
		t.Fatalf("a good assertion: %d %v", status, tok)
	}
	for name, a := range map[string]string{
		"replayed":       good,
		"wrong audience": assertion("bot", "https://elsewhere", soon, "2"),
		"expired":        assertion("bot", c.as.Issuer, time.Now().Add(-time.Hour), "3"),
		"unknown client": assertion("nobody", c.as.Issuer, soon, "4"),
		"no jti":         assertion("bot", c.as.TokenURL(), soon, ""),
	} {
		if status, _ := c.post("/token", form(a), nil); status != 401 {
			t.Errorf("%s: %d, want 401", name, status)
		}
	}
	if status, _ := c.post("/token", form(assertion("bot", c.as.TokenURL(), soon, "5")), nil); status != 200 {
		t.Errorf("the token endpoint as audience: %d", status)
	}
	if status, _ := c.post("/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"bot"}}.Encode(), nil); status != 401 {
		t.Errorf("a key client without an assertion: %d", status)
	}
}

func TestStoresBounded(t *testing.T) {
	c := newClient(t, &authtest.Options{MaxEntries: 2})
	for i := range 3 {
		status, _ := c.post("/register", `{"redirect_uris":["https://a/cb"]}`, nil)
		if want := map[bool]int{true: 201, false: 503}[i < 2]; status != want {
			t.Errorf("registration %d: %d, want %d", i, status, want)
		}
	}
}

// TestLoopbackRedirect: a loopback IP redirect URI matches on any port
// (RFC 8252 §7.3), nothing else does.
func TestLoopbackRedirect(t *testing.T) {
	c := newClient(t, &authtest.Options{Clients: []authtest.Client{{ID: "cli",
		RedirectURIs: []string{"http://127.0.0.1/callback", "http://localhost:3000/callback"}}}})
	for _, tt := range []struct {
		redirect string
		status   int
	}{
		{"http://127.0.0.1/callback", 302},
		{"http://127.0.0.1:49152/callback", 302},
		{"http://127.0.0.1:49152/other", 400},
		{"http://127.0.0.1:49152/callback?x=1", 400},
		{"https://127.0.0.1:49152/callback", 400},
		{"http://[::1]:49152/callback", 400},
		{"http://localhost:3001/callback", 400},
	} {
		q := url.Values{"response_type": {"code"}, "client_id": {"cli"}, "redirect_uri": {tt.redirect},
			"code_challenge": {pkce("x")}, "code_challenge_method": {"S256"}}
		if status, _ := c.authorize(q); status != tt.status {
			t.Errorf("%s: %d, want %d", tt.redirect, status, tt.status)
		}
	}
}
