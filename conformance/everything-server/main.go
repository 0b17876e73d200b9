// Command everything-server serves the conformance fixtures: on stdio when
// started with no flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	verbose := flag.Bool("v", false, "log diagnostics to stderr")
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`ADDR`/mcp (and legacy HTTP+SSE at /sse) instead of stdio;\nwith port 0 a free port is chosen, and the first line on stdout is always \"listening on http://HOST:PORT/mcp\"")
	drainTimeout := flag.Duration("drain-timeout", 20*time.Second, "with -http, on SIGTERM or SIGINT: how long to drain (finish requests in flight, hand GET streams to other replicas) before exiting")
	redisURL := flag.String("redis", "", "with -http, share sessions, events, notices, tasks and the requestState key with other replicas through the Redis at `URL` (redis://HOST:PORT/DB)")
	redisCluster := flag.String("redis-cluster", "", "as -redis, through the Redis Cluster whose nodes include `HOST:PORT[,HOST:PORT...]`")
	maxSessions := flag.Int("max-sessions", 0, "with -http, the sessions one replica holds at once, its own and copies of other replicas' (mcphttp.HandlerOptions.MaxSessions; 0: the default, negative: no limit)")
	flag.BoolVar(&debugStats, "debug-stats", false, "with -http, serve GET /debug/stats: the process's goroutines and heap as JSON, for soak tests (no token needed: leave it off where the port is reachable by others)")
	maxPerClient := flag.Int("max-sessions-per-client", 0, "with -http, the sessions one client address holds on one replica (MaxSessionsPerClient; 0: the default, negative: no limit)")
	flag.Parse()
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := &everything.Options{Logger: logger}
	var rd *redisDeployment
	if *redisURL != "" || *redisCluster != "" {
		var err error
		if rd, err = openRedis(ctx, *redisURL, *redisCluster, logger); err != nil {
			fmt.Fprintln(os.Stderr, "everything-server:", err)
			os.Exit(1)
		}
		defer rd.close()
		rd.options(opts)
	}
	s, err := everything.NewServer(opts)
	if err == nil && rd != nil {
		err = addReplicaTools(s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "everything-server:", err)
		os.Exit(1)
	}
	if *httpAddr != "" {
		ho := &mcphttp.HandlerOptions{Logger: logger, Principal: auth.Principal, MaxSessions: *maxSessions, MaxSessionsPerClient: *maxPerClient}
		if err := serveHTTP(ctx, *httpAddr, *drainTimeout, s, ho, rd); err != nil {
			fmt.Fprintln(os.Stderr, "everything-server:", err)
			os.Exit(1)
		}
		return
	}
	if err := s.Run(ctx, transport.Stdio()); err != nil && err != context.Canceled {
		fmt.Fprintln(os.Stderr, "everything-server:", err)
		os.Exit(1)
	}
}

// debugStats is the -debug-stats flag.
var debugStats bool

// serveStats answers the process's goroutine count and heap in use, which
// a soak test samples from outside to see that neither grows.
func serveStats(w http.ResponseWriter, _ *http.Request) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"goroutines":%d,"heapInuse":%d}`+"\n", runtime.NumGoroutine(), ms.HeapInuse)
}

// serveHTTP serves s over Streamable HTTP at /mcp (a Handler with ho) and
// HTTP+SSE at /sse, with the probes /livez and /readyz, until ctx ends;
// then it drains for at most drain (see shutdown) and returns. Once it
// listens it prints the endpoint's URL on stdout, so that a test can start
// it on port 0 and read where it went.
func serveHTTP(ctx context.Context, addr string, drain time.Duration, s *mcp.Server, ho *mcphttp.HandlerOptions, rd *redisDeployment) error {
	logger := ho.Logger
	if rd != nil {
		rd.handlerOptions(ho)
	}
	streamable := mcphttp.NewHandler(s, ho)
	legacy := mcphttp.NewSSEHandler(s, &mcphttp.SSEHandlerOptions{Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.Handle("/sse", legacy)
	// Probes for a load balancer: liveness, and readiness asking every
	// store the server uses (Redis, under -redis).
	health := mcphttp.NewHealth(streamable, rd.healthOptions())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	protected, err := protect(mux, ln.Addr())
	if err != nil {
		ln.Close()
		return err
	}
	// The probes need no token, even under -auth-issuer.
	handler := http.NewServeMux()
	handler.Handle("/livez", health.Live())
	handler.Handle("/readyz", health.Ready())
	handler.Handle("/", protected)
	if debugStats {
		handler.HandleFunc("GET /debug/stats", serveStats)
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	// The Handler bounds body reads and SSE writes itself; the server bounds
	// what happens before and between requests.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown(srv, streamable, legacy, drain, logger)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	<-stopped // Serve returns as soon as the shutdown begins
	return nil
}

// shutdown stops a replica without failing its clients: the Handler
// drains first (readiness goes 503 at once, so the load balancer stops
// sending here; what still arrives gets 503 and is sent again; requests in
// flight are answered; GET streams are ended with a retry hint and resumed
// on other replicas), while the listener still accepts; then the HTTP
// server closes, within what is left of the deadline. A replica without
// -redis has nobody to hand its sessions to, and drains its requests only.
func shutdown(srv *http.Server, streamable *mcphttp.Handler, legacy *mcphttp.SSEHandler, drain time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	start := time.Now()
	if err := streamable.Shutdown(ctx); err != nil {
		logger.Warn("everything-server: drain cut short", "after", time.Since(start), "err", err)
	}
	legacy.Close()
	if err := srv.Shutdown(ctx); err != nil {
		logger.Warn("everything-server: HTTP server shutdown", "err", err)
		_ = srv.Close()
	}
	logger.Info("everything-server: stopped", "after", time.Since(start))
}
