package mcpotel_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
	"github.com/gomcp/sdk/transport"
)

// Instrumenting a server and a client is one call each, before NewServer
// and NewClient. Here spans go to memory; a real program gives Options an
// exporting TracerProvider and MeterProvider, or sets the global ones and
// passes nil.
func Example() {
	spans := tracetest.NewSpanRecorder()
	telemetry := &mcpotel.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		Propagator:     propagation.TraceContext{},
	}

	var so mcp.ServerOptions
	mcpotel.InstrumentServer(&so, telemetry)
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1"}, &so)
	type in struct {
		Name string `json:"name"`
	}
	err := mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, in in) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	co := mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion}
	mcpotel.InstrumentClient(&co, telemetry)
	c := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "1"}, &co)

	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := c.Connect(context.Background(), a)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet"}); err != nil {
		log.Fatal(err)
	}
	cs.Close()
	ss.Wait()

	for _, span := range spans.Ended() {
		if span.Name() == "tools/call greet" {
			fmt.Println(span.SpanKind(), span.Name())
		}
	}
	// Output:
	// server tools/call greet
	// client tools/call greet
}

// A logger whose records carry the trace and span ids of the context they
// are logged with: in a tool handler of an instrumented server, the
// tools/call span's. Wrap the request's req.LogHandler(nil) instead to
// send the records, ids included, to the client.
func ExampleNewLogHandler() {
	noTime := func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(mcpotel.NewLogHandler(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: noTime})))

	// Here a fixed span context stands for the one the middleware starts.
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
	logger.InfoContext(ctx, "tool called", "tool", "greet")
	// Output:
	// {"level":"INFO","msg":"tool called","tool":"greet","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}
}
