package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gomcp/sdk/tasks"
	"github.com/redis/go-redis/v9"
)

// TaskStore is a tasks.TaskStore in Redis: one string key per task holding
// its tasks.Record as JSON, expiring at the record's ExpiresAt (or
// Options.MaxTaskTTL after creation when it has none), and per owner an
// index of two sorted sets naming the owner's tasks, one by creation time
// (for List) and one by expiry (to drop the expired), which expire with
// the last of them. Update is atomic across processes (WATCH/MULTI with
// retries). It holds nothing in process memory and is safe for concurrent
// use.
//
// It works on a Redis Cluster: no script or transaction spans two slots.
// A task's key and its owner's index are in different slots, so Create
// and Delete are two steps each, ordered so that every live task is in
// its owner's index: Create reserves the id in the index (where the
// per-owner bound is checked atomically) before it writes the task
// (SET NX), and undoes the reservation only when the id turns out taken;
// Delete deletes the task before it drops the id from the index. An index
// may therefore name a task that is not there (a Create in flight, or
// failed with Redis unavailable; a Delete cut short), until its expiry:
// List skips such ids, and they count against the owner's bound, which is
// never exceeded.
type TaskStore struct {
	rdb      redis.UniversalClient
	prefix   string
	maxTTL   time.Duration
	perOwner int
	ack      *acker
}

// NewTaskStore returns a TaskStore on rdb, which the caller keeps owning.
// opts may be nil.
func NewTaskStore(rdb redis.UniversalClient, opts *Options) *TaskStore {
	o := opts.withDefaults()
	return &TaskStore{rdb: rdb, prefix: o.Prefix, maxTTL: o.MaxTaskTTL, perOwner: o.MaxTasksPerOwner, ack: newAcker(rdb, o)}
}

var _ tasks.TaskStore = (*TaskStore)(nil)

func (s *TaskStore) key(id string) string { return s.prefix + "task:" + id }

// indexKeys are the keys of owner's index: the ids by creation time and
// by expiry. They share the hash tag of the owner (see hashTag), so that
// a Cluster keeps them in one slot.
func (s *TaskStore) indexKeys(owner string) []string {
	tag := s.prefix + "tasks:" + hashTag(owner) + ":"
	return []string{tag + "created", tag + "expiry"}
}

// expiry is when r's key expires.
func (s *TaskStore) expiry(r *tasks.Record) time.Time {
	if !r.ExpiresAt.IsZero() {
		return r.ExpiresAt
	}
	base := r.CreatedAt
	if base.IsZero() {
		base = time.Now()
	}
	return base.Add(s.maxTTL)
}

