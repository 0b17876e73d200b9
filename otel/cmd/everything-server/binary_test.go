package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// consoleSpan is the part of a span, as the console exporter
// (stdouttrace) prints it, that the test reads.
type consoleSpan struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
}

// spanKindServer is trace.SpanKindServer as the console exporter prints it.
const spanKindServer = 2

// TestConsoleExporter is the done-criterion of the instrumentation, end to
// end: the built binary, run with OTEL_TRACES_EXPORTER=console and served
// over HTTP, answers a tools/call of test_simple_text whose _meta carries a
// traceparent, and prints a SERVER span named after the tool, with
// mcp.method.name and gen_ai.tool.name, in that trace, child of that span.
func TestConsoleExporter(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=none", "OTEL_SERVICE_NAME=everything-test")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's first line: %v; stderr: %s", err, stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q, want listening on URL", line)
	}

	for _, probe := range []string{"/livez", "/readyz"} {
		resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + probe)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", probe, resp.Status)
		}
	}

	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	// The caller's trace context goes into the request's _meta, as an
	// agent with its own tracing would put it.
	addParent := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == mcp.MethodToolsCall {
				var m mcp.Meta
				if old, err := r.Meta(); err != nil {
					return nil, err
				} else if old != nil {
					m = *old // at 2026-07-28 it holds the client context
				}
				m.TraceParent = "00-" + traceID + "-" + spanID + "-01"
				if err := r.SetMeta(&m); err != nil {
					return nil, err
				}
			}
			return next(ctx, r)
		}
	}
	for _, version := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"},
			&mcp.ClientOptions{ProtocolVersion: version, Sending: []mcp.Middleware{addParent}})
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cs, err := c.Connect(ctx, mcphttp.NewClientStream(url, nil))
		if err != nil {
			cancel()
			t.Fatalf("%s: connect: %v", version, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		cs.Close()
		cancel()
		if err != nil || res.IsError {
			t.Fatalf("%s: tools/call = %+v, %v", version, res, err)
		}
	}

	// SIGTERM: the server stops and flushes its spans to stdout.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	spans, decodeErr := decodeSpans(out)
	err = cmd.Wait()
	stopped = true
	if err != nil {
		t.Fatalf("server exit: %v; stderr: %s", err, stderr.String())
	}
	if decodeErr != nil {
		t.Fatalf("reading the console output: %v", decodeErr)
	}
	found := 0
	for _, s := range spans {
		if s.Name != "tools/call test_simple_text" || s.SpanKind != spanKindServer {
			continue
		}
		found++
		attrs := map[string]any{}
		for _, a := range s.Attributes {
			attrs[a.Key] = a.Value.Value
		}
		if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] != "test_simple_text" {
			t.Errorf("span attributes %v, want mcp.method.name tools/call and gen_ai.tool.name test_simple_text", attrs)
		}
		if s.SpanContext.TraceID != traceID || s.Parent.TraceID != traceID || s.Parent.SpanID != spanID {
			t.Errorf("span in trace %s with parent %s/%s, want trace %s and parent span %s",
				s.SpanContext.TraceID, s.Parent.TraceID, s.Parent.SpanID, traceID, spanID)
		}
	}
	if found != 2 { // one per revision
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Errorf("%d SERVER spans named tools/call test_simple_text, want 2; spans: %q", found, names)
	}
}

// decodeSpans reads the console exporter's output: one JSON object per
// span, to the end.
func decodeSpans(r io.Reader) ([]consoleSpan, error) {
	var spans []consoleSpan
	dec := json.NewDecoder(r)
	for {
		var s consoleSpan
		if err := dec.Decode(&s); errors.Is(err, io.EOF) {
			return spans, nil
		} else if err != nil {
			return spans, err
		}
		spans = append(spans, s)
	}
}
