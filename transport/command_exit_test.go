//go:build unix

package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// TestCommandExitError: a child that exits while a request is pending
// makes Read return an *ExitError that names its exit status and the last
// lines of its stderr, bounded, and the pending call fails with
// jsonrpc.ErrClosed saying so (issue 31, bug 5).
func TestCommandExitError(t *testing.T) {
	want := "the server exited (exit status 3); its stderr ended with: crash line 3 | crash line 4 | crash line 5 | crash line 6 | crash line 7"
	t.Run("Read", func(t *testing.T) {
		var stderr bytes.Buffer
		s := startHelper(t, "crash", &CommandTransport{Stderr: &stderr})
		expectMessage(t, s, ready)
		if err := s.Write(context.Background(), jsonrpc.NewRequest(jsonrpc.Int64ID(1), "tools/call", nil)); err != nil {
			t.Fatal(err)
		}
		_, err := readTimeout(t, s)
		var xe *ExitError
		var ee *exec.ExitError
		if !errors.Is(err, io.EOF) || !errors.As(err, &xe) || !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("Read: %v, want an *ExitError of exit status 3", err)
		}
		if !strings.HasSuffix(err.Error(), want) || len(xe.Stderr) != 5 {
			t.Errorf("Read: %q (%d lines), want it to end with %q", err, len(xe.Stderr), want)
		}
		if !strings.Contains(stderr.String(), "crash line 1\n") {
			t.Errorf("stderr not passed through: %q", stderr.String())
		}
	})
	t.Run("pending call", func(t *testing.T) {
		ctx := context.Background()
		ct := &CommandTransport{Cmd: helperCmd("crash"), Stderr: io.Discard}
		if err := ct.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer ct.Close()
		conn := jsonrpc.NewConn(ct, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Message) (any, error) {
			return nil, nil
		})})
		defer conn.Close()
		err := conn.Call(ctx, "tools/call", nil, nil)
		if !errors.Is(err, jsonrpc.ErrClosed) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("call: %v, want jsonrpc.ErrClosed ending with %q", err, want)
		}
	})
	t.Run("client", func(t *testing.T) {
		// The child crashes on initialize: Connect says why.
		ct := &CommandTransport{Cmd: helperCmd("crash"), Stderr: io.Discard}
		cs, err := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125}).Connect(context.Background(), ct)
		if err == nil {
			cs.Close()
			t.Fatal("Connect succeeded")
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Connect: %v, want it to say %q", err, want)
		}
	})
}
