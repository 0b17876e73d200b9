package gateway

import (
	"context"
	"slices"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
)

// serverOptions are the downstream server's: the application's, with the
// gateway's completion and roots handlers.
func (g *Gateway) serverOptions() *mcp.ServerOptions {
	var o mcp.ServerOptions
	if g.opts.Server != nil {
		o = *g.opts.Server
	}
	o.CompletionHandler = g.complete
	appRoots := o.RootsListChangedHandler
	o.RootsListChangedHandler = func(ctx context.Context, ss *mcp.ServerSession) {
		// The upstream sessions bound to this client hear of it too.
		for _, cs := range g.binds.sessionsOf(ss) {
			_ = cs.Notify(ctx, "notifications/roots/list_changed", nil)
		}
		if appRoots != nil {
			appRoots(ctx, ss)
		}
	}
	return &o
}

// installHooks ties the downstream server's events to the upstreams:
// sessions ending close their bound upstream sessions, subscriptions are
// forwarded.
func (g *Gateway) installHooks() {
	g.binds.g = g
	// Every kind is advertised from the start: an upstream that comes
	// later must not change what clients were told.
	g.server.ExtendCapabilities(func(c *mcp.ServerCapabilities) {
		if c.Tools == nil {
			c.Tools = &mcp.ToolCapabilities{ListChanged: true}
		}
		if c.Prompts == nil {
			c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		}
		if c.Resources == nil {
			c.Resources = &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
		}
	})
	if g.access != nil {
		g.access.g = g
	}
	hooks.OnUnregisterSession(g.server, func(_ context.Context, ss *mcp.ServerSession) {
		g.binds.dropSession(ss)
	})
	hooks.AddReceivingMiddleware(g.server, g.subscriptionMiddleware)
	hooks.AddSendingMiddleware(g.server, g.updateFilter)
	g.server.AddListenHook(func(ctx context.Context, _ *mcp.Request, requested, _ *mcp.SubscriptionFilter) error {
		// A 2026-07-28 client subscribes with its listen stream; the
		// upstream subscription lasts as long as the gateway (the stream's
		// end is not seen here).
		for _, uri := range requested.ResourceSubscriptions {
			g.subscribe(ctx, uri, +1)
		}
		return nil
	})
}

// subscriptionMiddleware forwards resources/subscribe and unsubscribe of
// stateful downstream sessions to the resource's upstream.
func (g *Gateway) subscriptionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.Method != "resources/subscribe" && r.Method != "resources/unsubscribe" {
			return next(ctx, r)
		}
		res, err := next(ctx, r)
		if err != nil {
			return res, err
		}
		p, perr := hooks.Params(r)
		ss, _ := r.Session.(*mcp.ServerSession)
		switch p := p.(type) {
		case *mcp.SubscribeParams:
			if perr == nil {
				g.subscribeFor(ctx, ss, r.ClientCapabilities(), p.URI, true)
			}
		case *mcp.UnsubscribeParams:
			if perr == nil {
				g.subscribeFor(ctx, ss, r.ClientCapabilities(), p.URI, false)
			}
		}
		return res, err
	}
}

// subscribeFor forwards the subscription of downstream session ss to uri
// (on false, its end). A client whose calls go over a session bound to it
// subscribes on that session, opened now if need be: an upstream may keep
// subscriptions per session (over stdio, per process), and its updates
// then come on the session where the client's calls change the resource.
// The subscriptions of other clients are counted on the shared session.
func (g *Gateway) subscribeFor(ctx context.Context, ss *mcp.ServerSession, caps *mcp.ClientCapabilities, uri string, on bool) {
	u, upURI := g.ownerOfURI(uri)
	if u == nil {
		return
	}
	delta := -1
	if on {
		delta = +1
	}
	if ss == nil || !bindsFor(u.current(), caps) {
		g.subscribe(ctx, uri, delta)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.timeout)
	defer cancel()
	var b *binding
	if on {
		b, _ = g.binds.get(ctx, u, ss)
	} else if b = g.binds.lookup(u, ss); b != nil && !b.subscribed(upURI) {
		b = nil // subscribed on the shared session (no binding was free)
	}
	if b == nil {
		g.subscribe(ctx, uri, delta)
		return
	}
	if b.mark(upURI, on) {
		u.subscribeOn(ctx, b.cs, upURI, on)
	}
}

// boundUpdateKey marks the context of a resource update a bound session
// sent (see resourceUpdated).
type boundUpdateKey struct{}

