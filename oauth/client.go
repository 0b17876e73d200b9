package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Grant selects how a Client obtains tokens.
type Grant int

const (
	// AuthorizationCode is the default: the user logs in through the
	// UserAgent (authorization code with PKCE).
	AuthorizationCode Grant = iota
	// ClientCredentials is for a client acting on its own behalf with
	// pre-registered credentials: a secret or a private key (extension
	// io.modelcontextprotocol/oauth-client-credentials).
	ClientCredentials
	// JWTBearer presents a JWT the client holds (Config.Assertion), such as
	// a workload identity token, with the RFC 7523 grant; a refusal is final
	// (extension io.modelcontextprotocol/auth/wif).
	JWTBearer
	// EnterpriseManaged exchanges the user's identity-provider token for an
	// identity assertion grant (ID-JAG) and presents that to the
	// authorization server (extension enterprise-managed-authorization).
	EnterpriseManaged
)

// Grant type and token type URNs.
const (
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	assertionTypeJWT   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Enterprise configures the EnterpriseManaged grant: where the identity
// provider exchanges the user's ID token for an ID-JAG.
type Enterprise struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// IDToken returns the user's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
	// ClientID and ClientSecret identify the client at the identity
	// provider, if it wants that (ClientSecret sent with HTTP Basic).
	ClientID, ClientSecret string
}

// Config configures a Client. The zero value logs in through a
// HeadlessUserAgent, registers dynamically and keeps tokens in memory.
type Config struct {
	// HTTPClient sends the discovery, registration and token requests.
	// Default http.DefaultClient. Redirects to another origin are refused
	// whatever its CheckRedirect says.
	HTTPClient *http.Client
	// UserAgent performs the authorization step of AuthorizationCode.
	// Default: a HeadlessUserAgent using HTTPClient.
	UserAgent UserAgent
	// Store keeps tokens and registrations. Default: a MemoryStore.
	Store TokenStore

	// Grant is how tokens are obtained. Default AuthorizationCode.
	Grant Grant

	// ClientID and ClientSecret are pre-registered credentials; when set,
	// no registration takes place. ClientIssuer, if set, is the issuer they
	// belong to: another authorization server is refused rather than
	// given them.
	ClientID, ClientSecret, ClientIssuer string
	// PrivateKey, with a ClientID, authenticates the client with
	// private_key_jwt; SigningAlgorithm defaults to what suits the key.
	PrivateKey       crypto.Signer
	SigningAlgorithm string

	// ClientMetadataURL is the https URL of this client's Client ID
	// Metadata Document, used as client_id where the authorization server
	// advertises support for it.
	ClientMetadataURL string
	// ClientName is sent when registering. Default "gomcp client".
	ClientName string

	// Assertion returns the JWT presented with the JWTBearer grant.
	Assertion func(ctx context.Context) (string, error)
	// Enterprise configures the EnterpriseManaged grant.
	Enterprise *Enterprise

	// DPoP binds tokens to a key (RFC 9449) where the authorization server
	// supports it or the resource server asks for it. DPoPKey is that key;
	// default a fresh P-256 key.
	DPoP    bool
	DPoPKey crypto.Signer

	// MaxResponseBytes bounds each metadata, registration or token
	// response read. Default 256 KiB.
	MaxResponseBytes int64
}

// Token is what a Client stores for a server.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type"` // Bearer or DPoP
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes,omitempty"`    // granted
	Requested    []string  `json:"requested,omitempty"` // asked for
	Issuer       string    `json:"issuer"`
	Resource     string    `json:"resource"`

	refreshed bool      // obtained by refreshing: a refusal calls for a login
	issued    time.Time // when a login (not a refresh) obtained it
}

// freshRefusal is how soon after a login a refusal of the new token (by
// the same authorization server's resource) means logging in again would
// not help.
const freshRefusal = 30 * time.Second

// registration is a client identity at one authorization server.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
}

// Client authorizes the requests of an MCP client to one MCP server. It
// implements the Authorizer of transport/mcphttp: give it as
// ClientOptions.Authorizer. It is safe for concurrent use.
type Client struct {
	cfg      Config
	server   *url.URL
	hc       *http.Client
	ua       UserAgent
	store    TokenStore
	maxBytes int64
	dpopKey  crypto.Signer

	flow sync.Mutex // serializes authorizations

	mu      sync.Mutex
	loaded  bool
	tok     *Token
	asMeta  map[string]*ServerMetadata
	asNonce map[string]string
	rsNonce string
	final   error // a JWTBearer refusal: no retry
}

