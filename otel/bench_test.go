package mcpotel_test

import (
	"context"
	"encoding/json"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
)

// BenchmarkCallTool measures a tools/call round trip over a pipe at
// 2025-11-25 without instrumentation, with it on but exporting nowhere
// (no-op providers), and with it exporting to memory through the SDK's
// batch span processor and a metric reader.
func BenchmarkCallTool(b *testing.B) {
	prop := propagation.TraceContext{}
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
	b.Cleanup(func() { tp.Shutdown(context.Background()) }) // b.Context is done by now
	for _, bc := range []struct {
		name string
		opts *mcpotel.Options
	}{
		{"off", nil},
		{"noop", &mcpotel.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), Propagator: prop}},
		{"sdk", &mcpotel.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())), Propagator: prop}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cs := connectPipe(b, newServer(b, bc.opts), newClient(mcp.LatestStatefulVersion, bc.opts))
			p := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(b.Context(), p); err != nil {
					b.Fatal(err)
				}
				exporter.Reset() // keep memory flat; the batcher still does its work
			}
		})
	}
}
