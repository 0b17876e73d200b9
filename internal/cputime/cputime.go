// Package cputime measures the CPU time this process used, for the
// benchmarks that report it beside wall time: on a shared machine wall
// time per operation varies with what else runs, while CPU time counts
// only the work this process did (every goroutine, the scheduler and the
// garbage collector included).
package cputime

import "testing"

// Meter reports the process CPU time per operation of b as "cpu-ns/op"
// (nothing where it is not measured). Call it right before the timed loop
// and call the result after it.
func Meter(b *testing.B) func() {
	start := Process()
	return func() {
		if measured && b.N > 0 {
			b.ReportMetric(float64(Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
