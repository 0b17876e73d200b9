package authe2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/oauth"
)

// TestChallengesParse checks that every challenge auth writes is read
// back by oauth as meant: the two packages build and parse
// WWW-Authenticate separately, so they must agree on the wire.
func TestChallengesParse(t *testing.T) {
	const nasty = "bad \"token\" \\ with\nnewline and é"
	verifier := auth.VerifierFunc(func(_ context.Context, tok string) (*auth.TokenInfo, error) {
		if tok == "good" {
			return &auth.TokenInfo{Subject: "s", Scopes: []string{"read"}}, nil
		}
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, nasty)
	})
	for _, dpop := range []struct {
		name    string
		opts    *auth.DPoPOptions
		schemes []string // the challenges, in order
	}{
		{"bearer", nil, []string{"Bearer"}},
		{"dpop allowed", &auth.DPoPOptions{}, []string{"Bearer", "DPoP"}},
		{"dpop required", &auth.DPoPOptions{Required: true}, []string{"DPoP"}},
	} {
		rs, err := auth.New(auth.Options{Resource: "http://127.0.0.1:1/mcp", AuthorizationServers: []string{"http://127.0.0.1:2"},
			Verifier: verifier, Scopes: []string{"read"}, ScopesSupported: []string{"read"},
			ToolScopes: map[string][]string{"wipe": {"admin", "write"}}, DPoP: dpop.opts})
		if err != nil {
			t.Fatal(err)
		}
		h := rs.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		for _, tc := range []struct {
			name, authz, body string
			status            int
			errCode, scope    string
		}{
			{"no token", "", "", 401, "", "read"},
			{"bad token", "Bearer nope", "", 401, "invalid_token", "read"},
			{"insufficient scope", "Bearer good", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe"}}`, 403, "insufficient_scope", "read admin write"},
		} {
			if dpop.opts != nil && dpop.opts.Required && tc.authz != "" {
				continue // a bearer token is refused before the verifier
			}
			t.Run(dpop.name+"/"+tc.name, func(t *testing.T) {
				req := httptest.NewRequest("POST", "http://127.0.0.1:1/mcp", strings.NewReader(tc.body))
				if tc.authz != "" {
					req.Header.Set("Authorization", tc.authz)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != tc.status {
					t.Fatalf("status %d, want %d", w.Code, tc.status)
				}
				cs, err := oauth.ParseWWWAuthenticate(w.Result().Header.Values("WWW-Authenticate"))
				if err != nil {
					t.Fatalf("%q: %v", w.Result().Header.Values("WWW-Authenticate"), err)
				}
				if len(cs) != len(dpop.schemes) {
					t.Fatalf("challenges %+v, want %v", cs, dpop.schemes)
				}
				for i, c := range cs {
					if c.Scheme != dpop.schemes[i] {
						t.Errorf("challenge %d: scheme %q, want %q", i, c.Scheme, dpop.schemes[i])
					}
					if c.Params["resource_metadata"] != rs.MetadataURL() || c.Params["error"] != tc.errCode ||
						c.Params["scope"] != tc.scope {
						t.Errorf("challenge %d: params %v", i, c.Params)
					}
					if tc.errCode == "invalid_token" && !strings.Contains(c.Params["error_description"], "bad 'token' ' with") {
						t.Errorf("error_description %q", c.Params["error_description"])
					}
					if c.Scheme == "DPoP" && c.Params["algs"] == "" {
						t.Errorf("DPoP challenge without algs: %v", c.Params)
					}
				}
			})
		}
	}
}

// TestScopeTokens: a scope that would not survive the trip through a
// challenge (a space splits it) is refused when the server is made.
func TestScopeTokens(t *testing.T) {
	v := auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) { return nil, auth.ErrInvalidToken })
	for _, tc := range []struct {
		name string
		opts auth.Options
	}{
		{"Scopes", auth.Options{Scopes: []string{"a b"}}},
		{"ScopesSupported", auth.Options{ScopesSupported: []string{""}}},
		{"MethodScopes", auth.Options{MethodScopes: map[string][]string{"tools/call": {`q"uote`}}}},
		{"ToolScopes", auth.Options{ToolScopes: map[string][]string{"t": {"é"}}}},
	} {
		tc.opts.Resource, tc.opts.AuthorizationServers, tc.opts.Verifier = "http://127.0.0.1:1/mcp", []string{"http://127.0.0.1:2"}, v
		if _, err := auth.New(tc.opts); err == nil || !strings.Contains(err.Error(), "scope token") {
			t.Errorf("%s: %v, want a refusal", tc.name, err)
		}
	}
}
