//go:build linux

package cli

import (
	"os"
	"strings"
	"testing"
)

// TestShellLinesAfterProgress: on a terminal, the progress line is
// rewritten in place, and a log line, or a line the server writes on its
// stderr, starts a line of its own instead of being glued to it (issue 31,
// bug 6).
func TestShellLinesAfterProgress(t *testing.T) {
	p := startPTYShell(t, "shell", "-v", "--protocol-version", "2025-11-25", "-e", "MCP_CLI_TEST_SERVER=progresslog", os.Args[0])
	p.expect("progresslog> ")
	p.typeIn("call tick\r")
	p.expect("progress 1/2 (50%) half")
	if before := p.expect("[info] tick: a log line"); !strings.HasSuffix(before, "\n") {
		t.Errorf("the log line is glued to the progress line: %q\n%q", before, p.out.String())
	}
	p.expect("progress 2/2 (100%) all")
	if before := p.expect("server: a stderr line"); !strings.HasSuffix(before, "\n") {
		t.Errorf("the server's stderr line is glued to the progress line: %q", before)
	}
	p.expect("done")
	p.expect("progresslog> ")
	p.typeIn("\x04")
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("the shell: %v", err)
	}
}
