package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// telemetry is one in-memory destination for spans and metrics.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	opts   *mcpotel.Options
}

func newTelemetry() *telemetry {
	t := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(t.spans))
	t.opts = &mcpotel.Options{
		TracerProvider: t.tp,
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(t.reader)),
		Propagator:     propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	return t
}

// span returns the one ended span with the name and kind, failing the
// test when there is none or more than one.
func (tel *telemetry) span(t *testing.T, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name && s.SpanKind() == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range tel.spans.Ended() {
			names = append(names, s.SpanKind().String()+" "+s.Name())
		}
		t.Fatalf("%d %v spans named %q, want 1; spans: %q", len(found), kind, name, names)
	}
	return found[0]
}

// attrs returns a span's attributes as a map.
func attrs(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// checkAttrs reports the wanted attributes that are missing or different;
// a want of "" means the attribute must be absent.
func checkAttrs(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if w == "" && ok {
			t.Errorf("%s: %s = %q, want it absent", what, k, g)
		} else if w != "" && g != w {
			t.Errorf("%s: %s = %q, want %q (all: %v)", what, k, g, w, got)
		}
	}
}

// newServer returns a server with a tool that works, one that fails, a
// resource and a prompt, instrumented with opts.
func newServer(t testing.TB, opts *mcpotel.Options) *mcp.Server {
	t.Helper()
	var so mcp.ServerOptions
	if opts != nil {
		mcpotel.InstrumentServer(&so, opts)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-test", Version: "1"}, &so)
	type in struct {
		Text string `json:"text"`
	}
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in in) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
	}))
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest, in in) (*mcp.CallToolResult, error) {
		return nil, errors.New("the tool broke")
	}))
	must(t, s.AddResource(&mcp.Resource{URI: "file:///readme", Name: "readme"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: "file:///readme", Text: "hi"}}}, nil
	}))
	must(t, s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	}))
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newClient returns a client asking for version, instrumented with opts.
func newClient(version string, opts *mcpotel.Options) *mcp.Client {
	co := mcp.ClientOptions{ProtocolVersion: version}
	if opts != nil {
		mcpotel.InstrumentClient(&co, opts)
	}
	return mcp.NewClient(&mcp.Implementation{Name: "otel-test-client", Version: "1"}, &co)
}

