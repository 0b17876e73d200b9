package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Options tunes a Gateway. A nil *Options, and every zero field, takes the
// defaults.
type Options struct {
	// Implementation names the gateway to its downstream clients.
	// Default {Name: "gomcp-gateway"}.
	Implementation *mcp.Implementation

	// Server are the options of the downstream mcp.Server (limits, Logger,
	// Notifier, RequestStateKey, ...). They are copied; the gateway adds
	// its own completion handler and visibility rule to the copy. Replicas
	// of a gateway share the deployment's Notifier and RequestStateKey
	// (see the package documentation, "Replicas"); the gateway publishes
	// its own notices on that Notifier too.
	Server *mcp.ServerOptions

	// Access says who sees what (see Rule), with Config.Access. The rules
	// are applied with Server.AddVisibleFunc, so lists, calls, reads and
	// notifications agree.
	Access []Rule

	// Logger receives the gateway's diagnostics (upstreams going down and
	// coming back, collisions met after Start). Default: discard.
	Logger *slog.Logger

	// Stderr receives the standard error of command upstreams.
	// Default os.Stderr.
	Stderr io.Writer

	// HTTPClient sends the requests to HTTP and SSE upstreams.
	// Default http.DefaultClient.
	HTTPClient *http.Client

	// Authorizer gives the OAuth login of an HTTP or SSE upstream (an
	// oauth.Client, say, whose tokens it refreshes), or nil for none. New
	// calls it once for each such upstream whose Auth is not AuthNone; one
	// whose Auth is AuthOAuth must get an authorizer. What the authorizer
	// cannot resolve (a refused refresh, a login it may not do) takes the
	// upstream down with that error (Status, ReadyHandler) until a later
	// attempt succeeds. The downstream callers' tokens are never given to
	// it, nor sent upstream.
	Authorizer func(name string, u *Upstream) (mcphttp.Authorizer, error)

	// ProtocolVersion is the revision asked of upstreams. Default
	// mcp.LatestVersion: each upstream is probed and spoken to at the
	// newest revision it supports.
	ProtocolVersion string

	// StartTimeout bounds each upstream's first connection in Start.
	// Default 30 seconds.
	StartTimeout time.Duration

	// Backoff bounds the jittered delays between attempts to bring a down
	// upstream back. Defaults 250ms and 30s.
	Backoff Backoff

	// HealthInterval is how often an upstream that is up is pinged; one
	// that does not answer within its Timeout is taken for down and
	// reconnected. Default 15 seconds; negative turns pinging off.
	HealthInterval time.Duration

	// Dial, if set, opens the stream to an upstream instead of the
	// transport its configuration names: for tests, and for transports of
	// your own. A jsonrpc.Starter it returns is started by the client.
	// Returning (nil, nil) leaves the upstream to its configuration.
	Dial func(ctx context.Context, name string, u *Upstream) (jsonrpc.Stream, error)

	// Tasks configures the task manager through which tool calls run as
	// tasks when the upstream runs them so (both task models; see package
	// tasks). Nil means its defaults (tasks in memory); replicas share a
	// Store (redisstore.NewTaskStore) so that any of them answers for a
	// task.
	Tasks *tasks.Options

	// Sending wraps every message the gateway sends to an upstream; the
	// context names the upstream (UpstreamFromContext), so tracing
	// middleware (package mcpotel's) can label its spans with it.
	Sending []mcp.Middleware
}

// Backoff bounds the delays between attempts to reconnect an upstream: the
// first waits about Min, each next one twice as long, up to Max, each
// jittered so that restarts of many gateways do not synchronize.
type Backoff struct{ Min, Max time.Duration }

// Defaults.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxConcurrency = 32
	defaultStartTimeout   = 30 * time.Second
	defaultHealthInterval = 15 * time.Second
)

// ErrUpstreamDown is wrapped by the error of a call to an upstream that is
// not connected: such calls fail at once rather than wait.
var ErrUpstreamDown = errors.New("gateway: upstream unavailable")

// CollisionError reports two upstreams offering a tool or a prompt under
// the same name once prefixed. The gateway never lets one shadow the other:
// Start fails with it (errors.As), and an upstream that brings a colliding
// name later has that feature left out (see Status).
type CollisionError struct {
	Kind      string    // "tool" or "prompt"
	Name      string    // the name both would have downstream
	Upstreams [2]string // the upstream holding it, then the newcomer
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("gateway: %s %q is offered by both upstream %q and upstream %q; set a prefix (Upstream.Prefix) for one of them",
		e.Kind, e.Name, e.Upstreams[0], e.Upstreams[1])
}

