package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/gomcp/sdk/auth"
)

const (
	testIssuer   = "https://as.example"
	testAudience = "https://r.example/mcp"
)

// signingKey is an ES256 key of a test authorization server, named kid.
type signingKey struct {
	kid  string
	priv *ecdsa.PrivateKey
}

func newSigningKey(t *testing.T, kid string) signingKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid, k}
}

func (k signingKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"}
}

// mint signs a valid access token for testAudience with k, with extra
// protected headers.
func (k signingKey) mint(t *testing.T, headers map[jose.HeaderKey]any) string {
	t.Helper()
	return k.mintClaims(t, headers, validClaims())
}

// validClaims are the claims of a valid token for testAudience.
func validClaims() map[string]any {
	return map[string]any{"iss": testIssuer, "aud": testAudience, "sub": "alice", "exp": time.Now().Add(24 * time.Hour).Unix()}
}

// mintClaims signs claims with k, with extra protected headers.
func (k signingKey) mintClaims(t *testing.T, headers map[jose.HeaderKey]any, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithHeader("kid", k.kid)
	for h, v := range headers {
		opts = opts.WithHeader(h, v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// jwksServer publishes a key set the test changes, counting fetches; while
// gate is not nil, a fetch announces itself on entered and waits for gate
// to close.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int32
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	entered chan struct{}
	gate    chan struct{}
}

func newJWKSServer(t *testing.T, keys ...signingKey) *jwksServer {
	s := &jwksServer{}
	s.publish(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		set, entered, gate := jose.JSONWebKeySet{Keys: s.keys}, s.entered, s.gate
		s.mu.Unlock()
		if gate != nil {
			entered <- struct{}{}
			<-gate
		}
		json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(s.Close)
	return s
}

// publish replaces the key set served.
func (s *jwksServer) publish(keys ...signingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = nil
	for _, k := range keys {
		s.keys = append(s.keys, k.public())
	}
}

// hold makes the next fetches wait for the gate returned.
func (s *jwksServer) hold() (entered <-chan struct{}, gate chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entered, s.gate = make(chan struct{}, 8), make(chan struct{})
	return s.entered, s.gate
}

// clock is a settable time for verifiers, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func newTestVerifier(t *testing.T, jwks *jwksServer, mutate func(*auth.JWTOptions)) *auth.JWTVerifier {
	t.Helper()
	opts := auth.JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: jwks.URL}
	if mutate != nil {
		mutate(&opts)
	}
	v, err := auth.NewJWTVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestJWKSRefreshSurvivesHangUp: a client that sends a token with an
// unknown key id and hangs up while the key set is being fetched does not
// abort the fetch, so a token signed with the authorization server's new
// key verifies at once.
func TestJWKSRefreshSurvivesHangUp(t *testing.T) {
	old, rotated := newSigningKey(t, "old"), newSigningKey(t, "new")
	jwks := newJWKSServer(t, old)
	clock := newClock()
	v := newTestVerifier(t, jwks, func(o *auth.JWTOptions) { o.Now = clock.now })
	ctx := context.Background()
	if _, err := v.Verify(ctx, old.mint(t, nil)); err != nil {
		t.Fatal(err)
	}
	jwks.publish(rotated)
	clock.advance(time.Minute) // past MinRefreshInterval: an unknown kid makes a fetch
	entered, gate := jwks.hold()
	attacker, hangUp := context.WithCancel(ctx)
	errs := make(chan error, 1)
	go func() {
		_, err := v.Verify(attacker, newSigningKey(t, "forged").mint(t, nil))
		errs <- err
	}()
	<-entered
	hangUp()
	err := <-errs
	close(gate)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("the client that hung up: %v, want context.Canceled", err)
	}
	info, err := v.Verify(ctx, rotated.mint(t, nil))
	if err != nil || info.Subject != "alice" {
		t.Fatalf("a token of the rotated key after a client hung up: %+v, %v", info, err)
	}
	if n := jwks.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

// TestJWKSRemovedKey: each refresh replaces the key set, so a key the
// authorization server removed stops verifying, whether the refresh comes
// from the refresh interval or from a token of a new key.
func TestJWKSRemovedKey(t *testing.T) {
	a, b, c := newSigningKey(t, "a"), newSigningKey(t, "b"), newSigningKey(t, "c")
	jwks := newJWKSServer(t, a, b)
	clock := newClock()
	v := newTestVerifier(t, jwks, func(o *auth.JWTOptions) { o.Now = clock.now })
	ctx := context.Background()
	tokA, tokB, tokC := a.mint(t, nil), b.mint(t, nil), c.mint(t, nil)
	for _, tok := range []string{tokA, tokB} {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	jwks.publish(b)
	clock.advance(time.Hour) // the refresh interval
	if _, err := v.Verify(ctx, tokA); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("a removed key after the refresh interval: %v, want ErrInvalidToken", err)
	}
	if _, err := v.Verify(ctx, tokB); err != nil {
		t.Fatalf("the key kept: %v", err)
	}
	jwks.publish(c) // b rotated out, c in
	clock.advance(time.Minute)
	if _, err := v.Verify(ctx, tokC); err != nil {
		t.Fatalf("a new key: %v", err)
	}
	if _, err := v.Verify(ctx, tokB); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("a key removed when a new one appeared: %v, want ErrInvalidToken", err)
	}
}

// TestJWKSUnknownKids: 50 tokens naming 50 unknown keys, at once, make at
// most one fetch.
func TestJWKSUnknownKids(t *testing.T) {
	good := newSigningKey(t, "good")
	jwks := newJWKSServer(t, good)
	clock := newClock()
	v := newTestVerifier(t, jwks, func(o *auth.JWTOptions) { o.Now = clock.now })
	ctx := context.Background()
	if _, err := v.Verify(ctx, good.mint(t, nil)); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Minute) // past MinRefreshInterval: an unknown kid may make one fetch
	var wg sync.WaitGroup
	for i := range 50 {
		tok := newSigningKey(t, "kid-"+strconv.Itoa(i)).mint(t, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("a token of an unknown key: %v, want ErrInvalidToken", err)
			}
		}()
	}
	wg.Wait()
	if n := jwks.fetches.Load(); n > 2 {
		t.Errorf("%d fetches for 50 unknown key ids, want at most 2 (the first and one refetch)", n)
	}
}

