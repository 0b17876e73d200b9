package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
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
		{"wrong typ", dpopHeader(tok, typedProof(t, "JWT", htu, tok)), "typ"},
		{"no typ", dpopHeader(tok, typedProof(t, "", htu, tok)), "typ"},
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

// typedProof is a proof, otherwise good, with the given typ header ("":
// none) and a key of its own.
func typedProof(t *testing.T, typ, htu, tok string) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	opts := &jose.SignerOptions{EmbedJWK: true}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, opts)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(tok))
	p, err := jwt.Signed(signer).Claims(map[string]any{"jti": rand.Text(), "htm": "POST", "htu": htu,
		"iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return p
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
	use := func(id string, until time.Time) (bool, error) { return c.Use(ctx, "k", id, until) }
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

// TestMemoryReplayCacheShare: a key that fills the cache is refused once
// it holds its share, while other keys are still served, and the cache
// never holds more than twice its size.
func TestMemoryReplayCacheShare(t *testing.T) {
	c := auth.NewMemoryReplayCache(10)
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	for i := range 10 {
		if ok, err := c.Use(ctx, "flood", strconv.Itoa(i), until); !ok || err != nil {
			t.Fatalf("proof %d of a key in a cache with room: %v %v", i, ok, err)
		}
	}
	if _, err := c.Use(ctx, "flood", "10", until); !errors.Is(err, auth.ErrReplayCacheFull) {
		t.Fatalf("the key that filled the cache: %v, want ErrReplayCacheFull", err)
	}
	if ok, err := c.Use(ctx, "flood", "3", until); ok || err != nil {
		t.Fatalf("a replay of the flooding key: %v %v, want a replay", ok, err)
	}
	for i := range 5 { // its share: 10 / 2 keys
		if ok, err := c.Use(ctx, "victim", strconv.Itoa(i), until); !ok || err != nil {
			t.Fatalf("proof %d of another key in a cache one key filled: %v %v", i, ok, err)
		}
	}
	if _, err := c.Use(ctx, "victim", "5", until); !errors.Is(err, auth.ErrReplayCacheFull) {
		t.Fatalf("a key beyond its share of a full cache: %v, want ErrReplayCacheFull", err)
	}
	admitted := 15
	for i := range 20 { // new keys fit until the cache holds twice its size
		if ok, _ := c.Use(ctx, "key-"+strconv.Itoa(i), "0", until); ok {
			admitted++
		}
	}
	if admitted != 20 {
		t.Fatalf("%d entries held, want 20 (twice the size)", admitted)
	}
}

// countingCache is a ReplayCache that counts what it is asked.
type countingCache struct {
	auth.ReplayCache
	uses atomic.Int32
}

func (c *countingCache) Use(ctx context.Context, jkt, id string, until time.Time) (bool, error) {
	c.uses.Add(1)
	return c.ReplayCache.Use(ctx, jkt, id, until)
}

// TestDPoPReplayCheckLast: a proof refused for any reason (its key is not
// the token's, a nonce is missing, its method is wrong) takes no room in
// the replay cache; only accepted proofs do.
func TestDPoPReplayCheckLast(t *testing.T) {
	cache := &countingCache{ReplayCache: auth.NewMemoryReplayCache(0)}
	nonce := auth.NewRotatingNonce(time.Hour)
	e := newEnv(t, func(o *auth.Options) { o.DPoP = &auth.DPoPOptions{ReplayCache: cache, Nonce: nonce} })
	key, _ := authtest.NewDPoPKey()
	foreign, _ := authtest.NewDPoPKey()
	tok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: key.JKT()})
	proof := func(k *authtest.DPoPKey, c authtest.ProofClaims) string {
		t.Helper()
		if c.HTM == "" {
			c.HTM = "POST"
		}
		c.HTU = e.resource
		p, err := k.ProofWith(c, tok)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	given := nonce.Current()
	for name, p := range map[string]string{
		"a foreign key":  proof(foreign, authtest.ProofClaims{Nonce: given}),
		"no nonce":       proof(key, authtest.ProofClaims{}),
		"a wrong method": proof(key, authtest.ProofClaims{HTM: "GET", Nonce: given}),
	} {
		if r := e.do("POST", "/mcp", dpopHeader(tok, p), listBody); r.status != 401 {
			t.Errorf("%s: %d, want 401", name, r.status)
		}
	}
	if n := cache.uses.Load(); n != 0 {
		t.Fatalf("refused proofs reached the replay cache %d times", n)
	}
	good := proof(key, authtest.ProofClaims{Nonce: given})
	if r := e.do("POST", "/mcp", dpopHeader(tok, good), listBody); r.status != 200 {
		t.Fatalf("a good proof: %d %s", r.status, r.body)
	}
	if r := e.do("POST", "/mcp", dpopHeader(tok, good), listBody); r.status != 401 || !strings.Contains(r.body, "already used") {
		t.Fatalf("its replay: %d %s", r.status, r.body)
	}
}

// TestDPoPFloodLocksOutOnlyItself: a client that fills the replay cache
// with proofs of its own key is refused, while another client's proofs
// are still accepted.
func TestDPoPFloodLocksOutOnlyItself(t *testing.T) {
	e := newEnv(t, func(o *auth.Options) { o.DPoP = &auth.DPoPOptions{ReplayCache: auth.NewMemoryReplayCache(20)} })
	flooder, _ := authtest.NewDPoPKey()
	victim, _ := authtest.NewDPoPKey()
	ftok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: flooder.JKT()})
	vtok := e.mint(authtest.Token{Scopes: []string{"mcp:read"}, JKT: victim.JKT()})
	send := func(k *authtest.DPoPKey, tok string) int {
		t.Helper()
		p, err := k.Proof("POST", e.resource, tok)
		if err != nil {
			t.Fatal(err)
		}
		return e.do("POST", "/mcp", dpopHeader(tok, p), listBody).status
	}
	for i := range 20 {
		if s := send(flooder, ftok); s != 200 {
			t.Fatalf("flooding proof %d: %d", i, s)
		}
	}
	if s := send(flooder, ftok); s != 503 {
		t.Errorf("the flooder beyond the cache: %d, want 503", s)
	}
	for i := range 3 {
		if s := send(victim, vtok); s != 200 {
			t.Fatalf("the victim's proof %d after the flood: %d, want 200", i, s)
		}
	}
}
