package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
)

// env is a resource server in front of a handler that reports the token
// it saw, trusting an authtest authorization server.
type env struct {
	t        *testing.T
	as       *authtest.Server
	rs       *auth.ResourceServer
	ts       *httptest.Server
	resource string
}

func newEnv(t *testing.T, mutate func(*auth.Options)) *env {
	t.Helper()
	as, err := authtest.Start(&authtest.Options{Scopes: []string{"mcp:read", "mcp:write", "mcp:admin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(as.Close)
	e := &env{t: t, as: as}
	var rs *auth.ResourceServer
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info := auth.TokenInfoFromContext(r.Context())
			body, _ := io.ReadAll(r.Body)
			json.NewEncoder(w).Encode(map[string]any{"principal": auth.Principal(r), "scopes": info.Scopes, "body": string(body)})
		})).ServeHTTP(w, r)
	}))
	t.Cleanup(e.ts.Close)
	e.resource = e.ts.URL + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: e.resource, JWKSURL: as.JWKSURL()})
	if err != nil {
		t.Fatal(err)
	}
	opts := auth.Options{
		Resource:             e.resource,
		AuthorizationServers: []string{as.Issuer},
		Verifier:             v,
		ScopesSupported:      []string{"mcp:read", "mcp:write", "mcp:admin"},
		Scopes:               []string{"mcp:read"},
		MethodScopes:         map[string][]string{"tools/call": {"mcp:write"}},
		ToolScopes:           map[string][]string{"wipe": {"mcp:admin"}},
		DPoP:                 &auth.DPoPOptions{},
	}
	if mutate != nil {
		mutate(&opts)
	}
	if rs, err = auth.New(opts); err != nil {
		t.Fatal(err)
	}
	e.rs = rs
	return e
}

