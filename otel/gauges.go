package mcpotel

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/gomcp/sdk/mcp"
)

// The load gauges, for operators: how much a server holds right now. The
// MCP conventions define none, so the names follow the general ones
// (http.server.active_requests).
const (
	metricActiveSessions      = "mcp.server.active_sessions"
	metricActiveRequests      = "mcp.server.active_requests"
	metricQueuedNotifications = "mcp.server.queued_notifications"
)

// load keeps the server's load gauges: an up-down counter of requests
// being handled, and the stateful sessions that finished their handshake
// and have not ended, which two observable instruments read when metrics
// are collected (their count, and the notifications waiting in their
// queues, from ServerSession.Stats).
type load struct {
	requests metric.Int64UpDownCounter

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]struct{}
}

// newLoad makes the instruments. As for the histograms, a meter that
// fails leaves no-op instruments and reports through otel.Handle.
func newLoad(meter metric.Meter) *load {
	l := &load{sessions: make(map[*mcp.ServerSession]struct{})}
	var err error
	l.requests, err = meter.Int64UpDownCounter(metricActiveRequests, metric.WithUnit("{request}"),
		metric.WithDescription("Requests the server is handling, queued ones included."))
	if err != nil || l.requests == nil {
		l.requests = noop.Int64UpDownCounter{}
	}
	sessions, _ := meter.Int64ObservableUpDownCounter(metricActiveSessions, metric.WithUnit("{session}"),
		metric.WithDescription("Stateful sessions initialized and not yet ended."))
	queued, _ := meter.Int64ObservableGauge(metricQueuedNotifications, metric.WithUnit("{notification}"),
		metric.WithDescription("Notifications from clients waiting to be handled, over all sessions."))
	if sessions != nil && queued != nil {
		_, _ = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
			n, q := l.observe()
			o.ObserveInt64(sessions, n)
			o.ObserveInt64(queued, q)
			return nil
		}, sessions, queued)
	}
	return l
}

// observe counts the live sessions and their queued notifications.
func (l *load) observe() (sessions, queued int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ss := range l.sessions {
		queued += int64(ss.Stats().QueuedNotifications)
	}
	return int64(len(l.sessions)), queued
}

// track counts ss until it ends.
func (l *load) track(ss *mcp.ServerSession) {
	l.mu.Lock()
	l.sessions[ss] = struct{}{}
	l.mu.Unlock()
}

// untrack stops counting ss.
func (l *load) untrack(ss *mcp.ServerSession) {
	l.mu.Lock()
	delete(l.sessions, ss)
	l.mu.Unlock()
}

// requestsMiddleware counts the requests (not notifications) being
// handled. It goes outermost in ServerOptions.Receiving.
func (l *load) requestsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.IsNotification() || r.Rejected() {
			return next(ctx, r)
		}
		l.requests.Add(ctx, 1)
		defer l.requests.Add(ctx, -1)
		return next(ctx, r)
	}
}