// connectPipe connects c to s over an in-memory pipe.
func connectPipe(t testing.TB, s *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := c.Connect(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// connectHTTP connects c to s over Streamable HTTP; wrap, if not nil,
// wraps the server's handler.
func connectHTTP(t testing.TB, s *mcp.Server, c *mcp.Client, wrap func(http.Handler) http.Handler) *mcp.ClientSession {
	t.Helper()
	mh := mcphttp.NewHandler(s, nil)
	var h http.Handler = mh
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		mh.Close()
	})
	cs, err := c.Connect(t.Context(), mcphttp.NewClientStream(ts.URL, &mcphttp.ClientOptions{HTTPClient: ts.Client()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// exercise makes one call of each kind the tests look at.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: json.RawMessage(`{"text":"x"}`)})
	if err != nil || !res.IsError {
		t.Fatalf("CallTool(fail) = %+v, %v; want an error result", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing"}); err == nil {
		t.Fatal("CallTool(missing) succeeded")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///readme"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
		t.Fatal(err)
	}
}

var versions = []string{mcp.LatestStatefulVersion, mcp.LatestVersion}

func TestSpans(t *testing.T) {
	for _, v := range versions {
		for _, tr := range []string{"pipe", "http"} {
			t.Run(v+"/"+tr, func(t *testing.T) {
				tel := newTelemetry()
				s, c := newServer(t, tel.opts), newClient(v, tel.opts)
				var cs *mcp.ClientSession
				if tr == "pipe" {
					cs = connectPipe(t, s, c)
				} else {
					cs = connectHTTP(t, s, c, nil)
				}
				exercise(t, cs)

				type check struct {
					name  string
					attrs map[string]string
					fail  bool
				}
				for _, ck := range []check{
					{"tools/call echo", map[string]string{
						"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
						"mcp.protocol.version": v, "error.type": "",
					}, false},
					{"tools/call fail", map[string]string{"gen_ai.tool.name": "fail", "error.type": "tool_error"}, true},
					{"tools/call missing", map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"}, true},
					{"resources/read", map[string]string{"mcp.method.name": "resources/read", "mcp.resource.uri": "file:///readme"}, false},
					{"prompts/get greet", map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet"}, false},
				} {
					client := tel.span(t, ck.name, trace.SpanKindClient)
					server := tel.span(t, ck.name, trace.SpanKindServer)
					checkAttrs(t, "client "+ck.name, attrs(client.Attributes()), ck.attrs)
					checkAttrs(t, "server "+ck.name, attrs(server.Attributes()), ck.attrs)
					sa, ca := attrs(server.Attributes()), attrs(client.Attributes())
					if sa["jsonrpc.request.id"] == "" || sa["jsonrpc.request.id"] != ca["jsonrpc.request.id"] {
						t.Errorf("%s: jsonrpc.request.id server %q, client %q; want the same id", ck.name, sa["jsonrpc.request.id"], ca["jsonrpc.request.id"])
					}
					if tr == "pipe" {
						checkAttrs(t, "client "+ck.name, ca, map[string]string{"network.transport": "pipe", "network.protocol.name": "", "server.address": ""})
						checkAttrs(t, "server "+ck.name, sa, map[string]string{"network.transport": "pipe", "network.protocol.name": "", "client.address": ""})
					} else {
						host, port := hostPort(t, cs)
						checkAttrs(t, "client "+ck.name, ca, map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": host, "server.port": port})
						checkAttrs(t, "server "+ck.name, sa, map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "client.address": "127.0.0.1"})
						if sa["client.port"] == "" {
							t.Errorf("server %s: no client.port", ck.name)
						}
					}
					if v == mcp.LatestStatefulVersion && tr == "http" && (sa["mcp.session.id"] == "" || ca["mcp.session.id"] != sa["mcp.session.id"]) {
						t.Errorf("%s: mcp.session.id server %q, client %q; want the same id", ck.name, sa["mcp.session.id"], ca["mcp.session.id"])
					}
					if sa["mcp.protocol.version"] != v {
						t.Errorf("server %s: mcp.protocol.version = %q, want %q", ck.name, sa["mcp.protocol.version"], v)
					}
					if (server.Status().Code == codes.Error) != ck.fail || (client.Status().Code == codes.Error) != ck.fail {
						t.Errorf("%s: status client %v, server %v; want error %v", ck.name, client.Status(), server.Status(), ck.fail)
					}
					if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != client.SpanContext().TraceID() {
						t.Errorf("%s: server span's parent is %v, want the client span %v", ck.name, server.Parent(), client.SpanContext())
					}
				}
				if v == mcp.LatestStatefulVersion {
					init := tel.span(t, "initialize", trace.SpanKindServer)
					checkAttrs(t, "initialize", attrs(init.Attributes()), map[string]string{"mcp.method.name": "initialize"})
					if tr == "http" && attrs(tel.span(t, "tools/call echo", trace.SpanKindServer).Attributes())["mcp.session.id"] == "" {
						t.Error("no mcp.session.id on a stateful HTTP session")
					}
				}
			})
		}
	}
}

// hostPort returns the host and port of the HTTP endpoint cs talks to.
func hostPort(t *testing.T, cs *mcp.ClientSession) (string, string) {
	t.Helper()
	u, err := url.Parse(cs.Stream().(*mcphttp.ClientStream).URL())
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname(), u.Port()
}

// TestHTTPSpanInContext checks that a span the HTTP handler's context
// already carries is the server span's parent when the request brings no
// trace context, and a link when it does.
func TestHTTPSpanInContext(t *testing.T) {
	for _, clientTraced := range []bool{false, true} {
		tel := newTelemetry()
		tracer := tel.tp.Tracer("http")
		var (
			mu        sync.Mutex
			httpSpans []trace.SpanContext
		)
		wrap := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx, span := tracer.Start(r.Context(), "HTTP "+r.Method, trace.WithSpanKind(trace.SpanKindServer))
				defer span.End()
				mu.Lock()
				httpSpans = append(httpSpans, span.SpanContext())
				mu.Unlock()
				h.ServeHTTP(w, r.WithContext(ctx))
			})
		}
		var copts *mcpotel.Options
		if clientTraced {
			copts = tel.opts
		}
		cs := connectHTTP(t, newServer(t, tel.opts), newClient(mcp.LatestVersion, copts), wrap)
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
			t.Fatal(err)
		}
		server := tel.span(t, "tools/call echo", trace.SpanKindServer)
		isHTTP := func(sc trace.SpanContext) bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.ContainsFunc(httpSpans, func(h trace.SpanContext) bool { return h.SpanID() == sc.SpanID() })
		}
		if !clientTraced {
			if !isHTTP(server.Parent()) {
				t.Errorf("untraced client: server span's parent %v is not an HTTP span", server.Parent())
			}
			continue
		}
		client := tel.span(t, "tools/call echo", trace.SpanKindClient)
		if server.Parent().SpanID() != client.SpanContext().SpanID() {
			t.Errorf("traced client: server span's parent %v is not the client span", server.Parent())
		}
		if !slices.ContainsFunc(server.Links(), func(l sdktrace.Link) bool { return isHTTP(l.SpanContext) }) {
			t.Errorf("traced client: server span has no link to the HTTP span: %v", server.Links())
		}
	}
}

// TestMetrics checks the operation duration histograms and their
// attributes, and the server session duration.
func TestMetrics(t *testing.T) {
	tel := newTelemetry()
	s := newServer(t, tel.opts)
	cs := connectPipe(t, s, newClient(mcp.LatestStatefulVersion, tel.opts))
	exercise(t, cs)

	var rm metricdata.ResourceMetrics
	must(t, tel.reader.Collect(t.Context(), &rm))
	for _, name := range []string{"mcp.server.operation.duration", "mcp.client.operation.duration"} {
		h := histogram(t, &rm, name)
		point := func(want map[string]string) *metricdata.HistogramDataPoint[float64] {
			for i, p := range h.DataPoints {
				got := attrs(p.Attributes.ToSlice())
				if !slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k string) bool { return got[k] != want[k] }) {
					return &h.DataPoints[i]
				}
			}
			t.Errorf("%s: no data point with %v", name, want)
			return nil
		}
		if p := point(map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "mcp.protocol.version": mcp.LatestStatefulVersion, "error.type": ""}); p != nil {
			if p.Count != 1 || !slices.Equal(p.Bounds, []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}) {
				t.Errorf("%s echo: count %d, bounds %v", name, p.Count, p.Bounds)
			}
			if _, ok := p.Attributes.Value("jsonrpc.request.id"); ok {
				t.Errorf("%s: a request id in a metric attribute", name)
			}
		}
		point(map[string]string{"gen_ai.tool.name": "fail", "error.type": "tool_error"})
		point(map[string]string{"gen_ai.tool.name": "missing", "error.type": "-32602", "rpc.response.status_code": "-32602"})
		point(map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet"})
		point(map[string]string{"mcp.method.name": "initialize", "network.transport": "pipe"})
	}
}

