// Package mcpotel instruments gomcp servers and clients with OpenTelemetry,
// following the semantic conventions for the Model Context Protocol
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/).
//
// It lives in its own module so that the SDK itself does not depend on
// OpenTelemetry. Turning it on is one line:
//
//	mcpotel.InstrumentServer(&serverOpts, nil)
//	mcpotel.InstrumentClient(&clientOpts, nil)
//
// Every message a session receives gets a SERVER span and a
// mcp.server.operation.duration measurement; every message it sends gets a
// CLIENT span and a mcp.client.operation.duration measurement, and carries
// the span's trace context (traceparent, tracestate, baggage) in
// params._meta, where the receiving side picks it up as the parent of its
// span. This holds in both directions: a server's sampling request is a
// CLIENT span on the server and a SERVER span on the client.
//
// # How it is built
//
// The module (package mcpotel) gives OpenTelemetry spans, metrics and
// trace-context propagation by the MCP semantic conventions, built only on
// mcp.Middleware and Request.Meta/SetMeta, so that the library never imports
// OpenTelemetry; otel/cmd/everything-server, a module of its own, is the
// conformance server configured from the OTEL_* variables. What the
// instrumentation reads of the core is read-only and cheap: the request id an
// outgoing request was written with (Request.ID once next returns, from
// jsonrpc.Conn.CallRawID), the client's transport (ClientSession.Stream,
// mcphttp.ClientStream.URL and SessionID) for the network.*, server.* and
// mcp.session.id attributes, mcphttp.RequestInfo for client.*, and
// ServerSession.Stats for the queued-notifications gauge, read only when
// metrics are collected. It keeps the other two load gauges itself (a counter
// around the Receiving chain, the sessions between InitializedHandler and
// Done). mcpotel.NewLogHandler wraps any slog.Handler (a request's LogHandler
// included) to add trace_id and span_id from the record's context. Health
// probes are not telemetry and
package mcpotel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// instrumentationName names the tracer and meter, so backends can tell
// these spans and measurements from others.
const instrumentationName = "github.com/gomcp/sdk/otel"

// Span start options that do not change, made once.
var (
	kindServer = trace.WithSpanKind(trace.SpanKindServer)
	kindClient = trace.WithSpanKind(trace.SpanKindClient)
)

// Attribute keys and values of the MCP conventions, in one place.
var (
	keyMethodName      = semconv.McpMethodNameKey
	keyProtocolVersion = semconv.McpProtocolVersionKey
	keySessionID       = semconv.McpSessionIDKey
	keyResourceURI     = semconv.McpResourceURIKey
	keyToolName        = semconv.GenAIToolNameKey
	keyPromptName      = semconv.GenAIPromptNameKey
	keyOperationName   = semconv.GenAIOperationNameKey
	keyRequestID       = semconv.JSONRPCRequestIDKey
	keyStatusCode      = semconv.RPCResponseStatusCodeKey
	keyErrorType       = semconv.ErrorTypeKey
)

// errorTypeTool is error.type for a tools/call whose result has isError
// set: the call succeeded at the protocol level but the tool failed, which
// the conventions want visible.
const errorTypeTool = "tool_error"

// durationBuckets are the explicit bucket boundaries, in seconds, that the
// conventions advise for the MCP duration histograms.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// sessionRecorded, when set, runs after a session's duration is
// recorded; tests use it to wait for the recording goroutines.
var sessionRecorded atomic.Pointer[func()]

// Options chooses where telemetry goes. The zero value (and nil) uses the
// global providers and propagator, as set by otel.SetTracerProvider and
// friends, so an application that already configured OpenTelemetry needs
// nothing more.
type Options struct {
	// TracerProvider creates the spans. Default otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider creates the duration histograms. Default
	// otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator writes and reads the trace context in params._meta.
	// Default otel.GetTextMapPropagator(); note that the global default is
	// a no-op until set, for instance to propagation.TraceContext{}.
	Propagator propagation.TextMapPropagator
}

// instruments holds what both sides of the middleware share.
type instruments struct {
	meter      metric.Meter
	tracer     trace.Tracer
	prop       propagation.TextMapPropagator
	serverOp   mcpconv.ServerOperationDuration
	clientOp   mcpconv.ClientOperationDuration
	serverSess mcpconv.ServerSessionDuration
	clientSess mcpconv.ClientSessionDuration
}

