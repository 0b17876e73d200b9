package mcphttp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
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
		{"public, any host", nil, nil, pub, "anything.example", "", true},
		{"public, same-origin", nil, nil, pub, "mcp.example.com", "https://mcp.example.com", true},
		{"public, cross-origin", nil, nil, pub, "mcp.example.com", "https://evil.example.com", false},
		{"allowed origin", nil, []string{"https://app.example.com/"}, pub, "mcp.example.com", "https://APP.example.com", true},
		{"origin not in list", nil, []string{"https://app.example.com"}, pub, "mcp.example.com", "https://mcp.example.com", false},
		{"any origin", nil, []string{"*"}, loop, "localhost", "http://evil.example.com", true},
		{"unknown local address", nil, nil, nil, "evil.example.com", "", true},
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

func TestIsJSONContent(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                true,
		"application/json; charset=utf-8": true,
		"Application/Json":                true,
		" application/json ":              true,
		"application/jsonx":               false,
		"text/plain":                      false,
		"":                                false,
	} {
		if got := isJSONContent(ct); got != want {
			t.Errorf("isJSONContent(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestAccepts(t *testing.T) {
	tests := []struct {
		accept []string
		typ    string
		want   bool
	}{
		{[]string{"application/json, text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json", "text/event-stream"}, "text/event-stream", true},
		{[]string{"application/json"}, "text/event-stream", false},
		{[]string{"*/*"}, "application/json", true},
		{[]string{"application/*;q=0.5"}, "application/json", true},
		{[]string{"text/event-stream;q=0"}, "text/event-stream", false},
		{[]string{"text/event-stream;q=0.0, */*"}, "text/event-stream", true},
		{[]string{"garbage;;;"}, "application/json", false},
		{nil, "application/json", false},
		{[]string{"Application/JSON"}, "application/json", true},
		{[]string{" text/event-stream ; Q = 0 "}, "text/event-stream", false},
		{[]string{"text/event-stream; charset=utf-8; q=1"}, "text/event-stream", true},
		{[]string{"application/json;q=0.001"}, "application/json", true},
		{[]string{""}, "application/json", false},
	}
	for _, tt := range tests {
		if got := accepts(tt.accept, tt.typ); got != tt.want {
			t.Errorf("accepts(%q, %s) = %v, want %v", tt.accept, tt.typ, got, tt.want)
		}
	}
	gz := []struct {
		v    []string
		want bool
	}{
		{[]string{"gzip"}, true},
		{[]string{"br, gzip;q=0.8"}, true},
		{[]string{"GZIP"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"deflate"}, false},
		{nil, false},
	}
	for _, tt := range gz {
		if got := acceptsGzip(tt.v); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v", tt.v, got)
		}
	}
}
