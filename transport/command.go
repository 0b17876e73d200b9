package transport

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// DefaultShutdownTimeout is how long CommandStream.Close waits at each step
// of the shutdown sequence before escalating.
const DefaultShutdownTimeout = 2 * time.Second

// CommandOptions configures Command. A nil *CommandOptions selects the
// defaults.
type CommandOptions struct {
	// LineOptions configures the framing of the child's stdout.
	LineOptions

	// Stderr receives the child's standard error, which is passed through
	// untouched and never parsed as messages (MCP servers log there). When
	// nil, cmd.Stderr is used if set, and os.Stderr otherwise.
	Stderr io.Writer

	// ShutdownTimeout is how long Close waits for the child to exit after
	// closing its stdin, and again after SIGTERM, before escalating. Zero or
	// negative means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
}

// CommandStream is the Stream returned by Command: newline-delimited JSON
// over the stdin and stdout of a child process, which it owns.
type CommandStream struct {
	ls      *lineStream
	cmd     *exec.Cmd
	stdin   *os.File // our end of the child's stdin
	stdout  *os.File // our end of the child's stdout
	timeout time.Duration

	exited  chan struct{} // closed once the child has been reaped
	waitErr error         // cmd.Wait's result, set before exited is closed

	closeOnce sync.Once
	closeErr  error
}

// Command starts cmd, an MCP server speaking newline-delimited JSON on its
// stdin and stdout (the stdio transport, client side), and returns a Stream
// connected to it. The returned Stream is a *CommandStream. cmd must not
// have been started and must leave Stdin and Stdout unset; the child's
// standard error goes to opts.Stderr (see CommandOptions). opts may be nil.
//
// Reads, writes and framing behave as for NewLineStream. When the child
// exits on its own, Read returns io.EOF once its output is drained (later,
// if a grandchild keeps the pipe open); Wait reports how it exited.
//
// Close runs the MCP shutdown sequence: it closes the child's stdin, waits
// up to opts.ShutdownTimeout for the child to exit, then sends SIGTERM
// (on platforms without it, skips to the next step), waits again, and
// finally kills the child. It returns once the child has been reaped.
func Command(cmd *exec.Cmd, opts *CommandOptions) (jsonrpc.Stream, error) {
	s, err := startCommand(cmd, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func startCommand(cmd *exec.Cmd, opts *CommandOptions) (*CommandStream, error) {
	if cmd.Process != nil {
		return nil, errors.New("transport: Command: cmd already started")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("transport: Command: cmd.Stdin and cmd.Stdout must be unset")
	}
	if opts == nil {
		opts = &CommandOptions{}
	}
	timeout := opts.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	switch {
	case opts.Stderr != nil:
		cmd.Stderr = opts.Stderr
	case cmd.Stderr == nil:
		cmd.Stderr = os.Stderr
	}
	if cmd.WaitDelay == 0 {
		// Bound how long reaping waits for a stderr copy that a lingering
		// grandchild keeps open.
		cmd.WaitDelay = timeout
	}

	// Our own pipes (rather than StdinPipe/StdoutPipe) keep Wait from
	// closing the read end under a pending Read, and are pollable, so Read
	// can honour ctx and Close can interrupt it.
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}

	s := &CommandStream{
		ls:      newLineStream(stdout, stdin, nil, &opts.LineOptions, readBufferSize),
		cmd:     cmd,
		stdin:   stdin,
		stdout:  stdout,
		timeout: timeout,
		exited:  make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// Close shuts the child down as described at Command and releases the
// pipes. It returns once the child has been reaped. It is idempotent: every
// call waits for the child, and only the first reports an error. How the
// child exited is reported by Wait, not by Close.
func (s *CommandStream) Close() error {
	s.closeOnce.Do(func() {
		s.ls.closeWrite()
		err := s.stdin.Close()
		if !s.waitExit() && !(terminate(s.cmd.Process) && s.waitExit()) {
			_ = s.cmd.Process.Kill()
		}
		<-s.exited
		// Close the read side only now, so the child's last output could be
		// read while it shut down.
		s.ls.Close()
		if cerr := s.stdout.Close(); err == nil {
			err = cerr
		}
		s.closeErr = err
	})
	<-s.exited
	return s.closeErr
}

// waitExit waits up to the shutdown timeout for the child to be reaped.
func (s *CommandStream) waitExit() bool {
	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

// Wait blocks until the child has exited and returns its exit error as
// (*exec.Cmd).Wait does: nil for a zero exit status, an *exec.ExitError
// otherwise (after Close escalated, one reporting the signal).
func (s *CommandStream) Wait() error {
	<-s.exited
	return s.waitErr
}

// Done returns a channel that is closed once the child has exited and been
// reaped; Wait then returns at once.
func (s *CommandStream) Done() <-chan struct{} { return s.exited }

// Process returns the running child, for its pid or to signal it.
func (s *CommandStream) Process() *os.Process { return s.cmd.Process }

// Read returns the next message from the child. See Command and
// NewLineStream.
func (s *CommandStream) Read(ctx context.Context) (*jsonrpc.Message, error) {
	return s.ls.Read(ctx)
}

// Write sends m to the child. See Command and NewLineStream.
func (s *CommandStream) Write(ctx context.Context, m *jsonrpc.Message) error {
	return s.ls.Write(ctx, m)
}
