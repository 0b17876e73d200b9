package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// upstream is one server behind the gateway: its shared session (for
// discovery, lists, notifications and the calls of callers that cannot be
// asked anything), what of it is mirrored downstream, and its health.
type upstream struct {
	g       *Gateway
	name    string
	cfg     *Upstream
	prefix  string
	timeout time.Duration
	sem     chan struct{} // one token per call in flight
	client  *mcp.Client
	changed chan struct{} // a list changed: mirror again (coalesced)
	authz   *upstreamAuth // the OAuth login of an HTTP upstream, or nil

	mu         sync.Mutex
	state      State
	lastErr    string
	since      time.Time
	restarts   int
	cs         *mcp.ClientSession // the shared session; nil while down
	closed     bool
	mirrored   mirror
	moved      map[string]bool    // upstream URIs and templates rewritten once, for good
	subs       map[string]bool    // upstream URIs subscribed to
	stopListen context.CancelFunc // a 2026-07-28 upstream's listen stream

	calls calls // forwarded calls in flight
}

func newUpstream(g *Gateway, name string, cfg *Upstream, prefix string) *upstream {
	u := &upstream{g: g, name: name, cfg: cfg, prefix: prefix, timeout: cfg.Timeout,
		changed: make(chan struct{}, 1), state: StateStarting, since: time.Now(),
		moved: map[string]bool{}, subs: map[string]bool{}}
	if u.timeout == 0 {
		u.timeout = DefaultTimeout
	}
	n := cfg.MaxConcurrency
	if n == 0 {
		n = DefaultMaxConcurrency
	}
	u.sem = make(chan struct{}, n)
	u.client = mcp.NewClient(&mcp.Implementation{Name: g.implementation().Name, Version: g.implementation().Version},
		u.clientOptions())
	hooks.OnListRoots(u.client, u.listRoots)
	return u
}

// clientOptions are those of the client that opens every session to the
// upstream: the questions the upstream asks go to the downstream client
// that caused them (see ask).
func (u *upstream) clientOptions() *mcp.ClientOptions {
	changed := func(context.Context, *mcp.ClientSession) { u.poke() }
	caps := &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}},
		Roots:       &mcp.RootCapabilities{ListChanged: true},
	}
	// The gateway lists views and app-only tools for its clients that
	// render them (installExtensions hides them from the others).
	apps.DeclareClient(caps)
	return &mcp.ClientOptions{
		ProtocolVersion: u.g.opts.ProtocolVersion,
		Capabilities:    caps,
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			a, err := u.ask(ctx, req.Session, "sampling", &mcp.InputRequest{CreateMessage: req.Params})
			if err != nil {
				return nil, err
			}
			return a.CreateMessage, nil
		},
		ElicitationHandler:         u.elicit,
		ElicitationCompleteHandler: u.elicitationComplete,
		ElicitationURL:             true,
		ToolListChangedHandler:     changed,
		PromptListChangedHandler:   changed,
		ResourceListChangedHandler: changed,
		ResourceUpdatedHandler:     u.resourceUpdated,
		LoggingMessageHandler:      u.logMessage,
		Sending:                    append([]mcp.Middleware{u.inputRounds}, u.g.opts.Sending...),
		Logger:                     u.g.log,
	}
}

// poke asks the supervisor to mirror the upstream's lists again.
func (u *upstream) poke() {
	select {
	case u.changed <- struct{}{}:
	default:
	}
}

// dial opens a stream to the upstream as its configuration says.
func (u *upstream) dial(ctx context.Context) (jsonrpc.Stream, error) {
	if u.g.opts.Dial != nil {
		if s, err := u.g.opts.Dial(ctx, u.name, u.cfg); s != nil || err != nil {
			return s, err
		}
	}
	c := u.cfg
	typ := c.Type
	if typ == "" {
		typ = TransportHTTP
		if c.Command != "" {
			typ = TransportStdio
		}
	}
	if typ == TransportStdio {
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = c.Cwd
		if len(c.Env) > 0 {
			cmd.Env = os.Environ()
			for _, k := range sortedKeys(c.Env) {
				cmd.Env = append(cmd.Env, k+"="+c.Env[k])
			}
		}
		return &transport.CommandTransport{Cmd: cmd, Stderr: u.g.stderr()}, nil
	}
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	opts := &mcphttp.ClientOptions{HTTPClient: u.g.opts.HTTPClient, Header: h, Logger: u.g.log, Authorizer: u.authorizer()}
	if typ == TransportSSE {
		return mcphttp.NewSSEClientStream(c.URL, opts), nil
	}
	return mcphttp.NewClientStream(c.URL, opts), nil
}

