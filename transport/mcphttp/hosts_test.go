package mcphttp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

func TestOriginPolicy(t *testing.T) {
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	pub := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}
	tests := []struct {
		name    string
		hosts   []string
		origins []string
		local   net.Addr
		host    string
		origin  string
		ok      bool
	}{
		{"loopback, localhost", nil, nil, loop, "localhost:8080", "", true},
		{"loopback, 127.0.0.1", nil, nil, loop, "127.0.0.1:9", "", true},
		{"loopback, [::1]", nil, nil, loop, "[::1]:8080", "", true},
		{"loopback, no port", nil, nil, loop, "localhost", "", true},
		{"loopback, sub.localhost", nil, nil, loop, "app.localhost:1", "", true},
		{"loopback, another IP", nil, nil, loop, "192.0.2.1:8080", "", false},
		{"loopback, rebinding host", nil, nil, loop, "evil.example.com:8080", "", false},
		{"loopback, rebinding host and origin", nil, nil, loop, "evil.example.com", "http://evil.example.com", false},
		{"loopback, evil origin", nil, nil, loop, "localhost:8080", "http://evil.example.com", false},
		{"loopback, localhost origin", nil, nil, loop, "localhost:8080", "http://localhost:3000", true},
		{"loopback, null origin", nil, nil, loop, "localhost:8080", "null", false},
		{"loopback, proxy name allowed", []string{"mcp.example.com"}, nil, loop, "mcp.example.com", "", true},
		{"loopback, proxy name any port", []string{"MCP.example.com"}, nil, loop, "mcp.example.com:443", "", true},
		{"allowed host with port only", []string{"mcp.example.com:443"}, nil, loop, "mcp.example.com:80", "", false},
		{"allowed hosts exclude localhost", []string{"mcp.example.com"}, nil, loop, "localhost:8080", "", false},
		{"any host", []string{"*"}, nil, loop, "whatever", "", true},
		{"public, DNS name", nil, nil, pub, "anything.example", "", false},
		{"public, rebinding host and origin", nil, nil, pub, "evil.example:8080", "http://evil.example:8080", false},
		{"public, IPv4 literal", nil, nil, pub, "192.0.2.1:8080", "", true},
		{"public, IPv4 literal, no port", nil, nil, pub, "192.0.2.1", "", true},
		{"public, IPv6 literal", nil, nil, pub, "[2001:db8::1]:8080", "", true},
		{"public, localhost (a published port)", nil, nil, pub, "localhost:9000", "http://localhost:9000", true},
		{"public, same-origin IP", nil, nil, pub, "192.0.2.1:8080", "http://192.0.2.1:8080", true},
		{"public, cross-origin", nil, nil, pub, "192.0.2.1:8080", "https://evil.example.com", false},
		{"public, listed name", []string{"myhost"}, nil, pub, "myhost:8080", "http://myhost:8080", true},
		{"public, name not listed", []string{"myhost"}, nil, pub, "evil.example", "", false},
		{"public, same-origin listed name", []string{"mcp.example.com"}, nil, pub, "mcp.example.com", "https://mcp.example.com", true},
		{"public, opted out", []string{"*"}, nil, pub, "anything.example", "", true},
		{"allowed origin", []string{"mcp.example.com"}, []string{"https://app.example.com/"}, pub, "mcp.example.com", "https://APP.example.com", true},
		{"origin not in list", []string{"mcp.example.com"}, []string{"https://app.example.com"}, pub, "mcp.example.com", "https://mcp.example.com", false},
		{"any origin", nil, []string{"*"}, loop, "localhost", "http://evil.example.com", true},
		{"unknown local address, DNS name", nil, nil, nil, "evil.example.com", "", false},
		{"unknown local address, IP literal", nil, nil, nil, "192.0.2.1", "", true},
		{"no Host", nil, nil, pub, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newOriginPolicy(tt.hosts, tt.origins)
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tt.local != nil {
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tt.local))
			}
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if msg := p.check(r); (msg == "") != tt.ok {
				t.Errorf("check = %q, want ok=%v", msg, tt.ok)
			}
		})
	}
}

