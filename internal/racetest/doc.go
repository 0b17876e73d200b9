// Package racetest tells a test whether its binary was built with -race,
// for the tests that loosen a bound the race detector's instrumentation
// breaks (allocations) or build the programs they run with -race too.
package racetest
