package replicas

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisCluster is a Redis Cluster a test starts for itself, to fail a
// master over: three masters with a replica each, on loopback, whose nodes
// give up on a silent peer after a second. It needs redis-server and
// redis-cli on PATH.
type RedisCluster struct {
	nodes []*clusterNode
}

// clusterNode is one redis-server of a RedisCluster.
type clusterNode struct {
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartRedisCluster starts a RedisCluster, stopped when the test ends, and
// waits until every replica is in sync with its master.
func StartRedisCluster(t testing.TB) *RedisCluster {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("a Redis Cluster needs %s on PATH: %v", bin, err)
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
	rc := &RedisCluster{}
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
		rc.nodes = append(rc.nodes, n)
	}
	for _, n := range rc.nodes {
		n.await(t, func(c *redis.Client) bool { return c.Ping(context.Background()).Err() == nil }, "answer")
	}
	args := append([]string{"--cluster", "create"}, rc.Addrs()...)
	out, err := exec.Command("redis-cli", append(args, "--cluster-replicas", "1", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, n := range rc.nodes {
		n.await(t, func(c *redis.Client) bool {
			info := c.ClusterInfo(context.Background()).Val()
			repl := c.Info(context.Background(), "replication").Val()
			return strings.Contains(info, "cluster_state:ok") &&
				(strings.Contains(repl, "connected_slaves:1") || strings.Contains(repl, "master_link_status:up"))
		}, "join the Cluster with its replica")
	}
	rc.WaitInSync(t)
	return rc
}

// Addrs returns the addresses of the nodes.
func (rc *RedisCluster) Addrs() []string {
	var addrs []string
	for _, n := range rc.nodes {
		addrs = append(addrs, n.addr)
	}
	return addrs
}

// Kill stops the node at addr at once (SIGKILL), as a crash would.
func (rc *RedisCluster) Kill(addr string) {
	for _, n := range rc.nodes {
		if n.addr == addr {
			n.kill()
		}
	}
}

// WaitInSync waits until every live master's replica is online and has
// acknowledged all its master wrote, so that a master killed then loses
// nothing.
func (rc *RedisCluster) WaitInSync(t testing.TB) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !rc.inSync(); {
		if time.Now().After(deadline) {
			t.Fatal("the Redis Cluster's replicas never caught up")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (rc *RedisCluster) inSync() bool {
	for _, n := range rc.nodes {
		select {
		case <-n.done:
			continue
		default:
		}
		repl := n.info("replication")
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

// Nodes returns CLUSTER NODES as a live node sees it, for failure messages.
func (rc *RedisCluster) Nodes() string {
	for _, n := range rc.nodes {
		select {
		case <-n.done:
			continue
		default:
		}
		c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1})
		defer c.Close()
		return c.ClusterNodes(context.Background()).Val()
	}
	return ""
}

func (n *clusterNode) info(section string) string {
	c := redis.NewClient(&redis.Options{Addr: n.addr, MaxRetries: -1})
	defer c.Close()
	return c.Info(context.Background(), section).Val()
}

// await polls the node until ok holds, for at most 20 seconds.
func (n *clusterNode) await(t testing.TB, ok func(*redis.Client) bool, what string) {
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
