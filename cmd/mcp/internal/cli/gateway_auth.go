package cli

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
	"sync"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/oauth"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// gatewayAuth holds mcp gateway's flags of who may call it and what each
// caller sees, and of how it logs in to its upstreams.
type gatewayAuth struct {
	access   string // --access FILE: the rules of who sees what
	issuer   string // --auth-issuer URL: callers need a token of this authorization server
	resource string // --auth-resource URI: the gateway's resource URI, the tokens' audience
	jwks     string // --auth-jwks URL: the issuer's key set, instead of its metadata's
	scopes   string // --auth-scopes 'A B': the scopes every request needs
}

// register declares the flags on fs.
func (ga *gatewayAuth) register(fs *flag.FlagSet) {
	fs.StringVar(&ga.access, "access", "", "")
	fs.StringVar(&ga.issuer, "auth-issuer", "", "")
	fs.StringVar(&ga.resource, "auth-resource", "", "")
	fs.StringVar(&ga.jwks, "auth-jwks", "", "")
	fs.StringVar(&ga.scopes, "auth-scopes", "", "")
}

// check refuses flags that go with others missing.
func (ga *gatewayAuth) check(httpAddr string) error {
	switch {
	case ga.issuer != "" && httpAddr == "":
		return errors.New("--auth-issuer goes with --http: over stdio the caller is whoever runs the gateway")
	case ga.issuer == "" && (ga.resource != "" || ga.jwks != "" || ga.scopes != ""):
		return errors.New("--auth-resource, --auth-jwks and --auth-scopes go with --auth-issuer")
	}
	return nil
}

// apply sets the access rules of --access and the upstreams' logins on
// opts.
func (ga *gatewayAuth) apply(opts *gateway.Options) error {
	opts.Authorizer = upstreamLogin(TokenDir())
	if ga.access == "" {
		return nil
	}
	data, err := readFileBounded(ga.access, gateway.MaxAccessSize)
	if err != nil {
		return err
	}
	rules, err := gateway.ParseAccess(data)
	if err != nil {
		return fmt.Errorf("%s: %w", ga.access, err)
	}
	opts.Access = append(opts.Access, rules...)
	return nil
}

// upstreamLogin is the gateway's Options.Authorizer: an HTTP upstream is
// logged in to with what mcp login stored for its URL (refreshed as
// needed, written back to the same file), unless its headers give an
// Authorization of their own; with "auth": "oauth" a stored login is
// required. The gateway never logs in itself (no browser, no prompt): a
// login it cannot refresh takes the upstream down with an error saying to
// run mcp login.
func upstreamLogin(dir string) func(string, *gateway.Upstream) (mcphttp.Authorizer, error) {
	return func(_ string, u *gateway.Upstream) (mcphttp.Authorizer, error) {
		if u.Auth != gateway.AuthOAuth {
			for k := range u.Headers {
				if strings.EqualFold(k, "Authorization") {
					return nil, nil
				}
			}
		}
		l := &storedLogin{dir: dir, url: u.URL}
		_, err := l.current()
		switch {
		case errors.As(err, new(notLoggedIn)) && u.Auth == gateway.AuthOAuth:
			return nil, fmt.Errorf(`"auth": "oauth", but no login is stored for %s: run mcp login %s`, u.URL, u.URL)
		case errors.As(err, new(notLoggedIn)):
			return nil, nil
		case err != nil:
			return nil, err
		}
		return l, nil
	}
}

// storedLogin is the authorizer of an upstream that mcp login logged in
// to: the oauth client of its token file, made again from the file after
// a refusal it could not resolve, so that running mcp login URL again
// brings the upstream back at the gateway's next attempt, without a
// restart.
type storedLogin struct {
	dir, url string

	mu sync.Mutex
	az mcphttp.Authorizer // nil: read the file (again)
}

// current returns the oauth client of the token file, reading the file if
// need be; notLoggedIn when there is none.
func (l *storedLogin) current() (mcphttp.Authorizer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.az == nil {
		az, err := storedAuthorizer(l.dir, l.url)
		if err != nil {
			return nil, err
		}
		if az == nil {
			return nil, notLoggedIn{l.url}
		}
		l.az = az
	}
	return l.az, nil
}

