//go:build interop

package faultproxy_test

import (
	"bufio"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultMatrixTypeScript runs the fault matrix against the TypeScript
// SDK 2 server (interop/ts/server_v2.mjs over Streamable HTTP: 2026-07-28
// through createMcpHandler, 2025-11-25 through a sessionful
// NodeStreamableHTTPServerTransport); a restart is a new process, which
// knows none of the sessions. The fixture changes nothing on its own and
// sends no keep-alives, so notifications are not checked, and the client's
// idle timeout is longer than a fault. Needs $NODE22 and $MCP_TS_SDK_DIR
// (scripts/tools.sh); runs in the interop stage.
func TestFaultMatrixTypeScript(t *testing.T) {
	for _, n := range []string{"NODE22", "MCP_TS_SDK_DIR"} {
		if os.Getenv(n) == "" {
			t.Fatalf("%s is not set: run the interop tests via scripts/test.sh, or `source scripts/tools.sh` first", n)
		}
	}
	runMatrix(t, target{start: startTypeScript, idleTimeout: 10 * time.Second})
}

// startTypeScript starts server_v2.mjs on a free loopback port.
func startTypeScript(t *testing.T) *server {
	t.Helper()
	cmd := exec.Command(os.Getenv("NODE22"), "../../interop/ts/server_v2.mjs", "http")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		for sc.Scan() { // the rest, until the process ends
		}
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(30 * time.Second):
	}
	addr, ok := strings.CutPrefix(first, "listening on ")
	u, err := url.Parse(addr)
	if !ok || err != nil {
		stop()
		t.Fatalf("server_v2.mjs did not announce its address: %q", first)
	}
	return &server{base: u.Scheme + "://" + u.Host, path: u.Path, stop: stop}
}
