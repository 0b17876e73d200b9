package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gomcp/sdk/transport/mcphttp"
)

// TokenInfo is what a Verifier established about an access token. Handlers
// read it with TokenInfoFromContext to know who calls and what they may do.
type TokenInfo struct {
	// Subject is the resource owner (the "sub" claim), or for a client
	// acting on its own behalf (client credentials), usually its client id.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id").
	ClientID string
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// Audience lists the resources the token is meant for ("aud").
	Audience []string
	// Scopes are the scopes granted.
	Scopes []string
	// Expiry is when the token stops being valid (zero: no expiry given,
	// which the verifiers of this package refuse).
	Expiry time.Time
	// JKT is the RFC 7638 SHA-256 thumbprint of the key the token is bound
	// to (the "cnf.jkt" confirmation of RFC 9449), "" for a bearer token.
	JKT string
	// Claims holds every claim of the token (JWT) or field of the
	// introspection response, for application-specific checks.
	Claims map[string]any
}

// HasScope reports whether the token grants scope s.
func (t *TokenInfo) HasScope(s string) bool { return slices.Contains(t.Scopes, s) }

// Principal names the caller for session binding and task ownership:
// the issuer and the subject or, without a subject, the client id, so
// that equal subjects of two authorization servers never share sessions.
// Each part is a quoted Go string literal (strconv.Quote) and the kind of
// the second is named, as in
//
//	"https://as.example.com" sub "alice"
//	"https://as.example.com" client "svc"
//
// so the encoding is unambiguous: no subject ("client:svc", one with
// spaces or quotes) can spell another caller's principal.
func (t *TokenInfo) Principal() string {
	if t.Subject == "" {
		return strconv.Quote(t.Issuer) + " client " + strconv.Quote(t.ClientID)
	}
	return strconv.Quote(t.Issuer) + " sub " + strconv.Quote(t.Subject)
}

// A Verifier checks an access token and says what it grants. It returns an
// error wrapping ErrInvalidToken when the token is not acceptable (bad
// signature, expired, wrong issuer or audience, revoked), which the
// middleware answers with 401; any other error (the authorization server
// is unreachable) is answered with 503, so that clients do not throw away
// good tokens during an outage.
type Verifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// VerifierFunc adapts a function to the Verifier interface.
type VerifierFunc func(ctx context.Context, token string) (*TokenInfo, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	return f(ctx, token)
}

// ErrInvalidToken is wrapped by every error of a Verifier that means "this
// token is not acceptable".
var ErrInvalidToken = errors.New("invalid token")

// invalid returns an error wrapping ErrInvalidToken.
func invalid(msg string) error { return &tokenError{msg} }

type tokenError struct{ msg string }

func (e *tokenError) Error() string        { return "invalid token: " + e.msg }
func (e *tokenError) Is(target error) bool { return target == ErrInvalidToken }

type tokenKey struct{}

// WithTokenInfo returns a context carrying t, and t's principal for
// mcphttp (mcphttp.WithPrincipal), as the middleware does for the
// requests it lets through: an mcphttp.Handler behind it binds sessions
// to their creator's principal by default. Tests of handlers use it to
// simulate an authenticated request.
func WithTokenInfo(ctx context.Context, t *TokenInfo) context.Context {
	if t != nil {
		ctx = mcphttp.WithPrincipal(ctx, t.Principal())
	}
	return context.WithValue(ctx, tokenKey{}, t)
}

// TokenInfoFromContext returns the verified token of the request whose
// context is ctx, or nil when the request did not pass through the
// middleware. It works in HTTP handlers behind the middleware and in MCP
// feature handlers (tools, prompts, resources) behind an mcphttp.Handler
// so protected, where it reads the HTTP request's context through
// mcphttp.RequestInfo.
func TokenInfoFromContext(ctx context.Context) *TokenInfo {
	if t, ok := ctx.Value(tokenKey{}).(*TokenInfo); ok {
		return t
	}
	if info := mcphttp.RequestInfoFromContext(ctx); info != nil && info.Context() != nil {
		t, _ := info.Context().Value(tokenKey{}).(*TokenInfo)
		return t
	}
	return nil
}

// Principal returns the principal of the verified token of r ("" when r
// did not pass through the middleware). mcphttp's handlers bind sessions
// to it by default behind the middleware (a session is bound to the
// caller that created it, and another caller's request for it gets 403);
// give it to mcphttp.HandlerOptions.Principal (or
// SSEHandlerOptions.Principal) to say so explicitly.
func Principal(r *http.Request) string {
	if t := TokenInfoFromContext(r.Context()); t != nil {
		return t.Principal()
	}
	return ""
}

// checkClaims applies the checks common to every verifier: issuer,
// audience, expiry, not-before.
func checkClaims(t *TokenInfo, issuer, audience string, nbf time.Time, now time.Time, leeway time.Duration) error {
	if issuer != "" && t.Issuer != issuer {
		return invalid("issuer " + quote(t.Issuer) + " is not " + quote(issuer))
	}
	if audience != "" && !slices.ContainsFunc(t.Audience, func(a string) bool { return sameResource(a, audience) }) {
		return invalid("the token is not meant for " + quote(audience))
	}
	if t.Expiry.IsZero() {
		return invalid("the token has no expiry")
	}
	if !now.Before(t.Expiry.Add(leeway)) {
		return invalid("the token has expired")
	}
	if !nbf.IsZero() && now.Add(leeway).Before(nbf) {
		return invalid("the token is not valid yet")
	}
	return nil
}

// sameResource compares resource identifiers the way RFC 8707 clients
// produce them: a trailing slash is not significant.
func sameResource(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return `"` + s + `"`
}

// splitScopes splits a space-separated scope string.
func splitScopes(s string) []string { return strings.Fields(s) }
