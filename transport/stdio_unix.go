//go:build unix

package transport

import (
	"io"
	"os"
	"syscall"
)

// openStdin returns the reader for Stdio and a function releasing it. When
// standard input is a pipe or a socket, the reader is waitingStdin's if
// there is one (Linux), or else a duplicate of its descriptor put into
// non-blocking mode, which registers it with the runtime poller: deadlines
// and Close then interrupt a blocked read. A terminal or a regular file is
// read through os.Stdin as it is: changing the mode of a terminal would
// leak into the shell that shares it.
func openStdin() (io.Reader, func() error) {
	nop := func() error { return nil }
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return os.Stdin, nop
	}
	if r := waitingStdin(); r != nil {
		return r, r.Close
	}
	rc, err := os.Stdin.SyscallConn()
	if err != nil {
		return os.Stdin, nop
	}
	dup := -1
	cerr := rc.Control(func(fd uintptr) {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
		d, err := syscall.Dup(int(fd))
		if err != nil {
			return
		}
		syscall.CloseOnExec(d)
		if syscall.SetNonblock(d, true) != nil {
			syscall.Close(d)
			return
		}
		dup = d
	})
	if cerr != nil || dup < 0 {
		return os.Stdin, nop
	}
	f := os.NewFile(uintptr(dup), "/dev/stdin")
	return f, func() error {
		err := f.Close() // wakes a blocked Read and waits for it to leave
		// The mode belongs to the open file description that standard
		// input shares with the duplicate: restore it for os.Stdin.
		_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
		return err
	}
}
