package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// panicServerEnv makes the test binary a stdio server whose tool panics
// (see init): "default" with no Logger, "off" with a discarding one.
const panicServerEnv = "MCP_TEST_PANIC_SERVER"

func init() {
	var logger *slog.Logger
	switch os.Getenv(panicServerEnv) {
	case "":
		return
	case "off":
		logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "panics", Version: "1"}, &mcp.ServerOptions{Logger: logger})
	err := mcp.AddTool(s, &mcp.Tool{Name: "boom"}, panickingTool)
	if err == nil {
		err = s.Run(context.Background(), transport.Stdio())
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		os.Exit(1)
	}
	os.Exit(0)
}

func panickingTool(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
	panic("boom!")
}

// TestPanicLoggedOnStderr: a handler's panic reaches the client as -32603
// and, with no Logger set, the server's stderr with its stack; an explicit
// discarding Logger silences it (issue 31, bug 4).
func TestPanicLoggedOnStderr(t *testing.T) {
	for _, mode := range []string{"default", "off"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), panicServerEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
			var stderr bytes.Buffer
			ct := &transport.CommandTransport{Cmd: cmd, Stderr: &stderr, ShutdownTimeout: 10 * time.Second}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
				t.Errorf("call: %v, want an internal error", err)
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			got := stderr.String()
			if mode == "off" {
				if got != "" {
					t.Errorf("stderr with a discarding Logger: %q", got)
				}
				return
			}
			for _, want := range []string{"ERROR", "handler panicked", "boom!", "mcp_test.panickingTool", "\ngoroutine "} {
				if !strings.Contains(got, want) {
					t.Errorf("stderr lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