// histogram finds a float64 histogram by name.
func histogram(t *testing.T, rm *metricdata.ResourceMetrics, name string) metricdata.Histogram[float64] {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				h, ok := m.Data.(metricdata.Histogram[float64])
				if !ok {
					t.Fatalf("%s is a %T", name, m.Data)
				}
				if m.Unit != "s" {
					t.Errorf("%s unit %q, want s", name, m.Unit)
				}
				return h
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return metricdata.Histogram[float64]{}
}

// TestSessionDuration checks that a closed stateful session records
// mcp.server.session.duration and mcp.client.session.duration.
func TestSessionDuration(t *testing.T) {
	tel := newTelemetry()
	s := newServer(t, tel.opts)
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := newClient(mcp.LatestStatefulVersion, tel.opts).Connect(t.Context(), a)
	must(t, err)
	recorded := sessionsRecorded(t)
	cs.Close()
	ss.Wait()
	names := []string{"mcp.server.session.duration", "mcp.client.session.duration"}
	var rm metricdata.ResourceMetrics
	for !hasPoints(&rm, names...) {
		<-recorded
		must(t, tel.reader.Collect(t.Context(), &rm))
	}
	for _, name := range names {
		h := histogram(t, &rm, name)
		if len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
			t.Fatalf("%s points %+v", name, h.DataPoints)
		}
		checkAttrs(t, name, attrs(h.DataPoints[0].Attributes.ToSlice()), map[string]string{"mcp.protocol.version": mcp.LatestStatefulVersion, "network.transport": "pipe"})
	}
}