// New returns a Client for the MCP server at serverURL.
func New(serverURL string, cfg *Config) (*Client, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: server URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("oauth: server URL %q is not an http(s) URL", serverURL)
	}
	c := &Client{server: u, asMeta: map[string]*ServerMetadata{}, asNonce: map[string]string{}}
	if cfg != nil {
		c.cfg = *cfg
	}
	base := http.DefaultClient
	if c.cfg.HTTPClient != nil {
		base = c.cfg.HTTPClient
	}
	hc := *base
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("oauth: too many redirects")
		}
		if !sameOrigin(req.URL, via[0].URL) {
			return fmt.Errorf("oauth: refusing redirect from %s to another origin (%s)", via[0].URL.Redacted(), req.URL.Redacted())
		}
		return nil
	}
	c.hc = &hc
	c.ua = c.cfg.UserAgent
	if c.ua == nil {
		c.ua = &HeadlessUserAgent{HTTPClient: base}
	}
	c.store = c.cfg.Store
	if c.store == nil {
		c.store = &MemoryStore{}
	}
	c.maxBytes = c.cfg.MaxResponseBytes
	if c.maxBytes <= 0 {
		c.maxBytes = 256 << 10
	}
	if m := c.cfg.ClientMetadataURL; m != "" {
		if u, err := url.Parse(m); err != nil || u.Scheme != "https" || u.Host == "" || strings.TrimSuffix(u.Path, "/") == "" || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: ClientMetadataURL %q must be an https URL with a path", m)
		}
	}
	if c.cfg.DPoP {
		c.dpopKey = c.cfg.DPoPKey
		if c.dpopKey == nil {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			c.dpopKey = k
		}
	}
	switch c.cfg.Grant {
	case ClientCredentials:
		if c.cfg.ClientID == "" || c.cfg.ClientSecret == "" && c.cfg.PrivateKey == nil {
			return nil, errors.New("oauth: ClientCredentials needs ClientID and ClientSecret or PrivateKey")
		}
	case JWTBearer:
		if c.cfg.Assertion == nil {
			return nil, errors.New("oauth: JWTBearer needs Assertion")
		}
	case EnterpriseManaged:
		if c.cfg.Enterprise == nil || c.cfg.Enterprise.TokenEndpoint == "" || c.cfg.Enterprise.IDToken == nil {
			return nil, errors.New("oauth: EnterpriseManaged needs Enterprise.TokenEndpoint and Enterprise.IDToken")
		}
		if _, err := checkURL(c.cfg.Enterprise.TokenEndpoint); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Client) tokenKey() string { return "token " + c.server.String() }

func regKey(issuer string) string { return "client " + issuer }

// current returns the token, loading it from the store the first time.
func (c *Client) current(ctx context.Context) *Token {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		if b, err := c.store.Load(ctx, c.tokenKey()); err == nil && b != nil {
			var t Token
			if json.Unmarshal(b, &t) == nil && t.AccessToken != "" {
				c.tok = &t
			}
		}
	}
	return c.tok
}

