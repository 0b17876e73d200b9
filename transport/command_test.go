//go:build unix

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// helperCmd returns a command re-executing the test binary in helper mode
// (see runHelper).
func helperCmd(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// The race detector otherwise sleeps a second when a child exits.
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

// startHelper starts a CommandTransport running the helper in mode, with
// the options of base (nil for none), and closes it when the test ends.
func startHelper(t *testing.T, mode string, base *CommandTransport) *CommandTransport {
	t.Helper()
	ct := &CommandTransport{Cmd: helperCmd(mode)}
	if base != nil {
		ct.LineOptions, ct.Stderr, ct.ShutdownTimeout = base.LineOptions, base.Stderr, base.ShutdownTimeout
	}
	if err := ct.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ct.Close() })
	return ct
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
	s := startHelper(t, "stderr", &CommandTransport{Stderr: &stderr, ShutdownTimeout: 5 * time.Second})
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
			s := startHelper(t, tt.mode, &CommandTransport{ShutdownTimeout: tt.timeout})
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
	_, err := readTimeout(t, s)
	var xe *ExitError
	if !errors.Is(err, io.EOF) || !errors.As(err, &xe) || xe.Stderr != nil {
		t.Fatalf("Read after the child exited: %v, want an *ExitError matching io.EOF, with no stderr (a file)", err)
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
	s := startHelper(t, "ignore-eof", &CommandTransport{ShutdownTimeout: 100 * time.Millisecond})
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

func TestCommandStartErrors(t *testing.T) {
	tests := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"no command", func() *exec.Cmd { return nil }},
		{"stdout set", func() *exec.Cmd { c := helperCmd("echo"); c.Stdout = io.Discard; return c }},
		{"stdin set", func() *exec.Cmd { c := helperCmd("echo"); c.Stdin = strings.NewReader(""); return c }},
		{"no such program", func() *exec.Cmd { return exec.Command("/nonexistent/mcp-server") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := &CommandTransport{Cmd: tt.cmd()}
			if err := ct.Start(context.Background()); err == nil {
				t.Fatal("Start succeeded")
			}
			if p := ct.Process(); p != nil {
				t.Errorf("Process() = %v after a failed Start", p)
			}
			if err := ct.Close(); err != nil {
				t.Errorf("Close after a failed Start: %v", err)
			}
		})
	}
	t.Run("no such program", func(t *testing.T) {
		err := (&CommandTransport{Cmd: exec.Command("/nonexistent/mcp-server")}).Start(context.Background())
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Start: %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("already started", func(t *testing.T) {
		cmd := helperCmd("echo")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer cmd.Process.Kill()
		if err := (&CommandTransport{Cmd: cmd}).Start(context.Background()); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("ctx done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ct := &CommandTransport{Cmd: helperCmd("echo")}
		if err := ct.Start(ctx); err != context.Canceled {
			t.Fatalf("Start: %v, want context.Canceled", err)
		}
		if ct.Process() != nil || ct.Cmd.Process != nil {
			t.Fatal("a child was started")
		}
	})
	t.Run("closed", func(t *testing.T) {
		ct := &CommandTransport{Cmd: helperCmd("echo")}
		if err := ct.Close(); err != nil {
			t.Fatal(err)
		}
		if err := ct.Start(context.Background()); err != jsonrpc.ErrClosed {
			t.Fatalf("Start after Close: %v, want jsonrpc.ErrClosed", err)
		}
		if _, err := ct.Read(context.Background()); err != jsonrpc.ErrClosed {
			t.Fatalf("Read after Close: %v, want jsonrpc.ErrClosed", err)
		}
	})
}

// TestCommandNotStarted checks that an unstarted transport fails plainly
// instead of blocking, and has no process.
func TestCommandNotStarted(t *testing.T) {
	ct := &CommandTransport{Cmd: helperCmd("echo")}
	ctx := context.Background()
	if p := ct.Process(); p != nil {
		t.Fatalf("Process() = %v before Start", p)
	}
	if _, err := ct.Read(ctx); err != ErrNotStarted {
		t.Errorf("Read: %v, want ErrNotStarted", err)
	}
	if err := ct.Write(ctx, jsonrpc.NewNotification("x", nil)); err != ErrNotStarted {
		t.Errorf("Write: %v, want ErrNotStarted", err)
	}
	if err := ct.Wait(); err != ErrNotStarted {
		t.Errorf("Wait: %v, want ErrNotStarted", err)
	}
	select {
	case <-ct.Done():
		t.Error("Done is closed before Start")
	default:
	}
}

// TestCommandDoubleStart checks that a second Start fails and leaves the
// first child running and usable.
func TestCommandDoubleStart(t *testing.T) {
	ct := startHelper(t, "echo", nil)
	done := ct.Done()
	pid := ct.Process().Pid
	if err := ct.Start(context.Background()); err == nil {
		t.Fatal("second Start succeeded")
	}
	if got := ct.Process().Pid; got != pid {
		t.Fatalf("Process().Pid changed from %d to %d", pid, got)
	}
	m := jsonrpc.NewNotification("still-here", nil)
	if err := ct.Write(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	expectMessage(t, ct, string(m.AppendJSON(nil)))
	if err := ct.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done: // the channel Done gave before is the child's
	default:
		t.Fatal("Done not closed after Close")
	}
	if err := ct.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// TestCommandConnect checks the transport as mcp.Client.Connect uses it:
// Connect starts the child, which then has a process, talks MCP over it, and
// Close shuts it down; a child that cannot start fails Connect with the
// start error.
func TestCommandConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			ct := &CommandTransport{Cmd: helperCmd("mcp-server")}
			if p := ct.Process(); p != nil {
				t.Fatalf("Process() = %v before Connect", p)
			}
			cs, err := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, ct)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			p := ct.Process()
			if p == nil || p.Pid <= 0 || p.Pid == os.Getpid() {
				t.Fatalf("Process() = %v after Connect", p)
			}
			if ct.Cmd.Process != p {
				t.Errorf("Process() = %v, Cmd.Process = %v", p, ct.Cmd.Process)
			}
			if got := cs.ProtocolVersion(); got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid"})
			if err != nil {
				t.Fatal(err)
			}
			want := strconv.Itoa(p.Pid)
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != want {
				t.Fatalf("the server says its pid is %+v, want %s", res.Content[0], want)
			}
			if err := cs.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := ct.Wait(); err != nil {
				t.Fatalf("the server exited with %v", err)
			}
		})
	}
	t.Run("start fails", func(t *testing.T) {
		ct := &CommandTransport{Cmd: exec.Command("/nonexistent/mcp-server")}
		cs, err := mcp.NewClient(nil, nil).Connect(ctx, ct)
		if err == nil {
			cs.Close()
			t.Fatal("Connect succeeded")
		}
		if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "mcp: connect: start: ") {
			t.Fatalf("Connect: %v, want mcp: connect: start: ... (fs.ErrNotExist)", err)
		}
		if ct.Process() != nil {
			t.Fatal("a process after a failed start")
		}
	})
	t.Run("handshake fails", func(t *testing.T) {
		// The child exits without a word: Connect fails, and the child
		// is reaped (Close ran) by the time it returns.
		ct := &CommandTransport{Cmd: helperCmd("exit3")}
		cs, err := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125}).Connect(ctx, ct)
		if err == nil {
			cs.Close()
			t.Fatal("Connect succeeded")
		}
		select {
		case <-ct.Done():
		default:
			t.Fatal("the child was not reaped when Connect failed")
		}
		if _, err := ct.Read(ctx); err != jsonrpc.ErrClosed {
			t.Fatalf("Read after the failed Connect: %v, want jsonrpc.ErrClosed", err)
		}
	})
}

