//go:build race

package racetest

// Enabled is true: this binary was built with -race.
const Enabled = true
