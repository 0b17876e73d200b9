package gateway

import (
	"context"
	"slices"
	"sync"

	"github.com/gomcp/sdk/mcp"
)

// subscriptions is what the gateway holds of its downstream clients'
// resource subscriptions, so that each can be released: by its
// unsubscribe, by the end of its downstream session (however it ends), or
// by the end of its listen stream.
type subscriptions struct {
	mu     sync.Mutex
	count  map[string]int                            // downstream URI -> subscribers counted on the shared session
	held   map[*mcp.ServerSession]map[string]heldSub // what each stateful session subscribed to
	listen map[*upstream]map[string]int              // upstream URI -> listen streams of clients that can be asked something
	order  map[*upstream]*sync.Mutex                 // serializes an upstream's shared-session subscription changes
}

// heldSub is one downstream subscription: to uri (downstream), which is
// up on upstream u. Of a stateful session's, shared says it is counted on
// u's shared session (else it lives on a session bound to its client); a
// listen stream's is always counted there, and mirror says it is also
// held on u's one-call sessions (see listenOn).
type heldSub struct {
	uri    string
	u      *upstream
	up     string
	shared bool
	mirror bool
}

// Limits: maxSubscriptions bounds the distinct URIs the gateway
// subscribes to on the shared sessions and those of one downstream
// session; maxListenMirror bounds the URIs of one upstream mirrored on
// each of its one-call sessions (each costs a subscribe round trip when
// such a session is taken for a call).
const (
	maxSubscriptions = 10000
	maxListenMirror  = 64
)

// countLocked counts a subscriber of uri on the shared session (delta +1
// or -1); it refuses a new URI beyond maxSubscriptions.
func (s *subscriptions) countLocked(uri string, delta int) bool {
	n := s.count[uri]
	if delta > 0 && n == 0 && len(s.count) >= maxSubscriptions {
		return false
	}
	if s.count == nil {
		s.count = map[string]int{}
	}
	if n += delta; n <= 0 {
		delete(s.count, uri)
	} else {
		s.count[uri] = n
	}
	return true
}

// hold records that downstream session ss subscribed to h.uri (counted on
// the shared session if h.shared). It reports false, recording nothing,
// when ss holds it already, has ended (its release ran or is about to:
// the unregister hook follows Done), or a limit is reached.
func (s *subscriptions) hold(ss *mcp.ServerSession, h heldSub) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-ss.Done():
		return false
	default:
	}
	if _, ok := s.held[ss][h.uri]; ok || len(s.held[ss]) >= maxSubscriptions {
		return false
	}
	if h.shared && !s.countLocked(h.uri, +1) {
		return false
	}
	if s.held == nil {
		s.held = map[*mcp.ServerSession]map[string]heldSub{}
	}
	if s.held[ss] == nil {
		s.held[ss] = map[string]heldSub{}
	}
	s.held[ss][h.uri] = h
	return true
}

// unhold forgets the subscription of ss to uri and returns it.
func (s *subscriptions) unhold(ss *mcp.ServerSession, uri string) (heldSub, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.held[ss][uri]
	if !ok {
		return h, false
	}
	delete(s.held[ss], uri)
	if len(s.held[ss]) == 0 {
		delete(s.held, ss)
	}
	if h.shared {
		s.countLocked(uri, -1)
	}
	return h, true
}

// release forgets every subscription of a session that ended and returns
// those counted on the shared session (theirs are bound sessions, which
// end with it).
func (s *subscriptions) release(ss *mcp.ServerSession) []heldSub {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []heldSub
	for _, h := range s.held[ss] {
		if h.shared {
			s.countLocked(h.uri, -1)
			out = append(out, h)
		}
	}
	delete(s.held, ss)
	return out
}

// boundOf returns the subscriptions ss holds on its bound session to u.
func (s *subscriptions) boundOf(ss *mcp.ServerSession, u *upstream) []heldSub {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []heldSub
	for _, h := range s.held[ss] {
		if h.u == u && !h.shared {
			out = append(out, h)
		}
	}
	return out
}

func (s *subscriptions) counted(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count[uri] > 0
}

// orderOf returns the lock that keeps u's shared-session subscription
// changes in order.
func (s *subscriptions) orderOf(u *upstream) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.order == nil {
		s.order = map[*upstream]*sync.Mutex{}
	}
	if s.order[u] == nil {
		s.order[u] = &sync.Mutex{}
	}
	return s.order[u]
}

// listenOn counts the subscriptions of a listen stream on the shared
// session, and those with mirror set (the client can be asked something,
// so its calls run on one-call sessions) for the one-call sessions too;
// it returns those it took.
func (s *subscriptions) listenOn(subs []heldSub) []heldSub {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []heldSub
	for _, h := range subs {
		if !s.countLocked(h.uri, +1) {
			continue
		}
		if h.mirror {
			if s.listen == nil {
				s.listen = map[*upstream]map[string]int{}
			}
			m := s.listen[h.u]
			if m == nil {
				m = map[string]int{}
				s.listen[h.u] = m
			}
			if m[h.up] > 0 || len(m) < maxListenMirror {
				m[h.up]++
			} else {
				h.mirror = false
			}
		}
		out = append(out, h)
	}
	return out
}

