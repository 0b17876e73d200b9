package tasks_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: 3, Now: func() time.Time { return now }})
	mk := func(id, owner string, ttl time.Duration) *tasks.Record {
		r := &tasks.Record{ID: id, Owner: owner, Status: tasks.TaskStatusWorking, CreatedAt: now, TTL: ttl}
		if ttl > 0 {
			r.ExpiresAt = now.Add(ttl)
		}
		return r
	}
	if err := s.Create(ctx, mk("a", "alice", time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, mk("a", "alice", 0)); !errors.Is(err, tasks.ErrExists) {
		t.Fatalf("duplicate Create = %v, want ErrExists", err)
	}
	for _, id := range []string{"b", "c"} {
		if err := s.Create(ctx, mk(id, "alice", 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(ctx, mk("d", "bob", 0)); !errors.Is(err, tasks.ErrFull) {
		t.Fatalf("Create beyond the bound = %v, want ErrFull", err)
	}
	// Updates are atomic and return copies.
	r, err := s.Update(ctx, "b", func(r *tasks.Record) error {
		r.Status = tasks.TaskStatusInputRequired
		r.InputRequests = map[string]*mcp.InputRequest{"k": {ListRoots: &mcp.ListRootsParams{}}}
		r.Owner = "mallory"
		return nil
	})
	if err != nil || r.Owner != "alice" || r.Status != tasks.TaskStatusInputRequired {
		t.Fatalf("Update = %+v, %v", r, err)
	}
	r.InputRequests["other"] = nil
	got, _ := s.Get(ctx, "b")
	if len(got.InputRequests) != 1 {
		t.Fatalf("store shares maps with callers: %v", got.InputRequests)
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "b", func(r *tasks.Record) error { r.Status = tasks.TaskStatusFailed; return boom }); !errors.Is(err, boom) {
		t.Fatalf("Update error = %v", err)
	}
	if got, _ := s.Get(ctx, "b"); got.Status != tasks.TaskStatusInputRequired {
		t.Fatalf("failed Update stored its change: %s", got.Status)
	}
	// A record that does not encode is refused, not stored.
	if _, err := s.Update(ctx, "b", func(r *tasks.Record) error {
		r.InputResponses = map[string]*mcp.InputResponse{"k": {Elicit: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"x": math.NaN()}}}}
		return nil
	}); err == nil {
		t.Fatal("Update stored a record that does not encode")
	}
	if got, _ := s.Get(ctx, "b"); len(got.InputResponses) != 0 {
		t.Fatalf("a failed Update left %v", got.InputResponses)
	}
	// Expiry frees room and hides the task.
	now = now.Add(2 * time.Second)
	if _, err := s.Get(ctx, "a"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("expired Get = %v, want ErrNotFound", err)
	}
	if _, err := s.Update(ctx, "zz", func(*tasks.Record) error { return nil }); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Update of a missing task = %v", err)
	}
	if err := s.Create(ctx, mk("d", "bob", 0)); err != nil {
		t.Fatalf("Create after expiry: %v", err)
	}
	// Listing is per owner, paginated.
	page, next, err := s.List(ctx, "alice", "", 1)
	if err != nil || len(page) != 1 || page[0].ID != "b" || next == "" {
		t.Fatalf("List page 1 = %v %q %v", page, next, err)
	}
	page, next, err = s.List(ctx, "alice", next, 1)
	if err != nil || len(page) != 1 || page[0].ID != "c" || next != "" {
		t.Fatalf("List page 2 = %v %q %v", page, next, err)
	}
	if _, _, err := s.List(ctx, "alice", "nope", 1); err == nil {
		t.Fatal("List with a bad cursor succeeded")
	}
	if err := s.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "c"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get after Delete = %v", err)
	}
}
