package gateway

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gomcp/sdk/transport/mcphttp"
)

// upstreamAuth is the authorizer of an HTTP or SSE upstream (its OAuth
// login, from Options.Authorizer), shared by all of the upstream's
// sessions. It watches what the authorizer cannot resolve (a refused
// refresh, a login it may not do in a gateway, a 401 it has no answer to)
// and reports it to the upstream's supervisor, which takes the upstream
// down with that error rather than letting each call fail on its own.
type upstreamAuth struct {
	az     mcphttp.Authorizer
	failed chan error // the latest failure not yet seen by the supervisor
}

func newUpstreamAuth(az mcphttp.Authorizer) *upstreamAuth {
	return &upstreamAuth{az: az, failed: make(chan error, 1)}
}

// Authorize implements mcphttp.Authorizer.
func (a *upstreamAuth) Authorize(req *http.Request) error {
	err := a.az.Authorize(req)
	if err != nil {
		a.fail(fmt.Errorf("authorization: %w", err))
	}
	return err
}

// Challenged implements mcphttp.Authorizer. A 403 it does not resolve is
// the refusal of one request (a scope the login lacks), not a failure of
// the login: only the call fails.
func (a *upstreamAuth) Challenged(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	retry, err := a.az.Challenged(ctx, req, resp)
	switch {
	case err != nil:
		a.fail(fmt.Errorf("authorization: %w", err))
	case !retry && resp.StatusCode == http.StatusUnauthorized:
		a.fail(fmt.Errorf("authorization: the upstream refused the gateway's credentials (%s)", resp.Status))
	}
	return retry, err
}

// fail records err, keeping the first one the supervisor has not seen.
func (a *upstreamAuth) fail(err error) {
	select {
	case a.failed <- err:
	default:
	}
}

// forget drops a failure recorded before a new connection attempt, which
// that attempt will meet again if it still holds.
func (a *upstreamAuth) forget() {
	select {
	case <-a.failed:
	default:
	}
}

// authorizer is the upstream's authorizer for its HTTP transports, nil if
// it has none.
func (u *upstream) authorizer() mcphttp.Authorizer {
	if u.authz == nil {
		return nil
	}
	return u.authz
}

// authFailures delivers the failures of the upstream's authorizer; nil
// (never ready) when it has none.
func (u *upstream) authFailures() <-chan error {
	if u.authz == nil {
		return nil
	}
	return u.authz.failed
}

// setAuthorizer asks Options.Authorizer for the login of an HTTP or SSE
// upstream, as its Auth says.
func (g *Gateway) setAuthorizer(up *upstream) error {
	c := up.cfg
	stdio := c.Command != "" || c.Type == TransportStdio
	switch {
	case c.Auth != "" && c.Auth != AuthOAuth && c.Auth != AuthNone:
		return fmt.Errorf("gateway: upstream %q: auth %q: want %q or %q", up.name, c.Auth, AuthOAuth, AuthNone)
	case stdio && c.Auth == AuthOAuth:
		return fmt.Errorf("gateway: upstream %q: auth %q applies to a url, not to a command", up.name, AuthOAuth)
	case stdio || c.Auth == AuthNone:
		return nil
	}
	var az mcphttp.Authorizer
	if g.opts.Authorizer != nil {
		var err error
		if az, err = g.opts.Authorizer(up.name, c); err != nil {
			return fmt.Errorf("gateway: upstream %q: %w", up.name, err)
		}
	}
	if az == nil {
		if c.Auth == AuthOAuth {
			return fmt.Errorf("gateway: upstream %q: auth %q, but no authorizer for it (Options.Authorizer)", up.name, AuthOAuth)
		}
		return nil
	}
	up.authz = newUpstreamAuth(az)
	return nil
}
