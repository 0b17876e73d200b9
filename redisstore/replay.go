package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReplayCache remembers the identifiers of the DPoP proofs a resource
// server accepted, in Redis, so that a proof accepted by one replica is a
// replay on every other. It implements auth.ReplayCache (package auth of
// this module) without importing it. Each identifier is one key expiring
// when its proof does, so the cache is bounded by the proofs' lifetime.
type ReplayCache struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewReplayCache returns a ReplayCache on rdb, which the caller keeps
// owning. opts may be nil (only Prefix is used).
func NewReplayCache(rdb redis.UniversalClient, opts *Options) *ReplayCache {
	o := opts.withDefaults()
	return &ReplayCache{rdb: rdb, prefix: o.Prefix + "dpop:"}
}

// Use records the proof id of the key whose thumbprint is jkt until the
// given time and reports whether it was new; false means a replay. It
// fails, wrapping ErrUnavailable, when Redis is unreachable (the resource
// server then refuses the request with 503). Its memory is Redis's, bound
// by the proofs' lifetime; it keeps no quota per key.
func (c *ReplayCache) Use(ctx context.Context, jkt, id string, until time.Time) (bool, error) {
	if !until.After(time.Now()) {
		until = time.Now().Add(time.Second) // expired already: remember it briefly all the same
	}
	err := c.rdb.SetArgs(ctx, c.prefix+jkt+" "+id, 1, redis.SetArgs{Mode: "NX", ExpireAt: until}).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, unavailable(c.rdb, "replay cache", err)
	}
	return true, nil
}

// Ping reports whether Redis answers, for readiness checks.
func (c *ReplayCache) Ping(ctx context.Context) error { return ping(ctx, c.rdb) }