// sessionsRecorded signals on the channel it returns after each session
// duration recorded, until the test ends. The hook runs after each
// recording, including late ones of earlier tests' sessions; a signal
// dropped because one is pending still comes after its recording, so a
// collect that follows a receive sees it.
func sessionsRecorded(t *testing.T) <-chan struct{} {
	recorded := make(chan struct{}, 1)
	mcpotel.SetSessionRecorded(func() {
		select {
		case recorded <- struct{}{}:
		default:
		}
	})
	t.Cleanup(func() { mcpotel.SetSessionRecorded(nil) })
	return recorded
}

// hasPoints reports whether rm has data points for every named histogram.
func hasPoints(rm *metricdata.ResourceMetrics, names ...string) bool {
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && len(h.DataPoints) > 0 && slices.Contains(names, m.Name) {
				n++
			}
		}
	}
	return n == len(names)
}

// TestServerToClient checks the other direction: a request the server
// sends while handling a tool call (roots/list) is a CLIENT span on the
// server, child of the tools/call span, and a SERVER span on the client,
// its child in turn; baggage the caller set travels with the trace.
func TestServerToClient(t *testing.T) {
	tel := newTelemetry()
	so := mcp.ServerOptions{}
	mcpotel.InstrumentServer(&so, tel.opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-test", Version: "1"}, &so)
	var gotBaggage string
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		gotBaggage = baggage.FromContext(ctx).Member("tenant").Value()
		if _, err := req.ListRoots(ctx); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{}, nil
	}))
	co := mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion, Roots: []*mcp.Root{{URI: "file:///"}}}
	mcpotel.InstrumentClient(&co, tel.opts)
	cs := connectPipe(t, s, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &co))

	member, err := baggage.NewMember("tenant", "acme")
	must(t, err)
	bag, err := baggage.New(member)
	must(t, err)
	res, err := cs.CallTool(baggage.ContextWithBaggage(t.Context(), bag), &mcp.CallToolParams{Name: "roots"})
	if err != nil || res.IsError {
		t.Fatalf("CallTool(roots) = %+v, %v", res, err)
	}
	if gotBaggage != "acme" {
		t.Errorf("baggage tenant in the tool = %q, want acme", gotBaggage)
	}
	call := tel.span(t, "tools/call roots", trace.SpanKindServer)
	out := tel.span(t, "roots/list", trace.SpanKindClient)
	in := tel.span(t, "roots/list", trace.SpanKindServer)
	if out.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("the server's roots/list span is not a child of tools/call")
	}
	if in.Parent().SpanID() != out.SpanContext().SpanID() || in.SpanContext().TraceID() != call.SpanContext().TraceID() {
		t.Errorf("the client's roots/list span is not a child of the server's")
	}
}
