// Package alloctest measures what decoding hostile input costs, for the
// tests that bound it in jsonrpc, transport and transport/mcphttp (a batch
// of many tiny elements, and the heap a function allocated), and what a
// forwarded call allocates, for the gateway's guard on it.
package alloctest

import "runtime"

// TinyBatch returns a batch of n empty objects, [{},{},...]: three bytes
// an element, each of which a receiver must answer.
func TinyBatch(n int) []byte {
	b := make([]byte, 0, 3*n+1)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "{}"...)
	}
	return append(b, ']')
}

// Allocated returns the bytes the Go heap allocated (in every goroutine)
// while f ran: an upper bound on the memory f held at its peak.
func Allocated(f func()) uint64 {
	_, bytes := Mallocs(f)
	return bytes
}

// Mallocs returns the heap objects allocated (in every goroutine) while f
// ran, and their bytes: unlike testing.AllocsPerRun it counts the
// goroutines f waits for, and leaves GOMAXPROCS alone.
func Mallocs(f func()) (objects, bytes uint64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}