// connect opens a session to the upstream, bounded by ctx and StartTimeout.
func (u *upstream) connect(ctx context.Context) (*mcp.ClientSession, error) {
	d := u.g.opts.StartTimeout
	if d <= 0 {
		d = defaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ctx = context.WithValue(ctx, upstreamKey{}, u.name)
	stream, err := u.dial(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := u.client.Connect(ctx, stream)
	if err != nil {
		return nil, err
	}
	if lvl, ok := mcp.ParseLoggingLevel(u.logLevel()); ok && cs.ServerCapabilities().Logging != nil {
		// Logs pass at the upstream's level; each downstream session then
		// gets those at or above its own.
		_ = cs.SetLoggingLevel(ctx, lvl)
	}
	return cs, nil
}

func (u *upstream) logLevel() string {
	if u.cfg.LogLevel != "" {
		return u.cfg.LogLevel
	}
	return "info"
}

// firstConnect is Start's attempt.
func (u *upstream) firstConnect(ctx context.Context) {
	cs, err := u.connect(ctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		u.setState(StateDown, err)
		return
	}
	u.cs = cs
}

// mirrorFirst mirrors the lists of an upstream connected by Start; a
// collision is Start's error.
func (u *upstream) mirrorFirst(ctx context.Context) error {
	cs := u.current()
	if cs == nil {
		return nil
	}
	if err := u.mirror(ctx, cs, true); err != nil {
		var ce *CollisionError
		if errors.As(err, &ce) {
			return err
		}
		u.down(cs, err)
		return nil
	}
	u.up(cs)
	return nil
}

// current returns the shared session, or nil while the upstream is down.
func (u *upstream) current() *mcp.ClientSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.state != StateUp && u.state != StateStarting {
		return nil
	}
	return u.cs
}

func (u *upstream) setState(s State, err error) {
	if u.state != s {
		u.since = time.Now()
	}
	u.state = s
	if err != nil {
		u.lastErr = err.Error()
	}
}

func (u *upstream) up(cs *mcp.ClientSession) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cs == cs && !u.closed {
		u.setState(StateUp, nil)
	}
}

// down takes the upstream out: its features leave the lists (list_changed
// goes out), its session is closed, and calls fail fast until it is back.
func (u *upstream) down(cs *mcp.ClientSession, err error) {
	u.mu.Lock()
	if u.cs != cs {
		u.mu.Unlock()
		return
	}
	u.cs = nil
	u.setState(StateDown, err)
	u.mu.Unlock()
	u.g.log.Warn("gateway: upstream down", "upstream", u.name, "err", err)
	u.unmirror()
	if cs != nil {
		_ = cs.Close()
	}
}

// supervise keeps the upstream up until ctx ends: it mirrors list changes,
// pings, and brings the upstream back with jittered backoff when it fails.
func (u *upstream) supervise(ctx context.Context) {
	attempt := 0
	for ctx.Err() == nil {
		cs := u.current()
		if cs == nil {
			if !sleep(ctx, u.g.backoff(attempt)) {
				return
			}
			attempt++
			if u.authz != nil {
				u.authz.forget()
			}
			var err error
			if cs, err = u.connect(ctx); err != nil {
				u.mu.Lock()
				u.setState(StateDown, err)
				u.mu.Unlock()
				continue
			}
			u.mu.Lock()
			u.restarts++
			closed := u.closed
			u.cs = cs
			u.mu.Unlock()
			if closed {
				_ = cs.Close()
				return
			}
			if err := u.mirror(ctx, cs, false); err != nil {
				u.down(cs, err)
				continue
			}
			u.up(cs)
			u.resubscribe(ctx, cs)
			u.g.log.Info("gateway: upstream up", "upstream", u.name, "restarts", u.restarts)
		}
		began := time.Now()
		err := u.watch(ctx, cs)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > u.g.backoffMax() {
			attempt = 0 // it ran long enough: the next failure starts over
		}
		u.down(cs, err)
	}
}

// watch serves an up upstream until its session fails, and says why.
func (u *upstream) watch(ctx context.Context, cs *mcp.ClientSession) error {
	every := u.g.opts.HealthInterval
	if every == 0 {
		every = defaultHealthInterval
	}
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-cs.Done():
			if err := cs.Wait(); err != nil {
				return fmt.Errorf("connection lost: %w", err)
			}
			return errors.New("connection closed by the upstream")
		case <-u.changed:
			if err := u.mirror(ctx, cs, false); err != nil {
				return err
			}
		case err := <-u.authFailures():
			return err
		case <-tick:
			pctx, cancel := context.WithTimeout(ctx, u.timeout)
			err := cs.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("ping: %w", err)
			}
		}
	}
}

// shutdown closes the shared session for good (Close).
func (u *upstream) shutdown() {
	u.mu.Lock()
	u.closed = true
	cs := u.cs
	u.mu.Unlock()
	u.calls.stop()
	if cs != nil {
		_ = cs.Close()
	}
}

func (u *upstream) status() UpstreamStatus {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := UpstreamStatus{Name: u.name, State: u.state, Error: u.lastErr, Since: u.since, Restarts: u.restarts,
		Tools: len(u.mirrored.tools), Prompts: len(u.mirrored.prompts),
		Resources: len(u.mirrored.resources), ResourceTemplates: len(u.mirrored.templates)}
	if u.cs != nil && u.state == StateUp {
		s.ProtocolVersion = u.cs.ProtocolVersion()
	}
	return s
}

// backoff is the delay before reconnection attempt n (from 0): Min
// doubled n times, capped at Max, then jittered down by up to half.
func (g *Gateway) backoff(n int) time.Duration {
	lo := g.opts.Backoff.Min
	if lo <= 0 {
		lo = 250 * time.Millisecond
	}
	d := lo
	for i := 0; i < n && d < g.backoffMax(); i++ {
		d *= 2
	}
	d = min(d, g.backoffMax())
	return d/2 + rand.N(d/2+1)
}

func (g *Gateway) backoffMax() time.Duration {
	if g.opts.Backoff.Max > 0 {
		return g.opts.Backoff.Max
	}
	return 30 * time.Second
}

// sleep waits d or until ctx ends; it reports whether ctx is still alive.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