// reserveScript drops the ids that expired (by Redis's clock, which
// expires the task keys) from an owner's index, then adds a new id to it
// unless the id is there already (0) or the owner is at the bound (-1),
// and makes the index outlive the new task.
var reserveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
for _, id in ipairs(gone) do redis.call('ZREM', KEYS[1], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return -1 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
for _, k in ipairs(KEYS) do
  if redis.call('PEXPIRETIME', k) < tonumber(ARGV[3]) then redis.call('PEXPIREAT', k, ARGV[3]) end
end
return 1
`)

// Create implements tasks.TaskStore.
func (s *TaskStore) Create(ctx context.Context, r *tasks.Record) error {
	if r == nil || r.ID == "" {
		return errors.New("redisstore: a task record needs an id")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("redisstore: encode task: %w", err)
	}
	at := s.expiry(r)
	if !at.After(time.Now()) {
		return nil // expired already: as good as created and gone
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	idx := s.indexKeys(r.Owner)
	n, err := reserveScript.Run(ctx, s.rdb, idx, r.ID, created.UnixMilli(), at.UnixMilli(), s.perOwner).Int()
	switch {
	case err != nil:
		return unavailable(s.rdb, "create task", err)
	case n == 0:
		return tasks.ErrExists
	case n < 0:
		return tasks.ErrFull
	}
	var set *redis.StatusCmd
	_, err = s.ack.pipelined(ctx, s.rdb, s.key(r.ID), func(p redis.Pipeliner) {
		set = p.SetArgs(ctx, s.key(r.ID), b, redis.SetArgs{Mode: "NX", ExpireAt: at})
	})
	if set != nil && set.Err() != nil {
		err = set.Err() // the SET's own error (redis.Nil: taken) before the WAIT's
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.Nil):
		// Another owner's task has the id: release it.
		_ = s.unindex(ctx, idx, r.ID)
		return tasks.ErrExists
	}
	// Written or not, nobody knows (the answer may be what was lost): the
	// reservation stays until the task would expire, so that the index
	// holds the task if it lives.
	return unavailable(s.rdb, "create task", err)
}

// unindex drops id from an owner's index, whose two keys share a slot.
func (s *TaskStore) unindex(ctx context.Context, idx []string, id string) error {
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range idx {
			p.ZRem(ctx, k, id)
		}
		return nil
	})
	return err
}

// Get implements tasks.TaskStore.
func (s *TaskStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, unavailable(s.rdb, "get task", err)
	}
	return decodeTask(id, b)
}

func decodeTask(id string, b []byte) (*tasks.Record, error) {
	var r tasks.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("redisstore: task %q: undecodable record (%v): %w", id, err, tasks.ErrNotFound)
	}
	return &r, nil
}

// maxUpdateTries bounds the retries of a contended Update.
const maxUpdateTries = 50

// Update implements tasks.TaskStore: optimistic, with WATCH; fn runs again
// when another process changed the task in between.
func (s *TaskStore) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	key := s.key(id)
	var out *tasks.Record
	txf := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return tasks.ErrNotFound
		}
		if err != nil {
			return err
		}
		cur, err := decodeTask(id, b)
		if err != nil {
			return err
		}
		next, _ := decodeTask(id, b) // fn's own copy
		if err := fn(next); err != nil {
			return &fnError{err}
		}
		next.ID, next.Owner = cur.ID, cur.Owner
		nb, err := json.Marshal(next)
		if err != nil {
			return &fnError{fmt.Errorf("redisstore: encode task: %w", err)}
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.SetArgs(ctx, key, nb, redis.SetArgs{KeepTTL: true})
			return nil
		})
		if err == nil {
			err = s.ack.wait(ctx, tx, key)
		}
		if err == nil {
			out = next
		}
		return err
	}
	if err := watchUpdate(ctx, s.rdb, key, txf, tasks.ErrNotFound, "update task", id); err != nil {
		return nil, err
	}
	return out, nil
}

// watchUpdate runs txf, an optimistic read-change-write of key, under
// WATCH until it commits, again each time another client changed key in
// between (at most maxUpdateTries times). The error of the change itself
// (an fnError) is returned as it is, as is one wrapping notFound; any
// other means Redis is unavailable.
func watchUpdate(ctx context.Context, rdb redis.UniversalClient, key string, txf func(*redis.Tx) error, notFound error, op, id string) error {
	for range maxUpdateTries {
		err := rdb.Watch(ctx, txf, key)
		var fe *fnError
		switch {
		case err == nil:
			return nil
		case errors.Is(err, redis.TxFailedErr):
			continue // changed meanwhile: read again
		case errors.As(err, &fe):
			return fe.err
		case errors.Is(err, notFound):
			return err
		default:
			return unavailable(rdb, op, err)
		}
	}
	return fmt.Errorf("redisstore: %s %q: still contended after %d tries", op, id, maxUpdateTries)
}

// fnError carries the error of Update's fn, so that it is returned as is.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// List implements tasks.TaskStore. The cursor is the id of the last task
// of the previous page. Ids whose task is gone, or is not the owner's,
// are skipped (reserveScript drops the expired ones from the index).
func (s *TaskStore) List(ctx context.Context, owner, cursor string, limit int) ([]*tasks.Record, string, error) {
	if limit <= 0 {
		limit = 50
	}
	idx := s.indexKeys(owner)[0]
	start := int64(0)
	if cursor != "" {
		rank, err := s.rdb.ZRank(ctx, idx, cursor).Result()
		if errors.Is(err, redis.Nil) {
			return nil, "", errors.New("redisstore: invalid or expired task cursor")
		}
		if err != nil {
			return nil, "", unavailable(s.rdb, "list tasks", err)
		}
		start = rank + 1
	}
	var out []*tasks.Record
	for {
		ids, err := s.rdb.ZRange(ctx, idx, start, start+int64(limit)).Result()
		if err != nil {
			return nil, "", unavailable(s.rdb, "list tasks", err)
		}
		recs, err := s.getAll(ctx, ids)
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			if r == nil || r.Owner != owner {
				continue
			}
			if len(out) == limit {
				return out, out[len(out)-1].ID, nil
			}
			out = append(out, r)
		}
		if len(ids) < limit+1 {
			return out, "", nil
		}
		start += int64(len(ids))
	}
}

// getAll reads the tasks named by ids, nil for those that are gone, in one
// pipeline (on a Cluster, one per node: the keys are in many slots).
func (s *TaskStore) getAll(ctx context.Context, ids []string) ([]*tasks.Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.Get(ctx, s.key(id))
		}
		return nil
	})
	recs := make([]*tasks.Record, len(ids))
	for i, c := range cmds {
		b, err := c.Bytes()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return nil, unavailable(s.rdb, "list tasks", err)
		default:
			recs[i], _ = decodeTask(ids[i], b)
		}
	}
	return recs, nil
}

// Delete implements tasks.TaskStore.
func (s *TaskStore) Delete(ctx context.Context, id string) error {
	r, err := s.Get(ctx, id)
	if errors.Is(err, tasks.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	// The task first, then its index entry: a live task is never missing
	// from its owner's index.
	if err := s.rdb.Del(ctx, s.key(id)).Err(); err != nil {
		return unavailable(s.rdb, "delete task", err)
	}
	if err := s.unindex(ctx, s.indexKeys(r.Owner), id); err != nil {
		return unavailable(s.rdb, "delete task", err)
	}
	return nil
}

var _ tasks.LeaseRenewer = (*TaskStore)(nil)

// casScript sets KEYS[1] to ARGV[2], keeping its TTL, if it still holds
// ARGV[1].
var casScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
`)

