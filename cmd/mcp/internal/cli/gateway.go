package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// runGateway is mcp gateway [--http ADDR [--allow-remote] [--allow-host
// NAME]... [--auth-issuer URL ...] [--redis URL | --redis-cluster ADDRS]
// [--drain-timeout D]] [--access FILE] [-v] CONFIG: it serves the upstream
// servers of CONFIG (a host's mcpServers file, read by
// gateway.ParseConfig) as one server, on stdio, or over Streamable HTTP at
// http://ADDR/mcp with the legacy HTTP+SSE transport at /sse and the
// probes /readyz and /healthz, until ctx ends (or, on stdio, stdin
// closes). Who sees what is --access (gateway.ParseAccess); who may call
// at all, over HTTP, is --auth-issuer (see gatewayAuth). With --redis, it
// is one replica of several sharing that Redis (sessions, streams,
// notices, tasks), and on SIGTERM it drains (see gatewayHTTP).
func runGateway(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv := &invocation{stdout: stdout, stderr: &lockedWriter{w: stderr}}
	file, err := inv.parseGateway(args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"gateway"})
	}
	var cfg *gateway.Config
	if err == nil {
		cfg, err = loadGatewayConfig(file)
	}
	opts := inv.gatewayOptions()
	if err == nil {
		err = inv.gw.apply(opts)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp gateway:", err)
		return ExitUsage
	}
	rd, err := inv.gw.open(ctx, opts.Logger)
	if err != nil {
		return inv.report(ctx, err)
	}
	defer rd.close() // after g.Close, which stops hearing its notifier
	rd.gatewayOptions(opts)
	g, err := gateway.New(cfg, opts)
	if err != nil {
		fmt.Fprintln(stderr, "mcp gateway:", err)
		return ExitUsage
	}
	defer g.Close()
	if inv.httpAddr == "" {
		err = inv.gatewayStdio(ctx, g, stdin, stdout)
	} else {
		err = inv.gatewayHTTP(ctx, g, rd)
	}
	return inv.report(ctx, err)
}

// parseGateway reads the command line of mcp gateway, flags before or
// after the file, and returns the file.
func (inv *invocation) parseGateway(args []string) (string, error) {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&inv.httpAddr, "http", "", "")
	fs.BoolVar(&inv.remote, "allow-remote", false, "")
	fs.Var(&inv.hosts, "allow-host", "")
	fs.BoolVar(&inv.verbose, "v", false, "")
	inv.gw.register(fs) // --access, --auth-issuer, --auth-resource, --auth-jwks, --auth-scopes
	fs.StringVar(&inv.gw.redisURL, "redis", "", "")
	fs.StringVar(&inv.gw.redisCluster, "redis-cluster", "", "")
	fs.DurationVar(&inv.gw.drain, "drain-timeout", defaultDrain, "")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return "", errors.New("want one configuration file: mcp gateway [--http ADDR] CONFIG")
	}
	if inv.httpAddr == "" && (inv.remote || len(inv.hosts) > 0) {
		return "", errors.New("--allow-remote and --allow-host go with --http")
	}
	if err := inv.gw.check(inv.httpAddr); err != nil {
		return "", err
	}
	if inv.httpAddr == "" && (inv.gw.redisURL != "" || inv.gw.redisCluster != "") {
		return "", errors.New("--redis and --redis-cluster go with --http: replicas share sessions over Streamable HTTP")
	}
	return files[0], nil
}

