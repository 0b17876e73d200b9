//go:build unix

package cputime

import (
	"testing"
	"time"
)

// TestProcess: the CPU time grows while the process computes.
func TestProcess(t *testing.T) {
	start := Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at the start, want > 0", start)
	}
	for deadline := time.Now().Add(10 * time.Second); Process()-start < 5*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s of busy loop, Process() grew by %v, want at least 5 ms", Process()-start)
		}
	}
}
