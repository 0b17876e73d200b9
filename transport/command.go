package transport

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// DefaultShutdownTimeout is how long CommandTransport.Close waits at each
// step of the shutdown sequence before escalating.
const DefaultShutdownTimeout = 2 * time.Second

// ErrNotStarted is returned by the CommandTransport methods that need the
// child (Read, Write, Wait) before Start, so that a transport handed to
// something other than mcp.Client.Connect (which starts it) fails plainly
// instead of blocking.
var ErrNotStarted = errors.New("transport: command not started")

// CommandTransport is the client side of the stdio transport: it runs an
// MCP server as a child process and exchanges newline-delimited JSON with it
// over the child's stdin and stdout. It is a description first and a
// connection once started, so that the code opening the session owns the
// process from start to shutdown:
//
//	t := &transport.CommandTransport{Cmd: exec.Command("my-server")}
//	cs, err := client.Connect(ctx, t) // starts the child, then the handshake
//	...
//	log.Print(t.Process().Pid)
//	cs.Close() // closes stdin, waits, SIGTERM, SIGKILL
//
// It implements jsonrpc.Starter: mcp.Client.Connect calls Start, and closes
// the transport if the handshake fails. Set the fields before Start and do
// not change them afterwards. A CommandTransport must not be copied once
// used, and it runs one child: Start succeeds at most once.
//
// Reads, writes and framing behave as for NewLineStream. When the child
// exits on its own, Read returns io.EOF once its output is drained (later,
// if a grandchild keeps the pipe open); Wait reports how it exited.
type CommandTransport struct {
	// Cmd is the server to run. It must not have been started and must
	// leave Stdin and Stdout unset: the transport connects them.
	Cmd *exec.Cmd

	// LineOptions configures the framing of the child's stdout.
	LineOptions

	// Stderr receives the child's standard error, which is passed through
	// untouched and never parsed as messages (MCP servers log there). When
	// nil, Cmd.Stderr is used if set, and os.Stderr otherwise.
	Stderr io.Writer

	// ShutdownTimeout is how long Close waits for the child to exit after
	// closing its stdin, and again after SIGTERM, before escalating. Zero or
	// negative means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	mu      sync.Mutex                 // serialises Start and Close; guards tried and exited
	tried   bool                       // Start was called
	closed  atomic.Bool                // Close was called
	exited  chan struct{}              // closed once the child has been reaped; made on demand
	running atomic.Pointer[commandRun] // set once Start has succeeded
}

// commandRun is the state of a started child. It never changes after Start
// publishes it, so Read and Write reach it without locking.
type commandRun struct {
	ls      *lineStream
	cmd     *exec.Cmd
	stdin   *os.File // our end of the child's stdin
	stdout  *os.File // our end of the child's stdout
	timeout time.Duration
	pgid    int         // the process group the child leads, or 0
	tail    *tailWriter // the end of the child's stderr, or nil

	exited  chan struct{} // closed once the child has been reaped
	waitErr error         // cmd.Wait's result, set before exited is closed

	closeOnce sync.Once
	closeErr  error
}

// exitedChan returns the channel closed when the child is reaped, making it
// if need be. t.mu must be held.
func (t *CommandTransport) exitedChan() chan struct{} {
	if t.exited == nil {
		t.exited = make(chan struct{})
	}
	return t.exited
}

// Start launches Cmd with its stdin and stdout connected to the transport.
// ctx bounds only the start, not the life of the child, which runs until it
// exits or Close ends it (use exec.CommandContext to tie the child to a
// context). Start fails if it was called before, if the transport is
// closed, if Cmd is nil, already started or has Stdin or Stdout set, or if
// the program cannot be run; a failed Start leaves nothing behind.
func (t *CommandTransport) Start(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.tried:
		return errors.New("transport: CommandTransport started twice")
	case t.closed.Load():
		return jsonrpc.ErrClosed
	}
	t.tried = true
	cmd := t.Cmd
	switch {
	case cmd == nil:
		return errors.New("transport: CommandTransport has no Cmd")
	case cmd.Process != nil:
		return errors.New("transport: CommandTransport: Cmd already started")
	case cmd.Stdin != nil || cmd.Stdout != nil:
		return errors.New("transport: CommandTransport: Cmd.Stdin and Cmd.Stdout must be unset")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	timeout := t.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	switch {
	case t.Stderr != nil:
		cmd.Stderr = t.Stderr
	case cmd.Stderr == nil:
		cmd.Stderr = os.Stderr
	}
	var tail *tailWriter
	if _, isFile := cmd.Stderr.(*os.File); !isFile {
		// exec copies it through a pipe anyway: keep its end for
		// ExitError. A file (the terminal) is passed on as it is.
		tail = &tailWriter{}
		cmd.Stderr = io.MultiWriter(cmd.Stderr, tail)
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
		return err
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		cmd.Stdin, cmd.Stdout = nil, nil
		stdin.Close()
		stdout.Close()
		return err
	}

	r := &commandRun{
		ls:      newLineStream(stdout, stdin, nil, &t.LineOptions, readBufferSize),
		cmd:     cmd,
		stdin:   stdin,
		stdout:  stdout,
		timeout: timeout,
		pgid:    processGroup(cmd),
		tail:    tail,
		exited:  t.exitedChan(),
	}
	go func() {
		r.waitErr = cmd.Wait()
		close(r.exited)
	}()
	t.running.Store(r)
	return nil
}

