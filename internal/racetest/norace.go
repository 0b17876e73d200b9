//go:build !race

package racetest

// Enabled is false: this binary was built without -race.
const Enabled = false
