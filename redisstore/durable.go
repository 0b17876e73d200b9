package redisstore

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// acker makes a write wait until Options.ReplicaAcks replicas of the master
// that took it acknowledge it (Redis WAIT), so that a master failover does
// not lose it: Redis replicates asynchronously, and a master that dies
// before its replica received a write takes the write with it.
//
// WAIT waits for the writes made on its own connection, so the write and
// the WAIT go in one pipeline on one connection of the master holding the
// key (on a Cluster, the node the slot map names; a pipeline of the
// ClusterClient would send the keyless WAIT to any node). A master whose
// replicas did not acknowledge within Options.ReplicaAckTimeout (none is
// connected, or it lags) is written to without waiting for ackPause, by
// every store using the same client, so that a deployment without replicas pays
// the timeout once in a while, not on every write.
type acker struct {
	rdb     redis.UniversalClient
	n       int
	timeout time.Duration
}

// paused holds, by the client of a master (a Cluster client keeps one per
// node), when the stores using it wait for its replicas again.
var paused struct {
	sync.Mutex
	until map[*redis.Client]time.Time
}

// ackPause is how long a master whose replicas did not acknowledge a write
// in time is written to without WAIT.
const ackPause = 10 * time.Second

// newAcker returns the acker of o for rdb; nil (no waiting) when o asks
// for no acknowledgement.
func newAcker(rdb redis.UniversalClient, o Options) *acker {
	n := o.ReplicaAcks
	if n == 0 {
		if _, ok := rdb.(*redis.ClusterClient); ok {
			n = 1
		}
	}
	if n <= 0 {
		return nil
	}
	return &acker{rdb: rdb, n: n, timeout: o.ReplicaAckTimeout}
}

// master returns the client of the master holding key, nil when rdb is
// neither a single node nor a Cluster (its writes are not waited for).
func (a *acker) master(ctx context.Context, key string) (*redis.Client, error) {
	switch c := a.rdb.(type) {
	case *redis.ClusterClient:
		return c.MasterForKey(ctx, key)
	case *redis.Client:
		return c, nil
	}
	return nil, nil
}

// waiting reports whether writes to the master m wait for WAIT now.
func (a *acker) waiting(m *redis.Client) bool {
	paused.Lock()
	defer paused.Unlock()
	until, ok := paused.until[m]
	if ok && time.Now().Before(until) {
		return false
	}
	delete(paused.until, m)
	return true
}

// acked records the answer of a WAIT sent to the master m.
func (a *acker) acked(m *redis.Client, replicas int64) {
	if replicas >= int64(a.n) {
		return
	}
	paused.Lock()
	if paused.until == nil {
		paused.until = make(map[*redis.Client]time.Time)
	}
	paused.until[m] = time.Now().Add(ackPause)
	paused.Unlock()
}

// pipelined runs the commands fn queues on the master holding key, in one
// round trip, followed by a WAIT when a is not nil. The error is the first
// of any command's (as redis.Pipeliner's Exec returns it), a WAIT that
// failed included: the write may then be lost, or not.
func (a *acker) pipelined(ctx context.Context, rdb redis.UniversalClient, key string, fn func(redis.Pipeliner)) ([]redis.Cmder, error) {
	queue := func(p redis.Pipeliner) error { fn(p); return nil }
	if a == nil {
		return rdb.Pipelined(ctx, queue)
	}
	m, err := a.master(ctx, key)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return rdb.Pipelined(ctx, queue)
	}
	var wait *redis.Cmd
	cmds, err := m.Pipelined(ctx, func(p redis.Pipeliner) error {
		fn(p)
		if a.waiting(m) {
			wait = p.Do(ctx, "wait", a.n, a.timeout.Milliseconds())
		}
		return nil
	})
	if err == nil && wait != nil {
		n, _ := wait.Int64()
		a.acked(m, n)
	}
	return cmds, err
}

// wait sends WAIT on tx's connection, after a write made on it, when a is
// not nil; key names the master tx is connected to.
func (a *acker) wait(ctx context.Context, tx *redis.Tx, key string) error {
	if a == nil {
		return nil
	}
	m, err := a.master(ctx, key)
	if err != nil || m == nil {
		return err
	}
	if !a.waiting(m) {
		return nil
	}
	n, err := tx.Wait(ctx, a.n, a.timeout).Result()
	if err != nil {
		return err
	}
	a.acked(m, n)
	return nil
}

// run runs script as Script.Run does, followed by a WAIT in the same round
// trip when a is not nil (the script is sent whole then: a pipeline cannot
// fall back from EVALSHA). The command's error is the script's, or the
// WAIT's when the script succeeded.
func (a *acker) run(ctx context.Context, rdb redis.UniversalClient, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	if a == nil {
		return script.Run(ctx, rdb, keys, args...)
	}
	var cmd *redis.Cmd
	_, err := a.pipelined(ctx, rdb, keys[0], func(p redis.Pipeliner) {
		cmd = script.Eval(ctx, p, keys, args...)
	})
	if cmd == nil {
		cmd = redis.NewCmd(ctx)
		cmd.SetErr(err)
	} else if err != nil && cmd.Err() == nil {
		cmd.SetErr(err)
	}
	return cmd
}
