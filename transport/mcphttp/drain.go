package mcphttp

import (
	"context"
	"net/http"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// Shutdown drains the Handler, for a replica that is stopped (a deploy, a
// scale-down) while others serve the same sessions, as
// http.Server.Shutdown drains a server:
//
//  1. At once, the Handler takes nothing new: readiness (Health.Ready)
//     answers 503, so a load balancer stops sending traffic here, and any
//     HTTP request that arrives still gets 503 with Retry-After and a
//     JSON-RPC error (CodeServerBusy) before it is read, so that the client
//     sends it again, to another replica (ClientStream does by itself).
//  2. Every standalone GET stream held here is ended with a retry hint
//     (the SSE retry field, RetryInterval), so that its client resumes it
//     with Last-Event-ID, through the load balancer, on another replica.
//     Until one takes the stream over, this Handler goes on storing the
//     session's events (resource updates), so that the replica the client
//     reconnects to replays them: nothing is lost while the stream moves.
//  3. Requests in flight run to their answers.
//
// Shutdown returns once nothing is in flight and every stream ended in (2)
// was taken over, or when ctx ends (then with its error); either way it
// ends as Close does. Sessions are never deleted from the SessionStore by a
// stopping Handler, and their events stay in the EventStore: other
// Handlers serve them on.
//
// Call it before http.Server.Shutdown, which closes the listener at once:
// while the Handler drains, the server still accepts the requests it
// refuses with 503 and the readiness probes that take the replica out of
// rotation.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.beginDrain()
	wait := time.Millisecond
	t := time.NewTimer(wait)
	defer t.Stop()
	for !h.drainedNow() {
		select {
		case <-ctx.Done():
			h.Close()
			return ctx.Err()
		case <-t.C:
		}
		// Poll, as http.Server.Shutdown does: the conditions change in
		// many places, and a drain happens once.
		wait = min(wait*2, 50*time.Millisecond)
		t.Reset(wait)
	}
	return h.Close()
}

// beginDrain refuses new sessions, rebuilds and HTTP requests from now on,
// and ends the standalone streams held open here (see Shutdown). It is
// idempotent.
func (h *Handler) beginDrain() {
	h.mu.Lock()
	h.closed = true
	if h.sweeper != nil {
		h.sweeper.Stop()
	}
	h.mu.Unlock()
	if h.draining.Swap(true) {
		return
	}
	close(h.drainCh)
}

// enter counts an HTTP request in flight, or reports false when the
// Handler drains: the request is refused then.
func (h *Handler) enter() bool {
	h.inflight.Add(1)
	if h.draining.Load() {
		h.inflight.Add(-1)
		return false
	}
	return true
}

// leave ends what enter counted.
func (h *Handler) leave() { h.inflight.Add(-1) }

// refuseDraining answers a request that arrived while the Handler drains:
// 503, to be retried (on another replica, behind a load balancer).
func refuseDraining(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server shutting down: send the request again (another replica serves the session)")
}

// drainedNow reports whether a drain is complete: no HTTP request in
// flight, and every standalone stream ended by the drain taken over by
// another Handler.
func (h *Handler) drainedNow() bool {
	if h.inflight.Load() != 0 {
		return false
	}
	h.mu.Lock()
	sessions := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		st := s.standalone
		s.mu.Unlock()
		if st != nil && st.handingOff() {
			return false
		}
	}
	return true
}

// handOff ends c, the live connection of the standalone stream, because
// the Handler drains: the client is told to come back after RetryInterval,
// and the stream stays held (its events stored here) until another Handler
// takes it over (sharing the SessionStore; without one, nobody can).
func (st *stream) handOff(c *sseConn) {
	st.mu.Lock()
	if st.conn == c {
		st.setConnLocked(nil)
	}
	// Only Handlers sharing the stores can take the stream over.
	st.handoff = st.held && st.s.h.writeThrough
	st.mu.Unlock()
	_ = c.write(appendRetry(nil, st.s.h.opts.RetryInterval))
	c.end()
}

// handingOff reports whether the stream waits for another Handler to take
// it over after a drain ended its connection.
func (st *stream) handingOff() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.handoff && st.held
}
