package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/oauth"
)

// The flags that put the HTTP endpoints behind the resource-server
// middleware of package auth, trusting one authorization server.
var (
	authIssuer     = flag.String("auth-issuer", "", "protect the HTTP endpoints with OAuth: accept the access tokens of the authorization server with this issuer `URL` (its RFC 8414 metadata gives the JWKS and introspection endpoints)")
	authResource   = flag.String("auth-resource", "", "with -auth-issuer: this server's resource `URI`, the audience of its tokens (default http://ADDR/mcp)")
	authScopes     = flag.String("auth-scopes", "", "with -auth-issuer: space-separated `scopes` every request needs")
	authToolScopes = flag.String("auth-tool-scopes", "", "with -auth-issuer: `tool=scope,...` scopes needed by tools/call of a tool")
	authIntrospect = flag.String("auth-introspect", "", "with -auth-issuer: verify tokens by introspection, authenticating as `client:secret`, instead of as JWTs")
	authDPoP       = flag.Bool("auth-dpop", false, "with -auth-issuer: accept DPoP-bound tokens (RFC 9449)")
)

// protect wraps h in the resource-server middleware when -auth-issuer is
// set; addr is where the server listens, for the default resource URI.
func protect(h http.Handler, addr net.Addr) (http.Handler, error) {
	if *authIssuer == "" {
		return h, nil
	}
	resource := *authResource
	if resource == "" {
		resource = "http://" + addr.String() + "/mcp"
	}
	md, err := asMetadata(*authIssuer)
	if err != nil {
		return nil, err
	}
	var v auth.Verifier
	if *authIntrospect != "" {
		id, secret, _ := strings.Cut(*authIntrospect, ":")
		if md.IntrospectionEndpoint == "" {
			return nil, errors.New("the authorization server has no introspection_endpoint")
		}
		v, err = auth.NewIntrospectionVerifier(auth.IntrospectionOptions{URL: md.IntrospectionEndpoint, ClientID: id, ClientSecret: secret, Issuer: md.Issuer, Audience: resource})
	} else {
		v, err = auth.NewJWTVerifier(auth.JWTOptions{Issuer: md.Issuer, Audience: resource, JWKSURL: md.JWKSURI})
	}
	if err != nil {
		return nil, err
	}
	opts := auth.Options{
		Resource:             resource,
		AuthorizationServers: []string{md.Issuer},
		Verifier:             v,
		Scopes:               strings.Fields(*authScopes),
		ScopesSupported:      strings.Fields(*authScopes),
	}
	if *authToolScopes != "" {
		opts.ToolScopes = make(map[string][]string)
		for _, pair := range strings.Split(*authToolScopes, ",") {
			tool, scope, ok := strings.Cut(pair, "=")
			if !ok {
				return nil, fmt.Errorf("-auth-tool-scopes: %q is not tool=scope", pair)
			}
			opts.ToolScopes[tool] = append(opts.ToolScopes[tool], scope)
			opts.ScopesSupported = append(opts.ScopesSupported, scope)
		}
	}
	if *authDPoP {
		opts.DPoP = &auth.DPoPOptions{}
	}
	rs, err := auth.New(opts)
	if err != nil {
		return nil, err
	}
	return rs.Wrap(h), nil
}

// asMetadata fetches the RFC 8414 metadata of issuer (the well-known
// suffix inserted before the issuer's path) and checks its issuer.
func asMetadata(issuer string) (*oauth.ServerMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("-auth-issuer %q is not a URL", issuer)
	}
	u.Path = "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("authorization server metadata: %s", resp.Status)
	}
	var md oauth.ServerMetadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if md.Issuer != issuer || md.JWKSURI == "" {
		return nil, fmt.Errorf("authorization server metadata: issuer %q (want %q), jwks_uri %q", md.Issuer, issuer, md.JWKSURI)
	}
	return &md, nil
}
