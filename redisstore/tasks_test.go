package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/tasks"
	"github.com/redis/go-redis/v9"
)

func TestTaskStore(t *testing.T) { eachRedis(t, testTaskStore) }

func testTaskStore(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewTaskStore(rdb, &Options{Prefix: prefix, MaxTasksPerOwner: 5})
	now := time.Now()
	rec := func(id, owner string) *tasks.Record {
		return &tasks.Record{ID: id, Owner: owner, Status: tasks.TaskStatus("working"), CreatedAt: now, UpdatedAt: now, TTL: time.Minute, ExpiresAt: now.Add(time.Minute)}
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
	for _, k := range s.indexKeys("alice") {
		if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Minute {
			t.Fatalf("owner index %s TTL %v", k, ttl)
		}
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
		// A deleted task leaves the index; one whose key is gone while the
		// index still names it (a Delete cut short) is skipped.
		if err := s.Delete(ctx, "b1"); err != nil {
			t.Fatal(err)
		}
		rdb.Del(ctx, prefix+"task:b2")
		page, _, err := s.List(ctx, "bob", "", 10)
		if err != nil || len(page) != 2 || page[0].ID != "b0" || page[1].ID != "b3" {
			t.Fatalf("after delete and expiry: %v %v", page, err)
		}
		if n := rdb.ZCard(ctx, s.indexKeys("bob")[0]).Val(); n != 3 {
			t.Fatalf("index holds %d ids, want b0, b2 and b3", n)
		}
		// Pages of one over an index with a gap.
		page, next, err := s.List(ctx, "bob", "", 1)
		if err != nil || len(page) != 1 || page[0].ID != "b0" || next != "b0" {
			t.Fatalf("first page of one: %v %q %v", page, next, err)
		}
		page, next, err = s.List(ctx, "bob", next, 1)
		if err != nil || len(page) != 1 || page[0].ID != "b3" || next != "" {
			t.Fatalf("second page of one: %v %q %v", page, next, err)
		}
	})

	t.Run("an id another owner holds", func(t *testing.T) {
		if err := s.Create(ctx, rec("t0", "bob")); !errors.Is(err, tasks.ErrExists) {
			t.Fatalf("Create of alice's id for bob: %v", err)
		}
		if err := rdb.ZScore(ctx, s.indexKeys("bob")[0], "t0").Err(); err == nil {
			t.Fatal("bob's index kept the id his Create failed to take")
		}
		if r, err := s.Get(ctx, "t0"); err != nil || r.Owner != "alice" {
			t.Fatalf("alice's task after bob's attempt: %+v %v", r, err)
		}
	})

	// Owners' names may hold anything: the index keys share a slot all the
	// same (on a Cluster, a script across slots fails).
	t.Run("owner names", func(t *testing.T) {
		for i, owner := range []string{"", "}", "a}b", "{x}", "{", "é"} {
			id := fmt.Sprintf("o%d", i)
			if err := s.Create(ctx, rec(id, owner)); err != nil {
				t.Fatalf("owner %q: Create: %v", owner, err)
			}
			page, _, err := s.List(ctx, owner, "", 10)
			if err != nil || len(page) != 1 || page[0].ID != id {
				t.Fatalf("owner %q: List = %v, %v", owner, page, err)
			}
			if err := s.Delete(ctx, id); err != nil {
				t.Fatalf("owner %q: Delete: %v", owner, err)
			}
		}
	})

	// A prefix holding a brace moves every key's hash tag: the keys of one
	// index still share a slot.
	t.Run("prefix with a brace", func(t *testing.T) {
		for _, p := range []string{prefix + "{", prefix + "}", prefix + "{app}:"} {
			ps := NewTaskStore(rdb, &Options{Prefix: p, MaxTasksPerOwner: 5})
			if err := ps.Create(ctx, rec("p", "alice")); err != nil {
				t.Fatalf("prefix %q: Create: %v", p, err)
			}
			if page, _, err := ps.List(ctx, "alice", "", 10); err != nil || len(page) != 1 {
				t.Fatalf("prefix %q: List = %v, %v", p, page, err)
			}
			if err := ps.Delete(ctx, "p"); err != nil {
				t.Fatalf("prefix %q: Delete: %v", p, err)
			}
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
		for _, k := range s.indexKeys("erin") {
			if n := rdb.Exists(ctx, k).Val(); n != 0 {
				t.Fatalf("the owner index %s outlived its only task", k)
			}
		}
	})

	// Expired tasks leave the index when the owner creates another, so
	// they do not hold the bound.
	t.Run("expired tasks free the bound", func(t *testing.T) {
		// A second to live: on a loaded machine, 50 ms ran out before
		// the sixth Create, which then found a free place.
		expires := time.Now().Add(time.Second)
		for i := range 5 {
			r := rec(fmt.Sprintf("f%d", i), "frank")
			r.ExpiresAt = expires
			if err := s.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, rec("late", "frank")); !errors.Is(err, tasks.ErrFull) {
			t.Fatalf("Create beyond the bound: %v", err)
		}
		time.Sleep(time.Until(expires) + 100*time.Millisecond)
		r := rec("f5", "frank")
		if err := s.Create(ctx, r); err != nil {
			t.Fatalf("Create after the others expired: %v", err)
		}
		for _, k := range s.indexKeys("frank") {
			if n := rdb.ZCard(ctx, k).Val(); n != 1 {
				t.Fatalf("index %s holds %d ids, want the live one", k, n)
			}
		}
	})

	if err := s.Delete(ctx, "never"); err != nil {
		t.Fatalf("Delete of an unknown task: %v", err)
	}
}

// lostSetReply is a go-redis hook that makes every SET fail after Redis
// made it, as when the answer is lost on the way back.
type lostSetReply struct{}

var errLostReply = errors.New("the answer was lost")

func (lostSetReply) DialHook(next redis.DialHook) redis.DialHook { return next }

func (lostSetReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "set" {
			cmd.SetErr(errLostReply)
			return errLostReply
		}
		return err
	}
}

