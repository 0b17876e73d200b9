package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// elicitations remembers, for each URL-mode elicitation an upstream
// started (2025-11-25: an elicitation/create in URL mode, or a
// URLElicitationRequired error), the downstream session it went to, so
// that the upstream's notifications/elicitation/complete reaches that
// client and no other. An entry goes with its notification, its session's
// end, or, beyond maxElicitations, the oldest first.
type elicitations struct {
	mu    sync.Mutex
	to    map[elicitKey]*mcp.ServerSession
	order []elicitKey // oldest first
}

// elicitKey names an elicitation: its upstream and its id there (ids are
// the upstream's, passed through unchanged).
type elicitKey struct {
	u  *upstream
	id string
}

// maxElicitations bounds the elicitations remembered; maxElicitationID
// bounds the length of an id.
const (
	maxElicitations  = 4096
	maxElicitationID = 256
)

// add remembers that elicitation id of u went to ss. Only a stateful
// session at 2025-11-25 or later can be told of its completion (2026-07-28
// dropped the notification).
func (e *elicitations) add(u *upstream, id string, ss *mcp.ServerSession) {
	if ss == nil || id == "" || len(id) > maxElicitationID || ss.ProtocolVersion() < mcp.Version20251125 {
		return
	}
	k := elicitKey{u, id}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.to == nil {
		e.to = map[elicitKey]*mcp.ServerSession{}
	}
	if _, ok := e.to[k]; !ok {
		if len(e.order) >= maxElicitations {
			delete(e.to, e.order[0])
			e.order = e.order[1:]
		}
		e.order = append(e.order, k)
	}
	e.to[k] = ss
}

// take returns the session elicitation id of u went to, and forgets it.
func (e *elicitations) take(u *upstream, id string) *mcp.ServerSession {
	k := elicitKey{u, id}
	e.mu.Lock()
	defer e.mu.Unlock()
	ss, ok := e.to[k]
	if !ok {
		return nil
	}
	delete(e.to, k)
	e.drop(func(x elicitKey) bool { return x == k })
	return ss
}

// dropSession forgets the elicitations of a session that ended.
func (e *elicitations) dropSession(ss *mcp.ServerSession) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.to) == 0 {
		return
	}
	for k, s := range e.to {
		if s == ss {
			delete(e.to, k)
		}
	}
	e.drop(func(x elicitKey) bool { _, ok := e.to[x]; return !ok })
}

// drop removes the keys gone from order; e.mu is held.
func (e *elicitations) drop(gone func(elicitKey) bool) {
	out := e.order[:0]
	for _, k := range e.order {
		if !gone(k) {
			out = append(out, k)
		}
	}
	clear(e.order[len(out):])
	e.order = out
}

// elicit is the upstream client's elicitation handler: the question goes
// to the client that caused it (ask); a URL-mode one is remembered, so
// that its completion reaches the same client.
func (u *upstream) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if p := req.Params; p != nil && p.Mode == mcp.ElicitModeURL && p.ElicitationID != "" {
		u.g.elicits.add(u, p.ElicitationID, u.askedSession(ctx, req.Session))
	}
	a, err := u.ask(ctx, req.Session, "elicitation", &mcp.InputRequest{Elicit: req.Params})
	if err != nil {
		return nil, err
	}
	return a.Elicit, nil
}

// askedSession is the downstream session a question of the upstream on cs
// goes to (see ask), or nil: a 2026-07-28 request has none.
func (u *upstream) askedSession(ctx context.Context, cs *mcp.ClientSession) *mcp.ServerSession {
	if a, ok := ctx.Value(askerKey{}).(*asker); ok {
		ss, _ := a.req.Session()
		return ss
	}
	if b := u.g.binds.of(cs); b != nil {
		if a := b.last(); a != nil {
			ss, _ := a.req.Session()
			return ss
		}
		return b.ss
	}
	return nil
}

// elicitationComplete passes an upstream's notifications/elicitation/complete
// to the client its elicitation went to, and to no other; one the gateway
// did not see start is dropped.
func (u *upstream) elicitationComplete(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteNotificationParams) {
	ss := u.g.elicits.take(u, p.ElicitationID)
	if ss == nil {
		return
	}
	ctx, cancel := context.WithTimeout(u.g.life, time.Second)
	defer cancel()
	_ = ss.Notify(ctx, mcp.NotificationElicitationComplete, &mcp.ElicitationCompleteNotificationParams{ElicitationID: p.ElicitationID})
}

// urlElicitationsRequired remembers the elicitations of a
// URLElicitationRequired error (-32042) that an upstream answered a
// downstream request of a stateful session with: the upstream tells of
// their completion later, on the session the request went over.
func (g *Gateway) urlElicitationsRequired(r *mcp.Request, err error) {
	var je *jsonrpc.Error
	ss, _ := r.Session.(*mcp.ServerSession)
	if ss == nil || !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired || len(je.Data) == 0 {
		return
	}
	u := g.upstreamOf(r)
	if u == nil {
		return
	}
	var d struct {
		Elicitations []struct {
			ElicitationID string `json:"elicitationId"`
		} `json:"elicitations"`
	}
	if json.Unmarshal(je.Data, &d) != nil {
		return
	}
	for i, e := range d.Elicitations {
		if i >= 16 {
			break
		}
		g.elicits.add(u, e.ElicitationID, ss)
	}
}

// upstreamOf names the upstream a downstream tools/call, prompts/get or
// resources/read went to.
func (g *Gateway) upstreamOf(r *mcp.Request) *upstream {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(r.Params, &p) != nil {
		return nil
	}
	switch r.Method {
	case "tools/call":
		if ref, ok := g.lookup(kindTool, p.Name); ok {
			return ref.up
		}
	case "prompts/get":
		if ref, ok := g.lookup(kindPrompt, p.Name); ok {
			return ref.up
		}
	case "resources/read":
		u, _ := g.ownerOfURI(p.URI)
		return u
	}
	return nil
}
