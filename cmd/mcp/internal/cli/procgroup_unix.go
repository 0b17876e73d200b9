//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that the
// Ctrl-C typed at the terminal (SIGINT to the foreground group) reaches
// only this command, which cancels its request, and not the server: mcp
// shell keeps its session, and the others end it in order (stdin closed,
// then SIGTERM) instead of racing the server's own death.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
