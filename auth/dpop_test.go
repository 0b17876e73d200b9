package auth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
)

func dpopHeader(tok, proof string) http.Header {
	return http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {proof}}
}

func TestDPoP(t *testing.T) {
	e := newEnv(t, nil)
	key, err := authtest.NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	other, err := authtest.NewDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	tok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: key.JKT()})
	unbound := e.mint(authtest.Token{Scopes: []string{"mcp:read"}})
	htu := e.resource
	proof := func(c authtest.ProofClaims, tok string) string {
		t.Helper()
		if c.HTM == "" {
			c.HTM = "POST"
		}
		if c.HTU == "" {
			c.HTU = htu
		}
		p, err := key.ProofWith(c, tok)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	replayed := proof(authtest.ProofClaims{}, tok)
	if r := e.do("POST", "/mcp", dpopHeader(tok, replayed), listBody); r.status != 200 {
		t.Fatalf("a good proof: %d %s", r.status, r.body)
	}
	otherProof, _ := other.Proof("POST", htu, tok)
	hmac, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(strings.Repeat("k", 32))},
		(&jose.SignerOptions{}).WithType("dpop+jwt"))
	hmacProof, _ := jwt.Signed(hmac).Claims(map[string]any{"jti": "x", "htm": "POST", "htu": htu, "iat": time.Now().Unix()}).Serialize()
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"replayed proof", dpopHeader(tok, replayed), "already used"},
		{"token bound to another key", dpopHeader(tok, otherProof), "bound to another key"},
		{"wrong method", dpopHeader(tok, proof(authtest.ProofClaims{HTM: "GET"}, tok)), "htm"},
		{"wrong URI", dpopHeader(tok, proof(authtest.ProofClaims{HTU: "http://evil.example/mcp"}, tok)), "htu"},
		{"old proof", dpopHeader(tok, proof(authtest.ProofClaims{IAT: time.Now().Add(-time.Hour).Unix()}, tok)), "iat"},
		{"future proof", dpopHeader(tok, proof(authtest.ProofClaims{IAT: time.Now().Add(time.Hour).Unix()}, tok)), "iat"},
		{"wrong ath", dpopHeader(tok, proof(authtest.ProofClaims{ATH: "AAAA"}, tok)), "ath"},
		{"no ath", dpopHeader(tok, proof(authtest.ProofClaims{}, "")), "ath"},
		{"symmetric key", dpopHeader(tok, hmacProof), "invalid_dpop_proof"},
		{"not a JWT", dpopHeader(tok, "garbage"), "invalid_dpop_proof"},
		{"no proof", http.Header{"Authorization": {"DPoP " + tok}}, "exactly one DPoP header"},
		{"two proofs", http.Header{"Authorization": {"DPoP " + tok}, "Dpop": {replayed, replayed}}, "exactly one DPoP header"},
		{"unbound token with DPoP", dpopHeader(unbound, proof(authtest.ProofClaims{}, unbound)), "not bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/mcp", tt.header, listBody)
			if r.status != 401 {
				t.Fatalf("status %d, want 401 (%s)", r.status, r.body)
			}
			challenges := r.header.Values("WWW-Authenticate")
			if len(challenges) != 2 || !strings.HasPrefix(challenges[0], "DPoP ") || !strings.Contains(challenges[0], tt.want) {
				t.Errorf("WWW-Authenticate %q, want a DPoP challenge first, with %q", challenges, tt.want)
			}
		})
	}
	// A fresh proof for the same key and token passes again.
	if r := e.do("POST", "/mcp", dpopHeader(tok, proof(authtest.ProofClaims{}, tok)), listBody); r.status != 200 {
		t.Fatalf("a second fresh proof: %d %s", r.status, r.body)
	}
}

func TestDPoPRequired(t *testing.T) {
	e := newEnv(t, func(o *auth.Options) { o.DPoP = &auth.DPoPOptions{Required: true} })
	r := e.do("POST", "/mcp", bearer(e.mint(authtest.Token{Scopes: []string{"mcp:read"}})), listBody)
	if c := r.header.Values("WWW-Authenticate"); r.status != 401 || len(c) != 1 || !strings.HasPrefix(c[0], "DPoP ") {
		t.Errorf("a bearer token where DPoP is required: %d %q", r.status, c)
	}
}

func TestDPoPDisabled(t *testing.T) {
	e := newEnv(t, func(o *auth.Options) { o.DPoP = nil })
	key, _ := authtest.NewDPoPKey()
	tok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: key.JKT()})
	p, _ := key.Proof("POST", e.resource, tok)
	r := e.do("POST", "/mcp", dpopHeader(tok, p), listBody)
	if c := r.header.Values("WWW-Authenticate"); r.status != 401 || len(c) != 1 || !strings.HasPrefix(c[0], "Bearer ") {
		t.Errorf("DPoP to a server without it: %d %q", r.status, c)
	}
}

func TestMemoryReplayCache(t *testing.T) {
	c := auth.NewMemoryReplayCache(2)
	ctx := context.Background()
	now := time.Now()
	use := func(id string, until time.Time) (bool, error) { return c.Use(ctx, id, until) }
	if ok, err := use("a", now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("first a: %v %v", ok, err)
	}
	if ok, err := use("a", now.Add(time.Hour)); ok || err != nil {
		t.Fatalf("second a: %v %v, want a replay", ok, err)
	}
	if ok, err := use("b", now.Add(-time.Second)); !ok || err != nil { // expires at once
		t.Fatalf("b: %v %v", ok, err)
	}
	if ok, err := use("c", now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("c after b expired: %v %v", ok, err)
	}
	if _, err := use("d", now.Add(time.Hour)); err != auth.ErrReplayCacheFull {
		t.Fatalf("d in a full cache: %v, want ErrReplayCacheFull", err)
	}
	if ok, _ := use("a", now.Add(time.Hour)); ok {
		t.Fatal("a forgotten when the cache filled up")
	}
}

func TestDPoPNonce(t *testing.T) {
	nonce := auth.NewRotatingNonce(time.Hour)
	e := newEnv(t, func(o *auth.Options) { o.DPoP = &auth.DPoPOptions{Nonce: nonce} })
	key, _ := authtest.NewDPoPKey()
	tok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: key.JKT()})
	p, _ := key.Proof("POST", e.resource, tok)
	r := e.do("POST", "/mcp", dpopHeader(tok, p), listBody)
	given := r.header.Get("DPoP-Nonce")
	if r.status != 401 || given == "" || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), `DPoP algs=`) ||
		!strings.Contains(r.header.Get("WWW-Authenticate"), `error="use_dpop_nonce"`) {
		t.Fatalf("a proof without a nonce: %d %v", r.status, r.header)
	}
	p, _ = key.ProofWith(authtest.ProofClaims{HTM: "POST", HTU: e.resource, Nonce: "made-up"}, tok)
	if r := e.do("POST", "/mcp", dpopHeader(tok, p), listBody); r.status != 401 {
		t.Fatalf("a made-up nonce: %d", r.status)
	}
	p, _ = key.ProofWith(authtest.ProofClaims{HTM: "POST", HTU: e.resource, Nonce: given}, tok)
	if r := e.do("POST", "/mcp", dpopHeader(tok, p), listBody); r.status != 200 || r.header.Get("DPoP-Nonce") != given {
		t.Fatalf("the server's nonce: %d %v", r.status, r.header)
	}
}
