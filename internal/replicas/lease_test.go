package replicas

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// leaseBound is how soon after its replica died a task must be seen
// failed: the default tasks.Options.Lease (10s), a poll, and room for a
// loaded machine.
const leaseBound = 15 * time.Second

// TestReplicasTaskLease kills a replica with SIGKILL while tasks run on it
// and on another: every task reaches a terminal state, the dead replica's
// failed, saying why, within leaseBound, read through a third replica; the
// others completed.
func TestReplicasTaskLease(t *testing.T) {
	c := newCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(i int) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "lease-test", Version: "1"}, nil).Connect(ctx, mcphttp.NewClientStream(c.direct(i), nil))
		if err != nil {
			t.Fatalf("client of replica %d: %v", i, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	victim, survivor, reader := connect(0), connect(1), connect(2)
	start := func(cs *mcp.ClientSession, seconds int, label string) string {
		call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "slow_compute",
			Arguments: json.RawMessage(fmt.Sprintf(`{"seconds":%d,"label":%q}`, seconds, label))}, nil)
		if err != nil || call.Task == nil {
			t.Fatalf("slow_compute %s as a task: %+v, %v", label, call, err)
		}
		return call.Task.TaskID
	}
	var doomed, kept []string
	for i := range 4 {
		doomed = append(doomed, start(victim, 120, fmt.Sprint("doomed-", i)))
	}
	for i := range 2 {
		kept = append(kept, start(survivor, 3, fmt.Sprint("kept-", i)))
	}
	for _, id := range doomed {
		if d, err := tasks.Get(ctx, reader, id); err != nil || d.Status != tasks.TaskStatusWorking {
			t.Fatalf("task %s before the kill: %+v, %v", id, d, err)
		}
	}

	c.proxy.SetDown(0, true)
	if err := c.reps[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-c.reps[0].done
	c.reps[0].done <- nil // for alive and the cleanup

	terminal := func(id string, bound time.Duration) *tasks.DetailedTask {
		t.Helper()
		for {
			d, err := tasks.Get(ctx, reader, id)
			if err != nil {
				t.Fatalf("task %s: %v", id, err)
			}
			if d.Status.Terminal() {
				return d
			}
			if time.Since(killed) > bound {
				t.Fatalf("task %s still %s %v after its replica was killed", id, d.Status, bound)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for _, id := range doomed {
		d := terminal(id, leaseBound)
		if d.Status != tasks.TaskStatusFailed || !strings.Contains(d.StatusMessage, "lease lapsed") || d.Error == nil {
			t.Fatalf("task %s of the killed replica: %s %q %+v, want failed, saying why", id, d.Status, d.StatusMessage, d.Error)
		}
	}
	t.Logf("the killed replica's %d tasks failed within %v", len(doomed), time.Since(killed).Round(100*time.Millisecond))
	for _, id := range kept {
		if d := terminal(id, leaseBound); d.Status != tasks.TaskStatusCompleted {
			t.Fatalf("task %s of a live replica: %s %q", id, d.Status, d.StatusMessage)
		}
	}
	c.alive(0)
}
