package origin

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestSame(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://a.example/x", "https://A.example:443/y", true},
		{"http://a.example", "http://a.example:80", true},
		{"http://a.example", "https://a.example", false},
		{"http://127.0.0.1:1/x", "http://127.0.0.1:2/x", false},
		{"http://a.example", "http://b.example", false},
		{"http://[::1]:8/", "http://[::1]:8/z", true},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := Same(a, b); got != tt.want {
			t.Errorf("Same(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	req := func(u string) *http.Request {
		r, _ := http.NewRequest("GET", u, nil)
		return r
	}
	first := []*http.Request{req("http://127.0.0.1:1/mcp")}
	check := CheckRedirect("x", 2, nil)
	if err := check(req("http://127.0.0.1:2/mcp"), first); err == nil || !strings.HasPrefix(err.Error(), "x: refusing redirect") {
		t.Errorf("another port: %v", err)
	}
	if err := check(req("http://127.0.0.1:1/other"), first); err != nil {
		t.Errorf("same origin: %v", err)
	}
	if err := check(req("http://127.0.0.1:1/other"), append(first, first[0])); err == nil {
		t.Error("no limit")
	}
	theirs := errors.New("theirs")
	check = CheckRedirect("x", 2, func(*http.Request, []*http.Request) error { return theirs })
	if err := check(req("http://127.0.0.1:1/other"), first); err != theirs {
		t.Errorf("next not consulted: %v", err)
	}
	if err := check(req("http://evil.example/"), first); err == theirs || err == nil {
		t.Errorf("next overrode the origin check: %v", err)
	}
}
