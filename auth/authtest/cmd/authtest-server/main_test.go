package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheckAddr: only loopback addresses are accepted unless
// -allow-remote, which warns.
func TestCheckAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:8080", "[::1]:0", "localhost:9000", "LOCALHOST:1"} {
		var warn bytes.Buffer
		if err := checkAddr(addr, false, &warn); err != nil || warn.Len() != 0 {
			t.Errorf("%s: %v, %q", addr, err, warn.String())
		}
	}
	for _, addr := range []string{":0", "0.0.0.0:8080", "[::]:0", "192.0.2.1:80", "example.com:80", "localhost.example.com:1"} {
		var warn bytes.Buffer
		if err := checkAddr(addr, false, &warn); err == nil || !strings.Contains(err.Error(), "-allow-remote") {
			t.Errorf("%s accepted without -allow-remote: %v", addr, err)
		}
		if err := checkAddr(addr, true, &warn); err != nil || !strings.Contains(warn.String(), "WARNING") {
			t.Errorf("%s with -allow-remote: %v, %q", addr, err, warn.String())
		}
	}
	if err := checkAddr("no port", true, &bytes.Buffer{}); err == nil {
		t.Error("an address without a port was accepted")
	}
}
