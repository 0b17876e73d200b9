package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/replicas"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/tasks"
	"github.com/redis/go-redis/v9"
)

// TestClusterFailover kills the Cluster master holding every key of a
// deployment (the prefix's hash tag puts them in one slot) once its replica
// has all of it: meanwhile the stores fail with ErrUnavailable and nothing
// else, the notice published meanwhile waits in the outbox; once the
// replica took over, service returns by itself with no session, event,
// task or notice lost, and no notice heard twice.
func TestClusterFailover(t *testing.T) {
	requireEnv(t, ClusterEnv, "HOST:PORT,HOST:PORT,…", "a Redis Cluster")
	start := time.Now()
	rc := replicas.StartRedisCluster(t)
	t.Logf("Cluster of six up in %v", time.Since(start).Round(time.Millisecond))
	fast := &redis.ClusterOptions{Addrs: rc.Addrs(), DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: 1, DialerRetries: 1}
	rdb, other := redis.NewClusterClient(fast), redis.NewClusterClient(fast)
	t.Cleanup(func() { rdb.Close(); other.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := &Options{Prefix: "{fo}:"}
	ss, es, ts := NewSessionStore(rdb, opts), NewEventStore(rdb, opts), NewTaskStore(rdb, opts)
	a, _, heard := twoNotifiers(t, rdb, other, opts)
	awaitReading(t, ctx, a, heard)

	// The state before.
	if err := ss.Save(ctx, &shared.SessionState{ID: "s1", ProtocolVersion: mcp.Version20251125, Initialized: true}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 3 {
		id, err := es.Append(ctx, "s1", "0", fmt.Appendf(nil, "e%d", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	now := time.Now()
	if err := ts.Create(ctx, &tasks.Record{ID: "t1", Owner: "alice", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	m, err := rdb.MasterForKey(ctx, "{fo}:session:s1")
	if err != nil {
		t.Fatal(err)
	}
	rc.WaitInSync(t)

	// The master goes.
	start = time.Now()
	rc.Kill(m.Options().Addr)
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "during"}); err != nil {
		t.Fatalf("Publish during the failover: %v", err)
	}
	failed := 0
	for deadline := time.Now().Add(15 * time.Second); ; {
		_, err := ss.Load(ctx, "s1")
		if err == nil {
			break
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Load during the failover: %v, want ErrUnavailable", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no service 15s after the master went: %v\n%s", err, rc.Nodes())
		}
		failed++
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the replica took over in %v; %d loads failed with ErrUnavailable meanwhile", time.Since(start).Round(time.Millisecond), failed)

	// Nothing lost.
	if st, err := ss.Load(ctx, "s1"); err != nil || !st.Initialized || st.ProtocolVersion != mcp.Version20251125 {
		t.Fatalf("session after the failover: %+v, %v", st, err)
	}
	var got []string
	if err := es.Replay(ctx, "s1", "0", "", func(id string, _ []byte) error { got = append(got, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("events after the failover %v, want %v", got, ids)
	}
	if page, _, err := ts.List(ctx, "alice", "", 10); err != nil || len(page) != 1 || page[0].ID != "t1" {
		t.Fatalf("tasks after the failover: %v, %v", page, err)
	}
	if err := ts.Create(ctx, &tasks.Record{ID: "t2", Owner: "alice", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}); err != nil {
		t.Fatalf("Create after the failover: %v", err)
	}
	// The notice published meanwhile arrives once, then live ones.
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "after"}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	defer func() { t.Logf("notices heard in %v", time.Since(start).Round(time.Millisecond)) }()
	for _, want := range []string{"during", "after"} {
		select {
		case u := <-heard:
			if u != want {
				t.Fatalf("b heard %q, want %q", u, want)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("b never heard %q", want)
		}
	}
	select {
	case u := <-heard:
		t.Fatalf("b heard %q too", u)
	case <-time.After(300 * time.Millisecond):
	}
}