func (lostSetReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if cmd.Name() == "set" {
				cmd.SetErr(errLostReply)
				err = errLostReply
			}
		}
		return err
	}
}

// TestTaskStoreLostReply: a Create whose write was made but whose answer
// was lost fails, yet the task, which lives, stays in its owner's index.
func TestTaskStoreLostReply(t *testing.T) { eachRedis(t, testTaskStoreLostReply) }

func testTaskStoreLostReply(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	lossy := anotherClient(t, rdb)
	lossy.AddHook(lostSetReply{})
	if c, ok := lossy.(*redis.ClusterClient); ok {
		// The write and its WAIT go straight to the key's master.
		c.OnNewNode(func(n *redis.Client) { n.AddHook(lostSetReply{}) })
	}
	now := time.Now()
	r := &tasks.Record{ID: "lost", Owner: "alice", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	if err := NewTaskStore(lossy, &Options{Prefix: prefix}).Create(ctx, r); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Create with its answer lost: %v, want ErrUnavailable", err)
	}
	s := NewTaskStore(rdb, &Options{Prefix: prefix})
	if _, err := s.Get(ctx, "lost"); err != nil {
		t.Fatalf("the task was written, but Get: %v", err)
	}
	if page, _, err := s.List(ctx, "alice", "", 10); err != nil || len(page) != 1 || page[0].ID != "lost" {
		t.Fatalf("List = %v, %v: the live task left its owner's index", page, err)
	}
}

// TestTaskStoreRenewLeases: RenewLeases sets the lease of the live tasks it
// names, in one call, leaving ended and missing ones alone and every TTL
// as it was.
func TestTaskStoreRenewLeases(t *testing.T) { eachRedis(t, testTaskStoreRenewLeases) }

func testTaskStoreRenewLeases(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewTaskStore(rdb, &Options{Prefix: prefix})
	now := time.Now().UTC()
	for _, r := range []*tasks.Record{
		{ID: "l1", Owner: "o", Status: "working", CreatedAt: now, ExpiresAt: now.Add(time.Minute), LeaseUntil: now},
		{ID: "l2", Owner: "p", Status: "input_required", CreatedAt: now, ExpiresAt: now.Add(time.Minute), LeaseUntil: now},
		{ID: "l3", Owner: "o", Status: "completed", CreatedAt: now, ExpiresAt: now.Add(time.Minute), LeaseUntil: now},
	} {
		if err := s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	until := now.Add(time.Hour)
	if err := s.RenewLeases(ctx, []string{"l1", "l2", "l3", "missing"}, until); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]time.Time{"l1": until, "l2": until, "l3": now} {
		r, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !r.LeaseUntil.Equal(want) {
			t.Errorf("task %s: lease %v, want %v", id, r.LeaseUntil, want)
		}
		if ttl := rdb.PTTL(ctx, s.key(id)).Val(); ttl <= 0 || ttl > time.Minute {
			t.Errorf("task %s: TTL %v after the renewal, want its own", id, ttl)
		}
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("a missing task after RenewLeases: %v", err)
	}
	if err := NewTaskStore(deadRedis(t), nil).RenewLeases(ctx, []string{"l1"}, until); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("RenewLeases without Redis: %v, want ErrUnavailable", err)
	}
}