// The Stdio tests run Stdio in a child process, whose standard input and
// output are the pipes Command set up.

// stdioHelper starts the helper in a Stdio mode with procs processors,
// and has it check that it reads standard input as it should with them:
// on Linux with more than one, through a pollReader (stdin_linux.go), and
// otherwise through the runtime poller.
func stdioHelper(t *testing.T, mode string, procs int) *CommandTransport {
	t.Helper()
	want := "*os.File"
	if runtime.GOOS == "linux" && procs > 1 {
		want = "*transport.pollReader"
	}
	cmd := helperCmd(mode)
	cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(procs), "GOMCP_TEST_STDIN_READER="+want)
	ct := &CommandTransport{Cmd: cmd}
	if err := ct.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ct.Close() })
	return ct
}

// forProcs runs test with one processor and with two.
func forProcs(t *testing.T, test func(t *testing.T, procs int)) {
	for _, procs := range []int{1, 2} {
		t.Run("GOMAXPROCS="+strconv.Itoa(procs), func(t *testing.T) { test(t, procs) })
	}
}

func TestStdioEcho(t *testing.T) {
	forProcs(t, func(t *testing.T, procs int) {
		s := stdioHelper(t, "stdio-echo", procs)
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
	})
}

func TestStdioReadContext(t *testing.T) {
	forProcs(t, func(t *testing.T, procs int) {
		s := stdioHelper(t, "stdio-cancel", procs)
		expectMessage(t, s, `{"jsonrpc":"2.0","method":"cancelled"}`)
		m := jsonrpc.NewRequest(jsonrpc.Int64ID(5), "after", nil)
		if err := s.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		expectMessage(t, s, string(m.AppendJSON(nil)))
		if err := s.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	})
}

func TestStdioCloseUnblocksRead(t *testing.T) {
	forProcs(t, func(t *testing.T, procs int) {
		s := stdioHelper(t, "stdio-close", procs)
		expectMessage(t, s, ready)
		if err := s.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	})
}
