package redisstore

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

func TestTaskStore(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := testCtx(t)
	s := NewTaskStore(rdb, &Options{Prefix: prefix, MaxTasksPerOwner: 5})
	now := time.Now()
	rec := func(id, owner string) *tasks.Record {
		return &tasks.Record{ID: id, Owner: owner, Status: mcp.TaskStatus("working"), CreatedAt: now, UpdatedAt: now, TTL: time.Minute, ExpiresAt: now.Add(time.Minute)}
	}
	if _, err := s.Get(ctx, "t0"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get of an unknown task: %v", err)
	}
	if err := s.Create(ctx, rec("t0", "alice")); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, rec("t0", "alice")); !errors.Is(err, tasks.ErrExists) {
		t.Fatalf("Create of a taken id: %v", err)
	}
	if ttl := rdb.PTTL(ctx, prefix+"task:t0").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("task key TTL %v", ttl)
	}
	if ttl := rdb.PTTL(ctx, prefix+"tasks-of:alice").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("owner index TTL %v", ttl)
	}
	got, err := s.Get(ctx, "t0")
	if err != nil || got.Owner != "alice" || got.Status != "working" || !got.ExpiresAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("Get = %+v, %v", got, err)
	}

	t.Run("update", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := s.Update(ctx, "t0", func(*tasks.Record) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("Update with a failing fn: %v", err)
		}
		r, err := s.Update(ctx, "t0", func(r *tasks.Record) error {
			r.Status, r.ID, r.Owner = "completed", "other", "mallory"
			return nil
		})
		if err != nil || r.Status != "completed" || r.ID != "t0" || r.Owner != "alice" {
			t.Fatalf("Update = %+v, %v", r, err)
		}
		if ttl := rdb.PTTL(ctx, prefix+"task:t0").Val(); ttl <= 0 {
			t.Fatalf("Update dropped the TTL: %v", ttl)
		}
		if _, err := s.Update(ctx, "nope", func(*tasks.Record) error { return nil }); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Update of an unknown task: %v", err)
		}
	})

	t.Run("concurrent updates are atomic", func(t *testing.T) {
		if err := s.Create(ctx, rec("tc", "carol")); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Update(ctx, "tc", func(r *tasks.Record) error {
					r.Keys = append(r.Keys, strconv.Itoa(i))
					return nil
				}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		r, err := s.Get(ctx, "tc")
		if err != nil || len(r.Keys) != 20 {
			t.Fatalf("after 20 concurrent updates: %d keys, %v", len(r.Keys), err)
		}
	})

	t.Run("list pages per owner", func(t *testing.T) {
		for i := range 4 {
			r := rec(fmt.Sprintf("b%d", i), "bob")
			r.CreatedAt = now.Add(time.Duration(i) * time.Millisecond)
			if err := s.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		var ids []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 4 {
				t.Fatal("List does not end")
			}
			page, next, err := s.List(ctx, "bob", cursor, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				ids = append(ids, r.ID)
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if fmt.Sprint(ids) != "[b0 b1 b2 b3]" {
			t.Fatalf("listed %v", ids)
		}
		if _, _, err := s.List(ctx, "bob", "no-such-cursor", 3); err == nil {
			t.Fatal("a bad cursor was accepted")
		}
		// A task that expired disappears from Get and List.
		if err := s.Delete(ctx, "b1"); err != nil {
			t.Fatal(err)
		}
		rdb.Del(ctx, prefix+"task:b2") // as if it expired
		page, _, err := s.List(ctx, "bob", "", 10)
		if err != nil || len(page) != 2 || page[0].ID != "b0" || page[1].ID != "b3" {
			t.Fatalf("after delete and expiry: %v %v", page, err)
		}
		if n := rdb.ZCard(ctx, prefix+"tasks-of:bob").Val(); n != 2 {
			t.Fatalf("index holds %d ids, want the 2 live ones", n)
		}
	})

	t.Run("bounded per owner", func(t *testing.T) {
		for i := range 5 {
			if err := s.Create(ctx, rec(fmt.Sprintf("d%d", i), "dave")); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, rec("d5", "dave")); !errors.Is(err, tasks.ErrFull) {
			t.Fatalf("Create beyond the bound: %v", err)
		}
		if err := s.Delete(ctx, "d0"); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, rec("d5", "dave")); err != nil {
			t.Fatalf("Create after a delete: %v", err)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		r := rec("brief", "erin")
		r.ExpiresAt = time.Now().Add(50 * time.Millisecond)
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		if _, err := s.Get(ctx, "brief"); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get after expiry: %v", err)
		}
		if n := rdb.Exists(ctx, prefix+"tasks-of:erin").Val(); n != 0 {
			t.Fatal("the owner index outlived its only task")
		}
	})

	if err := s.Delete(ctx, "never"); err != nil {
		t.Fatalf("Delete of an unknown task: %v", err)
	}
}
