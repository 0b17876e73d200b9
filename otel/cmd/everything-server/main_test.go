package main

import (
	"slices"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
	"github.com/gomcp/sdk/transport"
)

// serve connects a client to the everything server instrumented with opts
// and lists its tools.
func serve(t *testing.T, opts *mcpotel.Options) {
	t.Helper()
	s, err := everything.NewServer(&everything.Options{
		Configure: func(so *mcp.ServerOptions) { mcpotel.InstrumentServer(so, opts) },
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ss.Wait()
}

// TestInstrumented checks that the everything server, made as run makes
// it, produces the server spans.
func TestInstrumented(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	serve(t, &mcpotel.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		Propagator:     propagation.TraceContext{},
	})
	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	if !slices.Contains(names, "tools/list") {
		t.Errorf("no tools/list span among %q", names)
	}
}

// TestSetupFromEnvironment checks that the OTEL_* variables choose the
// exporters, and that the providers flush and stop cleanly.
func TestSetupFromEnvironment(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	opts, shutdown, err := setupTelemetry(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	serve(t, opts)
	if err := shutdown(t.Context()); err != nil {
		t.Errorf("shutdown: %v", err)
	}

	t.Setenv("OTEL_TRACES_EXPORTER", "no-such-exporter")
	if _, _, err := setupTelemetry(t.Context()); err == nil {
		t.Error("setupTelemetry accepted an unknown exporter")
	}
}
