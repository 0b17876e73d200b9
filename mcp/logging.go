package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// LoggingHandlerOptions configures ServerRequest.LogHandler.
type LoggingHandlerOptions struct {
	// Logger names the logger in each message ("logger" field).
	Logger string
	// Level is the minimum slog level forwarded. Default slog.LevelDebug;
	// the level the client asked for filters further.
	Level slog.Leveler
}

// LogHandler returns a slog.Handler that sends each record to the client
// as notifications/message about this request, at every revision, and only
// at the levels the client asked for (see LogLevel): per session before
// 2026-07-28, per request in 2026-07-28, where a client that asked for none
// gets none. slog levels map to MCP levels: Debug→debug, Info→info,
// Warn→warning, Error→error, and Error+4 and above → critical, alert,
// emergency. The message and attributes become the data object
// {"msg": ..., attr: value, ...}. Wrap it to add attributes of your own
// (trace ids, say), or use Logger.
func (r *ServerRequest[P]) LogHandler(opts *LoggingHandlerOptions) slog.Handler {
	h := &loggingHandler{life: r.lc(), id: r.id}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.Level == nil {
		h.opts.Level = slog.LevelDebug
	}
	return h
}

// Logger returns a logger whose records go to the client as
// notifications/message about this request: slog.New(r.LogHandler(nil)).
// It works the same at every revision; what the client did not ask for is
// dropped before it is formatted.
func (r *ServerRequest[P]) Logger() *slog.Logger { return slog.New(r.LogHandler(nil)) }

type loggingHandler struct {
	life   lifecycle
	id     jsonrpc.ID // the request the records are about
	opts   LoggingHandlerOptions
	attrs  []groupedAttr // from WithAttrs
	groups []string
}

// groupedAttr is an attribute added by WithAttrs, with the number of groups
// open at the time: it belongs inside those groups and no deeper.
type groupedAttr struct {
	depth int
	attr  slog.Attr
}

// Enabled asks the client's level too, so that a record nobody will read
// is not even built.
func (h *loggingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.opts.Level.Level() && h.life.logs(ctx, mcpLevel(l))
}

func mcpLevel(l slog.Level) LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return LevelDebug
	case l < slog.LevelWarn:
		return LevelInfo
	case l < slog.LevelError:
		return LevelWarning
	case l < slog.LevelError+4:
		return LevelError
	case l < slog.LevelError+8:
		return LevelCritical
	case l < slog.LevelError+12:
		return LevelAlert
	}
	return LevelEmergency
}

func (h *loggingHandler) Handle(ctx context.Context, r slog.Record) error {
	level := mcpLevel(r.Level)
	if !h.life.logs(ctx, level) {
		return nil // a wrapping handler may not have asked Enabled
	}
	data := map[string]any{"msg": r.Message}
	// group returns the object of the first depth open groups, creating
	// them on first use so that a group left empty is omitted.
	group := func(depth int) map[string]any {
		m := data
		for _, g := range h.groups[:depth] {
			sub, ok := m[g].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[g] = sub
			}
			m = sub
		}
		return m
	}
	for _, ga := range h.attrs {
		addAttr(group(ga.depth), ga.attr)
	}
	if r.NumAttrs() > 0 {
		m := group(len(h.groups))
		r.Attrs(func(a slog.Attr) bool {
			addAttr(m, a)
			return true
		})
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return h.life.notify(about(ctx, h.id), NotificationMessage, &LoggingMessageNotificationParams{Level: level, Logger: h.opts.Logger, Data: raw})
}

// about returns ctx marked as related to the request id, so that what is
// sent with it about that request takes the request's own way (its SSE
// stream over Streamable HTTP), whatever context the handler passed:
// slog.Logger.Info passes context.Background, and a log sent on the
// session's standalone stream would come after the result, or never to a
// client that opened none.
func about(ctx context.Context, id jsonrpc.ID) context.Context {
	if id.IsZero() {
		return ctx
	}
	if cur, ok := jsonrpc.RelatedRequest(ctx); ok && cur == id {
		return ctx
	}
	return jsonrpc.WithRelatedRequest(ctx, id)
}

// addAttr stores a in m as slog's JSON handler would: a group becomes an
// object (inlined when its key is empty, dropped when it has no
// attributes) and an error its message.
func addAttr(m map[string]any, a slog.Attr) {
	a.Value = a.Value.Resolve()
	switch {
	case a.Equal(slog.Attr{}):
	case a.Value.Kind() == slog.KindGroup:
		attrs := a.Value.Group()
		if len(attrs) == 0 {
			return
		}
		if a.Key != "" {
			sub, ok := m[a.Key].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[a.Key] = sub
			}
			m = sub
		}
		for _, ga := range attrs {
			addAttr(m, ga)
		}
	default:
		v := a.Value.Any()
		if err, ok := v.(error); ok {
			v = err.Error()
		}
		m[a.Key] = v
	}
}

func (h *loggingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clip(h.attrs)
	for _, a := range attrs {
		c.attrs = append(c.attrs, groupedAttr{depth: len(h.groups), attr: a})
	}
	return &c
}

func (h *loggingHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = append(slices.Clip(h.groups), name)
	return &c
}

// errorsOnStderr is a Server's logger when ServerOptions.Logger is nil:
// records of level Error (what a client only sees as an internal error, a
// handler's panic above all) go to the process's stderr, the stack on the
// lines after the message, and the rest is dropped.
var errorsOnStderr = slog.New(&stderrHandler{mu: new(sync.Mutex)})

// stderrHandler writes records of level Error and above on os.Stderr (the
// one of the moment a record is written) as one line of the message and
// its attributes, followed by the attribute "stack" as it is.
type stderrHandler struct {
	mu     *sync.Mutex
	attrs  []slog.Attr
	prefix string // the open groups, "a.b."
}

func (h *stderrHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }

func (h *stderrHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Time.Format(time.RFC3339))
	b.WriteString(" " + r.Level.String() + " " + r.Message)
	var stack string
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if a.Key == "stack" {
			stack = v
			return true
		}
		if strings.ContainsAny(v, " \t\n\"=") || v == "" {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + a.Key + "=" + v)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool {
		a.Key = h.prefix + a.Key
		return add(a)
	})
	b.WriteByte('\n')
	if stack != "" {
		b.WriteString(strings.TrimRight(stack, "\n") + "\n")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(os.Stderr, b.String())
	return err
}

func (h *stderrHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clip(h.attrs)
	for _, a := range attrs {
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *stderrHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}
