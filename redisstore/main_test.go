package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines, but for go-redis's redial probe
// of a pool that could not dial, which sleeps a second between attempts
// and sees only then that its pool was closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"))
}

// URLEnv names the variable holding the URL of the Redis the tests use
// (redis://HOST:PORT/DB); scripts/test.sh starts a redis-server and sets
// it.
const URLEnv = "GOMCP_REDIS_URL"

// ClusterEnv names the variable holding the addresses of a Redis
// Cluster's nodes (HOST:PORT,HOST:PORT…); scripts/test.sh starts a
// Cluster of three masters and sets it.
const ClusterEnv = "GOMCP_REDIS_CLUSTER_ADDRS"

// SentinelEnv names the variable holding a Sentinel-watched master's name
// and the Sentinels' addresses (NAME@HOST:PORT,HOST:PORT…);
// scripts/test.sh starts a Sentinel watching its redis-server and sets it.
const SentinelEnv = "GOMCP_REDIS_SENTINEL"

// backends are the Redis deployments every store's tests run against: a
// single node, the same through Sentinel (a go-redis FailoverClient), and
// a Cluster, whose keys spread over several nodes so that a script or
// transaction across slots fails there.
var backends = []struct {
	name string
	open func(testing.TB) (redis.UniversalClient, string)
}{
	{"single", func(t testing.TB) (redis.UniversalClient, string) { return testRedis(t) }},
	{"sentinel", testSentinel},
	{"cluster", testCluster},
}

// eachRedis runs f as a subtest against each backend, with a client and
// a key prefix of the subtest's own.
func eachRedis(t *testing.T, f func(t *testing.T, rdb redis.UniversalClient, prefix string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rdb, prefix := b.open(t)
			f(t, rdb, prefix)
		})
	}
}

// testRedis returns a client of the test Redis and a key prefix of the
// test's own. Without URLEnv the test is skipped, unless CI is set: CI
// must run it.
func testRedis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	u := requireEnv(t, URLEnv, "redis://HOST:PORT/DB", "redis-server")
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("%s=%q: %v", URLEnv, u, err)
	}
	c := redis.NewClient(o)
	return c, ready(t, c, URLEnv, u)
}

// testCluster returns a client of the test Redis Cluster and a key prefix
// of the test's own. Without ClusterEnv the test is skipped, unless CI is
// set: CI must run it.
func testCluster(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	addrs := requireEnv(t, ClusterEnv, "HOST:PORT,HOST:PORT,…", "a Redis Cluster")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	return c, ready(t, c, ClusterEnv, addrs)
}

// testSentinel returns a client of the master a Sentinel watches and a
// key prefix of the test's own. Without SentinelEnv the test is skipped,
// unless CI is set: CI must run it.
func testSentinel(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	v := requireEnv(t, SentinelEnv, "NAME@HOST:PORT,HOST:PORT,…", "a Redis Sentinel")
	name, addrs, ok := strings.Cut(v, "@")
	if !ok {
		t.Fatalf("%s=%q: want NAME@HOST:PORT,…", SentinelEnv, v)
	}
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: name, SentinelAddrs: strings.Split(addrs, ",")})
	return c, ready(t, c, SentinelEnv, v)
}

// requireEnv returns the variable's value, skipping the test when it is
// unset (failing it when CI is set).
func requireEnv(t testing.TB, name, form, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is not: the Redis tests must run in CI (scripts/test.sh starts %s)", name, what)
		}
		t.Skipf("no %s: set %s=%s (scripts/test.sh starts one) to run this test", what, name, form)
	}
	return v
}

// ready fails the test unless c answers (the variable is set, so Redis
// must be there), and returns a fresh prefix whose keys are deleted when
// the test ends.
func ready(t testing.TB, c redis.UniversalClient, name, value string) string {
	t.Helper()
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("%s=%q is set but Redis does not answer: %v", name, value, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "test:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, k := range keysOf(ctx, t, c, prefix+"*") {
			c.Del(ctx, k)
		}
	})
	return prefix
}

// keysOf returns the keys matching pattern on every node: on a Cluster,
// each master holds some of them.
func keysOf(ctx context.Context, t testing.TB, c redis.UniversalClient, pattern string) []string {
	t.Helper()
	var keys []string
	scan := func(ctx context.Context, n *redis.Client) error {
		var cursor uint64
		for {
			ks, next, err := n.Scan(ctx, cursor, pattern, 1000).Result()
			if err != nil {
				return err
			}
			keys = append(keys, ks...)
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	switch c := c.(type) {
	case *redis.ClusterClient:
		// ForEachMaster calls on every master at once: keys is shared.
		var mu sync.Mutex
		err = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return scan(ctx, n)
		})
	case *redis.Client:
		err = scan(ctx, c)
	default:
		t.Fatalf("keysOf: a %T", c)
	}
	if err != nil {
		t.Errorf("listing keys %q: %v", pattern, err)
	}
	return keys
}

// anotherClient returns a client of the same Redis as c with a pool of its
// own, as another process would have.
func anotherClient(t testing.TB, c redis.UniversalClient) redis.UniversalClient {
	var o redis.UniversalClient
	switch c := c.(type) {
	case *redis.ClusterClient:
		o = redis.NewClusterClient(c.Options())
	case *redis.Client:
		o = redis.NewClient(c.Options())
	default:
		t.Fatalf("anotherClient: a %T", c)
	}
	t.Cleanup(func() { o.Close() })
	return o
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

// hearInOrder fails t unless heard yields want, in order, each within 5 s.
func hearInOrder(t testing.TB, heard <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-heard:
			if got != w {
				t.Fatalf("heard %q, want %q", got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("never heard %q", w)
		}
	}
}

// twoNotifiers returns a Notifier on ra and another on rb, both with
// opts, and what b's subscribers hear (the notices' URIs); they are
// closed when the test ends.
func twoNotifiers(t testing.TB, ra, rb redis.UniversalClient, opts *Options) (a, b *Notifier, heard <-chan string) {
	t.Helper()
	a, b = NewNotifier(ra, opts, nil), NewNotifier(rb, opts, nil)
	t.Cleanup(func() { a.Close() })
	t.Cleanup(func() { b.Close() })
	ch := make(chan string, 64)
	t.Cleanup(b.Subscribe(func(n *shared.Notice) { ch <- n.URI }))
	return a, b, ch
}

// awaitReading publishes probes from a until heard (what another
// Notifier hears) yields one, so that the other reads the stream, then
// drops every probe heard.
func awaitReading(t testing.TB, ctx context.Context, a *Notifier, heard <-chan string) {
	t.Helper()
	for ready := false; !ready; {
		if err := a.Publish(ctx, &shared.Notice{Method: "probe", URI: "probe"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
			ready = true
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("b never heard a")
		}
	}
	for drained := false; !drained; {
		select {
		case <-heard:
		case <-time.After(200 * time.Millisecond):
			drained = true
		}
	}
}
