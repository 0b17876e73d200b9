package transport

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// blockingPipe returns a pipe whose read end is in blocking mode, as a
// client hands standard input to a server.
func blockingPipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// pollReaderOf is waitingStdin for f.
func pollReaderOf(t testing.TB, f *os.File) *pollReader {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var r *pollReader
	if cerr := rc.Control(func(fd uintptr) { r, err = newPollReader(int(fd)) }); cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return r
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	_ = rc.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	})
	return flags&syscall.O_NONBLOCK != 0
}

func TestPollReader(t *testing.T) {
	for _, mode := range []string{"blocking", "non-blocking"} {
		t.Run(mode, func(t *testing.T) {
			rf, w := blockingPipe(t)
			if mode == "non-blocking" {
				var err error
				if rf, w, err = os.Pipe(); err != nil { // in the poller: O_NONBLOCK
					t.Fatal(err)
				}
				defer rf.Close()
				defer w.Close()
			}
			before := nonblocking(t, rf)
			r := pollReaderOf(t, rf)
			buf := make([]byte, 16)
			read := func(want string) {
				t.Helper()
				if n, err := r.Read(buf); err != nil || string(buf[:n]) != want {
					t.Fatalf("Read = %q, %v; want %q", buf[:n], err, want)
				}
			}

			// Input already there, then input that comes while Read waits.
			_, _ = w.Write([]byte("one"))
			read("one")
			go func() { time.Sleep(20 * time.Millisecond); _, _ = w.Write([]byte("two")) }()
			read("two")

			// A deadline moved into the past ends a waiting Read; a future
			// one ends it when it passes; cleared, Read waits for input.
			done := make(chan error, 1)
			go func() { _, err := r.Read(buf); done <- err }()
			time.Sleep(20 * time.Millisecond)
			_ = r.SetReadDeadline(longAgo)
			if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("Read after the deadline = %v", err)
			}
			_ = r.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
			if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("Read past a future deadline = %v", err)
			}
			_ = r.SetReadDeadline(time.Time{})
			_, _ = w.Write([]byte("three"))
			read("three")

			// Close ends a waiting Read and releases the duplicate only: the
			// original keeps its descriptor and its mode.
			go func() { _, err := r.Read(buf); done <- err }()
			time.Sleep(20 * time.Millisecond)
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; !errors.Is(err, os.ErrClosed) {
				t.Fatalf("Read during Close = %v", err)
			}
			if _, err := r.Read(buf); !errors.Is(err, os.ErrClosed) {
				t.Fatalf("Read after Close = %v", err)
			}
			if nonblocking(t, rf) != before {
				t.Fatal("the descriptor's mode changed")
			}
			_, _ = w.Write([]byte("four"))
			if n, err := rf.Read(buf); err != nil || string(buf[:n]) != "four" {
				t.Fatalf("original Read = %q, %v", buf[:n], err)
			}
		})
	}
}

func TestPollReaderEOF(t *testing.T) {
	rf, w := blockingPipe(t)
	r := pollReaderOf(t, rf)
	defer r.Close()
	go func() { time.Sleep(20 * time.Millisecond); w.Close() }()
	if _, err := r.Read(make([]byte, 8)); err != io.EOF {
		t.Fatalf("Read at the end = %v", err)
	}
}
