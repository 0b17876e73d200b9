package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// The session's own subscriptions/listen stream (2026-07-28).
//
// A stateful server sends list changes on the session whenever they happen.
// A 2026-07-28 server sends them only on a subscriptions/listen stream, so a
// client that set a list-changed handler would never hear anything on a
// stateless session. Connect therefore opens one listen stream itself, asking
// for the list kinds whose handlers are set and that the server offers
// listChanged for, and waits for its acknowledgement, so that no change
// made after Connect returns is missed. The notifications it carries reach
// the same handlers as on a stateful session (Client.route). The stream
// lasts until the session is closed.
//
// Resource updates are not part of it: on 2026-07-28 they are per-URI
// filters of a listen request, which the application opens with Listen and
// SubscriptionFilter.ResourceSubscriptions for as long as it cares about
// those resources (see ClientOptions.ResourceUpdatedHandler).

// listChangedFilter returns the list kinds the session listens for by
// itself: those with a handler that the server offers listChanged for. ok
// is false when there are none.
func (cs *ClientSession) listChangedFilter() (f SubscriptionFilter, ok bool) {
	opts, caps := &cs.client.opts, cs.ServerCapabilities()
	f.ToolsListChanged = opts.ToolListChangedHandler != nil && caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = opts.PromptListChangedHandler != nil && caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = opts.ResourceListChangedHandler != nil && caps.Resources != nil && caps.Resources.ListChanged
	return f, f.ToolsListChanged || f.PromptsListChanged || f.ResourcesListChanged
}

// listenForChanges opens the session's own listen stream, if it needs one,
// and waits until the server acknowledges it. ctx bounds only that wait.
// It fails only when ctx ends first; a server that refuses the stream, ends
// it at once or does not acknowledge it within the probe timeout leaves a
// working session without list changes, and a warning in the log.
//
// The stream is kept for as long as the session lives (keepListening).
func (cs *ClientSession) listenForChanges(ctx context.Context) error {
	filter, ok := cs.listChangedFilter()
	if !ok {
		return nil
	}
	acked := make(chan struct{})
	cs.mu.Lock()
	cs.listenAcked = acked
	cs.mu.Unlock()
	// The stream outlives ctx (keeping its values): it ends with the
	// session.
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	ended := make(chan error, 1)
	cs.stopListen, cs.listenEnded = stop, make(chan struct{})
	go func() {
		defer close(cs.listenEnded)
		cs.keepListening(lctx, &filter, ended)
	}()

	timer := time.NewTimer(cs.client.probeTimeout())
	defer timer.Stop()
	select {
	case <-acked:
	case err := <-ended:
		if err == nil {
			cs.client.log.Warn("mcp: the server ended subscriptions/listen at once; list changes may be missed")
		}
	case <-timer.C:
		cs.client.log.Warn("mcp: subscriptions/listen not acknowledged in time; list changes may be missed")
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// Bounds of the listen stream's reconnections: the jittered backoff
// between failed attempts, and how long a stream must have lasted for its
// end not to count as a failure.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 4 * time.Second
	listenHealthy  = 2 * time.Second
)

// keepListening runs the session's listen stream until ctx ends or the
// session does: when the stream ends (the network failed, the server
// ended it or restarted), it listens again, with jittered backoff while
// attempts fail, and drops the results cached from the lists, since a
// change may have been missed meanwhile. Only a server that refuses the
// request (an error response) stops it. The first outcome goes to first.
func (cs *ClientSession) keepListening(ctx context.Context, filter *SubscriptionFilter, first chan<- error) {
	failures := 0
	for n := 0; ; n++ {
		began := time.Now()
		err := cs.Listen(ctx, filter)
		if n == 0 {
			first <- err
		}
		var je *jsonrpc.Error
		switch {
		case ctx.Err() != nil || errors.Is(err, jsonrpc.ErrClosed) && !errors.Is(err, jsonrpc.ErrOutcomeUnknown):
			return
		case !errors.Is(err, jsonrpc.ErrOutcomeUnknown) && !errors.Is(err, jsonrpc.ErrNotSent) && errors.As(err, &je):
			cs.client.log.Warn("mcp: the server refused subscriptions/listen; list changes will not arrive", "err", err)
			return
		}
		select {
		case <-cs.conn.Done():
			return
		default:
		}
		if time.Since(began) >= listenHealthy {
			failures = 0
		}
		cs.client.log.Debug("mcp: subscriptions/listen ended; listening again", "err", err)
		cs.cache.invalidate(NotificationToolListChanged, "")
		cs.cache.invalidate(NotificationPromptListChanged, "")
		cs.cache.invalidate(NotificationResourceListChanged, "")
		if !sleepCtx(ctx, jsonrpc.Backoff(failures, listenRetryMin, listenRetryMax)) {
			return
		}
		failures++
	}
}

// sleepCtx waits d, or less if ctx ends; it reports whether it waited
// fully.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// listenAcknowledged records notifications/subscriptions/acknowledged. Only
// the first one after Connect opened the session's own stream matters (no
// other stream exists before Connect returns); later ones acknowledge
// streams the application opened with Listen.
func (cs *ClientSession) listenAcknowledged() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.listenAcked != nil {
		close(cs.listenAcked)
		cs.listenAcked = nil
	}
}
