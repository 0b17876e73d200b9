package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options configures the stores. Zero values select the defaults; several
// stores of one deployment must use the same Prefix (and Channel).
type Options struct {
	// Prefix starts every key the stores write, so that several
	// deployments (or tests) share one Redis database. Default "mcp:".
	Prefix string
	// SessionTTL is how long a session's state is kept after it was last
	// saved or loaded: a session idle for longer is gone for every
	// process. Default one hour.
	SessionTTL time.Duration
	// EventTTL is how long the events of a stream are kept after its last
	// append: a client resumes a broken stream within seconds, and events
	// it has not come back for in this long are not worth the memory.
	// Default 15 minutes (mcphttp.DefaultMaxEventAge), never more than
	// SessionTTL.
	EventTTL time.Duration
	// MaxStreamEvents bounds the events kept per stream; older ones are
	// trimmed as new ones arrive. Default 1000.
	MaxStreamEvents int
	// MaxEventBytes bounds one event's size: a larger one is not stored
	// (Append fails, and the transport sends it live without an id).
	// Default 1 MiB.
	MaxEventBytes int
	// MaxEventWaits bounds the GETs of one EventStore that wait in Redis
	// at once for another process's POST stream to grow (each holds a
	// connection of the client's pool while it waits, up to a second);
	// the others poll. Default 4.
	MaxEventWaits int
	// MaxTaskTTL is how long a task without an expiry of its own
	// (tasks.Record.ExpiresAt) is kept. Default 24 hours.
	MaxTaskTTL time.Duration
	// MaxTasksPerOwner bounds the live tasks of one owner; creating more
	// fails with tasks.ErrFull. Default 10000.
	MaxTasksPerOwner int
	// Channel is the key of the Redis stream carrying the Notifier's
	// notices between processes. Default Prefix + "notices".
	Channel string
	// MaxNotices is about how many notices the stream keeps (XADD MAXLEN
	// ~), so how far behind a process cut off from Redis may be and
	// still hear every notice when it is back. Default 10000.
	MaxNotices int
	// MaxPendingNotices bounds the notices a Notifier holds while Redis
	// does not take them, to append when it does; beyond it Publish
	// fails. Default 1000.
	MaxPendingNotices int
	// ReplicaAcks is how many replicas of the master taking a write must
	// hold it (Redis WAIT, in the write's own round trip) before a
	// notice, an event, a task's creation or change, or a session's
	// save counts as written: then a failover of that master loses none
	// of them (Redis replicates asynchronously; a write its master took
	// but never passed on dies with the master). A notice whose WAIT
	// fails is appended again, and every Notifier skips the copies it
	// has heard already. It costs a round trip to the replica per write
	// (see BENCHMARKS.md). A master whose replicas do not acknowledge
	// within ReplicaAckTimeout (it has none, or they lag) is written to
	// without waiting for the next ten seconds. Default (0): 1 on a Redis
	// Cluster (redis.ClusterClient), none otherwise (a single node, or
	// Sentinel: set 1 there to have it); negative: none.
	ReplicaAcks int
	// ReplicaAckTimeout bounds each wait for ReplicaAcks. Default 200ms.
	ReplicaAckTimeout time.Duration
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Prefix == "" {
		c.Prefix = "mcp:"
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = time.Hour
	}
	if c.EventTTL <= 0 {
		c.EventTTL = 15 * time.Minute
	}
	c.EventTTL = min(c.EventTTL, c.SessionTTL)
	if c.MaxStreamEvents <= 0 {
		c.MaxStreamEvents = 1000
	}
	if c.MaxEventBytes <= 0 {
		c.MaxEventBytes = 1 << 20
	}
	if c.MaxEventWaits <= 0 {
		c.MaxEventWaits = 4
	}
	if c.MaxTaskTTL <= 0 {
		c.MaxTaskTTL = 24 * time.Hour
	}
	if c.MaxTasksPerOwner <= 0 {
		c.MaxTasksPerOwner = 10000
	}
	if c.MaxNotices <= 0 {
		c.MaxNotices = 10000
	}
	if c.MaxPendingNotices <= 0 {
		c.MaxPendingNotices = 1000
	}
	if c.ReplicaAckTimeout <= 0 {
		c.ReplicaAckTimeout = 200 * time.Millisecond
	}
	if c.Channel == "" {
		c.Channel = c.Prefix + "notices"
	}
	return c
}

// ErrUnavailable wraps every error caused by Redis being unreachable or
// failing, so that callers can tell it from a missing session or event.
var ErrUnavailable = errors.New("redisstore: redis unavailable")

// unavailable wraps a Redis client error in ErrUnavailable. On a Redis
// Cluster it also has the client read the Cluster's slot map again (at
// most every 200 ms, in the background): a master that stopped answering
// may have been replaced by its replica, which the client would otherwise
// learn only at its next periodic reload (ClusterStateReloadInterval, a
// minute by default), sending every request to the dead master until then.
func unavailable(rdb redis.UniversalClient, op string, err error) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		c.ReloadState(context.Background())
	}
	return fmt.Errorf("%w: %s: %w", ErrUnavailable, op, err)
}

// ping is the Ping of every store.
func ping(ctx context.Context, c redis.UniversalClient) error {
	if err := c.Ping(ctx).Err(); err != nil {
		return unavailable(c, "ping", err)
	}
	return nil
}

// hashTag returns "{…}" naming name, for the keys that a script or
// transaction touches together: a Redis Cluster hashes only what is
// between the first "{" and the next "}" of a key, so keys that share
// this text up to its closing brace share a slot. It is a hash of name,
// not name itself, so that it is never empty and holds no brace whatever
// name holds (a client's session id or an owner's name, or "", which in
// braces would make no tag at all), and is of a fixed length. The keys of
// one group must be equal from their start up to the tag's closing
// brace, so that they share a slot even when the prefix holds a brace.
func hashTag(name string) string {
	h := sha256.Sum256([]byte(name))
	return "{" + hex.EncodeToString(h[:16]) + "}"
}