func (c *Client) setToken(ctx context.Context, t *Token) error {
	c.mu.Lock()
	c.tok = t
	c.loaded = true
	c.mu.Unlock()
	if t == nil {
		return c.store.Delete(ctx, c.tokenKey())
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return c.store.Save(ctx, c.tokenKey(), b)
}

// Token returns the token the Client holds, if any.
func (c *Client) Token(ctx context.Context) *Token {
	if t := c.current(ctx); t != nil {
		cp := *t
		return &cp
	}
	return nil
}

func (t *Token) scheme() string {
	if strings.EqualFold(t.TokenType, "DPoP") {
		return "DPoP"
	}
	return "Bearer"
}

// Authorize adds the token, and for a DPoP-bound token a fresh proof, to
// req. Requests to any origin other than the server's get nothing.
func (c *Client) Authorize(req *http.Request) error {
	req.Header.Del("DPoP")
	if !sameOrigin(req.URL, c.server) {
		req.Header.Del("Authorization")
		return nil
	}
	t := c.current(req.Context())
	if t != nil && !t.Expiry.IsZero() && time.Now().After(t.Expiry) && t.RefreshToken != "" {
		c.flow.Lock()
		if c.current(req.Context()) == t {
			if nt, err := c.refresh(req.Context(), t); err == nil {
				t = nt
			}
		} else {
			t = c.current(req.Context())
		}
		c.flow.Unlock()
	}
	if t == nil {
		return nil
	}
	req.Header.Set("Authorization", t.scheme()+" "+t.AccessToken)
	if t.scheme() == "DPoP" {
		if c.dpopKey == nil {
			return errors.New("oauth: DPoP-bound token without a DPoP key")
		}
		c.mu.Lock()
		nonce := c.rsNonce
		c.mu.Unlock()
		proof, err := dpopProof(c.dpopKey, req.Method, htu(req.URL), t.AccessToken, nonce)
		if err != nil {
			return err
		}
		req.Header.Set("DPoP", proof)
	}
	return nil
}

// htu is a URL without query and fragment, as DPoP proofs name it.
func htu(u *url.URL) string {
	v := *u
	v.RawQuery, v.Fragment, v.RawFragment = "", "", ""
	return v.String()
}

// pickChallenge returns the Bearer or DPoP challenge of resp.
func pickChallenge(resp *http.Response) (Challenge, error) {
	cs, err := ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return Challenge{}, err
	}
	for _, ch := range cs {
		if strings.EqualFold(ch.Scheme, "DPoP") || strings.EqualFold(ch.Scheme, "Bearer") {
			return ch, nil
		}
	}
	return Challenge{Params: map[string]string{}}, nil
}

