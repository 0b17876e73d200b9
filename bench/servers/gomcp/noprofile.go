//go:build !pprof

package main

// startProfile does nothing: build with -tags pprof for
// MCPBENCH_CPUPROFILE (see profile.go).
func startProfile() (stop func()) { return func() {} }
