package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/internal/origin"
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
	// no registration takes place. They belong to one authorization
	// server, and no other is ever given them: ClientIssuer if set, else
	// the first one they are used with, a pin kept in the Store (so that a
	// FileStore keeps it across runs). A server that later names another
	// authorization server gets an error, not the credentials.
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

	refreshed bool      // obtained by refreshing: a refusal before its expiry calls for a login
	issued    time.Time // when a login (not a refresh) obtained it
}

// freshRefusal is how soon after a login a refusal of the new token (by
// the same authorization server's resource) means logging in again would
// not help.
const freshRefusal = 30 * time.Second

// expiryLeeway is how close to its expiry a refused token is taken to have
// expired (clock skew between the servers, the request's own time).
const expiryLeeway = 5 * time.Second

// registration is a client identity at one authorization server.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	// RedirectURIs are those registered: a user agent whose redirect URL
	// is not among them (a loopback one on another port) registers anew.
	RedirectURIs []string `json:"redirect_uris,omitempty"`
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
	final   error  // a JWTBearer refusal: no retry
	pinned  string // the issuer of the pre-registered credentials, once known
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
	hc.CheckRedirect = origin.CheckRedirect("oauth", 5, nil)
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
	// Within expiryLeeway of its expiry a refused token counts as expired:
	// the resource server's clock, and the time the answer took, can put it
	// past its end before ours does.
	expired := t != nil && !t.Expiry.IsZero() && time.Now().Add(expiryLeeway).After(t.Expiry)
	if t != nil && t.Issuer == tg.issuer && !t.issued.IsZero() && time.Since(t.issued) < freshRefusal && !expired {
		return false, fmt.Errorf("oauth: the server refused the token that %s issued moments ago", tg.issuer)
	}
	if t != nil && t.Issuer == tg.issuer && t.RefreshToken != "" && (!t.refreshed || expired) {
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
	issuer := prm.AuthorizationServers[0]
	if i := c.clientIssuer(ctx); i != "" && slices.Contains(prm.AuthorizationServers, i) {
		issuer = i // the one the pre-registered credentials are for
	}
	tg := &target{issuer: issuer, resource: prm.Resource, prm: prm,
		dpop: strings.EqualFold(ch.Scheme, "DPoP")}
	if tg.meta, err = c.fetchServerMetadata(ctx, tg.issuer); err != nil {
		return nil, err
	}
	return tg, nil
}

// legacyRevision is the MCP revision whose discovery rules discoverLegacy
// applies: mcp.Version20250326, spelled out because oauth imports nothing of
// mcp (the layer table in ARCHITECTURE.md).
const legacyRevision = "2025-03-26"

// discoverLegacy applies the 2025-03-26 rules: the authorization server is
// at the server's origin, its metadata there or else the default endpoints.
func (c *Client) discoverLegacy(ctx context.Context) (*target, error) {
	origin := c.server.Scheme + "://" + c.server.Host
	tg := &target{issuer: origin, resource: canonical(c.server), legacy: true}
	var m ServerMetadata
	err := c.getJSON(ctx, origin+"/.well-known/oauth-authorization-server", http.Header{"Mcp-Protocol-Version": {legacyRevision}}, &m)
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