// Challenged handles the server's 401 or 403: it refreshes, logs in or
// steps up, and reports whether to send req again.
func (c *Client) Challenged(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	if !sameOrigin(req.URL, c.server) {
		return false, nil
	}
	ch, err := pickChallenge(resp)
	if err != nil {
		return false, err
	}
	c.flow.Lock()
	defer c.flow.Unlock()
	c.mu.Lock()
	final := c.final
	c.mu.Unlock()
	if final != nil {
		return false, final
	}
	t := c.current(ctx)
	sent := req.Header.Get("Authorization")
	if t != nil && sent != t.scheme()+" "+t.AccessToken {
		// Another request has obtained a new token meanwhile.
		return true, nil
	}
	errCode := ch.Params["error"]
	if resp.StatusCode == http.StatusForbidden {
		if errCode != "insufficient_scope" || t == nil {
			return false, nil
		}
		want := strings.Fields(ch.Params["scope"])
		if len(want) == 0 || containsAll(union(t.Scopes, t.Requested), want) {
			// Already granted or already refused: authorizing again would
			// not help. This is the limit on step-ups.
			return false, nil
		}
		tg, err := c.discover(ctx, ch)
		if err != nil {
			return false, err
		}
		if err := c.obtain(ctx, tg, union(t.Scopes, want)); err != nil {
			return false, err
		}
		return true, nil
	}
	if errCode == "use_dpop_nonce" && t != nil && t.scheme() == "DPoP" {
		nonce := resp.Header.Get("DPoP-Nonce")
		c.mu.Lock()
		old := c.rsNonce
		c.rsNonce = nonce
		c.mu.Unlock()
		return nonce != "" && nonce != old, nil
	}
	// Find out where tokens come from now: the server may have moved to
	// another authorization server, whose tokens the old one cannot
	// refresh.
	tg, err := c.discover(ctx, ch)
	if err != nil {
		return false, err
	}
	if t != nil && t.Issuer == tg.issuer && !t.issued.IsZero() && time.Since(t.issued) < freshRefusal {
		return false, fmt.Errorf("oauth: the server refused the token %s issued moments ago", tg.issuer)
	}
	if t != nil && t.Issuer == tg.issuer && t.RefreshToken != "" && !t.refreshed {
		if _, err := c.refresh(ctx, t); err == nil {
			return true, nil
		}
	}
	var prev []string
	if t != nil && t.Issuer == tg.issuer {
		prev = t.Scopes
	}
	scopes := strings.Fields(ch.Params["scope"])
	if len(scopes) > 0 {
		scopes = union(prev, scopes)
	} else {
		scopes = nil // from the metadata
	}
	if err := c.obtain(ctx, tg, scopes); err != nil {
		return false, err
	}
	return true, nil
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// target is what discovery found: the authorization server and the
// resource to ask tokens for.
type target struct {
	issuer   string
	resource string
	meta     *ServerMetadata
	prm      *ProtectedResourceMetadata
	legacy   bool // 2025-03-26: no PRM, the server's origin is the AS
	defaults bool // and not even metadata: the default endpoints
	dpop     bool // the challenge used the DPoP scheme
}

// discover finds the PRM and the authorization server metadata.
func (c *Client) discover(ctx context.Context, ch Challenge) (*target, error) {
	prm, err := c.fetchPRM(ctx, ch.Params["resource_metadata"])
	if errors.Is(err, errNotFound) {
		return c.discoverLegacy(ctx)
	}
	if err != nil {
		return nil, err
	}
	tg := &target{issuer: prm.AuthorizationServers[0], resource: prm.Resource, prm: prm,
		dpop: strings.EqualFold(ch.Scheme, "DPoP")}
	if tg.meta, err = c.fetchServerMetadata(ctx, tg.issuer); err != nil {
		return nil, err
	}
	return tg, nil
}

// discoverLegacy applies the 2025-03-26 rules: the authorization server is
// at the server's origin, its metadata there or else the default endpoints.
func (c *Client) discoverLegacy(ctx context.Context) (*target, error) {
	origin := c.server.Scheme + "://" + c.server.Host
	tg := &target{issuer: origin, resource: canonical(c.server), legacy: true}
	var m ServerMetadata
	err := c.getJSON(ctx, origin+"/.well-known/oauth-authorization-server", http.Header{"Mcp-Protocol-Version": {"2025-03-26"}}, &m)
	switch {
	case errors.Is(err, errNotFound):
		tg.defaults = true
		tg.meta = &ServerMetadata{
			Issuer:                        origin,
			AuthorizationEndpoint:         origin + "/authorize",
			TokenEndpoint:                 origin + "/token",
			RegistrationEndpoint:          origin + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
	case err != nil:
		return nil, err
	default:
		if m.Issuer != origin && m.Issuer != origin+"/" {
			return nil, fmt.Errorf("oauth: metadata at %s names issuer %q", origin, m.Issuer)
		}
		if err := m.checkEndpoints(); err != nil {
			return nil, err
		}
		tg.meta = &m
	}
	return tg, nil
}

// canonical is the server URL as a resource indicator: no query or
// fragment.
func canonical(u *url.URL) string {
	v := *u
	v.RawQuery, v.Fragment, v.RawFragment = "", "", ""
	return v.String()
}

// obtain gets a new token from tg; scopes, if nil, come from the
// metadata.
func (c *Client) obtain(ctx context.Context, tg *target, scopes []string) error {
	if scopes == nil && tg.prm != nil {
		scopes = slices.Clone(tg.prm.ScopesSupported)
	}
	if t := c.current(ctx); t != nil && t.Issuer != tg.issuer {
		// The server has moved to another authorization server: forget
		// everything issued by the old one.
		_ = c.setToken(ctx, nil)
	}
	var t *Token
	var err error
	switch c.cfg.Grant {
	case ClientCredentials:
		t, err = c.clientCredentials(ctx, tg, scopes)
	case JWTBearer:
		t, err = c.jwtBearer(ctx, tg, scopes)
		if err != nil {
			c.mu.Lock()
			c.final = err
			c.mu.Unlock()
		}
	case EnterpriseManaged:
		t, err = c.enterprise(ctx, tg, scopes)
	default:
		if slices.Contains(tg.meta.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
			scopes = append(scopes, "offline_access")
		}
		t, err = c.authorizationCode(ctx, tg, scopes)
	}
	if err != nil {
		return err
	}
	t.issued = time.Now()
	return c.setToken(ctx, t)
}

// dpopFor reports whether to bind tokens from tg with DPoP: when enabled
// and the authorization server supports it or the server asked for it.
func (c *Client) dpopFor(tg *target) bool {
	return c.dpopKey != nil && (tg.dpop || len(tg.meta.DPoPSigningAlgs) > 0)
}

// identity returns the client's credentials at tg's authorization server:
// pre-registered, a metadata document URL, or a (stored or new)
// registration.
func (c *Client) identity(ctx context.Context, tg *target, redirect string) (*registration, error) {
	m := tg.meta
	if c.cfg.ClientID != "" {
		if c.cfg.ClientIssuer != "" && c.cfg.ClientIssuer != tg.issuer {
			return nil, fmt.Errorf("oauth: the pre-registered client is for %q, but the server's authorization server is %q", c.cfg.ClientIssuer, tg.issuer)
		}
		r := &registration{ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret}
		switch {
		case c.cfg.PrivateKey != nil:
			r.AuthMethod = "private_key_jwt"
		case r.ClientSecret == "":
			r.AuthMethod = "none"
		case len(m.TokenEndpointAuthMethodsSupported) == 0 || slices.Contains(m.TokenEndpointAuthMethodsSupported, "client_secret_basic"):
			r.AuthMethod = "client_secret_basic"
		default:
			r.AuthMethod = "client_secret_post"
		}
		return r, nil
	}
	if m.ClientIDMetadataDocumentSupported && c.cfg.ClientMetadataURL != "" {
		return &registration{ClientID: c.cfg.ClientMetadataURL, AuthMethod: "none"}, nil
	}
	if b, err := c.store.Load(ctx, regKey(tg.issuer)); err == nil && b != nil {
		var r registration
		if json.Unmarshal(b, &r) == nil && r.ClientID != "" {
			return &r, nil
		}
	}
	if m.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("oauth: no client identity for %q: not pre-registered, and it offers neither client metadata documents nor registration", tg.issuer)
	}
	return c.register(ctx, tg, redirect)
}

// register performs dynamic client registration (RFC 7591).
func (c *Client) register(ctx context.Context, tg *target, redirect string) (*registration, error) {
	m := tg.meta
	method := "client_secret_basic"
	for _, want := range []string{"none", "client_secret_basic", "client_secret_post"} {
		if slices.Contains(m.TokenEndpointAuthMethodsSupported, want) {
			method = want
			break
		}
	}
	appType := "web"
	if ru, err := url.Parse(redirect); err == nil && (isLoopback(ru.Hostname()) || ru.Scheme != "https" && ru.Scheme != "http") {
		appType = "native"
	}
	name := c.cfg.ClientName
	if name == "" {
		name = "gomcp client"
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
		"application_type":           appType,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: registration: %w", err)
	}
	b, err := readBounded(resp, c.maxBytes)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("oauth: registration refused: %s%s", resp.Status, oauthError(b))
	}
	var r registration
	if err := json.Unmarshal(b, &r); err != nil || r.ClientID == "" {
		return nil, fmt.Errorf("oauth: registration: invalid response")
	}
	if r.AuthMethod == "" {
		r.AuthMethod = method
	}
	if r.ClientSecret == "" && r.AuthMethod != "private_key_jwt" {
		r.AuthMethod = "none"
	}
	if b, err := json.Marshal(&r); err == nil {
		_ = c.store.Save(ctx, regKey(tg.issuer), b)
	}
	return &r, nil
}

