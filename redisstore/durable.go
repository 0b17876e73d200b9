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
// connected, or it lags) is written to without waiting for ackPause, so
// that a deployment without replicas pays the timeout once in a while, not
// on every write.
type acker struct {
	rdb     redis.UniversalClient
	n       int
	timeout time.Duration

	mu     sync.Mutex
	paused map[string]time.Time // master address → when to wait again
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
	return &acker{rdb: rdb, n: n, timeout: o.ReplicaAckTimeout, paused: make(map[string]time.Time)}
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

// waiting reports whether writes to the master at addr wait for WAIT now.
func (a *acker) waiting(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	until, ok := a.paused[addr]
	if ok && time.Now().Before(until) {
		return false
	}
	delete(a.paused, addr)
	return true
}

// acked records the answer of a WAIT sent to addr.
func (a *acker) acked(addr string, replicas int64) {
	if replicas >= int64(a.n) {
		return
	}
	a.mu.Lock()
	a.paused[addr] = time.Now().Add(ackPause)
	a.mu.Unlock()
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
	addr := m.Options().Addr
	var wait *redis.Cmd
	cmds, err := m.Pipelined(ctx, func(p redis.Pipeliner) error {
		fn(p)
		if a.waiting(addr) {
			wait = p.Do(ctx, "wait", a.n, a.timeout.Milliseconds())
		}
		return nil
	})
	if err == nil && wait != nil {
		n, _ := wait.Int64()
		a.acked(addr, n)
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
	addr := m.Options().Addr
	if !a.waiting(addr) {
		return nil
	}
	n, err := tx.Wait(ctx, a.n, a.timeout).Result()
	if err != nil {
		return err
	}
	a.acked(addr, n)
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
