package compat

import (
	"context"
	"testing"

	"github.com/gomcp/sdk/internal/cputime"
)

// BenchmarkRoundTrip measures one tools/call round trip, client to server
// and back, for every SDK over every connection kind, in protocol revision
// 2025-11-25: BenchmarkRoundTrip/<sdk>/<kind>. Each iteration builds the
// call's params, calls the tool and reads the sum out of the structured
// result as a user of that SDK would.
func BenchmarkRoundTrip(b *testing.B) { benchRoundTrip(b, statefulVersion) }

// BenchmarkRoundTrip2026 is BenchmarkRoundTrip in the stateless 2026-07-28
// revision, which every SDK negotiates by default with its own kind.
func BenchmarkRoundTrip2026(b *testing.B) { benchRoundTrip(b, statelessVersion) }

func benchRoundTrip(b *testing.B, version string) {
	for _, s := range sdks {
		for _, kind := range kindsFor(version) {
			b.Run(s.name+"/"+kind, func(b *testing.B) {
				call, stop := s.open(b, kind, version)
				defer stop()
				ctx := context.Background()
				b.ReportAllocs()
				report := cputime.Meter(b)
				for b.Loop() {
					sum, err := call(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if sum != 3 {
						b.Fatalf("sum = %d, want 3", sum)
					}
				}
				report()
			})
		}
	}
}

// BenchmarkRoundTripParallel is BenchmarkRoundTrip with GOMAXPROCS
// goroutines sharing one session, over each SDK's in-memory transport: it
// shows how far a session scales with concurrent calls.
func BenchmarkRoundTripParallel(b *testing.B) {
	for _, s := range sdks {
		b.Run(s.name+"/"+kindInMemory, func(b *testing.B) {
			call, stop := s.open(b, kindInMemory, statefulVersion)
			defer stop()
			ctx := context.Background()
			b.ReportAllocs()
			report := cputime.Meter(b)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					sum, err := call(ctx)
					if err != nil {
						b.Error(err)
						return
					}
					if sum != 3 {
						b.Errorf("sum = %d, want 3", sum)
						return
					}
				}
			})
			report()
		})
	}
}

// TestRoundTripHarness runs each benchmark configuration a few times as a
// test, so that `go test` (without -bench) proves every SDK, connection kind
// and revision is wired correctly and shuts down cleanly.
func TestRoundTripHarness(t *testing.T) {
	for _, version := range []string{statefulVersion, statelessVersion} {
		for _, s := range sdks {
			for _, kind := range kindsFor(version) {
				t.Run(version+"/"+s.name+"/"+kind, func(t *testing.T) {
					call, stop := s.open(t, kind, version)
					defer stop()
					for range 3 {
						sum, err := call(context.Background())
						if err != nil {
							t.Fatal(err)
						}
						if sum != 3 {
							t.Fatalf("sum = %d, want 3", sum)
						}
					}
				})
			}
		}
	}
}
