package oauth

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeAS is an authorization server for the tests. Its knobs are set
// before the first request.
type fakeAS struct {
	srv    *httptest.Server
	prefix string // issuer path, e.g. "/tenant1"

	metaPath  string // where the metadata lives; default the RFC 8414 path-insertion URL
	issuer    string // issuer in the metadata; default the real one
	noPKCE    bool
	noIss     bool   // authorization response without iss
	iss       string // iss to send instead of the issuer
	badState  bool
	authMeths []string
	huge      bool   // metadata larger than any bound
	deny      string // a scope never granted
	invalid   bool   // metadata that is not JSON
	refuse    string // token requests get this OAuth error
	dpop      bool   // advertise DPoP and bind tokens to proofs

	mu       sync.Mutex
	requests []string // "METHOD path?query"
	tokenReq []url.Values
	authReq  []url.Values
	tokenHdr []http.Header
	scopes   map[string]string // token → granted scope
}

func newFakeAS(t *testing.T, prefix string) *fakeAS {
	a := &fakeAS{prefix: prefix}
	a.srv = httptest.NewServer(a)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAS) Issuer() string { return a.srv.URL + a.prefix }

func (a *fakeAS) log() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.requests...)
}

func (a *fakeAS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.requests = append(a.requests, r.Method+" "+r.URL.RequestURI())
	a.mu.Unlock()
	metaPath := a.metaPath
	if metaPath == "" {
		metaPath = "/.well-known/oauth-authorization-server" + a.prefix
	}
	switch r.URL.Path {
	case metaPath:
		if a.invalid {
			_, _ = io.WriteString(w, `{"issuer":`)
			return
		}
		if a.huge {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"issuer":"`+strings.Repeat("x", 1<<20)+`"}`)
			return
		}
		issuer := a.issuer
		if issuer == "" {
			issuer = a.Issuer()
		}
		m := map[string]any{
			"issuer":                   issuer,
			"authorization_endpoint":   a.Issuer() + "/authorize",
			"token_endpoint":           a.Issuer() + "/token",
			"registration_endpoint":    a.Issuer() + "/register",
			"response_types_supported": []string{"code"},
			"authorization_response_iss_parameter_supported": !a.noIss,
		}
		if !a.noPKCE {
			m["code_challenge_methods_supported"] = []string{"S256"}
		}
		if a.dpop {
			m["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		if a.authMeths != nil {
			m["token_endpoint_auth_methods_supported"] = a.authMeths
		}
		writeJSON(w, http.StatusOK, m)
	case a.prefix + "/authorize":
		q := r.URL.Query()
		a.mu.Lock()
		a.authReq = append(a.authReq, q)
		a.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		bq := url.Values{"code": {"the-code"}, "state": {q.Get("state")}}
		if a.badState {
			bq.Set("state", "forged")
		}
		switch {
		case a.iss != "":
			bq.Set("iss", a.iss)
		case !a.noIss:
			bq.Set("iss", a.Issuer())
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case a.prefix + "/token":
		_ = r.ParseForm()
		a.mu.Lock()
		a.tokenReq = append(a.tokenReq, r.PostForm)
		a.tokenHdr = append(a.tokenHdr, r.Header.Clone())
		n := len(a.tokenReq)
		if a.refuse != "" {
			a.mu.Unlock()
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": a.refuse})
			return
		}
		scope := ""
		if len(a.authReq) > 0 {
			scope = a.authReq[len(a.authReq)-1].Get("scope")
		}
		if a.deny != "" {
			scope = strings.Join(slices.DeleteFunc(strings.Fields(scope), func(s string) bool { return s == a.deny }), " ")
		}
		id := strings.TrimPrefix(a.srv.URL, "http://127.0.0.1:")
		tok := fmt.Sprintf("tok-%s-%d", id, n)
		if a.scopes == nil {
			a.scopes = map[string]string{}
		}
		a.scopes[tok] = scope
		a.mu.Unlock()
		tokenType := "Bearer"
		if a.dpop && r.Header.Get("DPoP") != "" {
			tokenType = "DPoP"
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token":  tok,
			"token_type":    tokenType,
			"expires_in":    3600,
			"refresh_token": fmt.Sprintf("refresh-%s-%d", id, n),
			"scope":         scope,
		})
	case a.prefix + "/register":
		var body map[string]any
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body)
		writeJSON(w, http.StatusCreated, map[string]any{
			"client_id": "registered", "client_secret": "s3cret",
			"token_endpoint_auth_method": body["token_endpoint_auth_method"],
		})
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// fakeRS is a resource server at /mcp that wants a token from its AS.
type fakeRS struct {
	srv       *httptest.Server
	as        *fakeAS
	resource  string   // PRM resource; default the server's /mcp URL
	inHeader  bool     // resource_metadata in the challenge
	prmURL    string   // the resource_metadata named ("" = its own)
	needScope string   // tokens must carry this scope ("" = any)
	extraAS   []string // listed in the PRM before the AS

	mu       sync.Mutex
	requests []string
	auths    []string
	proofs   []string
	rejected map[string]bool // tokens refused from now on
}

// reject makes the server refuse tok (expired, or from an old AS).
func (s *fakeRS) reject(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejected == nil {
		s.rejected = map[string]bool{}
	}
	s.rejected[tok] = true
}

func newFakeRS(t *testing.T, as *fakeAS) *fakeRS {
	s := &fakeRS{as: as, inHeader: true}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *fakeRS) URL() string { return s.srv.URL + "/mcp" }

func (s *fakeRS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
	s.auths = append(s.auths, r.Header.Get("Authorization"))
	s.proofs = append(s.proofs, r.Header.Get("DPoP"))
	as := s.as
	_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	rejected := s.rejected[tok]
	s.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		res := s.resource
		if res == "" {
			res = s.URL()
		}
		writeJSON(w, http.StatusOK, map[string]any{"resource": res, "authorization_servers": append(append([]string(nil), s.extraAS...), as.Issuer())})
	case "/mcp":
		auth := r.Header.Get("Authorization")
		prmURL := s.prmURL
		if prmURL == "" {
			prmURL = s.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		}
		prm := `resource_metadata="` + prmURL + `"`
		if !s.inHeader {
			prm = `realm="mcp"`
		}
		if !strings.HasPrefix(auth, "Bearer tok-") && !strings.HasPrefix(auth, "DPoP tok-") || rejected {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", `+prm)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if s.needScope != "" {
			as.mu.Lock()
			granted := strings.Contains(" "+as.scopes[tok]+" ", " "+s.needScope+" ")
			as.mu.Unlock()
			if !granted {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+s.needScope+`", `+prm)
				w.WriteHeader(http.StatusForbidden)
				return
			}
		}
		_, _ = io.WriteString(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

// send does what transport/mcphttp does with an Authorizer: decorate,
// send, and on a 401 or 403 ask and retry (at most twice).
func send(t *testing.T, c *Client, method, u string) (*http.Response, error) {
	t.Helper()
	for try := 0; ; try++ {
		req, err := http.NewRequest(method, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			return nil, err
		}
		if err := c.Authorize(req); err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, nil
		}
		if try == 2 {
			resp.Body.Close()
			return nil, fmt.Errorf("refused: %s", resp.Status)
		}
		retry, err := c.Challenged(req.Context(), req, resp)
		if err != nil || !retry {
			resp.Body.Close()
			if err == nil {
				err = fmt.Errorf("refused: %s", resp.Status)
			}
			return nil, err
		}
		resp.Body.Close()
	}
}

// mustNew is New, failing the test on error.
func mustNew(t *testing.T, serverURL string, cfg *Config) *Client {
	t.Helper()
	c, err := New(serverURL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sendOK is send, failing the test on error; the response is discarded.
func sendOK(t *testing.T, c *Client, method, u string) {
	t.Helper()
	resp, err := send(t, c, method, u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