// loadGatewayConfig reads and parses the configuration file at path.
func loadGatewayConfig(path string) (*gateway.Config, error) {
	data, err := readFileBounded(path, gateway.MaxConfigSize)
	if err != nil {
		return nil, err
	}
	cfg, err := gateway.ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// gatewayOptions are the gateway's options: diagnostics on stderr with -v,
// the upstream commands' stderr on ours.
func (inv *invocation) gatewayOptions() *gateway.Options {
	logger := slog.New(slog.DiscardHandler)
	if inv.verbose {
		logger = slog.New(slog.NewTextHandler(inv.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return &gateway.Options{Logger: logger, Stderr: inv.stderr}
}

// startGateway connects the upstreams. A name collision is the
// configuration's fault (exit status 2); an upstream that cannot be
// reached is not an error: it is down, retried, and absent from the lists.
func startGateway(ctx context.Context, g *gateway.Gateway) error {
	err := g.Start(ctx)
	var ce *gateway.CollisionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return usageError{err}
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return connectError{err}
}

// gatewayStdio serves g to one client on stdin and stdout.
func (inv *invocation) gatewayStdio(ctx context.Context, g *gateway.Gateway, stdin io.Reader, stdout io.Writer) error {
	if err := startGateway(ctx, g); err != nil {
		return err
	}
	var stream jsonrpc.Stream
	if stdin == os.Stdin && stdout == os.Stdout {
		stream = transport.Stdio() // reads honour ctx on a pipe
	} else {
		stream = transport.NewLineStream(stdin, stdout, nil, nil)
	}
	err := g.Server().Run(ctx, stream)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// gatewaySSEAfter is how long mcp gateway --http waits for an answer
// before it goes out on a resumable SSE stream (HandlerOptions.SSEAfter):
// longer than a forwarded call to a healthy upstream takes, short enough
// that a dropped connection seldom loses an answer it could have resumed.
const gatewaySSEAfter = 100 * time.Millisecond

// gatewayHTTP serves g at http://ADDR/mcp (Streamable HTTP) and /sse (the
// legacy HTTP+SSE transport, for 2024-11-05 clients), with /readyz
// reporting each upstream (503 while one is down) and /healthz answering
// while the process serves at all. The address is taken before the
// upstreams are started, so that a port in use fails at once; the first
// line on stdout, "listening on http://HOST:PORT/mcp", comes once they
// are.
//
// With rd (--redis), sessions, SSE events, notices and tasks live in Redis,
// so that any replica serves any request, and ctx's end (SIGTERM) drains
// the replica for at most --drain-timeout: /readyz answers 503 at once,
// new requests get 503 and Retry-After (the load balancer sends them
// elsewhere), requests in flight finish, and GET streams are handed to the
// replicas their clients resume on. /readyz then also answers 503 while
// Redis does not.
func (inv *invocation) gatewayHTTP(ctx context.Context, g *gateway.Gateway, rd *gatewayRedis) error {
	addr, err := inv.gw.listen(inv)
	if err != nil {
		return err
	}
	ln, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return connectError{err}
	}
	mux := http.NewServeMux()
	protect, err := inv.gw.protect(ctx, mux, ln.Addr())
	if err == nil {
		err = startGateway(ctx, g)
	}
	if err != nil {
		ln.Close()
		return err
	}
	s := g.Server()
	// A call through the gateway waits on another server, and a client
	// whose connection drops meanwhile must be able to resume and still
	// get the answer: an answer not ready within gatewaySSEAfter goes out
	// on a primed, resumable SSE stream. A quicker one goes out as JSON:
	// one write and nothing stored, where an SSE stream takes three
	// writes and stores the answer.
	ho := &mcphttp.HandlerOptions{AllowedHosts: inv.hosts, SSEAfter: gatewaySSEAfter}
	rd.handlerOptions(ho)
	h := mcphttp.NewHandler(s, ho)
	defer h.Close()
	sse := mcphttp.NewSSEHandler(s, &mcphttp.SSEHandlerOptions{AllowedHosts: inv.hosts})
	defer sse.Close()
	health := mcphttp.NewHealth(h, rd.healthOptions())
	ready := g.ReadyHandler()
	if rd != nil {
		ready = storesReady(health, ready)
	}
	mux.Handle("/mcp", protect(h))
	mux.Handle("/sse", protect(sse))
	// The upstreams' names and errors are the operator's to see: behind
	// the same Host and Origin checks as /mcp.
	mux.Handle("/readyz", mcphttp.CheckHosts(ready, inv.hosts, nil))
	mux.Handle("/healthz", health.Live())
	return serveUntilDone(ctx, inv, ln, mux, func() {
		if rd != nil {
			dctx, cancel := context.WithTimeout(context.Background(), inv.gw.drain)
			_ = h.Shutdown(dctx)
			cancel()
		}
		_ = h.Close()
		_ = sse.Close()
	})
}

// storesReady answers 503 with the report of the replica's own checks
// (its Handler draining or closed, Redis not answering) when they fail,
// and lets next report the upstreams otherwise.
func storesReady(health *mcphttp.Health, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rep := health.Check(r.Context()); !rep.Ready {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(rep)
			return
		}
		next.ServeHTTP(w, r)
	})
}