// listenOff releases what listenOn took.
func (s *subscriptions) listenOff(subs []heldSub) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range subs {
		s.countLocked(h.uri, -1)
		if h.mirror {
			if s.listen[h.u][h.up]--; s.listen[h.u][h.up] <= 0 {
				delete(s.listen[h.u], h.up)
			}
		}
	}
}

// listening returns the upstream URIs of u that listen streams of clients
// that can be asked something hold, sorted; nil when none.
func (s *subscriptions) listening(u *upstream) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.listen[u]) == 0 {
		return nil
	}
	return sortedKeys(s.listen[u])
}

// syncShared brings u's shared-session subscription to h.up in line with
// the count of h.uri: subscribed while anyone is counted, unsubscribed
// after the last. Changes of one upstream are made one at a time, so a
// subscribe and an unsubscribe racing cannot reach the upstream in the
// wrong order.
func (g *Gateway) syncShared(ctx context.Context, h heldSub) {
	mu := g.subs.orderOf(h.u)
	mu.Lock()
	defer mu.Unlock()
	want := g.subs.counted(h.uri)
	h.u.mu.Lock()
	have := h.u.subs[h.up]
	h.u.mu.Unlock()
	if want != have {
		h.u.subscribe(ctx, h.up, want)
	}
}

// subscribeFor forwards the subscription of downstream session ss (c its
// caller) to uri. Nothing is forwarded for a URI the
// gateway does not serve or the caller may not see: it is answered as the
// server answers any subscribe, so whether a hidden resource exists does
// not leak, and its updates never reach the caller (the server sends
// updates only of what a session may read). A client whose calls go over a
// session bound to it subscribes on that session, opened now if need be:
// an upstream may keep subscriptions per session (over stdio, per
// process), and its updates then come on the session where the client's
// calls change the resource. The subscriptions of other clients are
// counted on the shared session.
func (g *Gateway) subscribeFor(ctx context.Context, c mcp.Caller, ss *mcp.ServerSession, uri string) {
	u, up, f := g.ownerFeature(uri)
	if u == nil || ss == nil || !g.server.Sees(ctx, c, f) {
		return
	}
	h := heldSub{uri: uri, u: u, up: up}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.timeout)
	defer cancel()
	if bindsFor(u.current(), c.ClientCapabilities()) {
		if !g.subs.hold(ss, h) {
			return
		}
		// A binding opened now subscribes to what its client holds.
		if b, err := g.binds.get(ctx, u, ss); err == nil {
			if b.mark(up, true) {
				u.subscribeOn(ctx, b.cs, up, true)
			}
			return
		}
		g.subs.unhold(ss, uri) // no binding: counted on the shared session
	}
	h.shared = true
	if g.subs.hold(ss, h) {
		g.syncShared(ctx, h)
	}
}

// unsubscribeFor ends the subscription of downstream session ss to uri,
// where it was made.
func (g *Gateway) unsubscribeFor(ctx context.Context, ss *mcp.ServerSession, uri string) {
	if ss == nil {
		return
	}
	h, ok := g.subs.unhold(ss, uri)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.u.timeout)
	defer cancel()
	if h.shared {
		g.syncShared(ctx, h)
		return
	}
	if b := g.binds.lookup(h.u, ss); b != nil && b.mark(h.up, false) {
		h.u.subscribeOn(ctx, b.cs, h.up, false)
	}
}

// sessionEnded releases the subscriptions of a downstream session that
// ended (closed, deleted, expired, its connection gone) without
// unsubscribing: the last subscriber of a URI on the shared session
// unsubscribes the upstream. Its bound sessions, and their subscriptions,
// end with it (bindings.dropSession).
func (g *Gateway) sessionEnded(ss *mcp.ServerSession) {
	if subs := g.subs.release(ss); len(subs) > 0 {
		g.binds.spawn(func(ctx context.Context) {
			for _, h := range subs {
				tctx, cancel := context.WithTimeout(ctx, h.u.timeout)
				g.syncShared(tctx, h)
				cancel()
			}
		})
	}
}

// sessionRegistered takes up the subscriptions of a session rebuilt from
// the session store (one whose copy here had expired, or that another
// gateway process served): the server holds them, the gateway forwards
// them again, as the session's client sees them outside any request.
func (g *Gateway) sessionRegistered(ss *mcp.ServerSession) {
	uris := ss.State().Subscriptions
	if len(uris) == 0 {
		return
	}
	g.binds.spawn(func(ctx context.Context) {
		for _, uri := range uris {
			g.subscribeFor(ctx, sessionCaller{ss}, ss, uri)
		}
	})
}

