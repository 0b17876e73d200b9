//go:build windows

package cli

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, which does not
// receive the console's Ctrl-C: it reaches only this command, which cancels
// its request, and not the server.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