// updateFilter keeps the shared session's resource updates from the
// clients subscribed to that resource on a session bound to them: they
// hear their own session's, so no update twice, and none about another
// session's state.
func (g *Gateway) updateFilter(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.Method != mcp.NotificationResourceUpdated || ctx.Value(boundUpdateKey{}) != nil {
			return next(ctx, r)
		}
		ss, _ := r.Session.(*mcp.ServerSession)
		p, err := hooks.Params(r)
		if up, ok := p.(*mcp.ResourceUpdatedNotificationParams); ok && err == nil && ss != nil {
			if u, upURI := g.ownerOfURI(up.URI); u != nil {
				if b := g.binds.lookup(u, ss); b != nil && b.subscribed(upURI) {
					return nil, nil
				}
			}
		}
		return next(ctx, r)
	}
}

// restoreSubs subscribes a session newly bound to downstream session b.ss
// to what its client subscribed to of u (the one subscribing now too).
func (u *upstream) restoreSubs(ctx context.Context, b *binding) {
	for _, uri := range b.ss.State().Subscriptions {
		if o, upURI := u.g.ownerOfURI(uri); o == u && b.mark(upURI, true) {
			u.subscribeOn(ctx, b.cs, upURI, true)
		}
	}
}

// maxSubscriptions bounds the distinct URIs the gateway subscribes to.
const maxSubscriptions = 10000

// subscribe counts a downstream subscription to uri (delta +1 or -1) and
// subscribes the upstream on the first, unsubscribes it after the last.
func (g *Gateway) subscribe(ctx context.Context, uri string, delta int) {
	u, upURI := g.ownerOfURI(uri)
	if u == nil {
		return
	}
	g.subMu.Lock()
	n := g.subs[uri]
	if delta > 0 && n == 0 && len(g.subs) >= maxSubscriptions {
		g.subMu.Unlock()
		return
	}
	n += delta
	if n <= 0 {
		delete(g.subs, uri)
	} else {
		g.subs[uri] = n
	}
	g.subMu.Unlock()
	switch {
	case delta > 0 && n == 1:
		u.subscribe(ctx, upURI, true)
	case delta < 0 && n == 0:
		u.subscribe(ctx, upURI, false)
	}
}

// ownerOfURI finds the upstream of a downstream resource URI: a resource
// it lists, or one of its templates that matches.
func (g *Gateway) ownerOfURI(uri string) (*upstream, string) {
	if ref, ok := g.lookup(kindResource, uri); ok {
		return ref.up, ref.name
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	tmpls := make([]string, 0, len(g.owner[kindTemplate]))
	for t := range g.owner[kindTemplate] {
		tmpls = append(tmpls, t)
	}
	slices.Sort(tmpls)
	for _, t := range tmpls {
		if mcp.TemplateArgs(t, uri) != nil {
			u := g.byName[g.owner[kindTemplate][t]]
			return u, u.upURI(uri)
		}
	}
	return nil, ""
}

// subscribe subscribes the upstream to its own uri (on false,
// unsubscribes), on its shared session; resubscribe repeats them after a
// reconnection.
func (u *upstream) subscribe(ctx context.Context, uri string, on bool) {
	cs := u.current()
	u.mu.Lock()
	if on {
		u.subs[uri] = true
	} else {
		delete(u.subs, uri)
	}
	u.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.timeout)
	defer cancel()
	u.subscribeOn(ctx, cs, uri, on)
}

func (u *upstream) subscribeOn(ctx context.Context, cs *mcp.ClientSession, uri string, on bool) {
	if cs.Stateless() {
		u.relisten(cs)
		return
	}
	if c := cs.ServerCapabilities().Resources; c == nil || !c.Subscribe {
		return
	}
	var err error
	if on {
		err = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	} else {
		err = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
	if err != nil {
		u.g.log.Warn("gateway: upstream subscription", "upstream", u.name, "uri", uri, "err", err)
	}
}

// resubscribe restores the subscriptions after a reconnection.
func (u *upstream) resubscribe(ctx context.Context, cs *mcp.ClientSession) {
	u.mu.Lock()
	uris := sortedKeys(u.subs)
	u.mu.Unlock()
	if cs.Stateless() {
		if len(uris) > 0 {
			u.relisten(cs)
		}
		return
	}
	for _, uri := range uris {
		u.subscribeOn(ctx, cs, uri, true)
	}
}

// relisten (re)opens the listen stream of a 2026-07-28 upstream for the
// resources subscribed to, replacing the previous one.
func (u *upstream) relisten(cs *mcp.ClientSession) {
	u.mu.Lock()
	uris := sortedKeys(u.subs)
	if u.stopListen != nil {
		u.stopListen()
		u.stopListen = nil
	}
	if len(uris) == 0 {
		u.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(u.g.life)
	u.stopListen = cancel
	u.mu.Unlock()
	u.g.wg.Add(1)
	go func() {
		defer u.g.wg.Done()
		defer cancel()
		if err := cs.Listen(ctx, &mcp.SubscriptionFilter{ResourceSubscriptions: uris}); err != nil && ctx.Err() == nil {
			u.g.log.Warn("gateway: upstream listen", "upstream", u.name, "err", err)
		}
	}()
}
