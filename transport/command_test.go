//go:build unix

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// helperCmd returns a command re-executing the test binary in helper mode
// (see runHelper).
func helperCmd(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// The race detector otherwise sleeps a second when a child exits.
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

func startHelper(t *testing.T, mode string, opts *CommandOptions) *CommandStream {
	t.Helper()
	s, err := Command(helperCmd(mode), opts)
	if err != nil {
		t.Fatal(err)
	}
	cs, ok := s.(*CommandStream)
	if !ok {
		t.Fatalf("Command returned a %T", s)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func readTimeout(t *testing.T, s jsonrpc.Stream) (*jsonrpc.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s.Read(ctx)
}

func expectMessage(t *testing.T, s jsonrpc.Stream, want string) {
	t.Helper()
	m, err := readTimeout(t, s)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got := describe(m); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestCommandEcho(t *testing.T) {
	var stderr bytes.Buffer
	s := startHelper(t, "stderr", &CommandOptions{Stderr: &stderr, ShutdownTimeout: 5 * time.Second})
	ctx := context.Background()
	msgs := []*jsonrpc.Message{
		jsonrpc.NewRequest(jsonrpc.Int64ID(1), "initialize", json.RawMessage(`{"protocolVersion":"2025-06-18"}`)),
		jsonrpc.NewNotification("notifications/initialized", nil),
		jsonrpc.NewRequest(jsonrpc.StringID("x"), "tools/call", json.RawMessage(`{"name":"a\nb"}`)),
	}
	for _, m := range msgs {
		if err := s.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range msgs {
		expectMessage(t, s, string(m.AppendJSON(nil)))
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Close of a well-behaved child took %v", d)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}
	if got := stderr.String(); got != "helper: this goes to stderr\n" {
		t.Errorf("stderr: %q", got)
	}
	if err := s.Write(ctx, msgs[0]); err != jsonrpc.ErrClosed {
		t.Errorf("Write after Close: %v", err)
	}
	if _, err := s.Read(ctx); err != jsonrpc.ErrClosed {
		t.Errorf("Read after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCommandShutdownSequence(t *testing.T) {
	const timeout = 200 * time.Millisecond
	tests := []struct {
		mode       string
		timeout    time.Duration
		wantSignal syscall.Signal // 0: exits by itself
		minTime    time.Duration
	}{
		// A generous timeout: a slow machine must not turn this into SIGTERM.
		{"echo", 10 * time.Second, 0, 0},
		{"ignore-eof", timeout, syscall.SIGTERM, timeout},
		{"ignore-term", timeout, syscall.SIGKILL, 2 * timeout},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			s := startHelper(t, tt.mode, &CommandOptions{ShutdownTimeout: tt.timeout})
			if tt.mode == "echo" {
				if err := s.Write(context.Background(), jsonrpc.NewNotification("ready", nil)); err != nil {
					t.Fatal(err)
				}
			}
			expectMessage(t, s, ready) // the child is set up
			start := time.Now()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			d := time.Since(start)
			select {
			case <-s.Done():
			default:
				t.Fatal("Close returned before the child was reaped")
			}
			if d < tt.minTime {
				t.Errorf("Close took %v, want at least %v", d, tt.minTime)
			}
			if d > tt.minTime+8*time.Second {
				t.Errorf("Close took %v", d)
			}
			err := s.Wait()
			if tt.wantSignal == 0 {
				if err != nil {
					t.Fatalf("Wait: %v", err)
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("Wait: %v, want an *exec.ExitError", err)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tt.wantSignal {
				t.Fatalf("child ended with %v, want signal %v", ws, tt.wantSignal)
			}
		})
	}
}

func TestCommandChildExits(t *testing.T) {
	s := startHelper(t, "exit3", nil)
	expectMessage(t, s, ready)
	if _, err := readTimeout(t, s); err != io.EOF {
		t.Fatalf("Read after the child exited: %v, want io.EOF", err)
	}
	var ee *exec.ExitError
	if err := s.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait: %v, want exit status 3", err)
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close of an exited child took %v", d)
	}
}

func TestCommandReadContext(t *testing.T) {
	s := startHelper(t, "ignore-eof", &CommandOptions{ShutdownTimeout: 100 * time.Millisecond})
	expectMessage(t, s, ready)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := s.Read(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Read: %v, want context.DeadlineExceeded", err)
	}
	// A Read blocked on a silent child ends when the stream is closed.
	done := make(chan error, 1)
	go func() {
		_, err := s.Read(context.Background())
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	s.Close()
	select {
	case err := <-done:
		if err != jsonrpc.ErrClosed && err != io.EOF {
			t.Fatalf("Read: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"stdout set", func() *exec.Cmd { c := helperCmd("echo"); c.Stdout = io.Discard; return c }},
		{"stdin set", func() *exec.Cmd { c := helperCmd("echo"); c.Stdin = strings.NewReader(""); return c }},
		{"no such program", func() *exec.Cmd { return exec.Command("/nonexistent/mcp-server") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Command(tt.cmd(), nil)
			if err == nil || s != nil {
				t.Fatalf("got %v, %v; want a nil Stream and an error", s, err)
			}
		})
	}
	t.Run("already started", func(t *testing.T) {
		cmd := helperCmd("echo")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		if _, err := Command(cmd, nil); err == nil {
			t.Fatal("no error")
		}
	})
}

// The Stdio tests run Stdio in a child process, whose standard input and
// output are the pipes Command set up.

func TestStdioEcho(t *testing.T) {
	s := startHelper(t, "stdio-echo", nil)
	ctx := context.Background()
	msgs := []*jsonrpc.Message{
		jsonrpc.NewRequest(jsonrpc.Int64ID(1), "ping", nil),
		{Batch: []*jsonrpc.Message{jsonrpc.NewNotification("a", nil), jsonrpc.NewResponse(jsonrpc.Int64ID(2), nil)}},
		jsonrpc.NewErrorResponse(jsonrpc.StringID("e"), jsonrpc.NewError(-1, "oops")),
	}
	for _, m := range msgs {
		if err := s.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
		expectMessage(t, s, string(m.AppendJSON(nil)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

func TestStdioReadContext(t *testing.T) {
	s := startHelper(t, "stdio-cancel", nil)
	expectMessage(t, s, `{"jsonrpc":"2.0","method":"cancelled"}`)
	m := jsonrpc.NewRequest(jsonrpc.Int64ID(5), "after", nil)
	if err := s.Write(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	expectMessage(t, s, string(m.AppendJSON(nil)))
	if err := s.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

func TestStdioCloseUnblocksRead(t *testing.T) {
	s := startHelper(t, "stdio-close", nil)
	expectMessage(t, s, ready)
	if err := s.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}
