package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/redis/go-redis/v9"
)

// SessionStore is a shared.SessionStore in Redis: one string key per session
// holding its shared.SessionState as JSON, expiring Options.SessionTTL after
// the session was last saved or loaded. It holds nothing in process memory
// and is safe for concurrent use.
type SessionStore struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
	ack    *acker
}

// NewSessionStore returns a SessionStore on rdb, which the caller keeps
// owning (and closes). opts may be nil.
func NewSessionStore(rdb redis.UniversalClient, opts *Options) *SessionStore {
	o := opts.withDefaults()
	return &SessionStore{rdb: rdb, prefix: o.Prefix + "session:", ttl: o.SessionTTL, ack: newAcker(rdb, o)}
}

var _ shared.SessionUpdater = (*SessionStore)(nil)

// Load implements shared.SessionStore. It extends the session's life by
// SessionTTL, so that a session in use never expires.
func (s *SessionStore) Load(ctx context.Context, id string) (*shared.SessionState, error) {
	b, err := s.rdb.GetEx(ctx, s.prefix+id, s.ttl).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisstore: session %q: %w", id, shared.ErrNoSession)
	}
	if err != nil {
		return nil, unavailable(s.rdb, "load session", err)
	}
	var st shared.SessionState
	if err := json.Unmarshal(b, &st); err != nil {
		// Not ours, or corrupt: the session cannot be served, so it is
		// as good as gone.
		return nil, fmt.Errorf("redisstore: session %q: undecodable state (%v): %w", id, err, shared.ErrNoSession)
	}
	return &st, nil
}

// Save implements shared.SessionStore.
func (s *SessionStore) Save(ctx context.Context, state *shared.SessionState) error {
	b, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("redisstore: encode session: %w", err)
	}
	key := s.prefix + state.ID
	if _, err := s.ack.pipelined(ctx, s.rdb, key, func(p redis.Pipeliner) { p.Set(ctx, key, b, s.ttl) }); err != nil {
		return unavailable(s.rdb, "save session", err)
	}
	return nil
}

// Update implements shared.SessionUpdater: optimistic, with WATCH; change
// runs again when another process saved the session in between. It
// extends the session's life by SessionTTL, as Save does.
func (s *SessionStore) Update(ctx context.Context, id string, change func(*shared.SessionState)) (*shared.SessionState, error) {
	key := s.prefix + id
	var out *shared.SessionState
	txf := func(tx *redis.Tx) error {
		b, err := tx.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return fmt.Errorf("redisstore: session %q: %w", id, shared.ErrNoSession)
		}
		if err != nil {
			return err
		}
		var st shared.SessionState
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("redisstore: session %q: undecodable state (%v): %w", id, err, shared.ErrNoSession)
		}
		change(&st)
		st.ID = id
		nb, err := json.Marshal(&st)
		if err != nil {
			return &fnError{fmt.Errorf("redisstore: encode session: %w", err)}
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, nb, s.ttl)
			return nil
		})
		if err == nil {
			err = s.ack.wait(ctx, tx, key)
		}
		if err == nil {
			out = &st
		}
		return err
	}
	if err := watchUpdate(ctx, s.rdb, key, txf, shared.ErrNoSession, "update session", id); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete implements shared.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.rdb.Del(ctx, s.prefix+id).Err(); err != nil {
		return unavailable(s.rdb, "delete session", err)
	}
	return nil
}

// Touch renews a session's TTL without reading or rewriting it; mcphttp
// calls it now and then for the sessions in use, which a process holding
// them in memory neither loads nor saves.
func (s *SessionStore) Touch(ctx context.Context, id string) error {
	if err := s.rdb.PExpire(ctx, s.prefix+id, s.ttl).Err(); err != nil {
		return unavailable(s.rdb, "touch session", err)
	}
	return nil
}

// Ping reports whether Redis answers, for readiness checks.
func (s *SessionStore) Ping(ctx context.Context) error { return ping(ctx, s.rdb) }
