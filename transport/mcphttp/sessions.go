// The sessions a Handler holds: finding one for a request (and checking
// that the caller may use it), counting them per client, rebuilding them
// from a shared SessionStore, keeping the store fresh, hearing other
// processes' notices, sweeping idle ones, and ending one on DELETE.

package mcphttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// principal returns the caller of r ("" without a Principal function).
func (h *Handler) principal(r *http.Request) string { return callerOf(h.opts.Principal, r) }

// permits reports whether the caller of r may use a session created by
// owner.
func (h *Handler) permits(r *http.Request, owner string) bool {
	return permitted(h.opts.Principal, r, owner)
}

// callerOf names the caller of r with principal, a Principal option; ""
// when it is nil.
func callerOf(principal func(*http.Request) string, r *http.Request) string {
	if principal == nil {
		return ""
	}
	return principal(r)
}

// permitted reports whether the caller of r, named by principal, may use a
// session created by owner: always when principal is nil.
func permitted(principal func(*http.Request) string, r *http.Request, owner string) bool {
	return principal == nil || principal(r) == owner
}

// errForbiddenSession answers a request for another principal's session.
func errForbiddenSession(w http.ResponseWriter, id jsonrpc.ID) {
	writeError(w, http.StatusForbidden, id, jsonrpc.CodeInvalidRequest, "forbidden: this session belongs to another principal")
}

// sessionFor returns the session sid for a request by r's caller, and
// begins an HTTP request on it (the caller ends it): the copy this Handler
// holds, or one rebuilt from the SessionStore. It answers the request
// itself and returns nil when the session is unknown (404), another
// principal's (403), or cannot be rebuilt now (503).
func (h *Handler) sessionFor(w http.ResponseWriter, r *http.Request, sid string, id jsonrpc.ID) *session {
	s := h.lookup(sid)
	if s == nil {
		state, err := h.states.Load(r.Context(), sid)
		switch {
		case errors.Is(err, shared.ErrNoSession):
			errSessionNotFound(w, id)
			return nil
		case err != nil:
			h.log.Warn("mcphttp: session store: load", "session", sid, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy, "server busy: the session store is unavailable; try again later")
			return nil
		case !h.permits(r, state.Principal):
			errForbiddenSession(w, id)
			return nil
		}
		srv := h.serverOf(r)
		if srv == nil {
			errNoServer(w, id)
			return nil
		}
		var overQuota bool
		if s, overQuota = h.rebuild(srv, state, h.clientKey(r)); s == nil {
			w.Header().Set("Retry-After", "5")
			if overQuota {
				writeError(w, http.StatusTooManyRequests, id, CodeServerBusy, "too many sessions: this client holds "+strconv.Itoa(h.opts.MaxSessionsPerClient)+" sessions on this server already; end one (DELETE) or try again later")
				return nil
			}
			writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy, "server busy: cannot hold another session now; try again later")
			return nil
		}
	}
	if !h.permits(r, s.principal) {
		errForbiddenSession(w, id)
		return nil
	}
	if !s.begin() {
		errSessionNotFound(w, id)
		return nil
	}
	h.touch(r.Context(), s)
	return s
}