// oauthError formats an OAuth error response body, bounded.
func oauthError(body []byte) string {
	var e struct {
		Error string `json:"error"`
		Desc  string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	s := ": " + e.Error
	if e.Desc != "" {
		s += " (" + e.Desc + ")"
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// authorizationCode runs the authorization-code flow with PKCE.
func (c *Client) authorizationCode(ctx context.Context, tg *target, scopes []string) (*Token, error) {
	m := tg.meta
	if !m.supportsPKCE() {
		return nil, fmt.Errorf("oauth: authorization server %q does not support PKCE with S256", tg.issuer)
	}
	if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
		return nil, fmt.Errorf("oauth: authorization server %q lacks an authorization or token endpoint", tg.issuer)
	}
	redirect, err := c.ua.RedirectURL(ctx)
	if err != nil {
		return nil, err
	}
	reg, err := c.identity(ctx, tg, redirect)
	if err != nil {
		return nil, err
	}
	verifier := randomString(32)
	state := randomString(16)
	au, err := url.Parse(m.AuthorizationEndpoint)
	if err != nil {
		return nil, err
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", reg.ClientID)
	q.Set("redirect_uri", redirect)
	q.Set("state", state)
	q.Set("code_challenge", s256(verifier))
	q.Set("code_challenge_method", "S256")
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	q.Set("resource", tg.resource)
	au.RawQuery = q.Encode()
	back, err := c.ua.Authorize(ctx, au.String())
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(back.Get("state")), []byte(state)) != 1 {
		return nil, errors.New("oauth: the authorization response's state does not match the request")
	}
	// RFC 9207: the issuer check comes before anything else in the answer.
	if !tg.defaults {
		if iss, ok := back["iss"]; ok {
			if len(iss) != 1 || iss[0] != tg.issuer {
				return nil, fmt.Errorf("oauth: the authorization response comes from issuer %q, not %q", strings.Join(iss, ","), tg.issuer)
			}
		} else if m.IssParameterSupported {
			return nil, errors.New("oauth: the authorization response lacks the iss parameter its server advertises")
		}
	}
	if e := back.Get("error"); e != "" {
		return nil, fmt.Errorf("oauth: authorization refused: %.100s", e)
	}
	code := back.Get("code")
	if code == "" {
		return nil, errors.New("oauth: the authorization response has no code")
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"resource":      {tg.resource},
	}
	return c.tokenRequest(ctx, tg, reg, form, scopes)
}

// refresh uses t's refresh token; on success the new token is current.
func (c *Client) refresh(ctx context.Context, t *Token) (*Token, error) {
	m, err := c.fetchServerMetadata(ctx, t.Issuer)
	if err != nil {
		return nil, err
	}
	tg := &target{issuer: t.Issuer, resource: t.Resource, meta: m}
	reg, err := c.identity(ctx, tg, "")
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}, "resource": {t.Resource}}
	nt, err := c.tokenRequest(ctx, tg, reg, form, t.Scopes)
	if err != nil {
		_ = c.setToken(ctx, nil)
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = t.RefreshToken
	}
	nt.refreshed = true
	return nt, c.setToken(ctx, nt)
}

