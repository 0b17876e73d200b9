package replicas

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestReplicasRollingRestart stops each replica in turn with SIGTERM and
// starts it again while clients of both kinds call tools through the
// proxy, which, like a load balancer, takes a replica out of the rotation
// when its readiness probe fails: no call fails, no session is lost, and
// every resource update reaches its subscriber exactly once.
func TestReplicasRollingRestart(t *testing.T) {
	c := newCluster(t)
	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() { defer close(watched); c.proxy.Watch(wctx, 25*time.Millisecond) }()
	defer func() { stopWatch(); <-watched }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	tr := startTraffic(t, ctx, c.url, "rolling")

	time.Sleep(time.Second) // traffic on all three first
	for i := range c.reps {
		t.Logf("replica %d drained and exited in %v", i, c.restart(t, i).Round(time.Millisecond))
		time.Sleep(time.Second) // traffic on all three again
	}
	tr.check()
	c.alive()
}

// restart drains replica i with SIGTERM, starts it again on its address
// (with extra flags) and waits for the proxy to put it back in the
// rotation; it returns how long the drain took.
func (c *cluster) restart(t *testing.T, i int, extra ...string) (drained time.Duration) {
	t.Helper()
	old := c.reps[i]
	start := time.Now()
	if err := old.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-old.done:
		if err != nil {
			t.Errorf("replica %d did not exit cleanly after SIGTERM: %v", i, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("replica %d still running 30s after SIGTERM", i)
	}
	old.done <- nil // for the cleanup
	drained = time.Since(start)
	c.reps[i] = startReplica(t, c.bin, old.url.Host, c.flag, c.value, extra...)
	deadline := time.Now().Add(15 * time.Second)
	for c.proxy.Down(i) {
		if time.Now().After(deadline) {
			t.Fatalf("replica %d not back in the rotation 15s after its restart", i)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return drained
}
