package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/redis/go-redis/v9"
)

// clusterNode is one redis-server of a Cluster a test starts for itself.
type clusterNode struct {
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// startFailoverCluster starts a Redis Cluster of the test's own, three
// masters with a replica each, whose nodes give up on a silent peer after
// a second, and waits until every replica is in sync.
func startFailoverCluster(t *testing.T) []*clusterNode {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is set but %s is not on PATH: %v", ClusterEnv, bin, err)
		}
	}
	// Twelve distinct free ports: six for clients, six for the cluster bus.
	var lns []net.Listener
	for range 12 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
	}
	for _, ln := range lns {
		ln.Close()
	}
	port := func(i int) string { return strconv.Itoa(lns[i].Addr().(*net.TCPAddr).Port) }
	var nodes []*clusterNode
	var addrs []string
	for i := range 6 {
		dir := t.TempDir()
		cmd := exec.Command("redis-server", "--port", port(i), "--cluster-port", port(i+6), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--cluster-node-timeout", "1000",
			"--save", "", "--appendonly", "no", "--dir", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		n := &clusterNode{addr: "127.0.0.1:" + port(i), cmd: cmd, done: make(chan struct{})}
		go func() { _ = cmd.Wait(); close(n.done) }()
		t.Cleanup(n.kill)
		nodes = append(nodes, n)
		addrs = append(addrs, n.addr)
	}
	for _, n := range nodes {
		n.await(t, func(c *redis.Client) bool { return c.Ping(context.Background()).Err() == nil }, "answer")
	}
	out, err := exec.Command("redis-cli", append([]string{"--cluster", "create"}, append(addrs, "--cluster-replicas", "1", "--cluster-yes")...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range nodes {
		n.await(t, func(c *redis.Client) bool {
			info := c.ClusterInfo(context.Background()).Val()
			repl := c.Info(context.Background(), "replication").Val()
			return strings.Contains(info, "cluster_state:ok") &&
				(strings.Contains(repl, "connected_slaves:1") || strings.Contains(repl, "master_link_status:up"))
		}, "join the Cluster with its replica")
	}
	return nodes
}

// await polls the node until ok holds, for at most 20 seconds.
func (n *clusterNode) await(t *testing.T, ok func(*redis.Client) bool, what string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: n.addr, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(20 * time.Second); !ok(c); {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server %s did not %s", n.addr, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (n *clusterNode) kill() {
	_ = n.cmd.Process.Kill()
	<-n.done
}

// inSync reports whether every master's replica is online and has
// acknowledged all the master wrote.
func inSync(nodes []*clusterNode) bool {
	for _, n := range nodes {
		select {
		case <-n.done:
			continue
		default:
		}
		c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1})
		repl := c.Info(context.Background(), "replication").Val()
		c.Close()
		if !strings.Contains(repl, "role:master") {
			continue
		}
		var offset, replica string
		for _, line := range strings.Split(repl, "\r\n") {
			if v, ok := strings.CutPrefix(line, "master_repl_offset:"); ok {
				offset = v
			}
			if v, ok := strings.CutPrefix(line, "slave0:"); ok {
				replica = v
			}
		}
		if !strings.Contains(replica, "state=online") || !strings.Contains(replica, ",offset="+offset+",") {
			return false
		}
	}
	return true
}

// TestClusterFailover kills the Cluster master holding every key of a
// deployment (the prefix's hash tag puts them in one slot) once its replica
// has all of it: meanwhile the stores fail with ErrUnavailable and nothing
// else, the notice published meanwhile waits in the outbox; once the
// replica took over, service returns by itself with no session, event,
// task or notice lost, and no notice heard twice.
func TestClusterFailover(t *testing.T) {
	requireEnv(t, ClusterEnv, "HOST:PORT,HOST:PORT,…", "a Redis Cluster")
	start := time.Now()
	nodes := startFailoverCluster(t)
	t.Logf("Cluster of six up in %v", time.Since(start).Round(time.Millisecond))
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.addr)
	}
	fast := &redis.ClusterOptions{Addrs: addrs, DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second,
		WriteTimeout: time.Second, MaxRetries: 1, DialerRetries: 1}
	rdb, other := redis.NewClusterClient(fast), redis.NewClusterClient(fast)
	t.Cleanup(func() { rdb.Close(); other.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := &Options{Prefix: "{fo}:"}
	ss, es, ts := NewSessionStore(rdb, opts), NewEventStore(rdb, opts), NewTaskStore(rdb, opts)
	a, b := NewNotifier(rdb, opts, nil), NewNotifier(other, opts, nil)
	defer a.Close()
	defer b.Close()
	heard := make(chan string, 64)
	defer b.Subscribe(func(n *mcp.Notice) { heard <- n.URI })()
	for ready := false; !ready; {
		if err := a.Publish(ctx, &mcp.Notice{Method: "probe", URI: "probe"}); err != nil {
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

	// The state before.
	if err := ss.Save(ctx, &mcp.SessionState{ID: "s1", ProtocolVersion: mcp.Version20251125, Initialized: true}); err != nil {
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
	for deadline := time.Now().Add(10 * time.Second); !inSync(nodes); {
		if time.Now().After(deadline) {
			t.Fatal("the replicas never caught up")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The master goes.
	start = time.Now()
	for _, n := range nodes {
		if n.addr == m.Options().Addr {
			n.kill()
		}
	}
	if err := a.Publish(ctx, &mcp.Notice{Method: mcp.NotificationResourceUpdated, URI: "during"}); err != nil {
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
			for _, n := range nodes {
				c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1})
				t.Logf("%s: %s", n.addr, c.ClusterNodes(ctx).Val())
				c.Close()
				break
			}
			t.Fatalf("no service 30s after the master went: %v", err)
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
	if err := a.Publish(ctx, &mcp.Notice{Method: mcp.NotificationResourceUpdated, URI: "after"}); err != nil {
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
