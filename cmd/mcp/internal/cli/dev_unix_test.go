//go:build unix

package cli

import (
	"errors"
	"strconv"
	"syscall"
	"testing"
)

// checkStopped fails the test if a process of pids still runs.
func checkStopped(t *testing.T, pids []string) {
	t.Helper()
	for _, p := range pids {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("server %d still runs (%v)", pid, err)
		}
	}
}
