package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// JWTOptions configures a JWTVerifier.
type JWTOptions struct {
	// Issuer is the authorization server's issuer identifier; a token
	// whose "iss" differs is refused. Required.
	Issuer string
	// Audience is this resource server's identifier (its canonical URI,
	// RFC 8707); a token whose "aud" does not contain it is refused.
	// Required: a token meant for another server must never be accepted.
	Audience string
	// JWKSURL is where the authorization server publishes its keys (its
	// metadata's jwks_uri). Required.
	JWKSURL string
	// HTTPClient fetches the key set. Default: a client whose Timeout is
	// FetchTimeout.
	HTTPClient *http.Client
	// FetchTimeout bounds one fetch of the key set. The fetch runs on a
	// context of its own, not on the request that needed it, so that a
	// client hanging up cannot abort it. Default 10 seconds.
	FetchTimeout time.Duration
	// Algorithms are the signature algorithms accepted. Default: RS256,
	// PS256, ES256, ES384, EdDSA (never "none" nor HMAC).
	Algorithms []jose.SignatureAlgorithm
	// RefreshInterval is how long fetched keys are used before they are
	// fetched again. Each fetch replaces the key set, so a key the
	// authorization server removed stops verifying at the next refresh;
	// while fetches fail, the old keys serve on. Default 1 hour.
	RefreshInterval time.Duration
	// MinRefreshInterval bounds how often a token signed with an unknown
	// key id makes the verifier fetch the key set again (key rotation),
	// and how often a failed fetch is retried, so that forged key ids
	// cannot make it hammer the authorization server: it counts from the
	// end of the last fetch. Concurrent callers share one fetch. Default
	// 30 seconds.
	MinRefreshInterval time.Duration
	// Leeway tolerates clock skew on exp, nbf and iat. Default 1 minute.
	Leeway time.Duration
	// MaxKeySetBytes bounds the key set document. Default 1 MiB.
	MaxKeySetBytes int64
	// Now returns the current time (tests). Default time.Now.
	Now func() time.Time
}

// JWTVerifier verifies JWT access tokens (RFC 9068) signed by an
// authorization server whose keys it fetches from the JWKS URL, caches
// and refreshes. It is safe for concurrent use.
type JWTVerifier struct {
	opts JWTOptions

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetched   time.Time // when keys were fetched
	attempted time.Time // when the last fetch ended, successful or not
	fetching  *keyFetch // the fetch under way, nil when none is
}

// NewJWTVerifier returns a verifier for the tokens of opts.Issuer. It
// fetches keys on first use.
func NewJWTVerifier(opts JWTOptions) (*JWTVerifier, error) {
	if opts.Issuer == "" || opts.Audience == "" || opts.JWKSURL == "" {
		return nil, errors.New("auth: JWTOptions needs Issuer, Audience and JWKSURL")
	}
	if opts.FetchTimeout <= 0 {
		opts.FetchTimeout = 10 * time.Second
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: opts.FetchTimeout}
	}
	if len(opts.Algorithms) == 0 {
		opts.Algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.ES384, jose.EdDSA}
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = time.Hour
	}
	if opts.MinRefreshInterval <= 0 {
		opts.MinRefreshInterval = 30 * time.Second
	}
	if opts.Leeway <= 0 {
		opts.Leeway = time.Minute
	}
	if opts.MaxKeySetBytes <= 0 {
		opts.MaxKeySetBytes = 1 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &JWTVerifier{opts: opts}, nil
}

// jwtClaims are the claims the verifier reads (RFC 9068, RFC 9449).
type jwtClaims struct {
	jwt.Claims
	Scope    string   `json:"scope"`
	Scp      []string `json:"scp"`
	ClientID string   `json:"client_id"`
	Cnf      *struct {
		JKT string `json:"jkt"`
	} `json:"cnf"`
}

