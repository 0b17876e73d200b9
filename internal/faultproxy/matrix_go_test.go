//go:build !interop

package faultproxy_test

import (
	"testing"
	"time"
)

// TestFaultMatrix runs the fault matrix against this module's server
// (mcphttp.Handler), in go test ./... (the interop stage, which builds with
// the interop tag, runs it against the TypeScript SDK 2 server instead).
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault matrix takes about twenty seconds")
	}
	runMatrix(t, target{start: startBackend, idle: true, idleTimeout: time.Second})
}
