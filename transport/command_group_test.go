//go:build unix

package transport

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandClosesProcessGroup: a child started in a process group of its
// own is ended with what it started (npx runs the server as a grandchild),
// whether the child exits when its stdin closes, dies of SIGTERM, or
// leaves a grandchild that ignores SIGTERM, which gets SIGKILL after the
// grace period (issue 31, bug 3).
func TestCommandClosesProcessGroup(t *testing.T) {
	const timeout = 200 * time.Millisecond
	cases := []struct {
		name, script string
		minTime      time.Duration
	}{
		{"child exits at EOF", `sleep 300 & echo $! > "$0"; read x; exit 0`, 0},
		{"child ends on SIGTERM", `sleep 300 & echo $! > "$0"; wait`, timeout},
		{"grandchild ignores SIGTERM", `(trap '' TERM; exec sleep 300) & echo $! > "$0"; wait`, 2 * timeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := exec.Command("sh", "-c", c.script, pidFile)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			ct := &CommandTransport{Cmd: cmd, ShutdownTimeout: timeout}
			if err := ct.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer ct.Close()
			pid := waitPID(t, pidFile)
			defer syscall.Kill(pid, syscall.SIGKILL) // should the test fail
			start := time.Now()
			if err := ct.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if d := time.Since(start); d < c.minTime {
				t.Errorf("Close took %v, want at least %v", d, c.minTime)
			}
			if running(pid) {
				t.Errorf("the grandchild %d still runs after Close", pid)
			}
		})
	}
}

// waitPID waits for the grandchild's pid in file.
func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(file)
		if s := strings.TrimSpace(string(b)); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the child wrote no pid")
	return 0
}

// running reports whether process pid runs (a zombie does not).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
