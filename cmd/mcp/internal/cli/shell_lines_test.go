//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// serveProgressLog serves, on stdio, a tool that reports progress, then
// logs, then writes a line on its own stderr, a moment apart, and answers.
func serveProgressLog() {
	s := mcp.NewServer(&mcp.Implementation{Name: "progresslog", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "tick"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		pause := func() { time.Sleep(100 * time.Millisecond) }
		if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
			return "", err
		}
		pause()
		if err := req.Log(ctx, mcp.LevelInfo, "tick", "a log line"); err != nil {
			return "", err
		}
		pause()
		if err := req.NotifyProgress(ctx, 2, 2, "all"); err != nil {
			return "", err
		}
		pause()
		fmt.Fprintln(os.Stderr, "server: a stderr line")
		pause()
		return "done", nil
	})
	serveStdio(s, err)
}

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
