// Command everything-server is the conformance fixture server
// (conformance/everything) with OpenTelemetry turned on, configured by the
// standard OTEL_* environment variables: OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER (otlp, console, none, ...), OTEL_EXPORTER_OTLP_*
// for where to send, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
//
// Over HTTP it also answers the load balancer's probes, /livez and /readyz
// (mcphttp.NewHealth).
//
// It is a module of its own because the exporters bring in gRPC and
// protobuf, which neither the SDK nor the instrumentation needs.
//
//	OTEL_TRACES_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \
//		go run . -http localhost:8080
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *httpAddr); err != nil {
		fmt.Fprintln(os.Stderr, "everything-server:", err)
		os.Exit(1)
	}
}

// run serves the instrumented server until ctx ends, then flushes the
// telemetry.
func run(ctx context.Context, httpAddr string) (err error) {
	opts, shutdown, err := setupTelemetry(ctx)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = errors.Join(err, shutdown(sctx))
	}()
	s, err := everything.NewServer(&everything.Options{
		Configure: func(so *mcp.ServerOptions) { mcpotel.InstrumentServer(so, opts) },
	})
	if err != nil {
		return err
	}
	if httpAddr == "" {
		if err := s.Run(ctx, transport.Stdio()); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	return serveHTTP(ctx, httpAddr, s)
}

// setupTelemetry makes the tracer and meter providers the environment
// asks for, and a W3C trace context and baggage propagator. shutdown
// flushes and stops both providers.
func setupTelemetry(ctx context.Context) (opts *mcpotel.Options, shutdown func(context.Context) error, err error) {
	spans, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, nil, err
	}
	reader, err := autoexport.NewMetricReader(ctx)
	if err != nil {
		return nil, nil, errors.Join(err, spans.Shutdown(ctx))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	// The globals too, so that anything else in the process traces into the
	// same providers.
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(prop)
	shutdown = func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }
	return &mcpotel.Options{TracerProvider: tp, MeterProvider: mp, Propagator: prop}, shutdown, nil
}

// serveHTTP serves s over Streamable HTTP at /mcp, with the liveness and
// readiness probes at /livez and /readyz, until ctx ends. Once it
// listens it prints the endpoint's URL on stdout, so a script can start it
// on port 0 and read where it went.
func serveHTTP(ctx context.Context, addr string, s *mcp.Server) error {
	h := mcphttp.NewHandler(s, nil)
	health := mcphttp.NewHealth(h, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/livez", health.Live())
	mux.Handle("/readyz", health.Ready())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		h.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-done // Shutdown has returned
	return nil
}
