package mcphttp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/gomcp/sdk/jsonrpc"
)

// CheckHosts returns next behind the DNS-rebinding protection of Handler
// and SSEHandler: a request whose Host or Origin header the rules of
// HandlerOptions.AllowedHosts and AllowedOrigins refuse gets 403 with a
// JSON-RPC error saying which; the others go on to next. It is for HTTP
// front ends of MCP traffic that are not one of this package's handlers,
// such as a proxy, so that they defend exactly as the handlers do.
func CheckHosts(next http.Handler, allowedHosts, allowedOrigins []string) http.Handler {
	p := newOriginPolicy(allowedHosts, allowedOrigins)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := p.check(r); msg != "" {
			writeError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originPolicy implements the DNS-rebinding protection shared by both
// handlers: checks on the Host and Origin headers.
type originPolicy struct {
	hosts   []string // lower case; "*" allows any
	origins []string // lower case, no trailing slash; "*" allows any
}

func newOriginPolicy(hosts, origins []string) originPolicy {
	var p originPolicy
	for _, h := range hosts {
		p.hosts = append(p.hosts, strings.ToLower(strings.TrimSpace(h)))
	}
	for _, o := range origins {
		p.origins = append(p.origins, strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/"))
	}
	return p
}

// check returns "" when r may proceed, or why it is refused.
//
// Host: allowed when it matches an allowed host (an entry without a port
// matches any port; "*" matches anything). Without a list, a server that
// received r on a loopback address accepts only loopback names (localhost,
// 127.0.0.1, [::1], any port); on any other address (or one it cannot
// tell), it accepts IP addresses and loopback names but no other DNS name.
// A DNS-rebinding attack reaches a server under the attacker's own name,
// and a server not on loopback may still be reachable only from inside
// (published on 127.0.0.1 by a container runtime, on a private network).
// The decision is made for each request from the address it arrived on.
//
// Origin: requests without one (non-browser clients) pass. Otherwise it must
// match an allowed origin; without a list, it must be a loopback origin when
// the server is on loopback, or else have the same host as the request.
func (p *originPolicy) check(r *http.Request) string {
	loopback := onLoopback(r)
	host := strings.ToLower(r.Host)
	if !p.hostAllowed(host, loopback) {
		return "forbidden: Host " + quoteHeader(r.Host) + " is not allowed (a server not on loopback accepts DNS names only from its AllowedHosts)"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if !p.originAllowed(strings.ToLower(origin), host, loopback) {
		return "forbidden: Origin " + quoteHeader(origin) + " is not allowed"
	}
	return ""
}

func (p *originPolicy) hostAllowed(host string, loopback bool) bool {
	if len(p.hosts) == 0 {
		return isLoopbackHost(host) || !loopback && isIPHost(host)
	}
	name := hostName(host)
	for _, h := range p.hosts {
		// An entry without a port matches the name on any port.
		if h == "*" || h == host || (!hasPort(h) && hostName(h) == name) {
			return true
		}
	}
	return false
}

func (p *originPolicy) originAllowed(origin, host string, loopback bool) bool {
	if len(p.origins) > 0 {
		for _, o := range p.origins {
			if o == "*" || o == origin {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // includes the opaque origin "null"
	}
	if loopback {
		return isLoopbackHost(u.Host)
	}
	return u.Host == host
}

// onLoopback reports whether r arrived on a loopback address of this server.
func onLoopback(r *http.Request) bool {
	switch addr := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return addr.IP.IsLoopback()
	case net.Addr:
		ap, err := netip.ParseAddrPort(addr.String())
		return err == nil && ap.Addr().Unmap().IsLoopback()
	}
	return false
}

// isLoopbackHost reports whether host (with or without a port) names this
// machine's loopback interface.
func isLoopbackHost(host string) bool {
	name := hostName(host)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(name)
	return err == nil && a.Unmap().IsLoopback()
}

// isIPHost reports whether host (with or without a port) is an IP address
// rather than a DNS name, which no attacker can rebind.
func isIPHost(host string) bool {
	_, err := netip.ParseAddr(hostName(host))
	return err == nil
}

// hostName strips the port and IPv6 brackets from a host.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

func hasPort(host string) bool {
	_, _, err := net.SplitHostPort(host)
	return err == nil
}