// run returns the started child's state, or the error for a transport with
// no child: ErrNotStarted, or jsonrpc.ErrClosed once closed.
func (t *CommandTransport) run() (*commandRun, error) {
	if r := t.running.Load(); r != nil {
		return r, nil
	}
	if t.closed.Load() {
		return nil, jsonrpc.ErrClosed
	}
	return nil, ErrNotStarted
}

// Read returns the next message from the child. See CommandTransport and
// NewLineStream. Once the child's output ends and it exits (unless Close
// was called), Read returns an *ExitError, which matches io.EOF.
func (t *CommandTransport) Read(ctx context.Context) (*jsonrpc.Message, error) {
	r, err := t.run()
	if err != nil {
		return nil, err
	}
	m, err := r.ls.Read(ctx)
	if err == io.EOF && !t.closed.Load() {
		err = r.exitError(ctx)
	}
	return m, err
}

// Write sends m to the child. See CommandTransport and NewLineStream.
func (t *CommandTransport) Write(ctx context.Context, m *jsonrpc.Message) error {
	r, err := t.run()
	if err != nil {
		return err
	}
	return r.ls.Write(ctx, m)
}

// WriteHeld is Write, except that the line may be kept back until the
// next Write or FlushHeld (jsonrpc.HoldingStream): a Conn forwarding
// requests that a peer sent together to the child sends them in one
// write.
func (t *CommandTransport) WriteHeld(ctx context.Context, m *jsonrpc.Message) error {
	r, err := t.run()
	if err != nil {
		return err
	}
	return r.ls.WriteHeld(ctx, m)
}

// FlushHeld writes the lines WriteHeld kept back (jsonrpc.HoldingStream).
func (t *CommandTransport) FlushHeld() error {
	r, err := t.run()
	if err != nil {
		return err
	}
	return r.ls.FlushHeld()
}

// Close runs the MCP shutdown sequence: it closes the child's stdin, waits
// up to ShutdownTimeout for the child to exit, then sends SIGTERM (on
// platforms without it, skips to the next step), waits again, and finally
// kills the child. It releases the pipes and returns once the child has
// been reaped. It is idempotent: every call waits for the child, and only
// the first reports an error. How the child exited is reported by Wait, not
// by Close. Closing a transport that was never started just makes it
// unusable.
//
// A child started in a process group of its own (on unix,
// Cmd.SysProcAttr.Setpgid, as the mcp command does) is ended with its
// group: the signals go to the whole group, and once the child is gone,
// what is left of the group (the server that `npx` or a shell script
// started, say) gets SIGTERM, then after ShutdownTimeout SIGKILL, so that
// no server outlives its client.
func (t *CommandTransport) Close() error {
	t.mu.Lock()
	t.closed.Store(true)
	r := t.running.Load()
	t.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.close()
}

func (r *commandRun) close() error {
	r.closeOnce.Do(func() {
		r.ls.closeWrite()
		err := r.stdin.Close()
		termed := false
		if !r.waitExit() {
			termed = terminate(r.cmd.Process, r.pgid)
			if !termed || !r.waitExit() {
				kill(r.cmd.Process, r.pgid)
			}
		}
		<-r.exited
		r.endGroup(termed)
		// Close the read side only now, so the child's last output could be
		// read while it shut down.
		r.ls.Close()
		if cerr := r.stdout.Close(); err == nil {
			err = cerr
		}
		r.closeErr = err
	})
	<-r.exited
	return r.closeErr
}

// endGroup ends what is left of the child's process group once the child
// is gone: SIGTERM (unless the group had it already), then, after the
// shutdown timeout, SIGKILL.
func (r *commandRun) endGroup(termed bool) {
	if !groupAlive(r.pgid) {
		return
	}
	if !termed {
		terminate(r.cmd.Process, r.pgid)
	}
	if !waitGroup(r.pgid, r.timeout) {
		kill(r.cmd.Process, r.pgid)
		waitGroup(r.pgid, r.timeout) // SIGKILL takes a moment too
	}
}

// waitGroup waits up to timeout for process group pgid to be gone, and
// reports whether it is.
func waitGroup(pgid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// waitExit waits up to the shutdown timeout for the child to be reaped.
func (r *commandRun) waitExit() bool {
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	select {
	case <-r.exited:
		return true
	case <-t.C:
		return false
	}
}

// Wait blocks until the child has exited and returns its exit error as
// (*exec.Cmd).Wait does: nil for a zero exit status, an *exec.ExitError
// otherwise (after Close escalated, one reporting the signal). Before Start
// it returns ErrNotStarted at once.
func (t *CommandTransport) Wait() error {
	r := t.running.Load()
	if r == nil {
		return ErrNotStarted
	}
	<-r.exited
	return r.waitErr
}

// Done returns a channel that is closed once the started child has exited
// and been reaped; Wait then returns at once. It may be called before Start
// (the channel then stays open until a child has run and exited).
func (t *CommandTransport) Done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exitedChan()
}

// Process returns the running child, for its pid or to signal it, once
// Start has succeeded; before that it returns nil.
func (t *CommandTransport) Process() *os.Process {
	if r := t.running.Load(); r != nil {
		return r.cmd.Process
	}
	return nil
}

var _ jsonrpc.Starter = (*CommandTransport)(nil)
