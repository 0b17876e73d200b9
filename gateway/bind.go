package gateway

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/gomcp/sdk/mcp"
)

// A binding is an upstream session that serves one downstream client
// at a time, so that what the upstream asks on it (sampling, elicitation,
// roots) can only be that client's to answer. A stateful upstream speaks
// to no one else on it: its questions carry no reference to the call that
// caused them, and over stdio nothing else could tell two callers apart.
//
// A downstream session whose client declared sampling, elicitation or
// roots gets its binding on its first call or resource subscription (which
// must live where its calls run), and loses it when it ends; a 2026-07-28 downstream request, which has no
// session, gets one for that call alone: a free one left by an earlier
// such call, or a new one.
type binding struct {
	u     *upstream
	ss    *mcp.ServerSession // nil: one call's
	ready chan struct{}      // closed once cs or err is set
	cs    *mcp.ClientSession
	err   error

	mu       sync.Mutex
	askers   []*asker        // downstream requests in flight on it
	subs     map[string]bool // upstream URIs its client subscribed to on it
	closed   bool
	closedCh chan struct{} // closed by close
}

type bindKey struct {
	ss *mcp.ServerSession
	u  *upstream
}

// bindings indexes the bindings of a Gateway.
type bindings struct {
	g      *Gateway
	mu     sync.Mutex
	bySS   map[bindKey]*binding
	byCS   map[*mcp.ClientSession]*binding
	idle   map[*upstream][]*binding // one-call bindings free for the next call
	live   map[*upstream]int
	closed bool
}

// maxBound bounds the bound upstream sessions of one upstream (a command's
// are processes); beyond it, calls use the shared session, on which the
// upstream's questions are refused. maxIdle bounds the one-call sessions
// kept for reuse.
const (
	maxBound = 256
	maxIdle  = 8
)

var (
	errClosed  = errors.New("gateway: closed")
	errTooMany = errors.New("gateway: too many sessions bound to this upstream")
)

// get returns the binding of downstream session ss (nil: a new one for one
// call) to upstream u, opening its session if need be.
func (bs *bindings) get(ctx context.Context, u *upstream, ss *mcp.ServerSession) (*binding, error) {
	bs.mu.Lock()
	if bs.closed {
		bs.mu.Unlock()
		return nil, errClosed
	}
	if bs.bySS == nil {
		bs.bySS = map[bindKey]*binding{}
		bs.byCS = map[*mcp.ClientSession]*binding{}
		bs.idle = map[*upstream][]*binding{}
		bs.live = map[*upstream]int{}
	}
	if ss == nil {
		for len(bs.idle[u]) > 0 {
			n := len(bs.idle[u]) - 1
			b := bs.idle[u][n]
			bs.idle[u] = bs.idle[u][:n]
			select {
			case <-b.cs.Done():
				continue
			default:
			}
			bs.mu.Unlock()
			u.restoreSubs(ctx, b) // what listen streams now hold
			return b, nil
		}
	}
	key := bindKey{ss, u}
	if b := bs.bySS[key]; b != nil && ss != nil {
		bs.mu.Unlock()
		select {
		case <-b.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if b.err != nil {
			return nil, b.err
		}
		return b, nil
	}
	if bs.live[u] >= maxBound {
		bs.mu.Unlock()
		return nil, errTooMany
	}
	bs.live[u]++
	b := &binding{u: u, ss: ss, ready: make(chan struct{})}
	if ss != nil {
		bs.bySS[key] = b
	}
	bs.mu.Unlock()
	cs, err := u.connect(bs.g.life)
	if err := bs.opened(b, cs, err); err != nil {
		return nil, err
	}
	// A session bound anew (its previous one failed, say) keeps its
	// client's subscriptions; a one-call one holds the listen streams'.
	u.restoreSubs(ctx, b)
	return b, nil
}

// opened records the outcome of opening b's upstream session.
func (bs *bindings) opened(b *binding, cs *mcp.ClientSession, err error) error {
	u, ss, key := b.u, b.ss, bindKey{b.ss, b.u}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if err == nil && bs.closed {
		_ = cs.Close()
		err = errClosed
	}
	if err != nil {
		if ss != nil {
			delete(bs.bySS, key)
		}
		bs.live[u]--
		b.err = err
		close(b.ready)
		return err
	}
	b.cs = cs
	bs.byCS[cs] = b
	close(b.ready)
	bs.g.wg.Add(1)
	go bs.watch(b)
	return nil
}

// lookup returns the binding of downstream session ss to u, or nil: it
// opens none.
func (bs *bindings) lookup(u *upstream, ss *mcp.ServerSession) *binding {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b := bs.bySS[bindKey{ss, u}]; b != nil && b.cs != nil {
		return b
	}
	return nil
}

// bindsFor reports whether the calls of a client with caps go over a
// session bound to it (see sessionFor): the upstream is stateful (its
// questions name no call) and the client can be asked something.
func bindsFor(shared *mcp.ClientSession, caps *mcp.ClientCapabilities) bool {
	return shared != nil && !shared.Stateless() && caps != nil &&
		(caps.Sampling != nil || caps.Elicitation != nil || caps.Roots != nil)
}

// subscribed reports whether b's client subscribed to the upstream's uri
// on b.
func (b *binding) subscribed(uri string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.subs[uri]
}

// marked returns the upstream URIs subscribed to on b, sorted.
func (b *binding) marked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.subs) == 0 {
		return nil
	}
	return sortedKeys(b.subs)
}

