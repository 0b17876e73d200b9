//go:build pprof

package main

import (
	"log"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into the file MCPBENCH_CPUPROFILE names,
// if it names one, and returns what stops it. It is built only with
// -tags pprof: runtime/pprof and what it pulls in would otherwise lengthen
// the server's start, which the benchmark measures, by most of a
// millisecond that the other servers do not pay.
func startProfile() (stop func()) {
	path := os.Getenv("MCPBENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return pprof.StopCPUProfile
}