// Verify checks the token's signature, issuer, audience and lifetime.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, v.opts.Algorithms)
	if err != nil {
		return nil, invalid("not a signed JWT: " + err.Error())
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("one signature expected")
	}
	if typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string); typ != "" &&
		!strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") && !strings.EqualFold(typ, "JWT") {
		return nil, invalid("token type " + quote(typ) + " is not an access token")
	}
	kid := tok.Headers[0].KeyID
	keys, err := v.keySet(ctx, kid)
	if err != nil {
		return nil, err
	}
	var key any = keys
	if kid == "" { // a server with one key may not name it
		if len(keys.Keys) != 1 {
			return nil, invalid("the token names no key (kid) and the issuer has several")
		}
		key = keys.Keys[0]
	}
	var c jwtClaims
	var all map[string]any
	if err := tok.Claims(key, &c, &all); err != nil {
		return nil, invalid("signature: " + err.Error())
	}
	info := &TokenInfo{
		Subject:  c.Subject,
		ClientID: c.ClientID,
		Issuer:   c.Issuer,
		Audience: c.Audience,
		Scopes:   splitScopes(c.Scope),
		Claims:   all,
	}
	if c.Scope == "" {
		info.Scopes = c.Scp
	}
	if c.Expiry != nil {
		info.Expiry = c.Expiry.Time()
	}
	if c.Cnf != nil {
		info.JKT = c.Cnf.JKT
	}
	var nbf time.Time
	if c.NotBefore != nil {
		nbf = c.NotBefore.Time()
	}
	now := v.opts.Now()
	if err := checkClaims(info, v.opts.Issuer, v.opts.Audience, nbf, now, v.opts.Leeway); err != nil {
		return nil, err
	}
	if c.IssuedAt != nil && now.Add(v.opts.Leeway).Before(c.IssuedAt.Time()) {
		return nil, invalid("the token was issued in the future")
	}
	return info, nil
}

// keySet returns the cached keys, fetching them when they are stale, or
// when kid is unknown and the last attempt is old enough. The fetch is
// detached from ctx and shared: every caller that needs it waits for the
// same one, and a caller giving up (ctx done) neither cancels it nor
// makes it count as a failed attempt for the others.
func (v *JWTVerifier) keySet(ctx context.Context, kid string) (*jose.JSONWebKeySet, error) {
	v.mu.Lock()
	if !v.needsFetch(kid) {
		keys := v.keys
		v.mu.Unlock()
		return keys, nil
	}
	f := v.fetching
	if f == nil {
		f = &keyFetch{done: make(chan struct{})}
		v.fetching = f
		go v.refresh(context.WithoutCancel(ctx), f)
	}
	v.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.keys == nil {
		return nil, f.err
	}
	return f.keys, nil // on a failed refresh, the old keys serve on
}

// needsFetch reports, with mu held, whether a caller needing the key kid
// must wait for a fetch: there are no keys yet, or they are stale or lack
// kid and either a fetch is under way or the last one ended at least
// MinRefreshInterval ago.
func (v *JWTVerifier) needsFetch(kid string) bool {
	if v.keys == nil {
		return true
	}
	now := v.opts.Now()
	stale := now.Sub(v.fetched) >= v.opts.RefreshInterval || kid != "" && len(v.keys.Key(kid)) == 0
	return stale && (v.fetching != nil || now.Sub(v.attempted) >= v.opts.MinRefreshInterval)
}

// keyFetch is one fetch of the key set and its outcome, read by its
// waiters once done is closed.
type keyFetch struct {
	done chan struct{}
	keys *jose.JSONWebKeySet // the keys after the fetch: the fresh ones, or the old on failure
	err  error
}

// refresh runs f, bounded by FetchTimeout, and replaces the key set with
// what it fetched (keys the authorization server removed are forgotten).
func (v *JWTVerifier) refresh(ctx context.Context, f *keyFetch) {
	ctx, cancel := context.WithTimeout(ctx, v.opts.FetchTimeout)
	defer cancel()
	fresh, err := v.fetch(ctx)
	v.mu.Lock()
	now := v.opts.Now()
	v.attempted = now
	if err == nil {
		v.keys, v.fetched = fresh, now
	}
	f.keys, f.err = v.keys, err
	v.fetching = nil
	v.mu.Unlock()
	close(f.done)
}

func (v *JWTVerifier) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.opts.JWKSURL, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	var ks jose.JSONWebKeySet
	if err := getJSON(v.opts.HTTPClient, req, v.opts.MaxKeySetBytes, "JWKS document", &ks); err != nil {
		return nil, err
	}
	pub := &jose.JSONWebKeySet{}
	for _, k := range ks.Keys {
		if k.Use == "" || k.Use == "sig" {
			pub.Keys = append(pub.Keys, k.Public())
		}
	}
	return pub, nil
}

// getJSON sends req and decodes its 200 answer, read up to max bytes, into
// v; what names the document in errors.
func getJSON(hc *http.Client, req *http.Request, max int64, what string, v any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("auth: fetching the %s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("auth: fetching the %s: %s", what, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return fmt.Errorf("auth: reading the %s: %w", what, err)
	}
	if int64(len(body)) > max {
		return fmt.Errorf("auth: %s too large (over %d bytes)", what, max)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("auth: decoding the %s: %w", what, err)
	}
	return nil
}