// clientKey names the client of r for MaxSessionsPerClient.
func (h *Handler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		return h.opts.ClientKey(r)
	}
	if p := h.principal(r); p != "" {
		return "principal:" + p
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// reserve counts a session about to be created for client against
// MaxSessions and, when quota, against MaxSessionsPerClient. It reports
// false, and whether the client's quota is what is full, when the Handler
// is closed or full.
func (h *Handler) reserve(client string, quota bool) (ok, overQuota bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || (h.opts.MaxSessions > 0 && len(h.sessions)+h.reserved >= h.opts.MaxSessions) {
		return false, false
	}
	if quota && client != "" && h.opts.MaxSessionsPerClient > 0 && h.clients[client] >= h.opts.MaxSessionsPerClient {
		return false, true
	}
	h.reserved++
	if client != "" {
		if h.clients == nil {
			h.clients = make(map[string]int)
		}
		h.clients[client]++
	}
	return true, false
}

// unclient stops counting a session of client; h.mu must be held.
func (h *Handler) unclient(client string) {
	if client == "" {
		return
	}
	if n := h.clients[client] - 1; n > 0 {
		h.clients[client] = n
	} else {
		delete(h.clients, client)
	}
}

// install registers a session made after reserve, or reports false (and
// ends it) when the Handler closed meanwhile or, for a rebuilt session,
// another request rebuilt it first; the winner is returned then.
func (h *Handler) install(s *session, ss *mcp.ServerSession) (*session, bool) {
	h.mu.Lock()
	h.reserved--
	other := h.sessions[s.id]
	ok := !h.closed && other == nil
	if ok {
		s.ss = ss
		h.sessions[s.id] = s
		h.armSweeper()
	} else {
		h.unclient(s.client)
	}
	h.mu.Unlock()
	if !ok {
		s.ss = ss
		s.terminate()
	}
	return other, ok
}

// rebuild makes this Handler's copy of a session from its stored state,
// or returns nil when it cannot hold one more session (overQuota: the
// client is at MaxSessionsPerClient; a rebuilt session counts like one it
// initialized here).
func (h *Handler) rebuild(srv *mcp.Server, state *shared.SessionState, client string) (_ *session, overQuota bool) {
	if ok, over := h.reserve(client, true); !ok {
		if s := h.lookup(state.ID); s != nil {
			return s, false
		}
		return nil, over
	}
	s := newSession(h, state.ID, state.Principal, client)
	ss := srv.Connect(s, &mcp.SessionOptions{ID: state.ID, State: state, Store: h.sessionStore(), Principal: state.Principal})
	if other, ok := h.install(s, ss); !ok {
		return other, false
	}
	h.log.Debug("mcphttp: session rebuilt from the session store", "session", s.id)
	return s, false
}

// A storeToucher is a SessionStore that renews a session's life without
// rewriting it.
type storeToucher interface {
	Touch(ctx context.Context, id string) error
}

// touchEvery is how often a session in use is renewed in a storeToucher.
var touchEvery = time.Minute

// touch renews s in the shared store if it is a storeToucher and s was not
// renewed for touchEvery: a session served by this copy alone is never
// loaded or saved, and would otherwise expire there while in use.
func (h *Handler) touch(ctx context.Context, s *session) {
	t, ok := h.states.(storeToucher)
	if !ok || !h.writeThrough {
		return
	}
	now := time.Now().UnixNano()
	last := s.touched.Load()
	if last == 0 {
		s.touched.CompareAndSwap(0, now) // just made or rebuilt: the store has it fresh
		return
	}
	if now-last < int64(touchEvery) || !s.touched.CompareAndSwap(last, now) {
		return
	}
	if err := t.Touch(ctx, s.id); err != nil {
		h.log.Warn("mcphttp: session store: touch", "session", s.id, "err", err)
	}
}

// sessionStore is the store sessions write their changes to: the shared
// one, or none when the Handler keeps its own (see writeThrough).
func (h *Handler) sessionStore() shared.SessionStore {
	if h.writeThrough {
		return h.states
	}
	return nil
}

// forget ends a session for good, at the client's request: its state and
// events are deleted and every Handler ends its copy.
func (h *Handler) forget(ctx context.Context, sid string) {
	if err := h.states.Delete(ctx, sid); err != nil {
		h.log.Warn("mcphttp: session store: delete", "session", sid, "err", err)
	}
	if err := h.events.DeleteSession(ctx, sid); err != nil {
		h.log.Warn("mcphttp: event store: delete session", "session", sid, "err", err)
	}
	h.publish(ctx, noticeSessionDeleted, sid)
	if s := h.lookup(sid); s != nil {
		s.terminate()
	}
}

// publish sends one of this package's notices to the other Handlers.
func (h *Handler) publish(ctx context.Context, method, sid string) {
	n := &shared.Notice{Method: method, Session: sid, Data: h.id, Origin: h.origin()}
	if err := h.notifier.Publish(ctx, n); err != nil {
		h.log.Warn("mcphttp: notifier: publish", "method", method, "err", err)
	}
}

// hear acts on the notices of other Handlers.
func (h *Handler) hear(n *shared.Notice) {
	if n.Data == h.id || n.Session == "" {
		return
	}
	switch n.Method {
	case noticeResponse:
		from, body, ok := strings.Cut(n.Data, "\n")
		if !ok || from == h.id {
			return
		}
		if s := h.lookup(n.Session); s != nil {
			if m := (&jsonrpc.Decoder{MaxBatch: h.opts.MaxBatch}).Decode([]byte(body)); m.Invalid == nil && (m.IsResponse() || m.Batch != nil) {
				_ = s.deliver(m)
			}
		}
	case noticeStreamTaken:
		if st := h.standaloneOf(n.Session); st != nil && st.release() {
			h.publish(context.Background(), noticeStreamReleased, n.Session)
		}
	case noticeStreamReleased:
		if st := h.standaloneOf(n.Session); st != nil {
			st.catchUp(context.Background())
		}
	case noticeSessionDeleted:
		if s := h.lookup(n.Session); s != nil {
			s.terminate()
		}
	}
}

// standaloneOf returns the standalone stream of session sid, if this
// Handler holds the session and the stream was made.
func (h *Handler) standaloneOf(sid string) *stream {
	s := h.lookup(sid)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalone
}

// sweepInterval is how often idle sessions are looked for: a session ends
// between SessionIdleTimeout and SessionIdleTimeout plus this after its last
// request.
func (h *Handler) sweepInterval() time.Duration {
	return min(max(h.opts.SessionIdleTimeout/4, 10*time.Millisecond), time.Minute)
}

// armSweeper makes sure the sweeper will run. One timer for the whole
// Handler, armed only while sessions exist, costs idle sessions nothing and
// the request path no timer operation. h.mu must be held.
func (h *Handler) armSweeper() {
	if h.opts.SessionIdleTimeout <= 0 || h.sweeping {
		return
	}
	h.sweeping = true
	if h.sweeper == nil {
		h.sweeper = time.AfterFunc(h.sweepInterval(), h.sweep)
	} else {
		h.sweeper.Reset(h.sweepInterval())
	}
}

// sweep ends the copies of the sessions idle for SessionIdleTimeout (their
// stored state stays), and re-arms itself while sessions remain.
func (h *Handler) sweep() {
	timeout := h.opts.SessionIdleTimeout
	now := time.Now().UnixNano()
	h.mu.Lock()
	var idle []*session
	for _, s := range h.sessions {
		if time.Duration(now-s.lastSeen.Load()) >= timeout {
			idle = append(idle, s)
		}
	}
	h.mu.Unlock()
	for _, s := range idle {
		if s.idle(now, timeout) {
			h.log.Debug("mcphttp: session expired", "session", s.id)
			if !h.writeThrough && s.ss != nil && s.ss.ProtocolVersion() != "" {
				// The private store receives what this copy held, so the
				// client's next request rebuilds the session.
				if err := h.states.Save(context.Background(), s.ss.State()); err != nil {
					h.log.Warn("mcphttp: session store: save", "session", s.id, "err", err)
				}
			}
			s.terminate()
		}
	}
	h.mu.Lock()
	h.sweeping = false
	if len(h.sessions) > 0 && !h.closed {
		h.armSweeper()
	}
	h.mu.Unlock()
}

func (h *Handler) removeSession(s *session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
		h.unclient(s.client)
	}
	h.mu.Unlock()
}

func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if isStateless(r.Header.Get(headerProtocolVersion)) {
		h.methodNotAllowed(w, r)
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return
	}
	owner := ""
	if s := h.lookup(sid); s != nil {
		owner = s.principal
	} else {
		state, err := h.states.Load(r.Context(), sid)
		switch {
		case errors.Is(err, shared.ErrNoSession):
			errSessionNotFound(w, jsonrpc.ID{})
			return
		case err != nil:
			h.log.Warn("mcphttp: session store: load", "session", sid, "err", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: the session store is unavailable; try again later")
			return
		}
		owner = state.Principal
	}
	if !h.permits(r, owner) {
		errForbiddenSession(w, jsonrpc.ID{})
		return
	}
	h.forget(r.Context(), sid)
	w.WriteHeader(http.StatusNoContent)
}
