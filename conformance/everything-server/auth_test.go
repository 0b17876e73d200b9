package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/auth/authtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestProtect checks the -auth-* flags: the JWT and the introspection
// verifiers, the scopes every request needs and those of a tool.
func TestProtect(t *testing.T) {
	as, err := authtest.Start(&authtest.Options{Clients: []authtest.Client{{ID: "rs", Secret: "pw"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	const resource = "http://127.0.0.1:8080/mcp"
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for _, introspect := range []string{"", "rs:pw"} {
		*authIssuer, *authScopes, *authToolScopes, *authIntrospect = as.Issuer, "read", "wipe=admin", introspect
		h, err := protect(ok, addr)
		if err != nil {
			t.Fatal(err)
		}
		mint := func(scopes ...string) string {
			tok, err := as.Mint(authtest.Token{Subject: "a", Audience: []string{resource}, Scopes: scopes})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		for _, tt := range []struct {
			token, tool string
			status      int
		}{
			{"", "echo", 401},
			{mint("read"), "echo", 200},
			{mint("read"), "wipe", 403},
			{mint("read", "admin"), "wipe", 200},
			{mint(), "echo", 403},
		} {
			r := httptest.NewRequest("POST", resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tt.tool+`"}}`))
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Errorf("introspect %q, %s with %d-byte token: %d, want %d", introspect, tt.tool, len(tt.token), w.Code, tt.status)
			}
		}
	}
	// -auth-dpop: a bound token with a proof.
	*authIssuer, *authScopes, *authToolScopes, *authIntrospect, *authDPoP = as.Issuer, "", "", "", true
	defer func() { *authDPoP = false }()
	h, err := protect(ok, addr)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := authtest.NewDPoPKey()
	tok, _ := as.Mint(authtest.Token{Subject: "a", Audience: []string{resource}, JKT: key.JKT()})
	proof, _ := key.Proof("POST", resource, tok)
	r := httptest.NewRequest("POST", resource, strings.NewReader(`{}`))
	r.Header.Set("Authorization", "DPoP "+tok)
	r.Header.Set("DPoP", proof)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("-auth-dpop, a bound token with its proof: %d %v", w.Code, w.Header())
	}

	*authIssuer = as.Issuer + "/nope"
	if _, err := protect(ok, addr); err == nil {
		t.Error("an issuer without metadata was accepted")
	}
	*authIssuer = ""
}
