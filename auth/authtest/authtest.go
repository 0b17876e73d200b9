// Package authtest is a small OAuth 2.1 authorization server for tests of
// MCP clients and resource servers: authorization code with PKCE (the
// authorize endpoint approves at once, as a fixed user), refresh tokens
// with rotation, step-up (any later authorization may ask for more of the
// supported scopes), DPoP-bound tokens (RFC 9449), client credentials
// (client secret or private_key_jwt, RFC 7523),
// dynamic client registration (RFC 7591), JWKS, introspection (RFC 7662),
// and metadata at the RFC 8414 and OpenID well-known paths. Access tokens
// are JWTs (RFC 9068) signed with an ES256 key made at start, or opaque.
//
// It keeps everything in memory, bounded, and is for tests only: it has no
// users, no consent and no TLS, and anyone who can reach it can register
// any redirect URI and get a code for its fixed user. Start serves it on a
// loopback port; never serve it where others can reach it.
package authtest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/gomcp/sdk/auth"
)

// Options configures a Server. The zero value works.
type Options struct {
	// Scopes are the scopes the server knows (scopes_supported); a
	// request for another gets invalid_scope. Empty accepts any scope.
	Scopes []string
	// Subject is the user the authorize endpoint approves. Default "user".
	Subject string
	// TokenTTL is the lifetime of access tokens. Default 1 hour.
	TokenTTL time.Duration
	// Clients are registered from the start.
	Clients []Client
	// Opaque issues random access tokens, known only through
	// introspection, instead of JWTs.
	Opaque bool
	// MaxEntries bounds each store (clients, codes, refresh tokens,
	// opaque tokens). Default 10000.
	MaxEntries int
	// Now returns the current time. Default time.Now.
	Now func() time.Time
	// DPoPNonce, when not nil, makes the token endpoint require its nonce
	// in DPoP proofs (RFC 9449 §8): a proof without it gets 400
	// use_dpop_nonce with a DPoP-Nonce header.
	DPoPNonce auth.DPoPNonce
	// IssuerPath, for Start, gives the issuer a path ("/tenant1"): the
	// endpoints are served under it, and the metadata at every location
	// clients try for such an issuer (RFC 8414 §3.1 and OpenID Connect
	// Discovery, inserted and appended).
	IssuerPath string
}

// Client is a registered OAuth client.
type Client struct {
	// ID is the client_id.
	ID string
	// Secret authenticates a confidential client (client_secret_basic or
	// client_secret_post); "" makes the client public.
	Secret string
	// RedirectURIs are matched exactly by the authorize endpoint, except
	// that an http URI on a loopback IP address (127.0.0.1, [::1]) matches
	// on any port, as RFC 8252 §7.3 requires for native apps.
	RedirectURIs []string
	// PublicKey, when not nil, authenticates the client by private_key_jwt
	// (RFC 7523 §2.2, the client credentials extension's recommended
	// method): it verifies the client's assertions, whose iss and sub must
	// be the client id and aud the issuer or the token endpoint.
	PublicKey crypto.PublicKey
}

// confidential reports whether the client can authenticate.
func (c *Client) confidential() bool { return c.Secret != "" || c.PublicKey != nil }

// Server is a running authorization server.
type Server struct {
	// Issuer is the server's issuer identifier and base URL.
	Issuer string

	opts   Options
	key    *ecdsa.PrivateKey
	kid    string
	signer jose.Signer
	dpop   *auth.DPoPVerifier
	// assertions remembers the client assertions used (private_key_jwt).
	assertions auth.ReplayCache
	ts         *httptest.Server
	handler    http.Handler

	mu       sync.Mutex
	clients  map[string]*Client
	codes    map[string]*grant
	refresh  map[string]*grant
	opaque   map[string]*auth.TokenInfo
	revoked  map[string]time.Time // jti → expiry
	requests []string             // grant types of the token requests, in order
}

