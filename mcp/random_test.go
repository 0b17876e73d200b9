package mcp

import (
	"testing"
	"time"
)

// TestServerRandomValues: the instance id and the request state key, made
// on first use, are stable for a server and distinct between servers, and
// a RequestStateKey given in the options is the one used, so that servers
// sharing it open each other's request state.
func TestServerRandomValues(t *testing.T) {
	a, b := NewServer(nil, nil), NewServer(nil, nil)
	if id := a.InstanceID(); id == "" || id != a.InstanceID() || id == b.InstanceID() {
		t.Errorf("instance ids %q, %q, %q", id, a.InstanceID(), b.InstanceID())
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	c := NewServer(nil, &ServerOptions{RequestStateKey: key})
	d := NewServer(nil, &ServerOptions{RequestStateKey: key})
	st := &requestState{Binding: "x", Expires: time.Now().Add(time.Minute).Unix()}
	for _, tt := range []struct {
		name       string
		seal, open *Server
		ok         bool
	}{
		{"same server, random key", a, a, true},
		{"another server's random key", a, b, false},
		{"a shared key", c, d, true},
		{"a shared key against a random one", c, a, false},
	} {
		token, err := tt.seal.sealState(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tt.open.openState(token, "x"); (err == nil) != tt.ok {
			t.Errorf("%s: open: %v", tt.name, err)
		}
	}
}
