//go:build unix

package transport

import (
	"os"
	"syscall"
)

// terminate asks p to exit with SIGTERM and reports whether the signal was
// sent.
func terminate(p *os.Process) bool { return p.Signal(syscall.SIGTERM) == nil }
