package mcpotel_test

import (
	"context"
	"fmt"
	"log"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

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
