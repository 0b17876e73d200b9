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
// Options.MaxTaskTTL after creation when it has none), and one sorted set
// per owner listing the owner's tasks by creation time, which expires
// with the last of them. Update is atomic across processes (WATCH/MULTI
// with retries). It holds nothing in process memory and is safe for
// concurrent use.
type TaskStore struct {
	rdb      redis.UniversalClient
	prefix   string
	maxTTL   time.Duration
	perOwner int
}

// NewTaskStore returns a TaskStore on rdb, which the caller keeps owning.
// opts may be nil.
func NewTaskStore(rdb redis.UniversalClient, opts *Options) *TaskStore {
	o := opts.withDefaults()
	return &TaskStore{rdb: rdb, prefix: o.Prefix, maxTTL: o.MaxTaskTTL, perOwner: o.MaxTasksPerOwner}
}

var _ tasks.TaskStore = (*TaskStore)(nil)

func (s *TaskStore) key(id string) string      { return s.prefix + "task:" + id }
func (s *TaskStore) index(owner string) string { return s.prefix + "tasks-of:" + owner }

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

// createScript stores a new task unless its id is taken (0) or its owner
// is at the bound (-1), indexes it, and makes the index outlive it.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', ARGV[6] .. id) == 0 then redis.call('ZREM', KEYS[2], id) end
  end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
if redis.call('PEXPIRETIME', KEYS[2]) < tonumber(ARGV[2]) then
  redis.call('PEXPIREAT', KEYS[2], ARGV[2])
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
	n, err := createScript.Run(ctx, s.rdb, []string{s.key(r.ID), s.index(r.Owner)},
		b, at.UnixMilli(), created.UnixMilli(), r.ID, s.perOwner, s.prefix+"task:").Int()
	switch {
	case err != nil:
		return unavailable("create task", err)
	case n == 0:
		return tasks.ErrExists
	case n < 0:
		return tasks.ErrFull
	}
	return nil
}

// Get implements tasks.TaskStore.
func (s *TaskStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, unavailable("get task", err)
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
			return unavailable(op, err)
		}
	}
	return fmt.Errorf("redisstore: %s %q: still contended after %d tries", op, id, maxUpdateTries)
}

// fnError carries the error of Update's fn, so that it is returned as is.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// List implements tasks.TaskStore. The cursor is the id of the last task
// of the previous page; tasks that expired are dropped from the index on
// the way.
func (s *TaskStore) List(ctx context.Context, owner, cursor string, limit int) ([]*tasks.Record, string, error) {
	if limit <= 0 {
		limit = 50
	}
	idx := s.index(owner)
	start := int64(0)
	if cursor != "" {
		rank, err := s.rdb.ZRank(ctx, idx, cursor).Result()
		if errors.Is(err, redis.Nil) {
			return nil, "", errors.New("redisstore: invalid or expired task cursor")
		}
		if err != nil {
			return nil, "", unavailable("list tasks", err)
		}
		start = rank + 1
	}
	var out []*tasks.Record
	for {
		ids, err := s.rdb.ZRange(ctx, idx, start, start+int64(limit)).Result()
		if err != nil {
			return nil, "", unavailable("list tasks", err)
		}
		if len(ids) == 0 {
			return out, "", nil
		}
		keys := make([]string, len(ids))
		for i, id := range ids {
			keys[i] = s.key(id)
		}
		vals, err := s.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, "", unavailable("list tasks", err)
		}
		var gone []any
		for i, v := range vals {
			str, ok := v.(string)
			if !ok {
				gone = append(gone, ids[i])
				continue
			}
			if len(out) == limit {
				_ = s.prune(ctx, idx, gone)
				return out, out[len(out)-1].ID, nil
			}
			r, err := decodeTask(ids[i], []byte(str))
			if err != nil {
				gone = append(gone, ids[i])
				continue
			}
			out = append(out, r)
		}
		start += int64(len(ids)) - int64(len(gone))
		if err := s.prune(ctx, idx, gone); err != nil {
			return nil, "", err
		}
		if len(ids) < limit+1 {
			return out, "", nil
		}
	}
}

// prune drops expired ids from an owner's index.
func (s *TaskStore) prune(ctx context.Context, idx string, ids []any) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.rdb.ZRem(ctx, idx, ids...).Err(); err != nil {
		return unavailable("list tasks", err)
	}
	return nil
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
	if _, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.key(id))
		p.ZRem(ctx, s.index(r.Owner), id)
		return nil
	}); err != nil {
		return unavailable("delete task", err)
	}
	return nil
}

// Ping reports whether Redis answers, for readiness checks.
func (s *TaskStore) Ping(ctx context.Context) error { return ping(ctx, s.rdb) }