// grant is what an authorization code or a refresh token stands for.
type grant struct {
	clientID    string
	redirectURI string
	challenge   string
	resource    string
	scopes      []string
	jkt         string
	expiry      time.Time
}

// Start runs a Server on a loopback port; Close stops it.
func Start(opts *Options) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	s.ts = httptest.NewServer(s)
	s.Issuer = s.ts.URL + strings.TrimSuffix(s.opts.IssuerPath, "/")
	s.route()
	return s, nil
}

// New returns a Server for the given issuer (its base URL) without
// starting it: serve it (it is an http.Handler) at that URL.
func New(issuer string, opts *Options) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	s.Issuer = strings.TrimSuffix(issuer, "/")
	s.route()
	return s, nil
}

func newServer(opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Subject == "" {
		o.Subject = "user"
	}
	if o.TokenTTL <= 0 {
		o.TokenTTL = time.Hour
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 10000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: o, key: key, kid: randomString(8),
		dpop:       auth.NewDPoPVerifier(auth.DPoPOptions{Now: o.Now}),
		assertions: auth.NewMemoryReplayCache(o.MaxEntries),
		clients:    make(map[string]*Client), codes: make(map[string]*grant),
		refresh: make(map[string]*grant), opaque: make(map[string]*auth.TokenInfo),
		revoked: make(map[string]time.Time),
	}
	s.signer, err = jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), s.kid))
	if err != nil {
		return nil, err
	}
	for _, c := range o.Clients {
		c := c
		s.clients[c.ID] = &c
	}
	return s, nil
}

// route builds the handler once the issuer is known.
func (s *Server) route() {
	path := ""
	if u, err := url.Parse(s.Issuer); err == nil {
		path = strings.TrimSuffix(u.Path, "/")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server"+path, s.serveMetadata)
	mux.HandleFunc("GET /.well-known/openid-configuration"+path, s.serveMetadata)
	if path != "" {
		mux.HandleFunc("GET "+path+"/.well-known/openid-configuration", s.serveMetadata)
	}
	mux.HandleFunc("GET "+path+"/jwks", s.serveJWKS)
	mux.HandleFunc("GET "+path+"/authorize", s.serveAuthorize)
	mux.HandleFunc("POST "+path+"/token", s.serveToken)
	mux.HandleFunc("POST "+path+"/register", s.serveRegister)
	mux.HandleFunc("POST "+path+"/introspect", s.serveIntrospect)
	s.mu.Lock()
	s.handler = mux
	s.mu.Unlock()
}

// ServeHTTP serves the endpoints, for a Server made with New.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// Close stops a Server made with Start.
func (s *Server) Close() {
	if s.ts != nil {
		s.ts.Close()
	}
}

// JWKSURL is the URL of the server's key set, for auth.JWTOptions.
func (s *Server) JWKSURL() string { return s.Issuer + "/jwks" }

// IntrospectionURL is the URL of the introspection endpoint, for
// auth.IntrospectionOptions.
func (s *Server) IntrospectionURL() string { return s.Issuer + "/introspect" }

// TokenURL is the URL of the token endpoint.
func (s *Server) TokenURL() string { return s.Issuer + "/token" }

// AddClient registers c (replacing a client of the same ID).
func (s *Server) AddClient(c Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.ID] = &c
}

// TokenRequests describes the token requests served so far, in order, as
// "grant_type(scope)" (the scope parameter, often empty), so that tests
// can see how a client got its tokens (refresh, step-up). It keeps the
// last MaxEntries.
func (s *Server) TokenRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Token describes an access token for Mint.
type Token struct {
	// Subject, ClientID, Audience and Scopes become sub, client_id, aud
	// and scope.
	Subject, ClientID string
	Audience          []string
	Scopes            []string
	// Expiry defaults to now plus the TokenTTL option.
	Expiry time.Time
	// JKT binds the token to a DPoP key (cnf.jkt).
	JKT string
	// Issuer overrides the server's issuer (to test issuer checks).
	Issuer string
}

