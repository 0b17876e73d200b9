package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// SharedKey returns the secret stored in Redis under name (after the
// prefix), creating it with size random bytes if no process did yet, so
// that every replica of a deployment signs and checks with the same key:
// give it to mcp.ServerOptions.RequestStateKey, so that a multi-round
// request may send each round to a different replica.
//
// The key has no TTL: it is one small value per deployment, and renewing
// it under running processes would break the requestStates they issued.
// Delete it to rotate the key (the running processes keep their copy
// until restarted).
func SharedKey(ctx context.Context, rdb redis.UniversalClient, opts *Options, name string, size int) ([]byte, error) {
	if size < 16 {
		return nil, fmt.Errorf("redisstore: shared key %q: size %d is under 16 bytes", name, size)
	}
	o := opts.withDefaults()
	key := o.Prefix + "key:" + name
	fresh := make([]byte, size)
	_, _ = rand.Read(fresh)
	// SET NX GET: the first writer's value wins, atomically, and the others
	// read it back in the same round trip.
	old, err := rdb.SetArgs(ctx, key, fresh, redis.SetArgs{Mode: "NX", Get: true}).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return fresh, nil
	case err != nil:
		return nil, unavailable(rdb, "shared key", err)
	}
	return old, nil
}
