package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// identity returns the client's credentials at tg's authorization server:
// pre-registered, a metadata document URL, or a (stored or new)
// registration.
func (c *Client) identity(ctx context.Context, tg *target, redirect string) (*registration, error) {
	m := tg.meta
	if c.cfg.ClientID != "" {
		if err := c.pin(ctx, tg.issuer); err != nil {
			return nil, err
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
		if json.Unmarshal(b, &r) == nil && r.ClientID != "" &&
			(redirect == "" || len(r.RedirectURIs) == 0 || slices.Contains(r.RedirectURIs, redirect)) {
			return &r, nil
		}
	}
	if m.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("oauth: no client identity for %q: not pre-registered, and it offers neither client metadata documents nor registration", tg.issuer)
	}
	return c.register(ctx, tg, redirect)
}

// pinKey is the Store entry of the issuer the pre-registered credentials
// were first used with.
func (c *Client) pinKey() string { return "client issuer " + c.server.String() + " " + c.cfg.ClientID }

// clientIssuer returns the issuer of the pre-registered credentials:
// ClientIssuer, else the one they were first used with, "" before that.
func (c *Client) clientIssuer(ctx context.Context) string {
	if c.cfg.ClientID == "" {
		return ""
	}
	if c.cfg.ClientIssuer != "" {
		return c.cfg.ClientIssuer
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pinned == "" {
		if b, err := c.store.Load(ctx, c.pinKey()); err == nil {
			c.pinned = string(b)
		}
	}
	return c.pinned
}

// pin refuses to use the pre-registered credentials with any issuer but
// theirs; the first use without ClientIssuer decides it, and the Store
// remembers it.
func (c *Client) pin(ctx context.Context, issuer string) error {
	want := c.clientIssuer(ctx)
	if want == "" {
		if err := c.store.Save(ctx, c.pinKey(), []byte(issuer)); err != nil {
			return fmt.Errorf("oauth: remembering the issuer of the pre-registered client: %w", err)
		}
		c.mu.Lock()
		c.pinned = issuer
		c.mu.Unlock()
		return nil
	}
	if want != issuer {
		return fmt.Errorf("oauth: the pre-registered client is for %q, but the server's authorization server is %q: its credentials are not sent there", want, issuer)
	}
	return nil
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
	if len(r.RedirectURIs) == 0 && redirect != "" {
		r.RedirectURIs = []string{redirect}
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
