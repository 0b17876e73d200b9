package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gomcp/sdk/internal/origin"
)

// IntrospectionOptions configures an IntrospectionVerifier.
type IntrospectionOptions struct {
	// URL is the authorization server's introspection endpoint (RFC 7662).
	// Required.
	URL string
	// ClientID and ClientSecret authenticate this resource server at the
	// endpoint (HTTP Basic, RFC 7662 §2.1). Leave them empty when
	// HTTPClient authenticates by other means.
	ClientID, ClientSecret string
	// Issuer, when set, must equal the response's "iss". Set it when the
	// authorization server reports it.
	Issuer string
	// Audience is this resource server's identifier (RFC 8707); the
	// response's "aud" must contain it. Required.
	Audience string
	// HTTPClient calls the endpoint. Default: a client with a 10 s
	// Timeout. Whichever is used, a redirect to another origin is
	// refused, as it would carry the client secret and the token there.
	HTTPClient *http.Client
	// Leeway tolerates clock skew on exp and nbf. Default 1 minute.
	Leeway time.Duration
	// MaxResponseBytes bounds the response. Default 64 KiB.
	MaxResponseBytes int64
	// Now returns the current time (tests). Default time.Now.
	Now func() time.Time
}

// IntrospectionVerifier verifies opaque (or any) access tokens by asking
// the authorization server (RFC 7662) on every request. It caches
// nothing: a revoked token is refused at once. Put a cache in front of it
// (a Verifier of your own) when the round trip matters.
type IntrospectionVerifier struct{ opts IntrospectionOptions }

// NewIntrospectionVerifier returns a verifier calling opts.URL.
func NewIntrospectionVerifier(opts IntrospectionOptions) (*IntrospectionVerifier, error) {
	if opts.URL == "" || opts.Audience == "" {
		return nil, errors.New("auth: IntrospectionOptions needs URL and Audience")
	}
	hc := http.Client{Timeout: 10 * time.Second}
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	}
	hc.CheckRedirect = origin.CheckRedirect("auth: introspection", 10, hc.CheckRedirect)
	opts.HTTPClient = &hc
	if opts.Leeway <= 0 {
		opts.Leeway = time.Minute
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = 64 << 10
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &IntrospectionVerifier{opts: opts}, nil
}

// audience decodes "aud", a string or an array of strings.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = audience{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return errors.New(`"aud" is neither a string nor an array of strings`)
	}
	*a = l
	return nil
}

type introspection struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope"`
	ClientID  string   `json:"client_id"`
	Subject   string   `json:"sub"`
	Issuer    string   `json:"iss"`
	Audience  audience `json:"aud"`
	Expiry    *float64 `json:"exp"`
	NotBefore *float64 `json:"nbf"`
	TokenType string   `json:"token_type"`
	Cnf       *struct {
		JKT string `json:"jkt"`
	} `json:"cnf"`
}

// Verify asks the authorization server about token.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.opts.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("auth: introspection request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.opts.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	}
	var body json.RawMessage
	if err := getJSON(v.opts.HTTPClient, req, v.opts.MaxResponseBytes, "introspection response", &body); err != nil {
		return nil, err
	}
	var r introspection
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("auth: introspection response: %w", err)
	}
	if !r.Active {
		return nil, invalid("the token is not active")
	}
	var all map[string]any
	_ = json.Unmarshal(body, &all) // decoded above: cannot fail
	info := &TokenInfo{
		Subject:  r.Subject,
		ClientID: r.ClientID,
		Issuer:   r.Issuer,
		Audience: r.Audience,
		Scopes:   splitScopes(r.Scope),
		Claims:   all,
	}
	if r.Expiry != nil {
		info.Expiry = time.Unix(int64(*r.Expiry), 0)
	}
	if r.Cnf != nil {
		info.JKT = r.Cnf.JKT
	}
	var nbf time.Time
	if r.NotBefore != nil {
		nbf = time.Unix(int64(*r.NotBefore), 0)
	}
	if err := checkClaims(info, v.opts.Issuer, v.opts.Audience, nbf, v.opts.Now(), v.opts.Leeway); err != nil {
		return nil, err
	}
	return info, nil
}
