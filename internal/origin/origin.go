// Package origin tells whether two URLs share an origin (RFC 6454: scheme,
// host and port, the port defaulted from the scheme) and keeps an HTTP
// client's redirects on the origin it started from, so that the credentials
// a request carries (Authorization, cookies, any header a user set) never
// reach another one. Package oauth and transport/mcphttp share it.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Same reports whether a and b have the same scheme, host and port.
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// CheckRedirect returns a policy for http.Client.CheckRedirect that refuses
// a redirect to an origin other than the first request's, with an error
// starting with who. Refusing rather than stripping headers keeps the
// rule simple and visible: whatever a request carries, nothing follows it
// to another origin, and the caller learns the URL to use instead. Other
// redirects go to next, or when next is nil are followed at most max times.
func CheckRedirect(who string, max int, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !Same(req.URL, via[0].URL) {
			return fmt.Errorf("%s: refusing redirect from %s to another origin (%s), which would receive the request's credentials", who, via[0].URL.Redacted(), req.URL.Redacted())
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= max {
			return errors.New(who + ": too many redirects")
		}
		return nil
	}
}
