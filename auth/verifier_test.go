package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"strings"

	"errors"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/auth/authtest"
)

func TestIntrospection(t *testing.T) {
	as, err := authtest.Start(&authtest.Options{Opaque: true, Clients: []authtest.Client{{ID: "rs", Secret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	const resource = "https://mcp.example.com/mcp"
	v, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
		URL: as.IntrospectionURL(), ClientID: "rs", ClientSecret: "s3cret", Issuer: as.Issuer, Audience: resource,
	})
	if err != nil {
		t.Fatal(err)
	}
	mint := func(tok authtest.Token) string {
		s, err := as.Mint(tok)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := mint(authtest.Token{Subject: "alice", Audience: []string{resource}, Scopes: []string{"a", "b"}, JKT: "k"})
	revoked := mint(authtest.Token{Subject: "alice", Audience: []string{resource}})
	as.Revoke(revoked)
	ctx := context.Background()
	info, err := v.Verify(ctx, good)
	if err != nil || info.Subject != "alice" || len(info.Scopes) != 2 || info.JKT != "k" || info.Issuer != as.Issuer {
		t.Fatalf("a good token: %+v, %v", info, err)
	}
	for name, tok := range map[string]string{
		"revoked":        revoked,
		"unknown":        "nope",
		"wrong audience": mint(authtest.Token{Audience: []string{"https://other/mcp"}}),
		"expired":        mint(authtest.Token{Audience: []string{resource}, Expiry: time.Now().Add(-time.Hour)}),
		"wrong issuer":   mint(authtest.Token{Audience: []string{resource}, Issuer: "https://evil"}),
	} {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	bad, _ := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{URL: as.IntrospectionURL(), ClientID: "rs", ClientSecret: "wrong", Audience: resource})
	if _, err := bad.Verify(ctx, good); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a refused resource server: %v, want an outage error", err)
	}
}

func TestJWKSCache(t *testing.T) {
	as, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	var fetches atomic.Int32
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		as.ServeHTTP(w, httptest.NewRequest("GET", "/jwks", nil).WithContext(r.Context()))
	}))
	defer jwks.Close()
	now := time.Now()
	clock := func() time.Time { return now }
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: "https://r/mcp", JWKSURL: jwks.URL, Now: clock, RefreshInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := as.Mint(authtest.Token{Subject: "a", Audience: []string{"https://r/mcp"}, Expiry: now.Add(10 * time.Hour)})
	for range 5 {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 5 verifications, want 1", n)
	}
	// A token from an unknown key makes one refetch, not one per token.
	other, _ := authtest.Start(nil)
	defer other.Close()
	foreign, _ := other.Mint(authtest.Token{Subject: "a", Issuer: as.Issuer, Audience: []string{"https://r/mcp"}, Expiry: now.Add(10 * time.Hour)})
	now = now.Add(time.Minute)
	for range 5 {
		if _, err := v.Verify(context.Background(), foreign); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("a token of an unknown key: %v", err)
		}
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("%d fetches after unknown keys, want 2", n)
	}
	now = now.Add(2 * time.Hour) // stale: refreshed
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	if n := fetches.Load(); n != 3 {
		t.Errorf("%d fetches after the refresh interval, want 3", n)
	}
	jwks.Close() // an outage keeps the old keys
	now = now.Add(2 * time.Hour)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Errorf("JWKS down, old keys: %v", err)
	}
	cold, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: "https://r/mcp", JWKSURL: jwks.URL})
	if _, err := cold.Verify(context.Background(), tok); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("JWKS down, no keys: %v, want an outage error", err)
	}
}

// TestJWTWithoutKid accepts a token naming no key when the issuer has one.
func TestJWTWithoutKid(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, nil)
	tok, _ := jwt.Signed(signer).Claims(map[string]any{"iss": "https://as", "aud": "https://r/mcp", "sub": "a", "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: "https://as", Audience: "https://r/mcp", JWKSURL: jwks.URL})
	if info, err := v.Verify(context.Background(), tok); err != nil || info.Subject != "a" {
		t.Fatalf("%+v %v", info, err)
	}
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(strings.Repeat("k", 32))}, nil)
	forged, _ := jwt.Signed(hs).Claims(map[string]any{"iss": "https://as", "aud": "https://r/mcp", "sub": "a", "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	if _, err := v.Verify(context.Background(), forged); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("an HMAC token: %v", err)
	}
	none := "eyJhbGciOiJub25lIn0." + strings.Split(tok, ".")[1] + "."
	if _, err := v.Verify(context.Background(), none); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("an unsigned token: %v", err)
	}
}

// TestJWKSConcurrentColdStart makes concurrent verifications on a cold
// cache share one fetch.
func TestJWKSConcurrentColdStart(t *testing.T) {
	as, err := authtest.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	var fetches atomic.Int32
	release := make(chan struct{})
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		<-release
		as.ServeHTTP(w, httptest.NewRequest("GET", "/jwks", nil))
	}))
	defer jwks.Close()
	v, _ := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.Issuer, Audience: "https://r/mcp", JWKSURL: jwks.URL})
	tok, _ := as.Mint(authtest.Token{Subject: "a", Audience: []string{"https://r/mcp"}})
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			_, err := v.Verify(context.Background(), tok)
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range 20 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 20 concurrent verifications, want 1", n)
	}
}

// TestIntrospectionRedirect: an introspection endpoint that redirects to
// another origin (here another port of the same host) does not get the
// client secret and the token sent there; the verification fails as an
// outage, not as a refused token.
func TestIntrospectionRedirect(t *testing.T) {
	var leaked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
	}))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/introspect", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	for name, hc := range map[string]*http.Client{"default client": nil, "caller's client": {}} {
		v, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
			URL: redirect.URL + "/introspect", ClientID: "rs", ClientSecret: "s3cret",
			Audience: "https://mcp.example.com/mcp", HTTPClient: hc,
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), "tok")
		if err == nil || errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "another origin") {
			t.Errorf("%s: %v, want a refused redirect", name, err)
		}
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the other origin got %d introspection requests", n)
	}
}
