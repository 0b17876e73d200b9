package transport

import (
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// waitingStdin returns a pollReader over standard input, a pipe or a
// socket, when the process has more than one processor; nil otherwise, or
// if it cannot be made.
//
// Why not the runtime poller, as elsewhere: a descriptor in the poller is
// read in non-blocking mode, so with one request in flight a Read finds
// nothing, parks its goroutine, and the next message then costs the read
// that failed, a wake-up of the thread waiting in epoll_wait, a hand-off
// of the goroutine to a processor and the read again: a third of a stdio
// server's CPU per call, and its throughput. A Read that waits in ppoll(2)
// on its own thread pays one system call instead, as a plain blocking read
// of standard input does (the hand-written floor of bench/, and most MCP
// servers). Like any blocking system call it keeps its processor (P) while
// it waits, until the runtime's monitor takes the P back for other work.
// With a single P that would happen at every wait, and the poller costs
// nothing extra there (the one thread waits in epoll_wait itself), so
// waitingStdin leaves it alone.
func waitingStdin() *pollReader {
	if runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	rc, err := os.Stdin.SyscallConn()
	if err != nil {
		return nil
	}
	var r *pollReader
	// Control, not Fd: Fd would put standard input into blocking mode.
	if cerr := rc.Control(func(fd uintptr) { r, err = newPollReader(int(fd)) }); cerr != nil || err != nil {
		return nil
	}
	return r
}

// pollReader reads a descriptor on the calling thread, waiting in ppoll(2)
// on it and on an eventfd that SetReadDeadline and Close signal, so that a
// waiting Read can be interrupted. It reads a duplicate and never changes
// the descriptor's mode, so nothing leaks into the processes that share
// standard input (a descriptor found in non-blocking mode works too).
type pollReader struct {
	fd   int // a duplicate: Close releases it, os.Stdin stays open
	wake int // eventfd: non-zero while there is news for a waiting Read

	mu       sync.Mutex // guards deadline and closed
	deadline time.Time
	closed   bool

	reading sync.Mutex // held by Read; Close waits for it before closing fd
}

func newPollReader(fd int) (*pollReader, error) {
	syscall.ForkLock.RLock()
	dup, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(dup)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	wake, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		syscall.Close(dup)
		return nil, errno
	}
	return &pollReader{fd: dup, wake: int(wake)}, nil
}

// pollFd is struct pollfd of poll(2).
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1 // POLLIN; errors and hang-ups are reported anyway

// Read waits until the descriptor is readable, the deadline passes or the
// reader is closed, and then reads once.
func (r *pollReader) Read(p []byte) (int, error) {
	r.reading.Lock()
	defer r.reading.Unlock()
	for {
		timeout, err := r.state()
		if err != nil {
			return 0, err
		}
		fds := [2]pollFd{{fd: int32(r.fd), events: pollIn}, {fd: int32(r.wake), events: pollIn}}
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 2,
			uintptr(unsafe.Pointer(timeout)), 0, 0, 0)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return 0, os.NewSyscallError("ppoll", errno)
		case fds[1].revents != 0:
			r.drainWake() // news: look at the state again
			continue
		case fds[0].revents == 0:
			continue // the deadline passed: state says so
		}
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR || err == syscall.EAGAIN:
			continue
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// state returns the ppoll timeout of the next wait (nil: none), or the
// error that ends the Read.
func (r *pollReader) state() (*syscall.Timespec, error) {
	r.mu.Lock()
	closed, deadline := r.closed, r.deadline
	r.mu.Unlock()
	if closed {
		return nil, os.ErrClosed
	}
	if deadline.IsZero() {
		return nil, nil
	}
	d := time.Until(deadline)
	if d <= 0 {
		return nil, os.ErrDeadlineExceeded
	}
	ts := syscall.NsecToTimespec(int64(d))
	return &ts, nil
}

func (r *pollReader) drainWake() {
	var buf [8]byte
	_, _ = syscall.Read(r.wake, buf[:])
}

func (r *pollReader) signal() {
	one := [8]byte{1}
	_, _ = syscall.Write(r.wake, one[:])
}

// SetReadDeadline sets the time after which a Read returns
// os.ErrDeadlineExceeded, waking a Read that waits; the zero time clears
// it.
func (r *pollReader) SetReadDeadline(t time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return os.ErrClosed
	}
	r.deadline = t
	r.signal()
	return nil
}

// Close wakes a Read that waits, waits for it to return, and releases both
// descriptors. Further Reads return os.ErrClosed.
func (r *pollReader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return os.ErrClosed
	}
	r.closed = true
	r.signal()
	r.mu.Unlock()
	r.reading.Lock()
	defer r.reading.Unlock()
	syscall.Close(r.wake)
	return syscall.Close(r.fd)
}