func newInstruments(o *Options) *instruments {
	if o == nil {
		o = &Options{}
	}
	tp, mp, prop := o.TracerProvider, o.MeterProvider, o.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	meter := mp.Meter(instrumentationName)
	buckets := metric.WithExplicitBucketBoundaries(durationBuckets...)
	in := &instruments{
		meter:  meter,
		tracer: tp.Tracer(instrumentationName),
		prop:   prop,
	}
	// A meter that cannot make an instrument returns a no-op one with the
	// error, and reports the error through otel.Handle itself; telemetry
	// failing must not stop the server.
	in.serverOp, _ = mcpconv.NewServerOperationDuration(meter, buckets)
	in.clientOp, _ = mcpconv.NewClientOperationDuration(meter, buckets)
	in.serverSess, _ = mcpconv.NewServerSessionDuration(meter, buckets)
	in.clientSess, _ = mcpconv.NewClientSessionDuration(meter, buckets)
	return in
}

// ServerMiddleware returns the middleware for ServerOptions.Receiving and
// ServerOptions.Sending. InstrumentServer installs them; use this to place
// them yourself among other middleware. Session durations and the load
// gauges are recorded only by InstrumentServer, which also wraps
// InitializedHandler.
func ServerMiddleware(o *Options) (receiving, sending mcp.Middleware) {
	in := newInstruments(o)
	return in.receiving, in.sending
}

// ClientMiddleware returns the middleware for ClientOptions.Receiving and
// ClientOptions.Sending. InstrumentClient installs them, with the
// middleware that records session durations.
func ClientMiddleware(o *Options) (receiving, sending mcp.Middleware) {
	in := newInstruments(o)
	return in.receiving, in.sending
}

// InstrumentServer turns on tracing and metrics for a server: it puts the
// middleware first in so.Receiving and so.Sending, so that their spans and
// durations cover all other middleware, and records
// mcp.server.session.duration for stateful sessions by wrapping
// so.InitializedHandler: from the end of the handshake, the first moment
// the middleware can see a session, to its end. It also keeps the load
// gauges operators watch: mcp.server.active_requests (requests being
// handled), mcp.server.active_sessions (stateful sessions initialized and
// not ended) and mcp.server.queued_notifications (notifications waiting
// in those sessions' queues, read when metrics are collected). Call it
// before mcp.NewServer.
func InstrumentServer(so *mcp.ServerOptions, o *Options) {
	in := newInstruments(o)
	l := newLoad(in.meter)
	so.Receiving = append([]mcp.Middleware{in.receiving, l.requestsMiddleware}, so.Receiving...)
	so.Sending = append([]mcp.Middleware{in.sending}, so.Sending...)
	next := so.InitializedHandler
	so.InitializedHandler = func(ctx context.Context, ss *mcp.ServerSession) {
		start, version := time.Now(), ss.ProtocolVersion()
		net := networkOf(ctx, &mcp.Request{Session: ss})
		l.track(ss)
		go func() {
			<-ss.Done()
			l.untrack(ss)
			in.serverSess.Record(context.Background(), time.Since(start).Seconds(),
				net.appendAttrs([]attribute.KeyValue{in.serverSess.AttrProtocolVersion(version)}, false)...)
			sessionDone()
		}()
		if next != nil {
			next(ctx, ss)
		}
	}
}

// sessionDone runs the test hook, if any, after a session's duration is
// recorded.
func sessionDone() {
	if f := sessionRecorded.Load(); f != nil {
		(*f)()
	}
}

// InstrumentClient turns on tracing and metrics for a client: it puts the
// middleware first in co.Receiving and co.Sending, and records
// mcp.client.session.duration for stateful sessions, from a successful
// initialize to the session's end. Call it before mcp.NewClient.
func InstrumentClient(co *mcp.ClientOptions, o *Options) {
	in := newInstruments(o)
	co.Receiving = append([]mcp.Middleware{in.receiving}, co.Receiving...)
	co.Sending = append([]mcp.Middleware{in.sending, in.clientSession}, co.Sending...)
}

// clientSession starts timing a stateful client session when its
// initialize request succeeds.
func (in *instruments) clientSession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		res, err := next(ctx, r)
		cs, ok := r.Session.(*mcp.ClientSession)
		if err != nil || !ok || r.Method != mcp.MethodInitialize {
			return res, err
		}
		start, net := time.Now(), networkOf(ctx, r)
		go func() {
			<-cs.Done()
			in.clientSess.Record(context.Background(), time.Since(start).Seconds(),
				net.appendAttrs([]attribute.KeyValue{in.clientSess.AttrProtocolVersion(cs.ProtocolVersion())}, false)...)
			sessionDone()
		}()
		return res, err
	}
}

