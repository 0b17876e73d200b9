package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// URLEnv names the variable holding the URL of the Redis the tests use
// (redis://HOST:PORT/DB); scripts/test.sh starts a redis-server and sets
// it.
const URLEnv = "GOMCP_REDIS_URL"

// testRedis returns a client of the test Redis and a key prefix of the
// test's own. Without URLEnv the test is skipped, unless CI is set: CI
// must run it.
func testRedis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	u := os.Getenv(URLEnv)
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is not: the Redis tests must run in CI (scripts/test.sh starts redis-server)", URLEnv)
		}
		t.Skipf("no Redis: set %s=redis://HOST:PORT/DB (scripts/test.sh starts one) to run this test", URLEnv)
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("%s=%q: %v", URLEnv, u, err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("%s=%q is set but Redis does not answer: %v", URLEnv, u, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "test:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, prefix+"*", 1000).Result()
			if err != nil {
				return
			}
			if len(keys) > 0 {
				c.Del(ctx, keys...)
			}
			if cursor = next; cursor == 0 {
				return
			}
		}
	})
	return c, prefix
}

// deadRedis is a client of an address nothing listens on.
func deadRedis(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