// Gateway is one MCP server made of many upstream servers: their tools,
// prompts, resources and resource templates, mirrored into one mcp.Server
// (see Server) with forwarding handlers, under names that say which
// upstream each comes from.
//
// Naming: with exactly one enabled upstream, names are kept as they are
// (unless Upstream.Prefix sets one). With several, each tool and prompt
// name gets its upstream's prefix (the upstream's name, or Upstream.Prefix)
// and Config.Separator: "github" + "_" + "search". Resource URIs and URI
// templates are kept when no other upstream holds the same one; otherwise
// the later upstream's (in name order at Start, else the one that came
// later) is rewritten as "mcp-gateway://NAME/" followed by the original
// URI, which the gateway strips again when it forwards a read. A tool's
// _meta.ui.resourceUri (MCP Apps) follows its resource's rewriting.
type Gateway struct {
	cfg    *Config
	opts   Options
	server *mcp.Server
	log    *slog.Logger
	sep    string
	ups    []*upstream // in name order
	byName map[string]*upstream
	access *accessRules

	life    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
	started bool

	mu    sync.Mutex                   // guards owner and the downstream registrations
	owner map[string]map[string]string // kind -> downstream name -> upstream
	index sync.Map                     // kind+"\x00"+downstream name -> featRef, read lock-free

	subs    subscriptions // downstream subscriptions (subs.go)
	elicits elicitations  // URL-mode elicitations in progress (elicit.go)

	binds  bindings
	tasks  *tasks.Manager
	exts   extensions // the upstreams' extensions mirrored (extensions.go)
	unhear func()     // ends listenNotices
}

// New checks cfg and builds a Gateway; it does no I/O (see Start).
func New(cfg *Config, opts *Options) (*Gateway, error) {
	if cfg == nil {
		return nil, errors.New("gateway: no configuration")
	}
	g := &Gateway{cfg: cfg, byName: map[string]*upstream{}, sep: cfg.Separator,
		owner: map[string]map[string]string{}}
	if opts != nil {
		g.opts = *opts
	}
	if g.sep == "" {
		g.sep = "_"
	}
	g.log = g.opts.Logger
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	var names []string
	for name, u := range cfg.Servers {
		if u == nil {
			return nil, fmt.Errorf("gateway: upstream %q: no configuration", name)
		}
		if !u.Disabled {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		u := cfg.Servers[name]
		if err := checkUpstream(name, u); err != nil {
			return nil, err
		}
		prefix := name
		if len(names) == 1 {
			prefix = ""
		}
		if u.Prefix != nil {
			prefix = *u.Prefix
		}
		up := newUpstream(g, name, u, prefix)
		if err := g.setAuthorizer(up); err != nil {
			return nil, err
		}
		g.ups = append(g.ups, up)
		g.byName[name] = up
	}
	access, err := newAccessRules(append(slices.Clip(cfg.Access), g.opts.Access...), g.byName)
	if err != nil {
		return nil, err
	}
	g.access = access
	g.server = mcp.NewServer(g.implementation(), g.serverOptions())
	if g.tasks, err = tasks.New(g.server, g.opts.Tasks); err != nil {
		return nil, err
	}
	if access != nil {
		g.server.AddVisibleFunc(access.visible)
	}
	g.installHooks()
	g.installExtensions()
	g.life, g.stop = context.WithCancel(context.Background())
	g.listenNotices()
	return g, nil
}

// checkUpstream refuses an upstream the gateway could not reach.
func checkUpstream(name string, u *Upstream) error {
	if name == "" || strings.ContainsAny(name, "/ \t\r\n") {
		return fmt.Errorf("gateway: upstream name %q: must be non-empty, without '/' or spaces", name)
	}
	switch u.Type {
	case "":
		if (u.Command == "") == (u.URL == "") {
			return fmt.Errorf("gateway: upstream %q: set either command or url", name)
		}
	case TransportStdio:
		if u.Command == "" {
			return fmt.Errorf("gateway: upstream %q: type stdio needs a command", name)
		}
	case TransportHTTP, TransportSSE:
		if u.URL == "" {
			return fmt.Errorf("gateway: upstream %q: type %s needs a url", name, u.Type)
		}
	default:
		return fmt.Errorf("gateway: upstream %q: unknown type %q (stdio, http or sse)", name, u.Type)
	}
	if u.Timeout < 0 || u.MaxConcurrency < 0 {
		return fmt.Errorf("gateway: upstream %q: negative timeout or maxConcurrency", name)
	}
	return nil
}

func (g *Gateway) implementation() *mcp.Implementation {
	if g.opts.Implementation != nil {
		return g.opts.Implementation
	}
	return &mcp.Implementation{Name: "gomcp-gateway", Version: "1.0.0"}
}

// Server returns the downstream server: serve it as any mcp.Server, over
// transport.Stdio or with mcphttp.NewHandler.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Start connects every enabled upstream at once and mirrors what each
// offers, waiting for every first attempt (each bounded by
// Options.StartTimeout). An upstream that cannot be reached is no error:
// Status reports it down, and it is tried again with backoff until Close.
// Start fails with a *CollisionError when two upstreams offer the same
// tool or prompt name, and when ctx ends first; the gateway is then closed.
func (g *Gateway) Start(ctx context.Context) error {
	if g.started {
		return errors.New("gateway: already started")
	}
	g.started = true
	var wg sync.WaitGroup
	for _, u := range g.ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.firstConnect(ctx)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		_ = g.Close()
		return err
	}
	// Mirrored in name order, so which upstream keeps a contested URI,
	// and which a collision names first, never depends on timing.
	for _, u := range g.ups {
		if err := u.mirrorFirst(ctx); err != nil {
			_ = g.Close()
			return err
		}
	}
	for _, u := range g.ups {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			u.supervise(g.life)
		}()
	}
	return nil
}