// mark records a subscription (on) or its end on b, and reports whether
// that changed anything (the upstream is to be told). Beyond
// maxSubscriptions, a subscription is not forwarded.
func (b *binding) mark(uri string, on bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[uri] == on || (on && len(b.subs) >= maxSubscriptions) {
		return false
	}
	if on {
		if b.subs == nil {
			b.subs = map[string]bool{}
		}
		b.subs[uri] = true
	} else {
		delete(b.subs, uri)
	}
	return true
}

// watch closes b when its downstream session, its upstream session or the
// gateway ends, whichever comes first.
func (bs *bindings) watch(b *binding) {
	defer bs.g.wg.Done()
	var ssDone <-chan struct{}
	if b.ss != nil {
		ssDone = b.ss.Done()
	}
	select {
	case <-ssDone:
	case <-b.cs.Done():
	case <-bs.g.life.Done():
	case <-b.done():
	}
	bs.drop(b)
}

func (b *binding) done() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closedCh == nil {
		b.closedCh = make(chan struct{})
		if b.closed {
			close(b.closedCh)
		}
	}
	return b.closedCh
}

// close ends a one-call binding.
func (b *binding) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		if b.closedCh != nil {
			close(b.closedCh)
		}
	}
}

// release ends a one-call binding's call: its session waits for the next
// such call, or is closed when enough already wait.
func (bs *bindings) release(b *binding) {
	bs.mu.Lock()
	if !bs.closed && len(bs.idle[b.u]) < maxIdle {
		select {
		case <-b.cs.Done():
		default:
			bs.idle[b.u] = append(bs.idle[b.u], b)
			bs.mu.Unlock()
			return
		}
	}
	bs.mu.Unlock()
	b.close()
}

// drop forgets b and closes its upstream session.
func (bs *bindings) drop(b *binding) {
	bs.mu.Lock()
	if cur := bs.bySS[bindKey{b.ss, b.u}]; cur == b && b.ss != nil {
		delete(bs.bySS, bindKey{b.ss, b.u})
	}
	if _, ok := bs.byCS[b.cs]; ok {
		bs.live[b.u]--
	}
	delete(bs.byCS, b.cs)
	if i := slices.Index(bs.idle[b.u], b); i >= 0 {
		bs.idle[b.u] = slices.Delete(bs.idle[b.u], i, i+1)
	}
	bs.mu.Unlock()
	b.close()
	_ = b.cs.Close()
}

// dropSession ends the bindings of a downstream session that ended.
func (bs *bindings) dropSession(ss *mcp.ServerSession) {
	bs.mu.Lock()
	var list []*binding
	for k, b := range bs.bySS {
		if k.ss == ss && b.cs != nil {
			list = append(list, b)
		}
	}
	bs.mu.Unlock()
	for _, b := range list {
		b.close()
	}
}

// of returns the binding whose upstream session is cs, or nil.
func (bs *bindings) of(cs *mcp.ClientSession) *binding {
	if cs == nil {
		return nil
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.byCS[cs]
}

// sessionsOf returns the upstream sessions bound to a downstream session.
func (bs *bindings) sessionsOf(ss *mcp.ServerSession) []*mcp.ClientSession {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []*mcp.ClientSession
	for k, b := range bs.bySS {
		if k.ss == ss && b.cs != nil {
			out = append(out, b.cs)
		}
	}
	return out
}

// spawn runs fn on a goroutine the gateway's Close waits for, with the
// gateway's life as its context; once the gateway is closing, not at all.
func (bs *bindings) spawn(fn func(ctx context.Context)) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.closed {
		return
	}
	bs.g.wg.Add(1)
	go func() {
		defer bs.g.wg.Done()
		fn(bs.g.life)
	}()
}

// closeAll refuses new bindings; the watchers close the existing ones as
// the gateway's life ends.
func (bs *bindings) closeAll() {
	bs.mu.Lock()
	bs.closed = true
	bs.mu.Unlock()
}

func (b *binding) push(a *asker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.askers = append(b.askers, a)
}

func (b *binding) pop(a *asker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.askers {
		if x == a {
			b.askers = append(b.askers[:i], b.askers[i+1:]...)
			return
		}
	}
}

// last returns the latest downstream request in flight on b, or nil.
func (b *binding) last() *asker {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.askers) == 0 {
		return nil
	}
	return b.askers[len(b.askers)-1]
}

// ask puts a question of the upstream to b's client: through a request in
// flight when there is one (so that over HTTP it travels on that request's
// stream), else on the downstream session itself.
func (b *binding) ask(ctx context.Context, key string, q *mcp.InputRequest) (*mcp.InputResponse, error) {
	if a := b.last(); a != nil {
		return a.ask(ctx, key, q)
	}
	if b.ss == nil {
		return nil, errors.New("gateway: the call this session served has ended")
	}
	qctx, cancel := context.WithCancel(b.u.g.life)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	switch {
	case q.CreateMessage != nil:
		var res mcp.CreateMessageResult
		if err := b.ss.Call(qctx, "sampling/createMessage", q.CreateMessage, &res); err != nil {
			return nil, err
		}
		return &mcp.InputResponse{CreateMessage: &res}, nil
	case q.Elicit != nil:
		var res mcp.ElicitResult
		if err := b.ss.Call(qctx, "elicitation/create", q.Elicit, &res); err != nil {
			return nil, err
		}
		return &mcp.InputResponse{Elicit: &res}, nil
	}
	res, err := b.ss.ListRoots(qctx, &mcp.ListRootsParams{})
	if err != nil {
		return nil, err
	}
	return &mcp.InputResponse{ListRoots: res}, nil
}
