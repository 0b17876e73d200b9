package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/cputime"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// BenchmarkGatewayCall is a small tool call through the gateway against the
// same call direct, every hop a line stream over an OS pipe as over stdio,
// the caller at 2025-06-18 like mcpbench's: what the forwarding path costs
// in-process (bench/run.sh measures it at process level). The parallel
// variants run GOMAXPROCS×8 callers on one downstream session.
//
//	go test -run XXX -bench GatewayCall -benchmem ./gateway/
func BenchmarkGatewayCall(b *testing.B) {
	up := benchUpstream()
	args := json.RawMessage(`{"text":"hello"}`)
	run := func(b *testing.B, cs *mcp.ClientSession, parallel bool) {
		ctx := context.Background()
		p := &mcp.CallToolParams{Name: "echo", Arguments: args}
		b.ReportAllocs()
		// The process's CPU time per call (client, gateway and upstream
		// together): steadier than ns/op on a busy machine.
		meter := cputime.Meter(b)
		b.ResetTimer()
		defer meter()
		if !parallel {
			for range b.N {
				if _, err := cs.CallTool(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			return
		}
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := cs.CallTool(ctx, p); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	for _, parallel := range []bool{false, true} {
		suffix := ""
		if parallel {
			suffix = "-parallel"
		}
		b.Run("direct"+suffix, func(b *testing.B) {
			run(b, benchConnect(b, up), parallel)
		})
		b.Run("gateway"+suffix, func(b *testing.B) {
			g := benchGateway(b, up)
			run(b, benchConnect(b, g.Server()), parallel)
		})
	}
}

// benchUpstream is the benchmark server's echo tool (bench/servers/gomcp).
func benchUpstream() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (string, error) { return in.Text, nil })
	return s
}

// benchGateway is a gateway with up as its one upstream, over a pipe.
func benchGateway(b testing.TB, up *mcp.Server) *gateway.Gateway {
	b.Helper()
	dial := func(context.Context, string, *gateway.Upstream) (jsonrpc.Stream, error) {
		x, y, err := linePipe()
		if err == nil {
			up.Connect(y, nil)
		}
		return x, err
	}
	g, err := gateway.New(config("bench"), &gateway.Options{Dial: dial})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = g.Close() })
	return g
}

// benchConnect connects a client that can be asked nothing (like
// mcpbench's) to s over a pipe.
func benchConnect(b testing.TB, s *mcp.Server) *mcp.ClientSession {
	b.Helper()
	x, y, err := linePipe()
	if err != nil {
		b.Fatal(err)
	}
	ss := s.Connect(y, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"},
		&mcp.ClientOptions{ProtocolVersion: mcp.Version20250618}).Connect(ctx, x)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
		_ = ss.Wait()
	})
	return cs
}

// linePipe is a connection of two line streams over two OS pipes, as a
// command's stdin and stdout are.
func linePipe() (jsonrpc.Stream, jsonrpc.Stream, error) {
	ar, bw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	br, aw, err := os.Pipe()
	if err != nil {
		ar.Close()
		bw.Close()
		return nil, nil, err
	}
	a := transport.NewLineStream(ar, aw, closers{ar, aw}, nil)
	b := transport.NewLineStream(br, bw, closers{br, bw}, nil)
	return a, b, nil
}

// closers closes each of its files.
type closers []*os.File

func (c closers) Close() error {
	var errs []error
	for _, f := range c {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
