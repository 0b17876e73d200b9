package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// dpopTransport presents a DPoP-bound token on every request with a fresh
// proof for its method and URL, as an RFC 9449 client does.
type dpopTransport struct {
	key   *authtest.DPoPKey
	token string
	base  http.RoundTripper

	mu      sync.Mutex
	methods []string
}

func (d *dpopTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	u := *r.URL
	u.RawQuery, u.Fragment = "", ""
	proof, err := d.key.Proof(r.Method, u.String(), d.token)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "DPoP "+d.token)
	r.Header.Set("DPoP", proof)
	resp, err := d.base.RoundTrip(r)
	if err == nil {
		d.mu.Lock()
		d.methods = append(d.methods, r.Method+" "+resp.Status[:3])
		d.mu.Unlock()
	}
	return resp, err
}

// TestDPoPEndToEnd gets a DPoP-bound token from the authtest token
// endpoint through the authorization code flow, then runs an MCP session
// with it: every POST, the standalone GET stream and the closing DELETE
// carry a fresh proof.
func TestDPoPEndToEnd(t *testing.T) {
	as, err := authtest.Start(&authtest.Options{Clients: []authtest.Client{{ID: "app", RedirectURIs: []string{"http://127.0.0.1:1/cb"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "dpop", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "jkt"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
		return auth.TokenInfoFromContext(ctx).JKT, nil
	})
	h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Principal: auth.Principal})
	defer h.Close()
	var protected http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { protected.ServeHTTP(w, r) }))
	defer ts.Close()
	resource := ts.URL + "/mcp"
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: resource, JWKSURL: as.JWKSURL()})
	rs, err := auth.New(auth.Options{Resource: resource, AuthorizationServers: []string{as.Issuer}, Verifier: v,
		DPoP: &auth.DPoPOptions{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	protected = rs.Wrap(h)

	// The code flow, with a proof on the token request.
	key, _ := authtest.NewDPoPKey()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const verifier = "0123456789012345678901234567890123456789012345"
	q := url.Values{"response_type": {"code"}, "client_id": {"app"}, "redirect_uri": {"http://127.0.0.1:1/cb"},
		"code_challenge": {pkce(verifier)}, "code_challenge_method": {"S256"}, "resource": {resource}}
	resp, err := noRedirect.Get(as.Issuer + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")}, "code_verifier": {verifier},
		"client_id": {"app"}, "redirect_uri": {"http://127.0.0.1:1/cb"}, "resource": {resource}}
	proof, _ := key.Proof("POST", as.TokenURL(), "")
	req, _ := http.NewRequest("POST", as.TokenURL(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("DPoP", proof)
	tok := decode(t, req)
	if tok["token_type"] != "DPoP" {
		t.Fatalf("token response: %v", tok)
	}

	rt := &dpopTransport{key: key, token: tok["access_token"].(string), base: http.DefaultTransport}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream := mcphttp.NewClientStream(resource, &mcphttp.ClientOptions{HTTPClient: &http.Client{Transport: rt}})
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
	cs, err := c.Connect(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "jkt"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != key.JKT() {
		t.Fatalf("jkt: %+v %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	methods := strings.Join(rt.methods, " ")
	rt.mu.Unlock()
	if !strings.Contains(methods, "POST 200") || !strings.Contains(methods, "DELETE 2") ||
		strings.Contains(methods, " 4") || strings.Contains(methods, " 5") {
		t.Errorf("requests %s: want POSTs and the closing DELETE, all accepted", methods)
	}
}

func decode(t *testing.T, req *http.Request) map[string]any {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := jsonDecode(resp, &m); err != nil {
		t.Fatalf("%s: %v", resp.Status, err)
	}
	return m
}