// sessionCaller is a stateful session's client as visibility rules see it
// outside any of its requests.
type sessionCaller struct{ ss *mcp.ServerSession }

func (c sessionCaller) Principal() string                   { return c.ss.State().Principal }
func (c sessionCaller) ProtocolVersion() string             { return c.ss.ProtocolVersion() }
func (c sessionCaller) Session() (*mcp.ServerSession, bool) { return c.ss, true }

func (c sessionCaller) ClientInfo() *mcp.Implementation {
	if info := c.ss.ClientInfo(); info != nil {
		return info
	}
	return &mcp.Implementation{}
}

func (c sessionCaller) ClientCapabilities() *mcp.ClientCapabilities {
	if caps := c.ss.ClientCapabilities(); caps != nil {
		return caps
	}
	return &mcp.ClientCapabilities{}
}

// listen is the listen hook: a 2026-07-28 client subscribes with its
// listen stream, for as long as the stream lives. The acknowledgement
// keeps only the URIs the gateway serves and the caller may see (so a
// hidden resource is answered as an unknown one). Each is counted on the
// shared session; for a client that can be asked something, whose calls
// run on one-call sessions of a stateful upstream, also mirrored on those
// sessions (see restoreSubs), so that an update the upstream sends only to
// the session whose call caused it still reaches the listen streams.
func (g *Gateway) listen(ctx context.Context, r *mcp.Request, _, ack *mcp.SubscriptionFilter) error {
	if len(ack.ResourceSubscriptions) == 0 {
		return nil
	}
	caller, caps := r.Caller(), r.ClientCapabilities()
	var keep []string
	var subs []heldSub
	for _, uri := range ack.ResourceSubscriptions {
		if slices.Contains(keep, uri) {
			continue
		}
		u, up, f := g.ownerFeature(uri)
		if u == nil || !g.server.Sees(ctx, caller, f) {
			continue
		}
		keep = append(keep, uri)
		subs = append(subs, heldSub{uri: uri, u: u, up: up, shared: true, mirror: bindsFor(u.current(), caps)})
	}
	ack.ResourceSubscriptions = keep
	taken := g.subs.listenOn(subs)
	for _, h := range taken {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.u.timeout)
		g.syncShared(tctx, h)
		cancel()
	}
	if len(taken) > 0 {
		context.AfterFunc(ctx, func() {
			g.subs.listenOff(taken)
			g.binds.spawn(func(ctx context.Context) {
				for _, h := range taken {
					tctx, cancel := context.WithTimeout(ctx, h.u.timeout)
					g.syncShared(tctx, h)
					cancel()
				}
			})
		})
	}
	return nil
}

// restoreSubs subscribes an upstream session taken by a binding to what
// its client holds: a session bound to downstream session b.ss, to that
// session's subscriptions on it (a session bound anew keeps them); a
// one-call session, to what listen streams of clients that can be asked
// something hold of u, dropping what they no longer hold.
func (u *upstream) restoreSubs(ctx context.Context, b *binding) {
	if b.ss != nil {
		for _, h := range u.g.subs.boundOf(b.ss, u) {
			if b.mark(h.up, true) {
				u.subscribeOn(ctx, b.cs, h.up, true)
			}
		}
		// A session that another replica served holds subscriptions this
		// process has not taken up yet (sessionRegistered does, later).
		for _, uri := range b.ss.State().Subscriptions {
			o, up, f := u.g.ownerFeature(uri)
			if o == u && u.g.server.Sees(ctx, sessionCaller{b.ss}, f) && b.mark(up, true) {
				u.subscribeOn(ctx, b.cs, up, true)
			}
		}
		return
	}
	want, have := u.g.subs.listening(u), b.marked()
	for _, up := range want {
		if !slices.Contains(have, up) && b.mark(up, true) {
			u.subscribeOn(ctx, b.cs, up, true)
		}
	}
	for _, up := range have {
		if !slices.Contains(want, up) && b.mark(up, false) {
			u.subscribeOn(ctx, b.cs, up, false)
		}
	}
}

// boundUpdated passes on an update that came on a bound session: to its
// client alone when it serves one downstream session; from a one-call
// session, to the listen streams subscribed to the resource (a 2026-07-28
// request names no client that a later update could go to, and the
// acknowledged filters hold only what their clients may see).
func (u *upstream) boundUpdated(b *binding, up, down string) {
	if !b.subscribed(up) {
		return
	}
	if b.ss == nil {
		u.g.server.NotifyListeners(mcp.NotificationResourceUpdated,
			func(f *mcp.SubscriptionFilter) bool { return slices.Contains(f.ResourceSubscriptions, down) },
			func(m *mcp.Meta) any { return &mcp.ResourceUpdatedNotificationParams{Meta: m, URI: down} })
		return
	}
	u.g.notifyBound(b.ss, down) // wherever its stream is (scale.go)
}