// Mint issues an access token directly, as the token endpoint would, so
// that tests of resource servers need not run a flow (and can make tokens
// that are expired, meant for another audience, from another issuer).
func (s *Server) Mint(t Token) (string, error) {
	now := s.opts.Now()
	if t.Expiry.IsZero() {
		t.Expiry = now.Add(s.opts.TokenTTL)
	}
	if t.Issuer == "" {
		t.Issuer = s.Issuer
	}
	if s.opts.Opaque {
		tok := randomString(32)
		info := &auth.TokenInfo{Subject: t.Subject, ClientID: t.ClientID, Issuer: t.Issuer,
			Audience: t.Audience, Scopes: t.Scopes, Expiry: t.Expiry, JKT: t.JKT}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.room(func() int { return len(s.opaque) }, func() {
			for k, v := range s.opaque {
				if !now.Before(v.Expiry) {
					delete(s.opaque, k)
				}
			}
		}) {
			return "", errFull
		}
		s.opaque[tok] = info
		return tok, nil
	}
	claims := map[string]any{
		"iss": t.Issuer, "sub": t.Subject, "aud": t.Audience, "client_id": t.ClientID,
		"scope": strings.Join(t.Scopes, " "), "exp": t.Expiry.Unix(), "iat": now.Unix(),
		"jti": randomString(16),
	}
	if t.JKT != "" {
		claims["cnf"] = map[string]string{"jkt": t.JKT}
	}
	return jwt.Signed(s.signer).Claims(claims).Serialize()
}

// Revoke makes introspection report token inactive.
func (s *Server) Revoke(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.opaque, token)
	if tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256}); err == nil {
		var c jwt.Claims
		if tok.Claims(&s.key.PublicKey, &c) == nil && c.Expiry != nil &&
			s.room(func() int { return len(s.revoked) }, func() {
				for k, exp := range s.revoked {
					if !s.opts.Now().Before(exp) {
						delete(s.revoked, k)
					}
				}
			}) {
			s.revoked[c.ID] = c.Expiry.Time()
		}
	}
}

var errFull = errors.New("authtest: store full")

// room reports whether a store of n entries may take one more, after
// purge when it is full. s.mu is held.
func (s *Server) room(n func() int, purge func()) bool {
	if n() < s.opts.MaxEntries {
		return true
	}
	purge()
	return n() < s.opts.MaxEntries
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Metadata is the RFC 8414 document the server serves.
func (s *Server) Metadata() map[string]any {
	md := map[string]any{
		"issuer":                                           s.Issuer,
		"authorization_endpoint":                           s.Issuer + "/authorize",
		"token_endpoint":                                   s.Issuer + "/token",
		"registration_endpoint":                            s.Issuer + "/register",
		"jwks_uri":                                         s.JWKSURL(),
		"introspection_endpoint":                           s.IntrospectionURL(),
		"response_types_supported":                         []string{"code"},
		"grant_types_supported":                            []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":                 []string{"S256"},
		"token_endpoint_auth_methods_supported":            []string{"none", "client_secret_basic", "client_secret_post", "private_key_jwt"},
		"token_endpoint_auth_signing_alg_values_supported": []string{"ES256", "ES384", "RS256", "PS256", "EdDSA"},
		"introspection_endpoint_auth_methods_supported":    []string{"client_secret_basic", "client_secret_post"},
		"dpop_signing_alg_values_supported":                []string{"ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"},
		"authorization_response_iss_parameter_supported":   true,
	}
	if len(s.opts.Scopes) > 0 {
		md["scopes_supported"] = s.opts.Scopes
	}
	return md
}

func (s *Server) serveMetadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, s.Metadata())
}

func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key: &s.key.PublicKey, KeyID: s.kid, Algorithm: string(jose.ES256), Use: "sig",
	}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
}

