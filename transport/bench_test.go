package transport

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
)

// toolsCall is a typical tools/call request.
var toolsCall = jsonrpc.NewRequest(jsonrpc.Int64ID(42), "tools/call", json.RawMessage(
	`{"name":"get_weather","arguments":{"city":"Paris","units":"metric","days":3},"_meta":{"progressToken":"tok-42"}}`))

// repeatReader returns the same bytes forever.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.data[r.off:])
		n += c
		r.off = (r.off + c) % len(r.data)
	}
	return n, nil
}

func BenchmarkLineStreamWrite(b *testing.B) {
	s := NewLineStream(strings.NewReader(""), io.Discard, nil, nil)
	ctx := context.Background()
	b.SetBytes(int64(len(toolsCall.AppendJSON(nil)) + 1))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Write(ctx, toolsCall); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineStreamWriteParallel(b *testing.B) {
	s := NewLineStream(strings.NewReader(""), io.Discard, nil, nil)
	ctx := context.Background()
	b.SetBytes(int64(len(toolsCall.AppendJSON(nil)) + 1))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Write(ctx, toolsCall); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLineStreamRead measures framing plus jsonrpc.Decode, whose
// allocations (the message and its copied params) dominate.
func BenchmarkLineStreamRead(b *testing.B) {
	line := append(toolsCall.AppendJSON(nil), '\n')
	s := NewLineStream(&repeatReader{data: line}, io.Discard, nil, nil)
	ctx := context.Background()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := s.Read(ctx)
		if err != nil || m.Invalid != nil {
			b.Fatal(err, m.Invalid)
		}
	}
}

func BenchmarkPipeRoundTrip(b *testing.B) {
	a, c := Pipe()
	defer a.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Write(ctx, toolsCall); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
