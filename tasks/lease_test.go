package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/tasks"
)

// TestLeaseLapsed: a task left working by a process that died (its record
// in the shared store, its lease never renewed again) is failed, with a
// status message saying why, by the first process that reads it after the
// lease lapsed, and stays working until then.
func TestLeaseLapsed(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "survivor", Version: "1"}, &mcp.ServerOptions{Notifier: shared.NewMemoryNotifier()})
	m, err := tasks.New(s, &tasks.Options{Store: store, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := time.Now().UTC()
	// What the dead process left: a working task (of a 2026-07-28 client,
	// whose owner is ""), its lease lapsing in 300ms.
	const lease = 300 * time.Millisecond
	rec := &tasks.Record{ID: "orphan", Status: tasks.TaskStatusWorking, CreatedAt: now, UpdatedAt: now,
		TTL: time.Hour, ExpiresAt: now.Add(time.Hour), LeaseUntil: now.Add(lease)}
	if err := store.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28"})
	d, err := tasks.Get(ctx, cs, "orphan")
	if err != nil || d.Status != tasks.TaskStatusWorking {
		t.Fatalf("before the lease lapsed: %+v, %v; want working", d, err)
	}
	for time.Since(now) < lease {
		time.Sleep(20 * time.Millisecond)
	}
	d, err = tasks.Get(ctx, cs, "orphan")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != tasks.TaskStatusFailed || !strings.Contains(d.StatusMessage, "lease lapsed") || d.Error == nil ||
		!strings.Contains(d.Error.Message, "server running the task stopped") {
		t.Fatalf("after the lease lapsed: status %s, message %q, error %+v; want failed, saying why", d.Status, d.StatusMessage, d.Error)
	}
	if got, err := store.Get(ctx, "orphan"); err != nil || got.Status != tasks.TaskStatusFailed {
		t.Fatalf("stored: %+v, %v; want failed", got, err)
	}
	// Cancelling it now is a no-op, as for any ended task.
	if err := tasks.Cancel(ctx, cs, "orphan"); err != nil {
		t.Fatal(err)
	}
}

// TestLeaseRenewed: the process running a task renews its lease while
// the handler runs, however much longer than the lease that is, so that
// another process reading it meanwhile finds it working; the renewer stops
// with the last handler (goleak checks in TestMain).
func TestLeaseRenewed(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	notifier := shared.NewMemoryNotifier()
	const lease = 90 * time.Millisecond
	var ms []*mcp.Server
	for range 2 {
		s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{Notifier: notifier})
		m, err := tasks.New(s, &tasks.Options{Store: store, PollInterval: 10 * time.Millisecond, Lease: lease})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Close() })
		err = m.AddTool(&mcp.Tool{Name: "sleep"}, mcp.TaskSupportOptional,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-time.After(8 * lease):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("slept")}}, nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a := mcptest.Connect(t, ms[0], &mcptest.Options{ProtocolVersion: "2026-07-28"})
	b := mcptest.Connect(t, ms[1], &mcptest.Options{ProtocolVersion: "2026-07-28"})
	var calls []*tasks.ToolCall
	for range 3 {
		call, err := tasks.CallTool(ctx, a, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{}`)}, nil)
		if err != nil || call.Task == nil {
			t.Fatalf("CallTool: %+v, %v", call, err)
		}
		calls = append(calls, call)
	}
	first, err := store.Get(ctx, calls[0].Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	for {
		d, err := tasks.Get(ctx, b, calls[0].Task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == tasks.TaskStatusCompleted {
			break
		}
		if d.Status != tasks.TaskStatusWorking {
			t.Fatalf("read through the other process while its handler runs: %s %q", d.Status, d.StatusMessage)
		}
		time.Sleep(15 * time.Millisecond)
	}
	for _, call := range calls {
		res, err := call.Wait(ctx)
		if err != nil || text(t, res) != "slept" {
			t.Fatalf("Wait: %+v, %v", res, err)
		}
	}
	last, err := store.Get(ctx, calls[0].Task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if !last.LeaseUntil.After(first.LeaseUntil.Add(4 * lease)) {
		t.Fatalf("lease %v at the start, %v at the end of %v of work: not renewed", first.LeaseUntil, last.LeaseUntil, 8*lease)
	}
}

// flakyStore fails the first fails Updates that end a task, as a store
// does while its Redis master fails over.
type flakyStore struct {
	*tasks.MemoryStore
	fails atomic.Int32
}

func (f *flakyStore) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	return f.MemoryStore.Update(ctx, id, func(r *tasks.Record) error {
		if err := fn(r); err != nil {
			return err
		}
		if r.Status.Terminal() && f.fails.Add(-1) >= 0 {
			return errors.New("redis unavailable (a failover)")
		}
		return nil
	})
}

// TestOutcomeRecordedThroughFailures: the outcome of a task whose store
// fails for a moment when it ends is recorded all the same.
func TestOutcomeRecordedThroughFailures(t *testing.T) {
	store := &flakyStore{MemoryStore: tasks.NewMemoryStore(nil)}
	store.fails.Store(3)
	s := mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "1"}, nil)
	m2, err := tasks.New(s, &tasks.Options{Store: store, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m2.Close() })
	if err := m2.AddTool(&mcp.Tool{Name: "quick"}, mcp.TaskSupportOptional,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("done")}}, nil
		}, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28"})
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "quick", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil || call.Task == nil {
		t.Fatalf("CallTool: %+v, %v", call, err)
	}
	res, err := call.Wait(ctx)
	if err != nil || text(t, res) != "done" {
		t.Fatalf("Wait: %+v, %v", res, err)
	}
	if n := store.fails.Load(); n >= 0 {
		t.Fatalf("the store failed %d times fewer than set up", n+1)
	}
}