// Close ends every upstream session and stops the restarts. It does not
// close the downstream sessions of Server. Calling it again does nothing.
func (g *Gateway) Close() error {
	g.stop()
	g.unhear()
	for _, u := range g.ups {
		u.shutdown()
	}
	g.binds.closeAll()
	g.wg.Wait()
	return g.tasks.Close()
}

// State is an upstream's condition.
type State string

// The states of an upstream.
const (
	StateStarting State = "starting" // not yet connected
	StateUp       State = "up"       // connected; its features are served
	StateDown     State = "down"     // failed; retried with backoff
)

// UpstreamStatus is what Status and ReadyHandler report of one upstream.
type UpstreamStatus struct {
	Name            string    `json:"name"`
	State           State     `json:"state"`
	Error           string    `json:"error,omitempty"` // the last failure
	Since           time.Time `json:"since"`           // when State was entered
	Restarts        int       `json:"restarts"`
	ProtocolVersion string    `json:"protocolVersion,omitempty"`

	Tools             int `json:"tools"`
	Prompts           int `json:"prompts"`
	Resources         int `json:"resources"`
	ResourceTemplates int `json:"resourceTemplates"`
}

// Status reports every enabled upstream, in name order.
func (g *Gateway) Status() []UpstreamStatus {
	out := make([]UpstreamStatus, 0, len(g.ups))
	for _, u := range g.ups {
		out = append(out, u.status())
	}
	return out
}

// ReadyHandler answers GET (or HEAD) with the upstreams' Status as JSON,
// {"upstreams": [...]}: 200 when every upstream is up, 503 otherwise. It is
// meant for a readiness probe (/readyz).
func (g *Gateway) ReadyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		st := g.Status()
		code := http.StatusOK
		for _, s := range st {
			if s.State != StateUp {
				code = http.StatusServiceUnavailable
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		if r.Method == http.MethodGet {
			_ = json.NewEncoder(w).Encode(struct {
				Upstreams []UpstreamStatus `json:"upstreams"`
			}{st})
		}
	})
}

type upstreamKey struct{}

// UpstreamFromContext names the upstream a call is forwarded to, on the
// context of the gateway's client-side calls (Sending middleware of
// tracing, such as package mcpotel's, can label spans with it).
func UpstreamFromContext(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(upstreamKey{}).(string)
	return s, ok
}

func (g *Gateway) stderr() io.Writer {
	if g.opts.Stderr != nil {
		return g.opts.Stderr
	}
	return os.Stderr
}
