package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// downReq is the downstream request a forwarded call serves: any
// *mcp.ServerRequest[P].
type downReq interface {
	mcp.Caller
	Input(ctx context.Context, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error)
	ProgressToken() (mcp.ProgressToken, bool)
	NotifyProgress(ctx context.Context, progress, total float64, message string) error
	Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error
}

// asker is a downstream request in flight upstream: the questions the
// upstream asks during it (sampling, elicitation, roots) go to its client.
type asker struct {
	req downReq

	mu     sync.Mutex
	ctx    context.Context         // the downstream handler's, then its task's
	cancel context.CancelCauseFunc // ends the upstream call
	input  error                   // the downstream client must answer first
}

// needInput records that the downstream request must return for its
// client's answers (a 2026-07-28 input-required round) and ends the
// upstream call: the upstream asks again when the request comes back with
// the answers.
func (a *asker) needInput(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.input == nil {
		a.input = err
	}
	if a.cancel != nil {
		a.cancel(nil)
	}
}

func (a *asker) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

func (a *asker) inputErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.input
}

type askerKey struct{}

// ask puts one question to the asker's client, through its request, so it
// works at every downstream revision (at 2026-07-28 it becomes an
// input-required round of the downstream request). ctx (a handler's of the
// upstream side) only cancels: the question relates to the downstream
// request alone.
func (a *asker) ask(ctx context.Context, kind string, q *mcp.InputRequest) (*mcp.InputResponse, error) {
	// The key names the question by its content: when a 2026-07-28 caller
	// comes back with its answers, the upstream asks again, and each of its
	// questions finds its own answer (two questions of one kind included).
	key := kind
	if raw, err := json.Marshal(withoutMeta(q)); err == nil {
		sum := sha256.Sum256(raw)
		key = kind + "-" + hex.EncodeToString(sum[:8])
	}
	qctx, cancel := context.WithCancel(a.context())
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := a.req.Input(qctx, map[string]*mcp.InputRequest{key: q})
	if errors.Is(err, mcp.ErrInputRequired) {
		a.needInput(err)
	}
	if err != nil {
		return nil, err
	}
	if r := res[key]; r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("gateway: the client gave no answer to %s", q.Method())
}

// withoutMeta is q without its _meta (which names a task, a request, ...
// that differ from one asking of the same question to the next).
func withoutMeta(q *mcp.InputRequest) *mcp.InputRequest {
	c := *q
	switch {
	case q.Elicit != nil:
		e := *q.Elicit
		e.Meta = nil
		c.Elicit = &e
	case q.CreateMessage != nil:
		m := *q.CreateMessage
		m.Meta = nil
		c.CreateMessage = &m
	case q.ListRoots != nil:
		c.ListRoots = &mcp.ListRootsParams{}
	}
	return &c
}

// ask routes a question of the upstream to the downstream client that
// caused it: the call in whose context it came (input-required rounds of a
// 2026-07-28 upstream), or the downstream session a bound upstream session
// serves. A question on the shared session of a stateful upstream has no
// such client: the gateway only sends there the calls of clients that
// cannot be asked anything.
func (u *upstream) ask(ctx context.Context, cs *mcp.ClientSession, key string, q *mcp.InputRequest) (*mcp.InputResponse, error) {
	if a, ok := ctx.Value(askerKey{}).(*asker); ok {
		return a.ask(ctx, key, q)
	}
	if b := u.g.binds.of(cs); b != nil {
		return b.ask(ctx, key, q)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "gateway: %s: no downstream client to ask on this session", q.Method())
}

// listRoots answers the roots questions of the upstream with the roots of
// the downstream client it asks for (hooks.OnListRoots).
func (u *upstream) listRoots(ctx context.Context, cs *mcp.ClientSession) (*mcp.ListRootsResult, error) {
	a, err := u.ask(ctx, cs, "roots", &mcp.InputRequest{ListRoots: &mcp.ListRootsParams{}})
	if err != nil {
		return nil, err
	}
	return a.ListRoots, nil
}

// acquire takes one of the upstream's MaxConcurrency slots, waiting at
// most until tctx (the call's, its timeout included) ends; release gives
// it back.
func (u *upstream) acquire(ctx, tctx context.Context) error {
	select {
	case u.sem <- struct{}{}:
		return nil
	case <-tctx.Done():
		return u.ctxErr(ctx, tctx, "waited for a free slot")
	}
}

