package transport

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"time"
)

// ExitError is what CommandTransport.Read returns in place of io.EOF once
// the child has exited: how it exited and the last lines of its stderr, so
// that a client can say why its server went away in the middle of a call
// rather than just that the connection closed. errors.Is(err, io.EOF)
// holds, so code that waits for the end of the stream still sees it.
type ExitError struct {
	// Err is how the child exited, as (*exec.Cmd).Wait reports it: nil for
	// exit status 0, else an *exec.ExitError (errors.As finds it).
	Err error
	// Stderr holds the last lines the child wrote on stderr (at most
	// maxTailLines, each cut at maxTailLine bytes), when its stderr went
	// to a writer other than a file: a file (the terminal) shows them
	// already.
	Stderr []string
}

// Bounds on what ExitError keeps of the child's stderr.
const (
	maxTailLines = 5
	maxTailLine  = 200
	maxTailBytes = maxTailLines * (maxTailLine + 1)
)

func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString("transport: the server exited")
	if e.Err == nil {
		b.WriteString(" with exit status 0")
	} else {
		b.WriteString(" (" + e.Err.Error() + ")")
	}
	if len(e.Stderr) > 0 {
		b.WriteString("; its stderr ended with: " + strings.Join(e.Stderr, " | "))
	}
	return b.String()
}

// Is reports whether target is io.EOF: the stream has ended.
func (e *ExitError) Is(target error) bool { return target == io.EOF }

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// exitWait bounds how long Read waits, once the child's output ended, for
// the child to be reaped: a child that closed its stdout and goes on
// running makes Read return io.EOF after it.
const exitWait = time.Second

// exitError describes the child's exit once it has been reaped, or returns
// io.EOF if it goes on running.
func (r *commandRun) exitError(ctx context.Context) error {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-r.exited:
	case <-t.C:
		return io.EOF
	case <-ctx.Done():
		return io.EOF
	}
	e := &ExitError{Err: r.waitErr}
	if r.tail != nil {
		e.Stderr = r.tail.lines()
	}
	return e
}

// tailWriter keeps the last bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if len(p) > maxTailBytes {
		p = p[len(p)-maxTailBytes:]
	}
	if over := len(w.buf) + len(p) - maxTailBytes; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	w.buf = append(w.buf, p...)
	return n, nil
}

// lines returns the last non-empty lines kept, each cut to maxTailLine
// bytes (and to valid UTF-8).
func (w *tailWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range bytes.Split(w.buf, []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if len(l) > maxTailLine {
			l = l[:maxTailLine]
		}
		out = append(out, strings.ToValidUTF8(string(l), "\uFFFD"))
	}
	if len(out) > maxTailLines {
		out = out[len(out)-maxTailLines:]
	}
	return out
}
