package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gomcp/sdk/internal/origin"
)

// ProtectedResourceMetadata is the RFC 9728 document a resource server
// publishes: which authorization servers issue its tokens, and how to
// present them. Fields are named as on the wire (see the RFC for each).
// It is the one definition of the document: clients read it here, and
// package auth serves it (as auth.ProtectedResourceMetadata).
type ProtectedResourceMetadata struct {
	Resource                      string   `json:"resource"`
	AuthorizationServers          []string `json:"authorization_servers,omitempty"`
	ScopesSupported               []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported        []string `json:"bearer_methods_supported,omitempty"`
	ResourceName                  string   `json:"resource_name,omitempty"`
	ResourceDocumentation         string   `json:"resource_documentation,omitempty"`
	DPoPSigningAlgs               []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required,omitempty"`
}

// ServerMetadata is the RFC 8414 (or OpenID Connect discovery) document
// of an authorization server, the fields this package and resource
// servers (jwks_uri, introspection_endpoint) use.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                     string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint              string   `json:"registration_endpoint,omitempty"`
	JWKSURI                           string   `json:"jwks_uri,omitempty"`
	IntrospectionEndpoint             string   `json:"introspection_endpoint,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	GrantTypesSupported               []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgs      []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported,omitempty"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
	DPoPSigningAlgs                   []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// errNotFound marks a well-known URL that has no document, so that
// discovery tries the next one.
var errNotFound = errors.New("not found")

// checkURL refuses URLs this package will not talk to: anything but https,
// or http to a loopback host, and URLs with user information.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: bad URL %q: %w", raw, err)
	}
	if u.User != nil || u.Host == "" {
		return nil, fmt.Errorf("oauth: bad URL %q", raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, fmt.Errorf("oauth: %q: plain http is only allowed to a loopback host", raw)
		}
	default:
		return nil, fmt.Errorf("oauth: %q: scheme must be https", raw)
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool { return origin.Same(a, b) }

// readBounded reads at most max bytes of resp.Body and closes it.
func readBounded(resp *http.Response, max int64) ([]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("oauth: response from %s larger than %d bytes", resp.Request.URL.Redacted(), max)
	}
	return b, nil
}

// getJSON fetches a JSON document into v. A 404 (or 400, 405, 410) is
// errNotFound.
func (c *Client) getJSON(ctx context.Context, raw string, extra http.Header, v any) error {
	if _, err := checkURL(raw); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range extra {
		req.Header[k] = vs
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: GET %s: %w", raw, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusGone,
		resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusBadRequest,
		resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		resp.Body.Close()
		return errNotFound
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return fmt.Errorf("oauth: GET %s: %s", raw, resp.Status)
	}
	body, err := readBounded(resp, c.maxBytes)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("oauth: GET %s: invalid JSON document: %w", raw, err)
	}
	return nil
}

// fetchPRM finds the protected-resource metadata of the server: from the
// challenge's resource_metadata if any, else the path-based well-known URL,
// else the root one. It returns errNotFound when there is none (a server of
// the 2025-03-26 revision).
//
// A resource_metadata URL of another origin than the server's is ignored:
// the server's metadata is the server's to serve, and a 401 must not make
// the client fetch whatever URL it names (an internal service, another
// port of this machine).
func (c *Client) fetchPRM(ctx context.Context, fromChallenge string) (*ProtectedResourceMetadata, error) {
	if u, err := url.Parse(fromChallenge); err != nil || !sameOrigin(u, c.server) {
		fromChallenge = ""
	}
	var urls []string
	if fromChallenge != "" {
		urls = []string{fromChallenge}
	} else {
		u := *c.server
		u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
		p := strings.TrimSuffix(u.EscapedPath(), "/")
		if p != "" {
			u.Path, u.RawPath = "", ""
			urls = append(urls, u.String()+"/.well-known/oauth-protected-resource"+p)
		}
		u.Path, u.RawPath = "", ""
		urls = append(urls, u.String()+"/.well-known/oauth-protected-resource")
	}
	for _, raw := range urls {
		var prm ProtectedResourceMetadata
		err := c.getJSON(ctx, raw, nil, &prm)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := c.checkResource(prm.Resource); err != nil {
			return nil, err
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("oauth: protected-resource metadata %s names no authorization server", raw)
		}
		return &prm, nil
	}
	if fromChallenge != "" {
		return nil, fmt.Errorf("oauth: no protected-resource metadata at %s", fromChallenge)
	}
	return nil, errNotFound
}

// checkResource refuses a PRM whose resource does not cover the server
// URL: same origin, and the server's path under the resource's path.
func (c *Client) checkResource(resource string) error {
	r, err := url.Parse(resource)
	if err != nil || resource == "" || r.Fragment != "" {
		return fmt.Errorf("oauth: protected-resource metadata names an invalid resource %q", resource)
	}
	if !sameOrigin(r, c.server) {
		return fmt.Errorf("oauth: protected-resource metadata is for %q, not for %s", resource, c.server.Redacted())
	}
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(c.server.Path, "/")
	if sp != rp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("oauth: protected-resource metadata is for %q, not for %s", resource, c.server.Redacted())
	}
	return nil
}

// metadataURLs returns the well-known URLs of an issuer's metadata in the
// order the specification gives: for an issuer with a path, OAuth path
// insertion, OIDC path insertion, OIDC path appending (never the root);
// for one without, OAuth then OIDC.
func metadataURLs(issuer string) ([]string, error) {
	u, err := checkURL(issuer)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("oauth: issuer %q has a query or fragment", issuer)
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	if p == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + p,
		origin + "/.well-known/openid-configuration" + p,
		origin + p + "/.well-known/openid-configuration",
	}, nil
}

// fetchServerMetadata discovers the metadata of issuer and checks that the
// document names exactly that issuer.
func (c *Client) fetchServerMetadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	c.mu.Lock()
	if m, ok := c.asMeta[issuer]; ok {
		c.mu.Unlock()
		return m, nil
	}
	c.mu.Unlock()
	urls, err := metadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	for _, raw := range urls {
		var m ServerMetadata
		err := c.getJSON(ctx, raw, nil, &m)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("oauth: metadata at %s names issuer %q, not %q", raw, m.Issuer, issuer)
		}
		if err := m.checkEndpoints(); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if len(c.asMeta) >= maxCachedIssuers {
			clear(c.asMeta)
		}
		c.asMeta[issuer] = &m
		c.mu.Unlock()
		return &m, nil
	}
	return nil, fmt.Errorf("oauth: %w: no authorization server metadata for issuer %q", errNotFound, issuer)
}

// maxCachedIssuers bounds the cache of authorization server metadata.
const maxCachedIssuers = 32

func (m *ServerMetadata) checkEndpoints() error {
	for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if e == "" {
			continue
		}
		if _, err := checkURL(e); err != nil {
			return err
		}
	}
	return nil
}

func (m *ServerMetadata) supportsPKCE() bool {
	return slices.Contains(m.CodeChallengeMethodsSupported, "S256")
}