// offLoopback serves h as if its listener were on a non-loopback address
// (as behind docker run -p 127.0.0.1:PORT:PORT): the local address a
// request arrived on is what the checks decide from.
func offLoopback(h http.Handler) http.Handler {
	pub := &net.TCPAddr{IP: net.IPv4(172, 17, 0, 2), Port: 8080}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, pub)))
	})
}

// A page rebound to a server that is not on loopback cannot call its tools:
// its DNS name is refused, while IP addresses and listed names work.
func TestRebindingOffLoopback(t *testing.T) {
	for _, hosts := range [][]string{nil, {"myhost"}} {
		h := NewHandler(testServer(), &HandlerOptions{AllowedHosts: hosts})
		t.Cleanup(func() { h.Close() })
		ts := httptest.NewServer(offLoopback(h))
		t.Cleanup(ts.Close)
		url := ts.URL + "/mcp"
		ip := strings.TrimPrefix(ts.URL, "http://")
		if hosts != nil {
			ip = "myhost:8080" // the list replaces the default
		}
		r := doRaw(t, ts.Client(), "POST", url, with(postHeaders("", ""), "Host", ip), initBody(mcp.Version20251125))
		if r.status != http.StatusOK {
			t.Fatalf("AllowedHosts %q: initialize with Host %s: %d %s", hosts, ip, r.status, r.body)
		}
		sid := r.header.Get(headerSessionID)
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"pwned"}}}`
		rebound := with(postHeaders(sid, mcp.Version20251125), "Host", "evil.example:8080", "Origin", "http://evil.example:8080")
		if r := doRaw(t, ts.Client(), "POST", url, rebound, call); r.status != http.StatusForbidden || strings.Contains(r.body, "pwned") {
			t.Errorf("AllowedHosts %q: rebound tools/call: %d %s, want 403", hosts, r.status, r.body)
		}
		r = doRaw(t, ts.Client(), "POST", url, with(postHeaders(sid, mcp.Version20251125), "Host", ip, "Origin", "http://"+ip), call)
		if r.status != http.StatusOK || !strings.Contains(r.body, "pwned") {
			t.Errorf("AllowedHosts %q: tools/call with Host %s: %d %s", hosts, ip, r.status, r.body)
		}
	}
}

func TestRebindingOffLoopbackSSE(t *testing.T) {
	for _, tt := range []struct {
		hosts  []string
		host   string
		status int // 404: past the check, to the unknown session
	}{
		{nil, "evil.example", http.StatusForbidden},
		{nil, "10.0.0.7:8080", http.StatusNotFound},
		{[]string{"myhost"}, "myhost", http.StatusNotFound},
		{[]string{"myhost"}, "evil.example", http.StatusForbidden},
	} {
		h := NewSSEHandler(testServer(), &SSEHandlerOptions{AllowedHosts: tt.hosts})
		ts := httptest.NewServer(offLoopback(h))
		hdr := map[string]string{"Content-Type": "application/json", "Host": tt.host}
		if r := doRaw(t, ts.Client(), "POST", ts.URL+"/sse?sessionId=nope", hdr, pingBody); r.status != tt.status {
			t.Errorf("AllowedHosts %q, Host %s: %d, want %d (%s)", tt.hosts, tt.host, r.status, tt.status, r.body)
		}
		ts.Close()
		h.Close()
	}
}

func TestCheckHosts(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	ts := httptest.NewServer(offLoopback(CheckHosts(next, []string{"myhost"}, nil)))
	defer ts.Close()
	for host, want := range map[string]int{"myhost:1": http.StatusTeapot, "evil.example": http.StatusForbidden, "127.0.0.1": http.StatusForbidden} {
		r := doRaw(t, ts.Client(), "GET", ts.URL, map[string]string{"Host": host}, "")
		if r.status != want {
			t.Errorf("Host %s: %d, want %d", host, r.status, want)
		}
		if want == http.StatusForbidden && !strings.Contains(r.body, "Host") {
			t.Errorf("Host %s: refusal %q does not say why", host, r.body)
		}
	}
}
