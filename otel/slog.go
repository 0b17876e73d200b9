package mcpotel

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// The attribute keys NewLogHandler adds, as the OpenTelemetry log data
// model names the fields and log backends correlate them with traces.
const (
	LogKeyTraceID = "trace_id"
	LogKeySpanID  = "span_id"
)

// NewLogHandler wraps next so that a record logged with a context holding
// a valid span (ctx of a request handler, when InstrumentServer is on)
// carries the span's trace_id and span_id, at the top level of the record
// whatever groups are open. Records logged without such a context pass
// through unchanged. next may be any handler: a JSON handler writing to
// stderr, or a request's LogHandler (mcp.ServerRequest.LogHandler), which
// forwards records to the client as notifications/message, so the client
// sees which trace a server's log message belongs to.
//
//	logger := slog.New(mcpotel.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil)))
//	logger.InfoContext(ctx, "tool called") // {"msg":"tool called","trace_id":"...","span_id":"..."}
func NewLogHandler(next slog.Handler) slog.Handler {
	return &logHandler{next: next, base: next}
}

// logHandler adds the trace context to records. Once a group is open,
// attributes added to the record would land inside it, so it keeps the
// handler from before the first group (base) and the calls made since
// (ops), to replay them over base plus the ids.
type logHandler struct {
	next slog.Handler                      // base with ops applied
	base slog.Handler                      // next before the first WithGroup
	ops  []func(slog.Handler) slog.Handler // WithGroup and WithAttrs calls from the first WithGroup on
}

// Enabled reports whether next handles records at level l.
func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle adds trace_id and span_id when ctx holds a valid span.
func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return h.next.Handle(ctx, r)
	}
	ids := [...]slog.Attr{
		slog.String(LogKeyTraceID, sc.TraceID().String()),
		slog.String(LogKeySpanID, sc.SpanID().String()),
	}
	if len(h.ops) == 0 {
		r = r.Clone() // the record's attributes may be shared with other handlers
		r.AddAttrs(ids[:]...)
		return h.next.Handle(ctx, r)
	}
	next := h.base.WithAttrs(ids[:])
	for _, op := range h.ops {
		next = op(next)
	}
	return next.Handle(ctx, r)
}

// WithAttrs returns a handler adding attrs to every record.
func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	c := &logHandler{next: h.next.WithAttrs(attrs), base: h.base}
	if len(h.ops) == 0 {
		c.base = c.next // no group open: the attributes belong to the base
		return c
	}
	c.ops = append(h.ops[:len(h.ops):len(h.ops)], func(n slog.Handler) slog.Handler { return n.WithAttrs(attrs) })
	return c
}

// WithGroup returns a handler nesting later attributes under name.
func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &logHandler{
		next: h.next.WithGroup(name),
		base: h.base,
		ops:  append(h.ops[:len(h.ops):len(h.ops)], func(n slog.Handler) slog.Handler { return n.WithGroup(name) }),
	}
}
