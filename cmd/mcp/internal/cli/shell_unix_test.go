//go:build unix

package cli

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestShellInterrupt: SIGINT cancels the command running, and the shell
// goes on with the next line.
func TestShellInterrupt(t *testing.T) {
	stdin, lines := io.Pipe()
	started := make(chan struct{})
	stderr := &lockedBuffer{want: "started", seen: started}
	var stdout lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"shell", "-e", "MCP_CLI_TEST_SERVER=block", os.Args[0]}, stdin, &stdout, stderr)
	}()
	io.WriteString(lines, "call block\n")
	<-started
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	io.WriteString(lines, "ping\n")
	lines.Close()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d", code)
	}
	errs := stderr.String()
	if !strings.Contains(errs, "interrupted") || !strings.Contains(errs, "cause:") {
		t.Errorf("stderr:\n%s", errs)
	}
	if !strings.Contains(stdout.String(), "ok (") {
		t.Errorf("the shell did not go on after the interrupt: %q", stdout.String())
	}
}
