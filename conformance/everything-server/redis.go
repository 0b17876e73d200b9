package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/redisstore"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// redisDeployment is what -redis sets up: the stores every replica shares.
type redisDeployment struct {
	rdb      *redis.Client
	notifier *redisstore.Notifier
	key      []byte
	opts     *redisstore.Options
	tasks    *redisstore.TaskStore
}

// openRedis connects to the Redis at url and reads (or creates) the
// deployment's requestState key. Redis must answer now; later outages are
// survived.
func openRedis(ctx context.Context, url string, logger *slog.Logger) (*redisDeployment, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("-redis %q: %w", url, err)
	}
	// Fail fast while Redis is down, so that requests get their 503 at
	// once; the pool reconnects by itself when it is back.
	o.DialTimeout = time.Second
	o.ReadTimeout = 2 * time.Second
	o.WriteTimeout = 2 * time.Second
	o.MaxRetries = 1
	o.DialerRetries = 1
	redis.SetLogger(redisLogger{logger})
	rdb := redis.NewClient(o)
	d := &redisDeployment{rdb: rdb, opts: &redisstore.Options{}}
	kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if d.key, err = redisstore.SharedKey(kctx, rdb, d.opts, "requestState", 32); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("-redis %q: %w", url, err)
	}
	d.notifier = redisstore.NewNotifier(rdb, d.opts, logger)
	return d, nil
}

// configure makes the server use the deployment's notifier and key.
func (d *redisDeployment) configure(so *mcp.ServerOptions) {
	so.Notifier = d.notifier
	so.RequestStateKey = d.key
}

// options makes the everything server keep its tasks in Redis.
func (d *redisDeployment) options(o *everything.Options) {
	o.Configure = d.configure
	d.tasks = redisstore.NewTaskStore(d.rdb, d.opts)
	o.TaskStore = d.tasks
}

// healthOptions makes readiness ask the task store too (the Handler asks
// its own stores and the notifier).
func (d *redisDeployment) healthOptions() *mcphttp.HealthOptions {
	if d == nil || d.tasks == nil {
		return nil
	}
	return &mcphttp.HealthOptions{Checks: map[string]mcphttp.Pinger{"task store": d.tasks}}
}

// handlerOptions makes the Streamable HTTP handler use the Redis stores.
func (d *redisDeployment) handlerOptions(ho *mcphttp.HandlerOptions) {
	ho.SessionStore = redisstore.NewSessionStore(d.rdb, d.opts)
	ho.EventStore = redisstore.NewEventStore(d.rdb, d.opts)
}

// addReplicaTools adds what a multi-replica test drives: a tool that
// changes a resource here, for the clients subscribed to it on any
// replica.
func addReplicaTools(s *mcp.Server) error {
	type touchIn struct {
		URI string `json:"uri" description:"the resource that changed"`
	}
	return mcp.AddTool(s, &mcp.Tool{Name: "replica_touch_resource", Description: "Reports a resource as updated to its subscribers on every replica"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in touchIn) (*mcp.CallToolResult, error) {
			s.ResourceUpdated(ctx, in.URI)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("updated " + in.URI)}}, nil
		})
}

// close stops the notifier and the client.
func (d *redisDeployment) close() {
	d.notifier.Close()
	d.rdb.Close()
}

// redisLogger sends the Redis client's own messages (a pool that cannot
// dial while Redis is down, say) to the server's logger, instead of
// stderr.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