// Authorize implements mcphttp.Authorizer.
func (l *storedLogin) Authorize(req *http.Request) error {
	az, err := l.current()
	if err != nil {
		return err
	}
	return az.Authorize(req)
}

// Challenged implements mcphttp.Authorizer.
func (l *storedLogin) Challenged(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	az, err := l.current()
	if err != nil {
		return false, err
	}
	retry, err := az.Challenged(ctx, req, resp)
	if err != nil || !retry && resp.StatusCode == http.StatusUnauthorized {
		l.mu.Lock()
		if l.az == az {
			l.az = nil
		}
		l.mu.Unlock()
	}
	return retry, err
}

// listen resolves --http. Behind --auth-issuer every request needs a
// token, so an address off loopback wants --allow-remote but earns no
// warning; without it, ADDR is checked as for mcp proxy.
func (ga *gatewayAuth) listen(inv *invocation) (*net.TCPAddr, error) {
	if ga.issuer == "" {
		return inv.listenAddr("mcp gateway", "call every upstream's tools with the gateway's credentials")
	}
	addr, err := net.ResolveTCPAddr("tcp", inv.httpAddr)
	if err != nil {
		return nil, usageError{fmt.Errorf("--http %s: %w", inv.httpAddr, err)}
	}
	if (addr.IP == nil || !addr.IP.IsLoopback()) && !inv.remote {
		return nil, usageError{fmt.Errorf("--http %s is not a loopback address: give --allow-remote to listen there", inv.httpAddr)}
	}
	return addr, nil
}

// protect returns the wrapper putting the gateway's MCP endpoints behind
// the resource-server middleware (package auth) when --auth-issuer is
// set: a bearer token of that issuer meant for the gateway's resource
// URI (--auth-resource, default http://ADDR/mcp as listened), verified
// against its key set, with the --auth-scopes; the protected-resource
// metadata is served at its well-known paths. The verified principal and
// scopes are those --access rules name. Without --auth-issuer, h is
// served as it is.
func (ga *gatewayAuth) protect(ctx context.Context, mux *http.ServeMux, addr net.Addr) (func(http.Handler) http.Handler, error) {
	if ga.issuer == "" {
		return func(h http.Handler) http.Handler { return h }, nil
	}
	resource := ga.resource
	if resource == "" {
		resource = "http://" + addr.String() + "/mcp"
	}
	jwks := ga.jwks
	if jwks == "" {
		md, err := issuerMetadata(ctx, ga.issuer)
		if err != nil {
			return nil, err
		}
		jwks = md.JWKSURI
	}
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: ga.issuer, Audience: resource, JWKSURL: jwks})
	if err != nil {
		return nil, usageError{err}
	}
	scopes := strings.Fields(ga.scopes)
	rs, err := auth.New(auth.Options{Resource: resource, AuthorizationServers: []string{ga.issuer},
		Verifier: v, Scopes: scopes, ScopesSupported: scopes})
	if err != nil {
		return nil, usageError{err}
	}
	meta := http.HandlerFunc(rs.ServeMetadata)
	mux.Handle("/.well-known/oauth-protected-resource", meta)
	mux.Handle("/.well-known/oauth-protected-resource/", meta)
	return rs.Wrap, nil
}

// issuerMetadata fetches the RFC 8414 metadata of issuer (the well-known
// path inserted before the issuer's own) and checks that it names the
// same issuer and a key set.
func issuerMetadata(ctx context.Context, issuer string) (*oauth.ServerMetadata, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, usageError{fmt.Errorf("--auth-issuer %q is not an http(s) URL", issuer)}
	}
	u.Path = "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, usageError{err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, connectError{fmt.Errorf("--auth-issuer: its metadata: %w", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, connectError{fmt.Errorf("--auth-issuer: its metadata at %s: %s", u, resp.Status)}
	}
	var md oauth.ServerMetadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md); err != nil {
		return nil, connectError{fmt.Errorf("--auth-issuer: its metadata: %w", err)}
	}
	if md.Issuer != issuer || md.JWKSURI == "" {
		return nil, usageError{fmt.Errorf("--auth-issuer: its metadata names issuer %q (want %q) and jwks_uri %q", md.Issuer, issuer, md.JWKSURI)}
	}
	return &md, nil
}
