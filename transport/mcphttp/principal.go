package mcphttp

import (
	"context"
	"net/http"
)

type principalKey struct{}

// WithPrincipal returns a copy of ctx recording principal, the caller
// that authentication established for a request (a verified token's
// issuer and subject, a client certificate's name). Authentication
// middleware in front of a Handler or SSEHandler calls it on the request's
// context (auth.ResourceServer.Wrap does): the handlers then bind each
// session to the principal that created it, with no option set (see
// HandlerOptions.Principal and UnboundSessions).
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalFromContext returns the principal recorded on ctx by
// WithPrincipal, "" when none was.
func PrincipalFromContext(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// contextPrincipal names the caller of r by the principal recorded on its
// context.
func contextPrincipal(r *http.Request) string { return PrincipalFromContext(r.Context()) }

// sessionPrincipal returns the Principal function a handler binds its
// sessions with: the option when set, else, unless unbound, the principal
// that authentication middleware recorded on the request (none, "", for
// requests without one, which then may use only sessions created
// without one).
func sessionPrincipal(option func(*http.Request) string, unbound bool) func(*http.Request) string {
	if option != nil || unbound {
		return option
	}
	return contextPrincipal
}