func (u *upstream) release() { <-u.sem }

// forward runs do against the upstream for the downstream request req:
// within the upstream's timeout and concurrency limit, on the session that
// can route the upstream's questions to req's client, with the upstream's
// progress passed to req's progress token and req's cancellation (ctx)
// cancelling the upstream call.
func (u *upstream) forward(ctx context.Context, req downReq, do func(ctx context.Context, cs *mcp.ClientSession) error) error {
	if u.current() == nil {
		return u.downErr()
	}
	c := u.newCall(ctx, req) // the context do gets: see call
	defer u.calls.end(c)
	if err := u.acquire(ctx, c); err != nil {
		return err
	}
	defer u.release()
	// Opening a session takes the call's end, not its values.
	cs, b, err := u.sessionFor(c.Context, req)
	if err != nil {
		return err
	}
	if b != nil {
		if b.ss == nil {
			defer u.g.binds.release(b) // after pop: free once the call is gone
		}
		b.push(&c.a)
		defer b.pop(&c.a)
	} else {
		u.calls.share(c)
	}
	err = do(c, cs)
	if ierr := c.a.inputErr(); ierr != nil {
		return ierr // the client answers, then the request comes again
	}
	if err != nil && c.Err() != nil {
		return u.ctxErr(ctx, c, "did not answer")
	}
	if err != nil && !isRPC(err) && !errors.Is(err, mcp.ErrInputRequired) {
		select {
		case <-cs.Done():
			return fmt.Errorf("%w: %q failed during the call: %v", ErrUpstreamDown, u.name, err)
		default:
		}
		return fmt.Errorf("gateway: upstream %q: %w", u.name, err)
	}
	return err
}

// callerCaps is what a forwarded request declares to a 2026-07-28 upstream
// (whose requests carry the client's capabilities): what the caller can
// answer (sampling, elicitation, roots) rather than what the gateway can
// route, so that the upstream asks, or does without, exactly as it would
// with the caller itself, instead of the gateway refusing a question the
// caller cannot answer. The gateway's own extensions join it as the
// request is sent (hooks.WithClientCapabilities).
//
// The result is one of 256 values made once (each member and sub-member
// present or not), so that the client encodes each once (see
// hooks.WithClientCapabilities).
func callerCaps(c *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	var k uint8
	if c != nil {
		k = bit(c.Sampling != nil, 0) | bit(c.Elicitation != nil, 3) | bit(c.Roots != nil, 6)
		if s := c.Sampling; s != nil {
			k |= bit(s.Context != nil, 1) | bit(s.Tools != nil, 2)
		}
		if e := c.Elicitation; e != nil {
			k |= bit(e.Form != nil, 4) | bit(e.URL != nil, 5)
		}
		if r := c.Roots; r != nil {
			k |= bit(r.ListChanged, 7)
		}
	}
	if p := internedCaps[k].Load(); p != nil {
		return p
	}
	internedCaps[k].CompareAndSwap(nil, capsOf(k))
	return internedCaps[k].Load()
}

var internedCaps [256]atomic.Pointer[mcp.ClientCapabilities]

// capsOf is the capabilities callerCaps numbers k.
func capsOf(k uint8) *mcp.ClientCapabilities {
	on := func(i uint) bool { return k&(1<<i) != 0 }
	some := func(i uint) *struct{} {
		if on(i) {
			return &struct{}{}
		}
		return nil
	}
	c := &mcp.ClientCapabilities{}
	if on(0) {
		c.Sampling = &mcp.SamplingCapabilities{Context: some(1), Tools: some(2)}
	}
	if on(3) {
		c.Elicitation = &mcp.ElicitationCapabilities{Form: some(4), URL: some(5)}
	}
	if on(6) {
		c.Roots = &mcp.RootCapabilities{ListChanged: on(7)}
	}
	return c
}

func bit(b bool, i uint) uint8 {
	if b {
		return 1 << i
	}
	return 0
}

func isRPC(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je)
}

func (u *upstream) downErr() error {
	st := u.status()
	msg := st.Error
	if msg == "" {
		msg = string(st.State)
	}
	return fmt.Errorf("%w: %q is down (%s)", ErrUpstreamDown, u.name, msg)
}

