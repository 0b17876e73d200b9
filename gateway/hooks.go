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
	hooks.OnRegisterSession(g.server, func(_ context.Context, ss *mcp.ServerSession) {
		g.sessionRegistered(ss)
	})
	hooks.OnUnregisterSession(g.server, func(_ context.Context, ss *mcp.ServerSession) {
		g.binds.dropSession(ss)
		g.sessionEnded(ss)
		g.elicits.dropSession(ss)
	})
	hooks.AddReceivingMiddleware(g.server, g.subscriptionMiddleware)
	hooks.AddSendingMiddleware(g.server, g.updateFilter)
	g.server.AddListenHook(g.listen)
}

// subscriptionMiddleware forwards resources/subscribe and unsubscribe of
// stateful downstream sessions to the resource's upstream, once the
// server has recorded them; it also notes the URL-mode elicitations an
// upstream's error asks a caller to complete (see elicitations).
func (g *Gateway) subscriptionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.Method != "resources/subscribe" && r.Method != "resources/unsubscribe" {
			res, err := next(ctx, r)
			if err != nil {
				g.urlElicitationsRequired(r, err)
			}
			return res, err
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
				g.subscribeFor(ctx, r.Caller(), ss, p.URI)
			}
		case *mcp.UnsubscribeParams:
			if perr == nil {
				g.unsubscribeFor(ctx, ss, p.URI)
			}
		}
		return res, err
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

// ownerOfURI finds the upstream of a downstream resource URI and the
// URI upstream (see ownerFeature).
func (g *Gateway) ownerOfURI(uri string) (*upstream, string) {
	u, up, _ := g.ownerFeature(uri)
	return u, up
}

// ownerFeature finds the upstream of a downstream resource URI: a
// resource it lists, or one of its templates that matches; f is that
// resource or template as visibility rules see it (by its URI or URI
// template).
func (g *Gateway) ownerFeature(uri string) (u *upstream, up string, f mcp.Feature) {
	if ref, ok := g.lookup(kindResource, uri); ok {
		return ref.up, ref.name, mcp.Feature{Kind: mcp.FeatureResource, Resource: &mcp.Resource{URI: uri}}
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
			return u, u.upURI(uri), mcp.Feature{Kind: mcp.FeatureResourceTemplate,
				ResourceTemplate: &mcp.ResourceTemplate{URITemplate: t}}
		}
	}
	return nil, "", mcp.Feature{}
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
