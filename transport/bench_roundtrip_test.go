package transport_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/gomcp/sdk/internal/cputime"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// The benchmark tool: a typed tool with a small struct input and output, the
// same one the compat module runs on every SDK.
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func newBenchServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two integers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	return s
}

// benchRoundTrip connects a client and a server over the two streams and
// measures one tools/call round trip: the client encodes the call, the
// server decodes, validates and runs the tool and encodes the result, and
// the client decodes it.
// versions are the protocol revisions the round trips run in: the newest
// stateful one (initialize once) and the stateless 2026-07-28, where every
// request carries _meta and which a client and server of this library
// negotiate by default.
var versions = []string{mcp.Version20251125, mcp.Version20260728}

func benchRoundTrip(b *testing.B, version string, serverSide, clientSide jsonrpc.Stream) {
	ctx := context.Background()
	ss := newBenchServer().Connect(serverSide, nil)
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, clientSide)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if got := cs.ProtocolVersion(); got != version {
		b.Fatalf("negotiated %s, want %s", got, version)
	}
	params := &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}

	res, err := cs.CallTool(ctx, params)
	if err != nil {
		b.Fatal(err)
	}
	var out addOut
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.Sum != 3 {
		b.Fatalf("unexpected result %+v", res)
	}

	b.ReportAllocs()
	report := cputime.Meter(b)
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatal("tool failed")
		}
	}
	report()
}

// BenchmarkToolsCallInMemory is a full client <-> server tools/call round
// trip over Pipe, which hands decoded messages over without encoding them.
func BenchmarkToolsCallInMemory(b *testing.B) {
	for _, v := range versions {
		b.Run(v, func(b *testing.B) {
			a, c := transport.Pipe()
			benchRoundTrip(b, v, a, c)
		})
	}
}

// BenchmarkToolsCallStdio is the same round trip over two newline-delimited
// streams, as a client and a stdio server subprocess would use: once over
// io.Pipe (in-process, no system calls) and once over os.Pipe (kernel pipes,
// as real stdio).
func BenchmarkToolsCallStdio(b *testing.B) {
	for _, v := range versions {
		b.Run("io.Pipe/"+v, func(b *testing.B) {
			c2sR, c2sW := io.Pipe()
			s2cR, s2cW := io.Pipe()
			server := transport.NewLineStream(c2sR, s2cW, closeAll{c2sR, s2cW}, nil)
			client := transport.NewLineStream(s2cR, c2sW, closeAll{s2cR, c2sW}, nil)
			benchRoundTrip(b, v, server, client)
		})
		b.Run("os.Pipe/"+v, func(b *testing.B) {
			server, client := osPipeStreams(b)
			benchRoundTrip(b, v, server, client)
		})
	}
}

// osPipeStreams returns a server's and a client's newline-delimited
// streams over two kernel pipes, as a stdio server subprocess and its
// client use.
func osPipeStreams(b *testing.B) (server, client jsonrpc.Stream) {
	c2sR, c2sW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	s2cR, s2cW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return transport.NewLineStream(c2sR, s2cW, closeAll{c2sR, s2cW}, nil),
		transport.NewLineStream(s2cR, c2sW, closeAll{s2cR, c2sW}, nil)
}

// closeAll closes every closer it holds.
type closeAll []io.Closer

func (cs closeAll) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// BenchmarkToolsCallStdioPipelined is BenchmarkToolsCallStdio over os.Pipe
// with 32 calls in flight (b.RunParallel, 16 goroutines per CPU on two
// CPUs), as a host pipelining requests to a stdio server: the server reads
// several requests at once, runs them on its reader while they are cheap,
// and writes their answers together.
func BenchmarkToolsCallStdioPipelined(b *testing.B) {
	server, client := osPipeStreams(b)
	ctx := context.Background()
	ss := newBenchServer().Connect(server, nil)
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: mcp.Version20251125}).Connect(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}
	b.ReportAllocs()
	b.SetParallelism(16)
	report := cputime.Meter(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				b.Error(err)
				return
			}
			if res.IsError {
				b.Error("tool failed")
				return
			}
		}
	})
	report()
}
