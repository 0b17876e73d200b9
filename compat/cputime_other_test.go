//go:build !unix

package compat

import "testing"

// cpuMeter reports nothing where getrusage is not available.
func cpuMeter(*testing.B) func() { return func() {} }
