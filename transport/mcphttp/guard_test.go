package mcphttp

import (
	"testing"
)

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
