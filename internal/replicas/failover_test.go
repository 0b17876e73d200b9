package replicas

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestReplicasClusterFailover runs three replicas on a six-node Redis
// Cluster of the test's own and kills the master holding the stream of
// notices (and about a third of the sessions) while clients call tools
// and open sessions through the proxy: every request is answered 200, or
// 503 with Retry-After; service returns by itself; no session is lost,
// the subscription held on a GET stream still fires, and every resource
// update a tool call reported (16 sessions subscribed, each with its GET
// stream, touching their resources through any replica, beside 16
// stateless clients) reaches its subscriber exactly once: the stores wait
// for the replica to hold each notice and event (redisstore's
// Options.ReplicaAcks, 1 on a Cluster by default). It runs when clusterEnv
// is set (the signal that CI runs the Cluster tests), though it does not
// use that Cluster.
func TestReplicasClusterFailover(t *testing.T) {
	requireCluster(t)
	rc := StartRedisCluster(t)
	c := startReplicas(t, nil, "-redis-cluster", strings.Join(rc.Addrs(), ","))
	var sids []string
	for range 8 {
		sids = append(sids, session(t, c.url))
	}
	const uri = "test://failover"
	if a := post(t, c.url, sids[0], request("resources/subscribe", `{"uri":"`+uri+`"}`)); a.status != 200 || a.msg.Error != nil {
		t.Fatalf("subscribe: %d %s", a.status, a.body)
	}
	s := openGET(t, c.url, sids[0], "")
	holder, _ := strconv.Atoi(s.replica)
	other := (holder + 1) % 3
	caller := session(t, c.direct(other))
	c.touch(other, caller, uri)
	if got := updatedURI(t, s.next(t)); got != uri {
		t.Fatalf("updated %q, want %q", got, uri)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := startTraffic(t, ctx, c.url, "failover")
	time.Sleep(time.Second) // traffic on all three first

	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: rc.Addrs()})
	m, err := rdb.MasterForKey(context.Background(), "mcp:notices")
	if err != nil {
		rdb.Close()
		t.Fatal(err)
	}
	addr := m.Options().Addr
	onIt := 0
	for _, sc := range tr.sessions {
		if n, err := rdb.MasterForKey(context.Background(), "mcp:session:"+sc.sid); err == nil && n.Options().Addr == addr {
			onIt++
		}
	}
	rdb.Close()
	t.Logf("killing master %s, holding the notices and %d of the %d counted sessions", addr, onIt, len(tr.sessions))
	// No WaitInSync here: under traffic a replica is never exactly in step,
	// and every write acknowledged so far is on it already (WAIT).
	rc.Kill(addr)
	start := time.Now()
	var calls, busy int
	check := func(what string, a answer) bool {
		t.Helper()
		calls++
		switch {
		case a.status == http.StatusOK && a.msg.Error == nil:
			return true
		case a.status == http.StatusServiceUnavailable && a.retryAfter != "":
			busy++
			return false
		}
		t.Fatalf("%s during the failover: %d (Retry-After %q) %s", what, a.status, a.retryAfter, a.body)
		return false
	}
	initialize := request("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`)
	for {
		ok := true
		for _, sid := range sids {
			ok = check("tools/call", callTool(t, c.url, sid, "test_simple_text", `{}`)) && ok
		}
		// New sessions: about a third of them are kept on the dead master.
		for range 3 {
			ok = check("initialize", post(t, c.url, "", initialize)) && ok
		}
		if ok && time.Since(start) > 3*time.Second {
			break // past the failover (1s to call the master dead, then an election), and all served
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no full service 30s after the master went\n%s", rc.Nodes())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d of %d requests got 503 with Retry-After during the failover", busy, calls)

	// Every session on every replica, and the subscription fires. A
	// replica the loop above did not happen to reach may first learn of the
	// new master from a failed command (it then re-reads the slot map): a
	// 503 with Retry-After is retried, as clients do, for a bounded time.
	for i := range 3 {
		for _, sid := range sids {
			deadline := time.Now().Add(10 * time.Second)
			for {
				a := callTool(t, c.direct(i), sid, "test_simple_text", `{}`)
				if a.status == 200 && a.msg.Error == nil {
					break
				}
				if a.status != http.StatusServiceUnavailable || a.retryAfter == "" || time.Now().After(deadline) {
					t.Fatalf("session %s on replica %d after the failover: %d %s", sid, i, a.status, a.body)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	c.touch(other, caller, uri)
	if got := updatedURI(t, s.next(t)); got != uri {
		t.Fatalf("updated %q after the failover, want %q", got, uri)
	}
	time.Sleep(time.Second) // traffic after the failover too
	tr.check()
	c.alive()
}
