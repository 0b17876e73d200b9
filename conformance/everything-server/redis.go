package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/redisstore"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// redisDeployment is what -redis or -redis-cluster sets up: the stores
// every replica shares.
type redisDeployment struct {
	rdb      redis.UniversalClient
	notifier *redisstore.Notifier
	key      []byte
	opts     *redisstore.Options
	tasks    *redisstore.TaskStore
}

// openRedis connects to the Redis at url (-redis), or to the Redis Cluster
// whose nodes include the comma-separated addrs (-redis-cluster), and
// reads (or creates) the deployment's requestState key. Redis must answer
// now; later outages are survived.
func openRedis(ctx context.Context, url, addrs string, logger *slog.Logger) (*redisDeployment, error) {
	rdb, flag, err := redisClient(url, addrs)
	if err != nil {
		return nil, err
	}
	redis.SetLogger(redisLogger{logger})
	d := &redisDeployment{rdb: rdb, opts: &redisstore.Options{}}
	kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if d.key, err = redisstore.SharedKey(kctx, rdb, d.opts, "requestState", 32); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	d.notifier = redisstore.NewNotifier(rdb, d.opts, logger)
	return d, nil
}

// redisClient returns the client of one Redis (url) or a Cluster (addrs),
// and the flag that named it, for errors. Both clients fail fast while
// Redis is down, so that requests get their 503 at once; their pools
// reconnect by themselves when it is back.
func redisClient(url, addrs string) (redis.UniversalClient, string, error) {
	const (
		dial = time.Second
		rw   = 2 * time.Second
	)
	switch {
	case url != "" && addrs != "":
		return nil, "", errors.New("-redis and -redis-cluster exclude each other")
	case addrs != "":
		flag := fmt.Sprintf("-redis-cluster %q", addrs)
		var nodes []string
		for a := range strings.SplitSeq(addrs, ",") {
			if a = strings.TrimSpace(a); a != "" {
				nodes = append(nodes, a)
			}
		}
		if len(nodes) == 0 {
			return nil, "", fmt.Errorf("%s: no address", flag)
		}
		return redis.NewClusterClient(&redis.ClusterOptions{
			Addrs: nodes, DialTimeout: dial, ReadTimeout: rw, WriteTimeout: rw, MaxRetries: 1, DialerRetries: 1,
		}), flag, nil
	}
	flag := fmt.Sprintf("-redis %q", url)
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", flag, err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = dial, rw, rw
	o.MaxRetries, o.DialerRetries = 1, 1
	return redis.NewClient(o), flag, nil
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