// receiving handles a message from the peer: a SERVER span, child of the
// trace context in its _meta, and a server operation duration.
func (in *instruments) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.Method == "" {
			return next(ctx, r) // invalid JSON-RPC: nothing to name the span by
		}
		start := time.Now()
		d := describe(r)
		opts := append(make([]trace.SpanStartOption, 0, 3), kindServer)
		if d.meta != nil && d.meta.TraceParent != "" {
			// The peer's span is the parent. A span already in ctx (an
			// HTTP server span, say) becomes a link, so neither is lost.
			if local := trace.SpanContextFromContext(ctx); local.IsValid() {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: local}))
			}
			ctx = in.prop.Extract(ctx, metaCarrier{d.meta})
		}
		ctx, span := in.tracer.Start(ctx, d.spanName(), append(opts, trace.WithAttributes(keyMethodName.String(r.Method)))...)
		d.setSpanAttrs(ctx, span, r)
		res, err := next(ctx, r)
		errType, status := outcome(res, err)
		finish(span, errType, status, err)
		if in.serverOp.Enabled(ctx) {
			in.serverOp.Record(ctx, time.Since(start).Seconds(), mcpconv.MethodNameAttr(r.Method), d.metricAttrs(ctx, r, errType, status)...)
		}
		return res, err
	}
}

// sending handles a message to the peer: a CLIENT span whose context goes
// into the message's _meta, and a client operation duration.
func (in *instruments) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		start := time.Now()
		d := describe(r)
		ctx, span := in.tracer.Start(ctx, d.spanName(),
			kindClient, trace.WithAttributes(keyMethodName.String(r.Method)))
		d.setSpanAttrs(ctx, span, r)
		var m mcp.Meta
		if d.meta != nil {
			m = *d.meta // a copy: the decoded _meta is shared with its owner
		}
		in.prop.Inject(ctx, metaCarrier{&m})
		if m.TraceParent != "" || m.TraceState != "" || m.Baggage != "" {
			if err := r.SetMeta(&m); err != nil {
				span.RecordError(err)
			}
		}
		res, err := next(ctx, r)
		if span.IsRecording() {
			// Known only now: the id the connection gave the request, and
			// the session id an HTTP server issues in answer to initialize.
			if !r.ID.IsZero() {
				span.SetAttributes(keyRequestID.String(r.ID.String()))
			}
			if d.sessionID == "" {
				if sid := r.SessionID(); sid != "" {
					span.SetAttributes(keySessionID.String(sid))
				}
			}
		}
		errType, status := outcome(res, err)
		finish(span, errType, status, err)
		if in.clientOp.Enabled(ctx) {
			in.clientOp.Record(ctx, time.Since(start).Seconds(), mcpconv.MethodNameAttr(r.Method), d.metricAttrs(ctx, r, errType, status)...)
		}
		return res, err
	}
}

// finish ends span with the outcome of its call.
func finish(span trace.Span, errType, status string, err error) {
	if errType != "" {
		span.SetAttributes(keyErrorType.String(errType))
		desc := errType
		if err != nil {
			desc = err.Error()
		}
		span.SetStatus(codes.Error, desc)
	}
	if status != "" {
		span.SetAttributes(keyStatusCode.String(status))
	}
	span.End()
}

// outcome returns error.type and rpc.response.status_code for a call's
// result: the JSON-RPC error code, "tool_error" for a tool result with
// isError, "_OTHER" for any other failure, "" for success.
func outcome(res any, err error) (errType, status string) {
	if err != nil {
		if je, ok := errors.AsType[*jsonrpc.Error](err); ok {
			code := strconv.FormatInt(je.Code, 10)
			return code, code
		}
		return semconv.ErrorTypeOther.Value.AsString(), ""
	}
	switch res := res.(type) {
	case *mcp.CallToolResult:
		if res != nil && res.IsError {
			return errorTypeTool, ""
		}
	case json.RawMessage: // an outgoing call's result, as received
		var r struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(res, &r) == nil && r.IsError {
			return errorTypeTool, ""
		}
	}
	return "", ""
}

// call is what a message's params say about it, for span and metric
// attributes: the target (tool or prompt name, resource URI) and _meta.
type call struct {
	method    string
	tool      string
	prompt    string
	uri       string
	version   string
	meta      *mcp.Meta
	sessionID string
	net       network // see networkOf; filled when first needed
	netKnown  bool
}

// network describes the transport, working it out on first use: only
// recording spans and enabled histograms need it.
func (c *call) network(ctx context.Context, r *mcp.Request) *network {
	if !c.netKnown {
		c.net, c.netKnown = networkOf(ctx, r), true
	}
	return &c.net
}

