package gateway

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// noticeBoundUpdate is the notice by which a gateway replica passes a
// resource update that arrived on an upstream session bound to one
// downstream session (Notice.Session) to the replica holding that
// session's stream: over Streamable HTTP, only the Handler holding a
// session's standalone stream writes to it, and it may be another
// process than the one whose bound session heard the update.
const noticeBoundUpdate = "gateway/boundResourceUpdated"

// listenNotices makes the gateway hear the notices of the server's
// Notifier (the deployment's, with Redis) until Close.
func (g *Gateway) listenNotices() {
	g.unhear = sync.OnceFunc(g.server.Notifier().Subscribe(g.heard))
}

// notifyBound tells the client of downstream session ss that the resource
// at uri (a downstream URI) changed, wherever its stream is: through the
// deployment's Notifier when the session has an id (Streamable HTTP), so
// that the replica holding its stream delivers it; directly otherwise (a
// session over stdio or in memory lives in this process alone).
func (g *Gateway) notifyBound(ss *mcp.ServerSession, uri string) {
	ctx, cancel := context.WithTimeout(context.WithValue(g.life, boundUpdateKey{}, true), time.Second)
	defer cancel()
	if ss.ID() == "" {
		_ = ss.Notify(ctx, mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		return
	}
	n := &shared.Notice{ID: rand.Text(), Method: noticeBoundUpdate, Session: ss.ID(), URI: uri}
	if err := g.server.Notifier().Publish(ctx, n); err != nil {
		g.log.Warn("gateway: notifier: publish", "session", ss.ID(), "uri", uri, "err", err)
	}
}

// heard delivers a bound session's resource update (noticeBoundUpdate) to
// this process's copy of its downstream session, if it holds one: every
// replica holding a copy sends it, and only the one holding the session's
// stream writes it (the others' copies have no stream to write to).
func (g *Gateway) heard(n *shared.Notice) {
	if n.Method != noticeBoundUpdate || n.Session == "" || n.URI == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithValue(g.life, boundUpdateKey{}, true), time.Second)
	defer cancel()
	for _, ss := range g.server.Sessions() {
		if ss.ID() == n.Session {
			_ = ss.Notify(ctx, mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: n.URI})
		}
	}
}