func (e *env) mint(tok authtest.Token) string {
	e.t.Helper()
	if tok.Audience == nil {
		tok.Audience = []string{e.resource}
	}
	if tok.Subject == "" {
		tok.Subject = "alice"
	}
	s, err := e.as.Mint(tok)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (e *env) do(method, path string, header http.Header, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

func TestRefusals(t *testing.T) {
	e := newEnv(t, nil)
	other, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	key, err := authtest.NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	good := e.mint(authtest.Token{Scopes: []string{"mcp:read"}})
	foreign, err := other.Mint(authtest.Token{Subject: "alice", Audience: []string{e.resource}, Scopes: []string{"mcp:read"}})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + strings.TrimRight(parts[1], "A") + "AA." + parts[2]
	resigned := parts[0] + "." + parts[1] + "." + strings.Split(foreign, ".")[2]
	tests := []struct {
		name   string
		header http.Header
		path   string
		status int
		want   string // in WWW-Authenticate, or the body for 400
	}{
		{"no token", nil, "/mcp", 401, `resource_metadata="` + e.ts.URL + `/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`},
		{"good", bearer(good), "/mcp", 200, ""},
		{"scheme case", http.Header{"Authorization": {"bearer " + good}}, "/mcp", 200, ""},
		{"wrong audience", bearer(e.mint(authtest.Token{Audience: []string{"https://other.example/mcp"}, Scopes: []string{"mcp:read"}})), "/mcp", 401, `error="invalid_token"`},
		{"no audience", bearer(e.mint(authtest.Token{Audience: []string{}, Scopes: []string{"mcp:read"}})), "/mcp", 401, `error="invalid_token"`},
		{"expired", bearer(e.mint(authtest.Token{Expiry: time.Now().Add(-time.Hour), Scopes: []string{"mcp:read"}})), "/mcp", 401, "expired"},
		{"wrong issuer", bearer(e.mint(authtest.Token{Issuer: "https://evil.example", Scopes: []string{"mcp:read"}})), "/mcp", 401, "issuer"},
		{"other server's key", bearer(foreign), "/mcp", 401, `error="invalid_token"`},
		{"tampered payload", bearer(tampered), "/mcp", 401, `error="invalid_token"`},
		{"foreign signature", bearer(resigned), "/mcp", 401, `error="invalid_token"`},
		{"not a JWT", bearer("abc.def"), "/mcp", 401, `error="invalid_token"`},
		{"bound token as bearer", bearer(e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: key.JKT()})), "/mcp", 401, "present it with DPoP"},
		{"unknown scheme", http.Header{"Authorization": {"Basic YTpi"}}, "/mcp", 401, "resource_metadata="},
		{"empty token", http.Header{"Authorization": {"Bearer "}}, "/mcp", 400, "invalid_request"},
		{"scheme only", http.Header{"Authorization": {"Bearer"}}, "/mcp", 400, "invalid_request"},
		{"two words", http.Header{"Authorization": {"Bearer a b"}}, "/mcp", 400, "invalid_request"},
		{"bad characters", http.Header{"Authorization": {"Bearer a\"b"}}, "/mcp", 400, "invalid_request"},
		{"only padding", http.Header{"Authorization": {"Bearer =="}}, "/mcp", 400, "invalid_request"},
		{"two headers", http.Header{"Authorization": {"Bearer " + good, "Bearer " + good}}, "/mcp", 400, "invalid_request"},
		{"token in query", nil, "/mcp?access_token=" + good, 400, "invalid_request"},
		{"huge token", bearer(strings.Repeat("a", 100000)), "/mcp", 401, `error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", tt.path, tt.header, listBody)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d (%s %v)", r.status, tt.status, r.body, r.header)
			}
			switch {
			case tt.status == 401:
				challenge := strings.Join(r.header.Values("WWW-Authenticate"), "\n")
				if !strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, tt.want) {
					t.Errorf("WWW-Authenticate %q, want it to contain %q", challenge, tt.want)
				}
				if !strings.Contains(challenge, "\nDPoP algs=") {
					t.Errorf("WWW-Authenticate %q has no DPoP challenge", challenge)
				}
			case tt.status == 400 && !strings.Contains(r.body, tt.want):
				t.Errorf("body %q, want %q", r.body, tt.want)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	e := newEnv(t, nil)
	read := e.mint(authtest.Token{Scopes: []string{"mcp:read"}})
	write := e.mint(authtest.Token{Scopes: []string{"mcp:read", "mcp:write"}})
	admin := e.mint(authtest.Token{Scopes: []string{"mcp:read", "mcp:write", "mcp:admin"}})
	none := e.mint(authtest.Token{})
	tests := []struct {
		name   string
		tok    string
		body   string
		status int
		scope  string
	}{
		{"list with read", read, listBody, 200, ""},
		{"list without scopes", none, listBody, 403, "mcp:read"},
		{"call with read", read, callBody("echo"), 403, "mcp:read mcp:write"},
		{"call with write", write, callBody("echo"), 200, ""},
		{"admin tool with write", write, callBody("wipe"), 403, "mcp:read mcp:write mcp:admin"},
		{"admin tool with admin", admin, callBody("wipe"), 200, ""},
		{"batch names every scope", read, "[" + listBody + "," + callBody("wipe") + "]", 403, "mcp:read mcp:write mcp:admin"},
		{"invalid JSON passes to the server", read, `{"jsonrpc":`, 200, ""},
		{"case-folded keys are not a tool call", read, `{"jsonrpc":"2.0","id":1,"METHOD":"tools/call"}`, 200, ""},
		{"params of a wrong type", write, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":7}}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/mcp", bearer(tt.tok), tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d (%s)", r.status, tt.status, r.body)
			}
			if tt.status == 403 {
				want := `Bearer resource_metadata="` + e.rs.MetadataURL() + `", scope="` + tt.scope + `", error="insufficient_scope"`
				if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, want) {
					t.Errorf("WWW-Authenticate %q, want prefix %q", got, want)
				}
				return
			}
			var got struct{ Body string }
			if err := json.Unmarshal([]byte(r.body), &got); err != nil || got.Body != tt.body {
				t.Errorf("the handler read %q (%v), want the whole body %q", got.Body, err, tt.body)
			}
		})
	}
	if r := e.do("POST", "/mcp", bearer(admin), strings.Repeat(" ", 4<<20+1)); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized body: status %d, want 413", r.status)
	}
}

func TestHierarchy(t *testing.T) {
	e := newEnv(t, func(o *auth.Options) {
		o.Satisfies = func(granted []string, needed string) bool {
			for _, g := range granted {
				if g == needed || g == "mcp:admin" {
					return true
				}
			}
			return false
		}
	})
	if r := e.do("POST", "/mcp", bearer(e.mint(authtest.Token{Scopes: []string{"mcp:admin"}})), callBody("wipe")); r.status != 200 {
		t.Errorf("admin implies every scope: status %d %s", r.status, r.body)
	}
}

func TestMetadata(t *testing.T) {
	e := newEnv(t, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		r := e.do("GET", path, nil, "")
		if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %s", path, r.status, r.header.Get("Content-Type"))
		}
		var md auth.ProtectedResourceMetadata
		if err := json.Unmarshal([]byte(r.body), &md); err != nil {
			t.Fatal(err)
		}
		if md.Resource != e.resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != e.as.Issuer ||
			len(md.ScopesSupported) != 3 || len(md.DPoPSigningAlgs) == 0 {
			t.Errorf("GET %s: %+v", path, md)
		}
	}
	if r := e.do("POST", "/.well-known/oauth-protected-resource", nil, ""); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST metadata: %d", r.status)
	}
	if r := e.do("OPTIONS", "/.well-known/oauth-protected-resource/mcp", nil, ""); r.status != http.StatusNoContent ||
		r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
}

func TestNewValidates(t *testing.T) {
	v := auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) { return nil, auth.ErrInvalidToken })
	for _, o := range []auth.Options{
		{},
		{Resource: "https://x/mcp", AuthorizationServers: []string{"https://as"}},
		{Resource: "https://x/mcp", Verifier: v},
		{Resource: "/mcp", AuthorizationServers: []string{"https://as"}, Verifier: v},
		{Resource: "ftp://x/mcp", AuthorizationServers: []string{"https://as"}, Verifier: v},
		{Resource: "https://x/mcp#f", AuthorizationServers: []string{"https://as"}, Verifier: v},
	} {
		if _, err := auth.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestVerifierOutage(t *testing.T) {
	e := newEnv(t, func(o *auth.Options) {
		o.Verifier = auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) {
			return nil, io.ErrUnexpectedEOF
		})
	})
	if r := e.do("POST", "/mcp", bearer("abc"), listBody); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("an unreachable authorization server: %d %v, want 503 with Retry-After", r.status, r.header)
	}
}

func FuzzAuthorization(f *testing.F) {
	for _, s := range []string{"Bearer abc", "DPoP abc", "Bearer", "", " ", "Basic x", "Bearer a=b", "bearer    x"} {
		f.Add(s, "")
	}
	rs, err := auth.New(auth.Options{
		Resource: "http://example.com/mcp", AuthorizationServers: []string{"http://as"},
		Verifier: auth.VerifierFunc(func(_ context.Context, tok string) (*auth.TokenInfo, error) {
			if tok == "ok" {
				return &auth.TokenInfo{Subject: "s", Expiry: time.Now().Add(time.Hour)}, nil
			}
			return nil, auth.ErrInvalidToken
		}),
		DPoP: &auth.DPoPOptions{}, ToolScopes: map[string][]string{"x": {"y"}},
	})
	if err != nil {
		f.Fatal(err)
	}
	h := rs.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	f.Fuzz(func(t *testing.T, authz, dpop string) {
		r := httptest.NewRequest("POST", "http://example.com/mcp", strings.NewReader(callBody("x")))
		r.Header["Authorization"] = []string{authz}
		if dpop != "" {
			r.Header["Dpop"] = []string{dpop}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if c := w.Code; c != 200 && c != 400 && c != 401 && c != 403 {
			t.Errorf("status %d for %q", c, authz)
		}
	})
}