// ctxErr says why a forwarded call ended with its context: the downstream
// request's end, or the upstream's timeout.
func (u *upstream) ctxErr(ctx, tctx context.Context, what string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("gateway: upstream %q %s within %s: %w", u.name, what, u.timeout, tctx.Err())
}

// sessionFor picks the upstream session for req: the shared one when the
// upstream speaks 2026-07-28 (its questions come back inside the call) or
// when req's client can answer none; otherwise one bound to req's
// downstream session (opened on first use, closed with it), or for a
// 2026-07-28 downstream request one opened for this call alone.
func (u *upstream) sessionFor(ctx context.Context, req downReq) (*mcp.ClientSession, *binding, error) {
	shared := u.current()
	if shared == nil {
		return nil, nil, u.downErr()
	}
	if !bindsFor(shared, req.ClientCapabilities()) {
		return shared, nil, nil
	}
	ss, _ := req.Session()
	b, err := u.g.binds.get(ctx, u, ss)
	if errors.Is(err, errTooMany) {
		u.g.log.Warn("gateway: bound sessions exhausted; questions of this call are refused", "upstream", u.name)
		return shared, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %q: opening a session for this client: %v", ErrUpstreamDown, u.name, err)
	}
	return b.cs, b, nil
}

// cleanMeta is the _meta sent upstream for a downstream request's: only
// what is the caller's own (trace context, custom keys); the client
// context, progress token and the rest are the gateway's to set.
func cleanMeta(m *mcp.Meta) *mcp.Meta {
	if m == nil || (len(m.Extra) == 0 && m.TraceParent == "") {
		return nil
	}
	return &mcp.Meta{Extra: m.Extra, TraceParent: m.TraceParent, TraceState: m.TraceState, Baggage: m.Baggage}
}

// cleanResultMeta drops the upstream's identity from a result's _meta:
// downstream, the gateway is the server. The result is the gateway's own,
// decoded from the upstream's answer: m is changed in place.
func cleanResultMeta(m *mcp.Meta) *mcp.Meta {
	if m != nil {
		m.ServerInfo = nil
	}
	return m
}

func (u *upstream) callTool(ctx context.Context, req *mcp.CallToolRequest, name string, asTask bool) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	err := u.forward(ctx, req, func(cctx context.Context, cs *mcp.ClientSession) error {
		p := &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments, Meta: cleanMeta(req.Params.Meta)}
		if !asTask {
			var err error
			res, err = cs.CallTool(cctx, p)
			return err
		}
		var err error
		res, err = u.callTask(ctx, cctx, req, cs, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.ResultType = ""
	res.Meta = cleanResultMeta(res.Meta)
	return res, nil
}

// callTask calls a tool the upstream may run as a task: when it does, the
// downstream call becomes a task too (tasks.Start), whose result is the
// upstream task's. ctx is the handler's, cctx the forwarding one.
func (u *upstream) callTask(ctx, cctx context.Context, req *mcp.CallToolRequest, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	tc, err := tasks.CallTool(cctx, cs, p, nil)
	if err != nil {
		return nil, err
	}
	if tc.Task == nil {
		return tc.Result, nil
	}
	tctx, err := tasks.Start(ctx)
	if err != nil {
		_ = tc.Cancel(context.WithoutCancel(cctx))
		return nil, err
	}
	if _, isTask := tasks.ID(tctx); !isTask { // no task downstream: wait within the call
		res, err := tc.Wait(cctx)
		if err != nil && cctx.Err() != nil {
			// Abandoned (the caller went away, or must answer first): the
			// upstream's task ends too.
			u.cancelTask(tctx, tc)
		}
		return res, err
	}
	// The downstream task outlives its request: its questions go through
	// the task (tctx), and its end is tasks/cancel or the task's own.
	a, _ := cctx.Value(askerKey{}).(*asker)
	if a == nil {
		a = &asker{req: req}
	}
	a.mu.Lock()
	a.ctx = tctx
	a.mu.Unlock()
	wctx := context.WithValue(tctx, askerKey{}, a)
	wctx = context.WithValue(wctx, upstreamKey{}, u.name)
	stop := context.AfterFunc(u.g.life, func() { _ = tc.Cancel(context.Background()) })
	defer stop()
	res, err := tc.Wait(wctx)
	if err != nil && tctx.Err() != nil {
		u.cancelTask(tctx, tc)
	}
	return res, err
}

// cancelTask cancels an upstream task the gateway no longer waits for.
func (u *upstream) cancelTask(ctx context.Context, tc *tasks.ToolCall) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.timeout)
	defer cancel()
	_ = tc.Cancel(ctx)
}

