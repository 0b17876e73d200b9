package racetest

import (
	"runtime/debug"
	"testing"
)

// TestEnabled: Enabled says what the build settings say of -race.
func TestEnabled(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info")
	}
	race := false
	for _, s := range info.Settings {
		if s.Key == "-race" {
			race = s.Value == "true"
		}
	}
	if Enabled != race {
		t.Errorf("Enabled = %v, but the build settings say -race=%v", Enabled, race)
	}
}
