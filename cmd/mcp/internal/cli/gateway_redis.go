package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/redisstore"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// gatewayFlags are the flags of mcp gateway that make it one replica of
// several sharing Redis.
type gatewayFlags struct {
	gatewayAuth                // --access, --auth-*
	redisURL     string        // --redis redis://HOST:PORT/DB
	redisCluster string        // --redis-cluster HOST:PORT[,HOST:PORT...]
	drain        time.Duration // --drain-timeout
}

// defaultDrain is how long a replica drains on SIGTERM (--drain-timeout),
// as the everything-server's.
const defaultDrain = 20 * time.Second

// gatewayRedis is what --redis or --redis-cluster sets up: the stores the
// gateway's replicas share (sessions, SSE events, notices, tasks, the key
// signing requestState).
type gatewayRedis struct {
	rdb      redis.UniversalClient
	opts     *redisstore.Options
	notifier *redisstore.Notifier
	tasks    *redisstore.TaskStore
	key      []byte
}

// openGatewayRedis connects to the Redis of --redis or --redis-cluster,
// which must answer now (later outages are survived: requests get 503
// meanwhile), and reads or creates the deployment's requestState key. It
// returns nil without either flag.
func (f *gatewayFlags) open(ctx context.Context, logger *slog.Logger) (*gatewayRedis, error) {
	if f.redisURL == "" && f.redisCluster == "" {
		return nil, nil
	}
	rdb, err := f.client()
	if err != nil {
		return nil, usageError{err}
	}
	d := &gatewayRedis{rdb: rdb, opts: &redisstore.Options{}}
	kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if d.key, err = redisstore.SharedKey(kctx, rdb, d.opts, "requestState", 32); err != nil {
		_ = rdb.Close()
		return nil, connectError{fmt.Errorf("redis: %w", err)}
	}
	d.notifier = redisstore.NewNotifier(rdb, d.opts, logger)
	d.tasks = redisstore.NewTaskStore(rdb, d.opts)
	return d, nil
}

// client returns the Redis client the flags name. It fails fast while
// Redis is down, so that requests get their 503 at once; its pool
// reconnects by itself.
func (f *gatewayFlags) client() (redis.UniversalClient, error) {
	const dial, rw = time.Second, 2 * time.Second
	if f.redisURL != "" && f.redisCluster != "" {
		return nil, errors.New("--redis and --redis-cluster exclude each other")
	}
	if f.redisCluster != "" {
		var nodes []string
		for a := range strings.SplitSeq(f.redisCluster, ",") {
			if a = strings.TrimSpace(a); a != "" {
				nodes = append(nodes, a)
			}
		}
		if len(nodes) == 0 {
			return nil, fmt.Errorf("--redis-cluster %q: no address", f.redisCluster)
		}
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: nodes, DialTimeout: dial,
			ReadTimeout: rw, WriteTimeout: rw, MaxRetries: 1, DialerRetries: 1}), nil
	}
	o, err := redis.ParseURL(f.redisURL)
	if err != nil {
		return nil, fmt.Errorf("--redis %q: %w", f.redisURL, err)
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = dial, rw, rw
	o.MaxRetries, o.DialerRetries = 1, 1
	return redis.NewClient(o), nil
}

// gatewayOptions makes the gateway's server publish through the shared
// notifier, sign requestState with the shared key, and keep its tasks in
// Redis.
func (d *gatewayRedis) gatewayOptions(o *gateway.Options) {
	if d == nil {
		return
	}
	o.Server = &mcp.ServerOptions{Notifier: d.notifier, RequestStateKey: d.key}
	o.Tasks = &tasks.Options{Store: d.tasks}
}

// handlerOptions makes the Streamable HTTP handler keep its sessions and
// events in Redis.
func (d *gatewayRedis) handlerOptions(ho *mcphttp.HandlerOptions) {
	if d == nil {
		return
	}
	ho.SessionStore = redisstore.NewSessionStore(d.rdb, d.opts)
	ho.EventStore = redisstore.NewEventStore(d.rdb, d.opts)
}

// healthOptions makes readiness ask the task store too (the Handler asks
// its own stores).
func (d *gatewayRedis) healthOptions() *mcphttp.HealthOptions {
	if d == nil {
		return nil
	}
	return &mcphttp.HealthOptions{Checks: map[string]mcphttp.Pinger{"task store": d.tasks}}
}

// close stops the notifier and the client, once the gateway is closed.
func (d *gatewayRedis) close() {
	if d == nil {
		return
	}
	_ = d.notifier.Close()
	_ = d.rdb.Close()
}