// oauthError answers with an RFC 6749 §5.2 error.
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// scopesOK reports whether every requested scope is supported.
func (s *Server) scopesOK(scopes []string) bool {
	if len(s.opts.Scopes) == 0 {
		return true
	}
	for _, sc := range scopes {
		if !slices.Contains(s.opts.Scopes, sc) {
			return false
		}
	}
	return true
}

func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if c == nil {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !redirectAllowed(c.RedirectURIs, redirect) {
		http.Error(w, "redirect_uri is not registered for the client", http.StatusBadRequest)
		return
	}
	target, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	answer := url.Values{"iss": {s.Issuer}}
	if st := q.Get("state"); st != "" {
		answer.Set("state", st)
	}
	fail := func(code, desc string) {
		answer.Set("error", code)
		answer.Set("error_description", desc)
		target.RawQuery = answer.Encode()
		http.Redirect(w, r, target.String(), http.StatusFound)
	}
	scopes := strings.Fields(q.Get("scope"))
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only code is supported")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with S256 is required")
		return
	case !s.scopesOK(scopes):
		fail("invalid_scope", "a requested scope is not supported")
		return
	}
	g := &grant{clientID: c.ID, redirectURI: redirect, challenge: q.Get("code_challenge"),
		resource: q.Get("resource"), scopes: scopes, expiry: s.opts.Now().Add(time.Minute)}
	code := randomString(16)
	s.mu.Lock()
	ok := s.room(func() int { return len(s.codes) }, func() { purgeGrants(s.codes, s.opts.Now()) })
	if ok {
		s.codes[code] = g
	}
	s.mu.Unlock()
	if !ok {
		fail("temporarily_unavailable", "too many pending codes")
		return
	}
	answer.Set("code", code)
	target.RawQuery = answer.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