// clientCredentials runs the client credentials grant.
func (c *Client) clientCredentials(ctx context.Context, tg *target, scopes []string) (*Token, error) {
	reg, err := c.identity(ctx, tg, "")
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {tg.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return c.tokenRequest(ctx, tg, reg, form, scopes)
}

// jwtBearer presents the configured assertion, once.
func (c *Client) jwtBearer(ctx context.Context, tg *target, scopes []string) (*Token, error) {
	a, err := c.cfg.Assertion(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: assertion: %w", err)
	}
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {a}, "resource": {tg.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	reg := &registration{ClientID: c.cfg.ClientID, AuthMethod: "none"}
	if c.cfg.ClientID != "" {
		var err error
		if reg, err = c.identity(ctx, tg, ""); err != nil {
			return nil, err
		}
	}
	return c.tokenRequest(ctx, tg, reg, form, scopes)
}

// enterprise exchanges the identity provider's ID token for an ID-JAG and
// presents it to the authorization server.
func (c *Client) enterprise(ctx context.Context, tg *target, scopes []string) (*Token, error) {
	e := c.cfg.Enterprise
	idt, err := e.IDToken(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: ID token: %w", err)
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {tg.issuer},
		"resource":             {tg.resource},
		"subject_token":        {idt},
		"subject_token_type":   {tokenTypeIDToken},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	idp := &target{issuer: "", meta: &ServerMetadata{TokenEndpoint: e.TokenEndpoint}}
	idpReg := &registration{ClientID: e.ClientID, ClientSecret: e.ClientSecret, AuthMethod: "none"}
	if e.ClientSecret != "" {
		idpReg.AuthMethod = "client_secret_basic"
	}
	jag, err := c.postToken(ctx, idp, idpReg, form)
	if err != nil {
		return nil, fmt.Errorf("oauth: token exchange at the identity provider: %w", err)
	}
	if jag.IssuedTokenType != "" && jag.IssuedTokenType != tokenTypeIDJAG {
		return nil, fmt.Errorf("oauth: the identity provider issued %q, not an ID-JAG", jag.IssuedTokenType)
	}
	reg, err := c.identity(ctx, tg, "")
	if err != nil {
		return nil, err
	}
	return c.tokenRequest(ctx, tg, reg, url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag.AccessToken}}, scopes)
}

// tokenResponse is a token endpoint's answer.
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	RefreshToken    string `json:"refresh_token"`
	Scope           string `json:"scope"`
	IssuedTokenType string `json:"issued_token_type"`
}

