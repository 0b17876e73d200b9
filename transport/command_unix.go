//go:build unix

package transport

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// processGroup returns the id of the process group the started cmd leads,
// when it was started in a group of its own (SysProcAttr.Setpgid with
// Pgid 0), and 0 otherwise.
func processGroup(cmd *exec.Cmd) int {
	if a := cmd.SysProcAttr; a != nil && a.Setpgid && a.Pgid == 0 {
		return cmd.Process.Pid
	}
	return 0
}

// terminate asks p, or the whole group pgid when not 0, to exit with
// SIGTERM and reports whether the signal was sent.
func terminate(p *os.Process, pgid int) bool {
	if pgid != 0 {
		return syscall.Kill(-pgid, syscall.SIGTERM) == nil
	}
	return p.Signal(syscall.SIGTERM) == nil
}

// kill kills p, and the whole group pgid when not 0.
func kill(p *os.Process, pgid int) {
	if pgid != 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	_ = p.Kill()
}

// groupAlive reports whether a process of group pgid is still running.
// Where /proc tells, zombies do not count: an orphan that exited stays one
// until its new parent reaps it, which a container's init may never do.
func groupAlive(pgid int) bool {
	if pgid == 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything, so
		// the fields are counted from its closing parenthesis.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