func (u *upstream) getPrompt(ctx context.Context, req *mcp.GetPromptRequest, name string) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	err := u.forward(ctx, req, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: req.Params.Arguments,
			Meta: cleanMeta(req.Params.Meta)})
		return err
	})
	if err != nil {
		return nil, err
	}
	res.ResultType = ""
	res.Meta = cleanResultMeta(res.Meta)
	return res, nil
}

func (u *upstream) readResource(ctx context.Context, req *mcp.ReadResourceRequest, uri string) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	err := u.forward(ctx, req, func(ctx context.Context, cs *mcp.ClientSession) error {
		var err error
		res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: cleanMeta(req.Params.Meta)})
		return err
	})
	if err != nil {
		return nil, err
	}
	res.ResultType = ""
	res.Meta = cleanResultMeta(res.Meta)
	for _, c := range res.Contents {
		switch c := c.(type) {
		case *mcp.TextResourceContents:
			c.URI = u.downResourceURI(c.URI)
		case *mcp.BlobResourceContents:
			c.URI = u.downResourceURI(c.URI)
		}
	}
	return res, nil
}

// complete answers completion/complete by forwarding it to the upstream of
// the prompt or resource template it is about.
func (g *Gateway) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := *req.Params
	p.Meta = cleanMeta(p.Meta)
	var ref featRef
	var ok bool
	switch p.Ref.Type {
	case mcp.RefTypePrompt:
		if ref, ok = g.lookup(kindPrompt, p.Ref.Name); ok {
			p.Ref.Name = ref.name
		}
	default:
		if ref, ok = g.lookup(kindTemplate, p.Ref.URI); !ok {
			ref, ok = g.lookup(kindResource, p.Ref.URI)
		}
		if ok {
			p.Ref.URI = ref.name
		}
	}
	if !ok {
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}}}, nil
	}
	var res *mcp.CompleteResult
	err := ref.up.forward(ctx, req, func(ctx context.Context, cs *mcp.ClientSession) error {
		if cs.ServerCapabilities().Completions == nil {
			res = &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}}}
			return nil
		}
		var err error
		res, err = cs.Complete(ctx, &p)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.ResultType = ""
	res.Meta = cleanResultMeta(res.Meta)
	return res, nil
}

// logMessage passes an upstream's log message on: to the downstream client
// a bound session serves; on the shared session, to the one request in
// flight there if there is exactly one (a log notification names no
// request, and the upstream's logs during a call belong to it: this is
// how a 2026-07-28 request, which has no session, gets them); otherwise to
// every downstream session that set a level (and only at or above it).
func (u *upstream) logMessage(_ context.Context, cs *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
	q := *p
	q.Meta = nil
	if u.prefix != "" {
		if q.Logger == "" {
			q.Logger = u.name
		} else {
			q.Logger = u.name + "/" + q.Logger
		}
	}
	ctx, cancel := context.WithTimeout(u.g.life, time.Second)
	defer cancel()
	if b := u.g.binds.of(cs); b != nil {
		if a := b.last(); a != nil {
			_ = a.req.Log(a.context(), q.Level, q.Logger, q.Data)
		} else if b.ss != nil && b.ss.LogLevel() != 0 {
			_ = b.ss.Log(ctx, &q)
		}
		return
	}
	if a := u.calls.only(); a != nil {
		_ = a.req.Log(a.context(), q.Level, q.Logger, q.Data)
		return
	}
	for _, ss := range u.g.server.Sessions() {
		if ss.LogLevel() != 0 {
			_ = ss.Log(ctx, &q)
		}
	}
}

// resourceUpdated passes an upstream's resource update to the downstream
// clients subscribed to the resource: from a bound session, to its own
// client alone (the upstream may keep subscriptions, and the state they
// watch, per session), from a one-call session to the listen streams
// (boundUpdated); from the shared session, to the subscribers that did not
// subscribe on a bound session (updateFilter).
func (u *upstream) resourceUpdated(_ context.Context, cs *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
	down := u.downResourceURI(p.URI)
	if b := u.g.binds.of(cs); b != nil {
		u.boundUpdated(b, p.URI, down)
		return
	}
	u.g.server.ResourceUpdated(u.g.life, down)
}
