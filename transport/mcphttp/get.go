// GET: the standalone SSE stream of a session, and resumption of any
// stream from the EventStore (Last-Event-ID), including another
// process's POST streams.

package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/jsonrpc"
)

func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if isStateless(r.Header.Get(headerProtocolVersion)) {
		h.methodNotAllowed(w, r)
		return
	}
	if !accepts(r.Header.Values("Accept"), "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "not acceptable: Accept must list text/event-stream")
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return
	}
	var name, after string
	last := r.Header.Get(headerLastEventID)
	if last != "" {
		var err error
		if name, after, err = parseEventID(last); err != nil {
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+quoteHeader(last)+" was not issued by this server")
			return
		}
	}
	s := h.sessionFor(w, r, sid, jsonrpc.ID{})
	if s == nil {
		return
	}
	defer s.end()
	version := r.Header.Get(headerProtocolVersion)
	if e := checkVersion(version, s); e != "" {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, e)
		return
	}
	c := newSSEConn(w, h.opts.WriteTimeout)
	defer c.kill()
	var st *stream
	switch {
	case last == "":
		st = s.standaloneStream()
		if !st.isHeld() {
			h.refresh(r.Context(), s)
			h.publish(r.Context(), noticeStreamTaken, s.id)
		}
		if !st.open(r.Context(), c, s.primes(version), h.opts.RetryInterval) {
			writeError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "conflict: this session already has an open GET stream (resume with Last-Event-ID to replace it)")
			return
		}
		h.hold(r, s, st, c)
		return
	case name == standaloneName:
		st = s.standaloneStream()
		if !st.isHeld() {
			h.refresh(r.Context(), s)
		}
		if st.claim(r.Context(), after) {
			// Take the stream over before replaying, so that the previous
			// holder stores nothing the replay would miss; this Handler
			// stores the session's events from before the notice on, so
			// that none published while the stream moves is missed.
			h.publish(r.Context(), noticeStreamTaken, s.id)
		}
	default:
		st = s.postStream(name)
	}
	if st == nil {
		h.replayPostStream(w, r, s, c, name, after, last)
		return
	}
	if err := st.attach(r.Context(), c, after, true); err != nil {
		h.endReplay(w, c, last, err)
		return
	}
	_ = c.write(nil) // the headers, if nothing was replayed
	h.hold(r, s, st, c)
}

// refresh reads the state of s back from the shared SessionStore before
// this Handler takes the session's standalone stream over: from then on
// its copy alone stores and sends the session's notifications, resource
// updates included, and a copy that missed the announcement of a change
// (a subscription made through another Handler, announced while a Redis
// failover lost the notice) would skip them, with no other copy storing
// them. One store read per takeover; the copy stays as it was if the read
// fails.
func (h *Handler) refresh(ctx context.Context, s *session) {
	if h.writeThrough && s.ss != nil {
		bridge.ReloadSession(ctx, s.ss)
	}
}

// replayPostStream answers a GET resuming a POST stream that is finished,
// or another Handler's: it replays what the client missed (the events of
// stream name after the store id after, from Last-Event-ID last), and ends.
func (h *Handler) replayPostStream(w http.ResponseWriter, r *http.Request, s *session, c *sseConn, name, after, last string) {
	var err error
	if h.writeThrough && !strings.HasPrefix(name, h.streamPrefix) {
		// Another process's POST stream, whose request may still be
		// running there: follow it until its answer is stored.
		err = h.follow(r.Context(), s, name, after, c)
	} else {
		_, err = h.replay(r.Context(), s.id, name, after, c)
	}
	h.endReplay(w, c, last, err)
}

// followLimit bounds how long a GET follows another process's POST
// stream, whose process may have died with the request.
const followLimit = 10 * time.Minute

// follow replays a POST stream of another process from the store, and
// again as events arrive there, until the stream's answer (a response) was
// sent, the client leaves, the session ends or followLimit passes. It
// waits for the next event with the store's Wait if it is an EventWaiter,
// else polls (from every 50ms up to every second).
func (h *Handler) follow(ctx context.Context, s *session, stream, after string, c *sseConn) error {
	ctx, cancel := context.WithTimeout(ctx, followLimit)
	defer cancel()
	bp := bufPool.Get().(*[]byte)
	defer func() { putBuf(bp, *bp) }()
	wait := 50 * time.Millisecond
	for {
		answered := false
		err := h.events.Replay(ctx, s.id, stream, after, func(id string, data []byte) error {
			*bp = appendStoredEvent((*bp)[:0], stream, id, true, data)
			after = id
			wait = 50 * time.Millisecond
			if m := jsonrpc.Decode(data); m.Invalid == nil && m.IsResponse() {
				answered = true
			}
			return c.write(*bp)
		})
		if err != nil || answered {
			return err
		}
		_ = c.write(nil) // the headers, so that the client knows it is connected
		if !h.awaitEvent(ctx, s, stream, after, wait, c) {
			return nil
		}
		wait = min(wait*2, time.Second)
	}
}

// awaitEvent waits up to d for the stream to grow past after (with the
// store's Wait, if it has one, else for all of d), and reports false once
// ctx ended, the session ended, the client left or the Handler is
// draining (the client is then told to resume elsewhere).
func (h *Handler) awaitEvent(ctx context.Context, s *session, stream, after string, d time.Duration, c *sseConn) bool {
	if w, ok := h.events.(EventWaiter); ok && w.Wait(ctx, s.id, stream, after, d) == nil {
		d = 0 // waited: only look whether to go on
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	case <-c.done:
		return false
	case <-h.drainCh:
		// The client resumes on another Handler.
		_ = c.write(appendRetry(nil, h.opts.RetryInterval))
		return false
	case <-t.C:
		return true
	}
}

// endReplay ends a GET whose replay is all there is: with 400 if the store
// did not know Last-Event-ID and nothing was sent yet.
func (h *Handler) endReplay(w http.ResponseWriter, c *sseConn, last string, err error) {
	if c.started() {
		return
	}
	if errors.Is(err, ErrUnknownEvent) {
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID "+quoteHeader(last)+" was not issued by this server")
		return
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errConnGone) {
		// The store failed (Redis down, say): the client retries later
		// with the same Last-Event-ID and loses nothing.
		h.log.Warn("mcphttp: event store: replay", "err", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: the event store is unavailable; resume with the same Last-Event-ID later")
		return
	}
	_ = c.write(nil)
}

// replay writes the stored events of a stream after the store id after to
// c, and returns the store id of the last one (after when there is none).
func (h *Handler) replay(ctx context.Context, sid, stream, after string, c *sseConn) (string, error) {
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	last := after
	err := h.events.Replay(ctx, sid, stream, after, func(id string, data []byte) error {
		b = appendStoredEvent(b[:0], stream, id, true, data)
		last = id
		return c.write(b)
	})
	putBuf(bp, b)
	return last, err
}
