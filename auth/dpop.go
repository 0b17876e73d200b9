package auth

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DPoPOptions configures the verification of DPoP proofs (RFC 9449, the
// MCP extension io.modelcontextprotocol/auth/dpop).
type DPoPOptions struct {
	// Algorithms are the proof signature algorithms accepted (asymmetric
	// only). Default ES256, ES384, ES512, RS256, PS256, EdDSA.
	Algorithms []jose.SignatureAlgorithm
	// MaxAge is how far a proof's "iat" may be from now, either way.
	// Default 5 minutes. Proofs are remembered (ReplayCache) this long.
	MaxAge time.Duration
	// ReplayCache remembers the proofs seen, so that none is accepted
	// twice. Default NewMemoryReplayCache(0), which is per process:
	// servers behind a load balancer share one of their own.
	ReplayCache ReplayCache
	// Required refuses tokens not bound to a key (plain bearer tokens).
	Required bool
	// Nonce, when not nil, makes the resource server require server
	// nonces in proofs (RFC 9449 §9): a proof without the current nonce
	// gets 401 use_dpop_nonce with a DPoP-Nonce header, and the client
	// retries with it. Nil: no nonces.
	Nonce DPoPNonce
	// Now returns the current time (tests). Default time.Now.
	Now func() time.Time
}

// ErrInvalidDPoPProof is wrapped by the errors of DPoPVerifier.Verify that
// mean "this proof is not acceptable".
var ErrInvalidDPoPProof = errors.New("invalid DPoP proof")

type proofError struct{ msg string }

func (e *proofError) Error() string        { return "invalid DPoP proof: " + e.msg }
func (e *proofError) Is(target error) bool { return target == ErrInvalidDPoPProof }

func badProof(msg string) error { return &proofError{msg} }

// A ReplayCache remembers the identifiers of the DPoP proofs accepted.
// Implementations must be safe for concurrent use and bounded, and should
// keep one key from locking out the others.
type ReplayCache interface {
	// Use records the proof id ("jti") of the key whose RFC 7638
	// thumbprint is jkt until the given time, and reports whether it is
	// new: false means a replay. An error (this key's share of a full
	// cache is used up, the store is unreachable) refuses the request
	// with 503. It is called once every other check of the request has
	// passed, so only proofs of keys that tokens are bound to reach it.
	Use(ctx context.Context, jkt, id string, until time.Time) (bool, error)
}

// ErrReplayCacheFull is the error of a memory replay cache that is full
// while the key of the proof holds its share of it: the request is
// refused rather than an entry forgotten, which would let its proof be
// replayed. Other keys are still served.
var ErrReplayCacheFull = errors.New("auth: DPoP replay cache full for this key")

// NewMemoryReplayCache returns an in-memory ReplayCache sized for max
// unexpired proof identifiers (default 100000, about 10 MB, twice that at
// worst), forgetting each once it expires. No key is refused while the cache holds fewer
// than max; beyond, a key is refused once it holds its share (max divided
// by the number of keys holding entries), so one key flooding the cache
// locks out only itself, and the cache never holds more than 2*max.
func NewMemoryReplayCache(max int) ReplayCache {
	if max <= 0 {
		max = 100000
	}
	return &memoryReplayCache{max: max, seen: make(map[replayKey]time.Time), perKey: make(map[string]int), now: time.Now}
}

// replayKey names one proof: its key's thumbprint and its jti.
type replayKey struct{ jkt, id string }

type replayEntry struct {
	replayKey
	until time.Time
}

type memoryReplayCache struct {
	mu        sync.Mutex
	max       int
	seen      map[replayKey]time.Time
	perKey    map[string]int // entries in seen per key thumbprint
	queue     []replayEntry  // in insertion order, to expire entries
	nextSweep time.Time      // no entry expires before: a sweep is useless sooner
	now       func() time.Time
}

func (c *memoryReplayCache) Use(_ context.Context, jkt, id string, until time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	k := replayKey{jkt, id}
	if exp, ok := c.seen[k]; ok && now.Before(exp) {
		return false, nil
	}
	c.expire(now)
	if len(c.seen) >= c.max && !now.Before(c.nextSweep) {
		c.sweep(now)
	}
	if len(c.seen) >= c.max && (c.perKey[jkt] >= c.share(jkt) || len(c.seen) >= 2*c.max) {
		return false, ErrReplayCacheFull
	}
	if _, ok := c.seen[k]; !ok {
		c.perKey[jkt]++
	}
	c.seen[k] = until
	c.queue = append(c.queue, replayEntry{k, until})
	if until.Before(c.nextSweep) {
		c.nextSweep = until
	}
	return true, nil
}

// share is the number of entries the key jkt may hold in a full cache:
// max divided by the keys holding entries, jkt counted.
func (c *memoryReplayCache) share(jkt string) int {
	n := len(c.perKey)
	if c.perKey[jkt] == 0 {
		n++
	}
	return c.max / n
}

// forget deletes k from seen, with its count.
func (c *memoryReplayCache) forget(k replayKey) {
	delete(c.seen, k)
	if c.perKey[k.jkt]--; c.perKey[k.jkt] <= 0 {
		delete(c.perKey, k.jkt)
	}
}

// expire drops the expired entries. Entries are expired in insertion
// order; one that lives longer than those behind it delays them, which
// costs memory for at most MaxAge, never correctness.
func (c *memoryReplayCache) expire(now time.Time) {
	n := 0
	for n < len(c.queue) && !now.Before(c.queue[n].until) {
		e := c.queue[n]
		if exp, ok := c.seen[e.replayKey]; ok && !now.Before(exp) {
			c.forget(e.replayKey)
		}
		n++
	}
	if n > 0 {
		c.queue = append(c.queue[:0:0], c.queue[n:]...)
	}
	if len(c.queue) > 2*len(c.seen)+64 { // ids re-added after expiring left stale entries
		q := c.queue[:0:0]
		for _, e := range c.queue {
			if c.seen[e.replayKey].Equal(e.until) {
				q = append(q, e)
			}
		}
		c.queue = q
	}
}

// sweep drops every expired entry, wherever it is in the queue: expire
// is not enough when the cache is full behind a long-lived entry. It
// notes when the next entry expires, so that a full cache is not swept
// again, for every request, before anything can have expired.
func (c *memoryReplayCache) sweep(now time.Time) {
	q := c.queue[:0:0]
	c.nextSweep = now.Add(time.Hour)
	for _, e := range c.queue {
		if exp, ok := c.seen[e.replayKey]; ok && exp.Equal(e.until) {
			if now.Before(exp) {
				q = append(q, e)
				if exp.Before(c.nextSweep) {
					c.nextSweep = exp
				}
			} else {
				c.forget(e.replayKey)
			}
		}
	}
	c.queue = q
}

// A DPoPVerifier checks DPoP proofs. It is safe for concurrent use.
type DPoPVerifier struct{ opts DPoPOptions }

// NewDPoPVerifier returns a verifier with the given options.
func NewDPoPVerifier(opts DPoPOptions) *DPoPVerifier {
	if len(opts.Algorithms) == 0 {
		opts.Algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.PS256, jose.EdDSA}
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = 5 * time.Minute
	}
	if opts.ReplayCache == nil {
		opts.ReplayCache = NewMemoryReplayCache(0)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &DPoPVerifier{opts: opts}
}

// DPoPProof is what a verified proof established.
type DPoPProof struct {
	// JKT is the RFC 7638 SHA-256 thumbprint of the proof's key,
	// base64url: what a token bound to the key carries as cnf.jkt.
	JKT string
	// Key is the proof's public key.
	Key jose.JSONWebKey
	// ID is the proof's "jti".
	ID string
	// IssuedAt is the proof's "iat".
	IssuedAt time.Time
	// Nonce is the proof's "nonce", "" without one.
	Nonce string
}

type proofClaims struct {
	JTI   string   `json:"jti"`
	HTM   string   `json:"htm"`
	HTU   string   `json:"htu"`
	IAT   *float64 `json:"iat"`
	ATH   string   `json:"ath"`
	Nonce string   `json:"nonce"`
}

// Verify checks the DPoP proof sent with an HTTP request of the given
// method to uri (RFC 9449 §4.3): its form, signature by the public key it
// carries, htm, htu, iat within MaxAge, when accessToken is not "" that
// ath is the token's hash, and last, that its jti was never seen. Binding
// the token to the key (cnf.jkt == JKT) is the caller's check; a caller
// that checks more (ResourceServer does binding and nonce) should make
// the replay check last, so that a refused request uses up no room in
// the ReplayCache.
func (v *DPoPVerifier) Verify(ctx context.Context, proof, method, uri, accessToken string) (*DPoPProof, error) {
	p, err := v.check(proof, method, uri, accessToken)
	if err != nil {
		return nil, err
	}
	if err := v.remember(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// check is Verify without the replay check.
func (v *DPoPVerifier) check(proof, method, uri, accessToken string) (*DPoPProof, error) {
	jws, err := jose.ParseSignedCompact(proof, v.opts.Algorithms)
	if err != nil {
		return nil, badProof("not a signed JWT with an accepted algorithm: " + err.Error())
	}
	if len(jws.Signatures) != 1 {
		return nil, badProof("one signature expected")
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" {
		return nil, badProof(`typ must be "dpop+jwt"`)
	}
	jwk := h.JSONWebKey
	if jwk == nil || !jwk.Valid() || !jwk.IsPublic() {
		return nil, badProof("the jwk header must be a valid public key")
	}
	payload, err := jws.Verify(jwk)
	if err != nil {
		return nil, badProof("signature: " + err.Error())
	}
	var c proofClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, badProof("claims: " + err.Error())
	}
	if c.JTI == "" || len(c.JTI) > 256 {
		return nil, badProof("jti missing or too long")
	}
	if c.HTM != method {
		return nil, badProof("htm is not " + quote(method))
	}
	if !sameHTU(c.HTU, uri) {
		return nil, badProof("htu is not " + quote(uri))
	}
	if c.IAT == nil {
		return nil, badProof("iat missing")
	}
	iat := time.Unix(int64(*c.IAT), 0)
	now := v.opts.Now()
	if iat.Before(now.Add(-v.opts.MaxAge)) || iat.After(now.Add(v.opts.MaxAge)) {
		return nil, badProof("iat is too far from now")
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return nil, badProof("ath does not match the access token")
		}
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, badProof("key thumbprint: " + err.Error())
	}
	jkt := base64.RawURLEncoding.EncodeToString(tp)
	return &DPoPProof{JKT: jkt, Key: *jwk, ID: c.JTI, IssuedAt: iat, Nonce: c.Nonce}, nil
}

// remember records the jti of p in the ReplayCache: an error wrapping
// ErrInvalidDPoPProof for a replay, another when the cache refuses.
func (v *DPoPVerifier) remember(ctx context.Context, p *DPoPProof) error {
	fresh, err := v.opts.ReplayCache.Use(ctx, p.JKT, p.ID, p.IssuedAt.Add(v.opts.MaxAge))
	if err != nil {
		return err
	}
	if !fresh {
		return badProof("the proof was already used")
	}
	return nil
}

// sameHTU compares a proof's htu with the request URI, ignoring query and
// fragment, case in scheme and host, and default ports (RFC 9449 §4.3,
// RFC 3986 §6.2.2 and §6.2.3).
func sameHTU(htu, uri string) bool {
	a, err1 := url.Parse(htu)
	b, err2 := url.Parse(uri)
	if err1 != nil || err2 != nil || a.Host == "" {
		return false
	}
	norm := func(u *url.URL) string {
		scheme := strings.ToLower(u.Scheme)
		host := strings.ToLower(u.Host)
		if h, p, err := net.SplitHostPort(host); err == nil &&
			(scheme == "https" && p == "443" || scheme == "http" && p == "80") {
			host = h
			if strings.Contains(h, ":") {
				host = "[" + h + "]"
			}
		}
		path := u.EscapedPath()
		if path == "" {
			path = "/"
		}
		return scheme + "://" + host + path
	}
	return norm(a) == norm(b)
}
