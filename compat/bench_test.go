package compat

import (
	"context"
	"testing"
)

// BenchmarkRoundTrip measures one tools/call round trip, client to server
// and back, for every SDK over every connection kind: BenchmarkRoundTrip/
// <sdk>/<kind>. Each iteration builds the call's params, calls the tool and
// reads the sum out of the structured result as a user of that SDK would.
func BenchmarkRoundTrip(b *testing.B) {
	for _, s := range sdks {
		for _, kind := range kinds {
			b.Run(s.name+"/"+kind, func(b *testing.B) {
				call, stop := s.open(b, kind)
				defer stop()
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					sum, err := call(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if sum != 3 {
						b.Fatalf("sum = %d, want 3", sum)
					}
				}
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
			call, stop := s.open(b, kindInMemory)
			defer stop()
			ctx := context.Background()
			b.ReportAllocs()
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
		})
	}
}

// TestRoundTripHarness runs each benchmark configuration a few times as a
// test, so that `go test` (without -bench) proves every SDK and connection
// kind is wired correctly and shuts down cleanly.
func TestRoundTripHarness(t *testing.T) {
	for _, s := range sdks {
		for _, kind := range kinds {
			t.Run(s.name+"/"+kind, func(t *testing.T) {
				call, stop := s.open(t, kind)
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
