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
		err := cs.Listen(lctx, &filter)
		ended <- err
		if err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
			cs.client.log.Warn("mcp: subscriptions/listen ended; list changes will not arrive", "err", err)
		}
	}()

	timer := time.NewTimer(cs.client.probeTimeout())
	defer timer.Stop()
	select {
	case <-acked:
	case err := <-ended:
		if err == nil {
			cs.client.log.Warn("mcp: the server ended subscriptions/listen at once; list changes will not arrive")
		}
	case <-timer.C:
		cs.client.log.Warn("mcp: subscriptions/listen not acknowledged in time; list changes may be missed")
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
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