// redirectAllowed reports whether redirect is one of registered, or a
// loopback IP one of them on another port (RFC 8252 §7.3).
func redirectAllowed(registered []string, redirect string) bool {
	if slices.Contains(registered, redirect) {
		return true
	}
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme != "http" || !loopbackIP(u.Hostname()) {
		return false
	}
	for _, r := range registered {
		ru, err := url.Parse(r)
		if err == nil && ru.Scheme == "http" && ru.Hostname() == u.Hostname() &&
			ru.EscapedPath() == u.EscapedPath() && ru.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

func loopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func purgeGrants(m map[string]*grant, now time.Time) {
	for k, g := range m {
		if !now.Before(g.expiry) {
			delete(m, k)
		}
	}
}

// authenticateClient finds the client of a token or introspection request
// (client_secret_basic, client_secret_post, or none for public clients).
func (s *Server) authenticateClient(r *http.Request) (*Client, bool) {
	if r.PostForm.Get("client_assertion_type") == jwtBearerAssertion {
		return s.authenticateAssertion(r.PostForm.Get("client_assertion"), r.PostForm.Get("client_id"))
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return nil, false
	}
	if c.Secret == "" {
		return c, secret == "" && c.PublicKey == nil
	}
	return c, subtle.ConstantTimeCompare([]byte(secret), []byte(c.Secret)) == 1
}

const jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// authenticateAssertion checks a private_key_jwt client assertion.
func (s *Server) authenticateAssertion(assertion, formID string) (*Client, bool) {
	tok, err := jwt.ParseSigned(assertion, []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil {
		return nil, false
	}
	var unverified jwt.Claims
	if tok.UnsafeClaimsWithoutVerification(&unverified) != nil {
		return nil, false
	}
	s.mu.Lock()
	c := s.clients[unverified.Issuer]
	s.mu.Unlock()
	if c == nil || c.PublicKey == nil || (formID != "" && formID != c.ID) {
		return nil, false
	}
	var claims jwt.Claims
	if tok.Claims(c.PublicKey, &claims) != nil || claims.Issuer != c.ID || claims.Subject != c.ID || claims.ID == "" ||
		!(claims.Audience.Contains(s.Issuer) || claims.Audience.Contains(s.TokenURL())) {
		return nil, false
	}
	now := s.opts.Now()
	if claims.ValidateWithLeeway(jwt.Expected{Time: now}, time.Minute) != nil || claims.Expiry == nil {
		return nil, false
	}
	fresh, err := s.assertions.Use(context.Background(), c.ID, claims.ID, claims.Expiry.Time().Add(time.Minute))
	return c, err == nil && fresh
}

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "malformed form")
		return
	}
	f := r.PostForm
	s.mu.Lock()
	s.requests = append(s.requests, f.Get("grant_type")+"("+f.Get("scope")+")")
	if len(s.requests) > s.opts.MaxEntries {
		s.requests = s.requests[1:]
	}
	s.mu.Unlock()
	c, ok := s.authenticateClient(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	var jkt string
	if proofs := r.Header.Values("DPoP"); len(proofs) > 0 {
		if len(proofs) > 1 {
			oauthError(w, http.StatusBadRequest, "invalid_dpop_proof", "more than one DPoP header")
			return
		}
		p, err := s.dpop.Verify(r.Context(), proofs[0], http.MethodPost, s.TokenURL(), "")
		if err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_dpop_proof", err.Error())
			return
		}
		if n := s.opts.DPoPNonce; n != nil {
			w.Header().Set("DPoP-Nonce", n.Current())
			if !n.Valid(p.Nonce) {
				oauthError(w, http.StatusBadRequest, "use_dpop_nonce", "the DPoP proof needs the server's nonce")
				return
			}
		}
		jkt = p.JKT
	}
	now := s.opts.Now()
	var g *grant
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g = s.codes[f.Get("code")]
		delete(s.codes, f.Get("code")) // single use
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case g == nil || !now.Before(g.expiry) || g.clientID != c.ID:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or expired code")
			return
		case g.redirectURI != f.Get("redirect_uri") && f.Get("redirect_uri") != "":
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match")
			return
		case f.Has("resource") && f.Get("resource") != g.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request")
			return
		}
		g.jkt = jkt
	case "refresh_token":
		s.mu.Lock()
		old := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token")) // rotation
		s.mu.Unlock()
		switch {
		case old == nil || !now.Before(old.expiry) || old.clientID != c.ID:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or expired refresh token")
			return
		case old.jkt != "" && old.jkt != jkt:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is bound to another DPoP key")
			return
		}
		ng := *old
		g = &ng
		if sc := strings.Fields(f.Get("scope")); len(sc) > 0 {
			for _, x := range sc {
				if !slices.Contains(old.scopes, x) {
					oauthError(w, http.StatusBadRequest, "invalid_scope", "a refresh cannot widen the scopes")
					return
				}
			}
			g.scopes = sc
		}
		if f.Has("resource") {
			g.resource = f.Get("resource")
		}
	case "client_credentials":
		if !c.confidential() {
			oauthError(w, http.StatusUnauthorized, "unauthorized_client", "public clients cannot use client credentials")
			return
		}
		g = &grant{clientID: c.ID, resource: f.Get("resource"), scopes: strings.Fields(f.Get("scope")), jkt: jkt}
		if !s.scopesOK(g.scopes) {
			oauthError(w, http.StatusBadRequest, "invalid_scope", "a requested scope is not supported")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "unsupported grant_type")
		return
	}
	subject := s.opts.Subject
	if f.Get("grant_type") == "client_credentials" {
		subject = c.ID
	}
	var aud []string
	if g.resource != "" {
		aud = []string{g.resource}
	}
	tok, err := s.Mint(Token{Subject: subject, ClientID: c.ID, Audience: aud, Scopes: g.scopes, JKT: g.jkt})
	if err != nil {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", err.Error())
		return
	}
	resp := map[string]any{
		"access_token": tok, "token_type": "Bearer", "expires_in": int(s.opts.TokenTTL / time.Second),
		"scope": strings.Join(g.scopes, " "),
	}
	if g.jkt != "" {
		resp["token_type"] = "DPoP"
	}
	if f.Get("grant_type") != "client_credentials" {
		rt := randomString(24)
		g.expiry = now.Add(24 * time.Hour)
		s.mu.Lock()
		ok := s.room(func() int { return len(s.refresh) }, func() { purgeGrants(s.refresh, now) })
		if ok {
			s.refresh[rt] = g
		}
		s.mu.Unlock()
		if ok {
			resp["refresh_token"] = rt
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		ClientName   string   `json:"client_name"`
		GrantTypes   []string `json:"grant_types"`
		Scope        string   `json:"scope"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "malformed registration request")
		return
	}
	for _, u := range req.RedirectURIs {
		p, err := url.Parse(u)
		if err != nil || p.Scheme == "" || p.Fragment != "" {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "bad redirect URI "+u)
			return
		}
	}
	if req.AuthMethod == "" {
		req.AuthMethod = "client_secret_basic"
	}
	c := Client{ID: randomString(12), RedirectURIs: req.RedirectURIs}
	switch req.AuthMethod {
	case "none":
	case "client_secret_basic", "client_secret_post":
		c.Secret = randomString(24)
	default:
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported token_endpoint_auth_method")
		return
	}
	s.mu.Lock()
	ok := s.room(func() int { return len(s.clients) }, func() {})
	if ok {
		s.clients[c.ID] = &c
	}
	s.mu.Unlock()
	if !ok {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many clients")
		return
	}
	resp := map[string]any{
		"client_id": c.ID, "client_id_issued_at": s.opts.Now().Unix(), "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": req.AuthMethod, "client_name": req.ClientName,
		"grant_types": req.GrantTypes,
	}
	if c.Secret != "" {
		resp["client_secret"] = c.Secret
		resp["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) serveIntrospect(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "malformed form")
		return
	}
	if _, ok := s.authenticateClient(r); !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	info := s.lookup(r.Context(), r.PostForm.Get("token"))
	if info == nil {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	resp := map[string]any{
		"active": true, "sub": info.Subject, "client_id": info.ClientID, "iss": info.Issuer,
		"aud": info.Audience, "scope": strings.Join(info.Scopes, " "), "exp": info.Expiry.Unix(),
		"token_type": "Bearer",
	}
	if info.JKT != "" {
		resp["cnf"] = map[string]string{"jkt": info.JKT}
		resp["token_type"] = "DPoP"
	}
	writeJSON(w, http.StatusOK, resp)
}

// lookup returns what token stands for, nil when it is not active.
func (s *Server) lookup(_ context.Context, token string) *auth.TokenInfo {
	now := s.opts.Now()
	s.mu.Lock()
	info := s.opaque[token]
	s.mu.Unlock()
	if info != nil {
		if !now.Before(info.Expiry) {
			return nil
		}
		return info
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil
	}
	var c struct {
		jwt.Claims
		Scope    string `json:"scope"`
		ClientID string `json:"client_id"`
		Cnf      *struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	}
	if tok.Claims(&s.key.PublicKey, &c) != nil || c.Expiry == nil || !now.Before(c.Expiry.Time()) {
		return nil
	}
	s.mu.Lock()
	_, revoked := s.revoked[c.ID]
	s.mu.Unlock()
	if revoked {
		return nil
	}
	info = &auth.TokenInfo{Subject: c.Subject, ClientID: c.ClientID, Issuer: c.Issuer, Audience: c.Audience,
		Scopes: strings.Fields(c.Scope), Expiry: c.Expiry.Time()}
	if c.Cnf != nil {
		info.JKT = c.Cnf.JKT
	}
	return info
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of a public key,
// base64url, as a DPoP-bound token's cnf.jkt holds it.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	k := jose.JSONWebKey{Key: pub}
	tp, err := k.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}