// RenewLeases implements tasks.LeaseRenewer in two pipelines (on a
// Cluster, two round trips per node): it reads the tasks, then sets the
// lease of each that has not ended, if it did not change meanwhile. One
// that did keeps the lease its change wrote (a Manager's changes of a
// running task renew it) until the next renewal.
func (s *TaskStore) RenewLeases(ctx context.Context, ids []string, until time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	gets := make([]*redis.StringCmd, len(ids))
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			gets[i] = p.Get(ctx, s.key(id))
		}
		return nil
	})
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, g := range gets {
			old, err := g.Bytes()
			if err != nil {
				continue // gone, or unavailable (then the next pipeline says so)
			}
			r, err := decodeTask(ids[i], old)
			if err != nil || r.Status.Terminal() {
				continue
			}
			r.LeaseUntil = until
			b, err := json.Marshal(r)
			if err != nil {
				continue
			}
			casScript.Eval(ctx, p, []string{s.key(r.ID)}, old, b)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return unavailable(s.rdb, "renew task leases", err)
	}
	for _, g := range gets {
		if err := g.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return unavailable(s.rdb, "renew task leases", err)
		}
	}
	return nil
}

// Ping reports whether Redis answers, for readiness checks.
func (s *TaskStore) Ping(ctx context.Context) error { return ping(ctx, s.rdb) }