// TestJWTForgeries: tokens that are not signed by a key of the key set are
// refused, whatever their header claims: no algorithm, HMAC with the
// public key as the secret, a key of their own embedded (jwk) or linked
// (jku, which is never fetched).
func TestJWTForgeries(t *testing.T) {
	real := newSigningKey(t, "real")
	jwks := newJWKSServer(t, real)
	v := newTestVerifier(t, jwks, nil)
	ctx := context.Background()
	if _, err := v.Verify(ctx, real.mint(t, nil)); err != nil {
		t.Fatal(err)
	}
	attacker := newSigningKey(t, "real") // same kid, another key
	var linked atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		linked.Add(1)
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{attacker.public()}})
	}))
	defer evil.Close()
	der, err := x509.MarshalPKIXPublicKey(&real.priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	jwkJSON, err := json.Marshal(real.public())
	if err != nil {
		t.Fatal(err)
	}
	claims := validClaims()
	hmacWith := func(secret []byte) string {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", "real"))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(signer).Claims(claims).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	pub := attacker.public()
	tests := map[string]string{
		"HS256 with the public key (DER)":  hmacWith(der),
		"HS256 with the public key (PEM)":  hmacWith(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})),
		"HS256 with the public key (JWK)":  hmacWith(jwkJSON),
		"embedded jwk of the attacker":     attacker.mint(t, map[jose.HeaderKey]any{"jwk": &pub}),
		"jku naming the attacker's keys":   attacker.mint(t, map[jose.HeaderKey]any{"jku": evil.URL}),
		"the attacker's key, the same kid": attacker.mint(t, nil),
	}
	for name, tok := range tests {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if n := linked.Load(); n != 0 {
		t.Errorf("the jku URL was fetched %d times", n)
	}
}

// TestJWTLifetime: a token signed by a good key is refused without an
// expiry, or when it is not valid yet or was issued in the future (beyond
// the leeway).
func TestJWTLifetime(t *testing.T) {
	k := newSigningKey(t, "k")
	v := newTestVerifier(t, newJWKSServer(t, k), nil)
	with := func(name string, value any) map[string]any {
		c := validClaims()
		if value == nil {
			delete(c, name)
		} else {
			c[name] = value
		}
		return c
	}
	later := time.Now().Add(time.Hour).Unix()
	for name, claims := range map[string]map[string]any{
		"no exp":           with("exp", nil),
		"expired":          with("exp", time.Now().Add(-time.Hour).Unix()),
		"nbf in an hour":   with("nbf", later),
		"iat in an hour":   with("iat", later),
		"no aud":           with("aud", nil),
		"no iss":           with("iss", nil),
		"another audience": with("aud", "https://other.example/mcp"),
	} {
		if _, err := v.Verify(context.Background(), k.mintClaims(t, nil, claims)); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if _, err := v.Verify(context.Background(), k.mintClaims(t, nil, with("nbf", time.Now().Add(30*time.Second).Unix()))); err != nil {
		t.Errorf("nbf within the leeway: %v", err)
	}
}
