//go:build unix

package compat

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports the process CPU time per operation as "cpu-ns/op". On a
// shared machine wall time per operation varies with what else runs; CPU
// time counts only the work this process did (every goroutine, the
// scheduler and the garbage collector included), so it compares SDKs more
// stably. Call it right before the timed loop and call the result after it.
func cpuMeter(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
