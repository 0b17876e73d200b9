package tasks_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/tasks"
)

// TestPanicLoggedOnStderr: a task handler's panic fails the task and, with
// no Logger set, is written on stderr with its stack; a discarding Logger
// silences it (issue 31, bug 4). It replaces os.Stderr for a while, so it
// must not run in parallel.
func TestPanicLoggedOnStderr(t *testing.T) {
	for _, logger := range []*slog.Logger{nil, slog.New(slog.DiscardHandler)} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(r)
			got <- string(b)
		}()
		saved := os.Stderr
		os.Stderr = w
		func() {
			defer func() { os.Stderr = saved }()
			s, _ := newServer(t, &tasks.Options{Logger: logger})
			for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
				cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: version})
				ctx := context.Background()
				call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "panics"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				var je *jsonrpc.Error
				if _, err := call.Wait(ctx); !errors.As(err, &je) {
					t.Errorf("%s: Wait = %v, want a JSON-RPC error", version, err)
				}
			}
		}()
		w.Close()
		out := <-got
		r.Close()
		if logger != nil {
			if out != "" {
				t.Errorf("stderr with a discarding Logger: %q", out)
			}
			continue
		}
		for _, want := range []string{"level=ERROR", "tasks: handler panicked", "panic=boom", `stack="goroutine `} {
			if strings.Count(out, want) != 2 {
				t.Errorf("stderr holds %q %d times, want 2 (a panic at each revision):\n%s", want, strings.Count(out, want), out)
			}
		}
	}
}