// describe reads the few members of r.Params the conventions ask for.
// Only the methods that have a target look into the params, for one
// member (see stringMember).
func describe(r *mcp.Request) call {
	c := call{method: r.Method, sessionID: r.SessionID()}
	c.meta, _ = r.Meta() // an invalid _meta is the handler's error to report
	if r.Session != nil {
		c.version = r.Session.ProtocolVersion()
	} else if c.meta != nil {
		c.version = c.meta.ProtocolVersion // a stateless (2026-07-28) request
	}
	switch r.Method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet, mcp.MethodResourcesRead,
		mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		switch r.Method {
		case mcp.MethodToolsCall:
			c.tool = stringMember(r.Params, `"name"`)
		case mcp.MethodPromptsGet:
			c.prompt = stringMember(r.Params, `"name"`)
		default:
			c.uri = stringMember(r.Params, `"uri"`)
		}
	}
	return c
}

// spanName is "{mcp.method.name} {target}", the target being the tool or
// prompt name. Resource URIs are left out, as the conventions advise, to
// keep span names low in cardinality; they are in mcp.resource.uri.
func (c *call) spanName() string {
	switch {
	case c.tool != "":
		return c.method + " " + c.tool
	case c.prompt != "":
		return c.method + " " + c.prompt
	}
	return c.method
}

// setSpanAttrs sets the attributes known when the span starts, other
// than mcp.method.name, which is given to Start. They are built only for
// a span that records, which keeps unsampled and no-op tracing cheap;
// samplers see the span name (with the tool or prompt name) and the
// method.
func (c *call) setSpanAttrs(ctx context.Context, span trace.Span, r *mcp.Request) {
	if !span.IsRecording() {
		return
	}
	a := make([]attribute.KeyValue, 0, 12)
	a = c.targetAttrs(a)
	if c.uri != "" {
		a = append(a, keyResourceURI.String(c.uri))
	}
	if !r.ID.IsZero() {
		a = append(a, keyRequestID.String(r.ID.String()))
	}
	if c.version != "" {
		a = append(a, keyProtocolVersion.String(c.version))
	}
	if c.sessionID != "" {
		a = append(a, keySessionID.String(c.sessionID))
	}
	a = c.network(ctx, r).appendAttrs(a, true)
	span.SetAttributes(a...)
}

// targetAttrs appends the tool or prompt name and the GenAI operation.
func (c *call) targetAttrs(a []attribute.KeyValue) []attribute.KeyValue {
	if c.tool != "" {
		a = append(a, keyToolName.String(c.tool), keyOperationName.String(semconv.GenAIOperationNameExecuteTool.Value.AsString()))
	}
	if c.prompt != "" {
		a = append(a, keyPromptName.String(c.prompt))
	}
	return a
}

// metricAttrs are the low-cardinality attributes of a duration
// measurement (mcp.method.name is added by the instrument): no ids and no
// URIs.
func (c *call) metricAttrs(ctx context.Context, r *mcp.Request, errType, status string) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 10)
	a = c.targetAttrs(a)
	a = c.network(ctx, r).appendAttrs(a, false)
	if c.version != "" {
		a = append(a, keyProtocolVersion.String(c.version))
	}
	if errType != "" {
		a = append(a, keyErrorType.String(errType))
	}
	if status != "" {
		a = append(a, keyStatusCode.String(status))
	}
	return a
}

// The W3C trace context keys (SEP-414) of params._meta, which mcp.Meta
// holds as TraceParent, TraceState and Baggage.
const (
	keyTraceParent = "traceparent"
	keyTraceState  = "tracestate"
	keyBaggage     = "baggage"
)

// metaCarrier lets a propagator read and write the trace context fields
// of params._meta.
type metaCarrier struct{ m *mcp.Meta }

// Get returns the value of a trace context key.
func (c metaCarrier) Get(key string) string {
	switch key {
	case keyTraceParent:
		return c.m.TraceParent
	case keyTraceState:
		return c.m.TraceState
	case keyBaggage:
		return c.m.Baggage
	}
	return ""
}

// Set stores a trace context key; other keys are not propagated.
func (c metaCarrier) Set(key, value string) {
	switch key {
	case keyTraceParent:
		c.m.TraceParent = value
	case keyTraceState:
		c.m.TraceState = value
	case keyBaggage:
		c.m.Baggage = value
	}
}

// Keys lists the keys the carrier holds.
func (c metaCarrier) Keys() []string {
	var k []string
	for _, kv := range [...][2]string{
		{keyTraceParent, c.m.TraceParent},
		{keyTraceState, c.m.TraceState},
		{keyBaggage, c.m.Baggage},
	} {
		if kv[1] != "" {
			k = append(k, kv[0])
		}
	}
	return k
}

// _ checks that metaCarrier is a TextMapCarrier.
var _ propagation.TextMapCarrier = metaCarrier{}