// tokenRequest posts form to tg's token endpoint and makes a Token of the
// answer; requested is the scope asked for, kept when the answer omits it.
func (c *Client) tokenRequest(ctx context.Context, tg *target, reg *registration, form url.Values, requested []string) (*Token, error) {
	tr, err := c.postToken(ctx, tg, reg, form)
	if err != nil {
		return nil, err
	}
	tt := tr.TokenType
	switch {
	case strings.EqualFold(tt, "bearer"):
		tt = "Bearer"
	case strings.EqualFold(tt, "dpop"):
		if !c.dpopFor(tg) {
			return nil, errors.New("oauth: DPoP-bound token without a DPoP key")
		}
		tt = "DPoP"
	default:
		return nil, fmt.Errorf("oauth: unsupported token type %.40q", tr.TokenType)
	}
	t := &Token{AccessToken: tr.AccessToken, TokenType: tt, RefreshToken: tr.RefreshToken,
		Issuer: tg.issuer, Resource: tg.resource, Scopes: slices.Clone(requested), Requested: slices.Clone(requested)}
	if tr.Scope != "" {
		t.Scopes = strings.Fields(tr.Scope)
	}
	if tr.ExpiresIn > 0 {
		t.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return t, nil
}

// postToken sends a token request with client authentication and, when
// binding tokens, a DPoP proof (retried once with the server's nonce).
func (c *Client) postToken(ctx context.Context, tg *target, reg *registration, form url.Values) (*tokenResponse, error) {
	endpoint := tg.meta.TokenEndpoint
	if _, err := checkURL(endpoint); err != nil {
		return nil, err
	}
	form = cloneValues(form)
	header := http.Header{}
	switch reg.AuthMethod {
	case "client_secret_basic":
		header.Set("Authorization", "Basic "+basic(reg.ClientID, reg.ClientSecret))
	case "client_secret_post":
		form.Set("client_id", reg.ClientID)
		form.Set("client_secret", reg.ClientSecret)
	case "private_key_jwt":
		a, err := clientAssertion(c.cfg.PrivateKey, c.cfg.SigningAlgorithm, reg.ClientID, tg.issuer)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", reg.ClientID)
		form.Set("client_assertion_type", assertionTypeJWT)
		form.Set("client_assertion", a)
	default:
		if reg.ClientID != "" {
			form.Set("client_id", reg.ClientID)
		}
	}
	dpop := tg.issuer != "" && c.dpopFor(tg)
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.Header = header.Clone()
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if dpop {
			c.mu.Lock()
			nonce := c.asNonce[tg.issuer]
			c.mu.Unlock()
			proof, err := dpopProof(c.dpopKey, http.MethodPost, htu(req.URL), "", nonce)
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("oauth: token request: %w", err)
		}
		b, err := readBounded(resp, c.maxBytes)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			if dpop && attempt == 0 && resp.StatusCode == http.StatusBadRequest && resp.Header.Get("DPoP-Nonce") != "" &&
				strings.Contains(oauthError(b), "use_dpop_nonce") {
				c.mu.Lock()
				if len(c.asNonce) >= maxCachedIssuers {
					clear(c.asNonce)
				}
				c.asNonce[tg.issuer] = resp.Header.Get("DPoP-Nonce")
				c.mu.Unlock()
				continue
			}
			return nil, fmt.Errorf("oauth: token request refused: %s%s", resp.Status, oauthError(b))
		}
		var tr tokenResponse
		if err := json.Unmarshal(b, &tr); err != nil || tr.AccessToken == "" {
			return nil, errors.New("oauth: token response without an access token")
		}
		return &tr, nil
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// basic is the HTTP Basic credential of RFC 6749 §2.3.1 (each part form
// encoded first).
func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}
