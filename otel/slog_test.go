package mcpotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/gomcp/sdk/mcp"
	mcpotel "github.com/gomcp/sdk/otel"
)

func TestLogHandler(t *testing.T) {
	tel := newTelemetry()
	spanCtx, span := tel.tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()
	sc := span.SpanContext()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		log  func(l *slog.Logger, ctx context.Context)
		want string // the record without time and level
	}{
		{"no span", context.Background(), func(l *slog.Logger, ctx context.Context) { l.InfoContext(ctx, "m", "a", 1) },
			`{"msg":"m","a":1}`},
		{"span", spanCtx, func(l *slog.Logger, ctx context.Context) { l.InfoContext(ctx, "m", "a", 1) },
			`{"msg":"m","a":1,"trace_id":"T","span_id":"S"}`},
		{"attrs", spanCtx, func(l *slog.Logger, ctx context.Context) { l.With("w", 2).InfoContext(ctx, "m") },
			`{"msg":"m","w":2,"trace_id":"T","span_id":"S"}`},
		{"group", spanCtx, func(l *slog.Logger, ctx context.Context) {
			l.With("w", 2).WithGroup("g").With("x", 3).WithGroup("h").InfoContext(ctx, "m", "a", 1)
		}, `{"msg":"m","w":2,"trace_id":"T","span_id":"S","g":{"x":3,"h":{"a":1}}}`},
		{"group without span", context.Background(), func(l *slog.Logger, ctx context.Context) {
			l.WithGroup("g").InfoContext(ctx, "m", "a", 1)
		}, `{"msg":"m","g":{"a":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			drop := func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
					return slog.Attr{}
				}
				return a
			}
			tc.log(slog.New(mcpotel.NewLogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: drop}))), tc.ctx)
			want := bytes.NewBufferString(tc.want)
			want.WriteByte('\n')
			w := bytes.ReplaceAll(want.Bytes(), []byte(`"T"`), []byte(`"`+sc.TraceID().String()+`"`))
			w = bytes.ReplaceAll(w, []byte(`"S"`), []byte(`"`+sc.SpanID().String()+`"`))
			if buf.String() != string(w) {
				t.Errorf("got  %s\nwant %s", buf.String(), w)
			}
		})
	}
}

// TestLogHandlerToClient logs from a tool through the request's LogHandler,
// as the README's recipe does, at the newest stateful revision and at the
// default one (2026-07-28, where a request has no session): the client's
// notifications/message carries the trace of the tool call.
func TestLogHandlerToClient(t *testing.T) {
	for _, rev := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
		t.Run(rev, func(t *testing.T) { testLogHandlerToClient(t, rev) })
	}
}

func testLogHandlerToClient(t *testing.T, rev string) {
	tel := newTelemetry()
	so := mcp.ServerOptions{}
	mcpotel.InstrumentServer(&so, tel.opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-test", Version: "1"}, &so)
	must(t, mcp.AddTool(s, &mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		logger := slog.New(mcpotel.NewLogHandler(req.LogHandler(nil)))
		logger.InfoContext(ctx, "working")
		return &mcp.CallToolResult{}, nil
	}))
	got := make(chan json.RawMessage, 1)
	co := mcp.ClientOptions{
		ProtocolVersion: rev,
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			got <- p.Data
		},
	}
	cs := connectPipe(t, s, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &co))
	// A 2026-07-28 client asks for logs per request; this sets the level
	// for its next requests (a session's, before).
	must(t, cs.SetLoggingLevel(t.Context(), mcp.LevelDebug))
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "log"}); err != nil {
		t.Fatal(err)
	}
	var data struct {
		Msg     string `json:"msg"`
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	}
	if err := json.Unmarshal(<-got, &data); err != nil {
		t.Fatal(err)
	}
	call := tel.span(t, "tools/call log", trace.SpanKindServer)
	if data.Msg != "working" || data.TraceID != call.SpanContext().TraceID().String() || data.SpanID != call.SpanContext().SpanID().String() {
		t.Errorf("log data %+v, want the tools/call span %v", data, call.SpanContext())
	}
}
