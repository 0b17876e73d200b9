package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// EventStore is an mcphttp.EventStore in Redis: one Redis stream per SSE
// stream, whose entry ids (assigned by Redis, increasing) are the event
// ids, and one set per session naming its streams so that DeleteSession
// finds them. Every key expires Options.EventTTL after the last append to
// it, and a stream keeps at most Options.MaxStreamEvents events. It holds
// nothing in process memory and is safe for concurrent use.
type EventStore struct {
	rdb      redis.UniversalClient
	prefix   string
	ttl      time.Duration
	maxLen   int
	maxBytes int
	waiting  chan struct{} // a token per Wait blocked in Redis
	ack      *acker
}

// NewEventStore returns an EventStore on rdb, which the caller keeps
// owning (and closes). opts may be nil.
func NewEventStore(rdb redis.UniversalClient, opts *Options) *EventStore {
	o := opts.withDefaults()
	return &EventStore{rdb: rdb, prefix: o.Prefix + "events:", ttl: o.EventTTL, maxLen: o.MaxStreamEvents, maxBytes: o.MaxEventBytes,
		waiting: make(chan struct{}, o.MaxEventWaits), ack: newAcker(rdb, o)}
}

var (
	_ mcphttp.EventStore   = (*EventStore)(nil)
	_ mcphttp.EventWaiter  = (*EventStore)(nil)
	_ mcphttp.OnceAppender = (*EventStore)(nil)
)

// errWaitersBusy says that Options.MaxEventWaits Waits are blocked already.
var errWaitersBusy = errors.New("redisstore: as many event waits as allowed are blocked in Redis")

// Wait implements mcphttp.EventWaiter with XREAD BLOCK, which returns as
// soon as the stream holds an event after after. Each blocked Wait holds a
// connection of the client's pool, so at most Options.MaxEventWaits block
// at once; beyond, Wait fails at once and the Handler polls. A blocked
// read ignores ctx: it ends within d.
func (s *EventStore) Wait(ctx context.Context, session, stream, after string, d time.Duration) error {
	start := after
	switch {
	case after == "":
		start = "0-0"
	case !validID(after):
		return fmt.Errorf("redisstore: event id %q: %w", after, mcphttp.ErrUnknownEvent)
	}
	select {
	case s.waiting <- struct{}{}:
		defer func() { <-s.waiting }()
	default:
		return errWaitersBusy
	}
	err := s.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{s.streamKey(session, stream), start}, Count: 1,
		Block: max(d, time.Millisecond)}).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		return unavailable(s.rdb, "wait for events", err)
	}
	return nil
}

// The keys of a session share the hash tag of its id (see hashTag), so
// that a Redis Cluster keeps them in one slot and the scripts below may
// touch them all.
func (s *EventStore) streamsKey(session string) string {
	return s.prefix + hashTag(session)
}

func (s *EventStore) streamKey(session, stream string) string {
	return s.prefix + hashTag(session) + ":" + stream
}

// appendScript adds one event to a stream, trims the stream to its bound,
// records the stream in its session's set and renews both TTLs, in one
// round trip and atomically.
var appendScript = redis.NewScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return id
`)

// Append implements mcphttp.EventStore.
func (s *EventStore) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	if len(data) > s.maxBytes {
		return "", fmt.Errorf("redisstore: event of %d bytes exceeds MaxEventBytes (%d)", len(data), s.maxBytes)
	}
	keys := []string{s.streamKey(session, stream), s.streamsKey(session)}
	id, err := s.ack.run(ctx, s.rdb, appendScript, keys, s.maxLen, data, s.ttl.Milliseconds(), stream).Text()
	if err != nil {
		return "", unavailable(s.rdb, "append event", err)
	}
	return id, nil
}

// appendOnceScript is appendScript for an event caused by a notice
// (ARGV[5]), stored with it in field n: when one of the stream's last
// ARGV[6] entries has it, nothing is stored and false is returned.
var appendOnceScript = redis.NewScript(`
local recent = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ARGV[6])
for _, e in ipairs(recent) do
  local f = e[2]
  for i = 1, #f, 2 do
    if f[i] == 'n' and f[i+1] == ARGV[5] then return false end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'd', ARGV[2], 'n', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return id
`)

// AppendOnce implements mcphttp.OnceAppender in one round trip: the
// script compares key with the notices of the stream's last
// mcphttp.OnceWindow events and appends only if none has it.
func (s *EventStore) AppendOnce(ctx context.Context, session, stream, key string, data []byte) (string, bool, error) {
	if len(data) > s.maxBytes {
		return "", false, fmt.Errorf("redisstore: event of %d bytes exceeds MaxEventBytes (%d)", len(data), s.maxBytes)
	}
	keys := []string{s.streamKey(session, stream), s.streamsKey(session)}
	id, err := s.ack.run(ctx, s.rdb, appendOnceScript, keys, s.maxLen, data, s.ttl.Milliseconds(), stream, key, mcphttp.OnceWindow).Text()
	if errors.Is(err, redis.Nil) {
		return "", true, nil
	}
	if err != nil {
		return "", false, unavailable(s.rdb, "append event", err)
	}
	return id, false, nil
}

// replayBatch is how many events Replay reads per round trip.
const replayBatch = 128

// Replay implements mcphttp.EventStore. The events are read in batches, so
// fn runs between round trips and a long stream costs bounded memory.
func (s *EventStore) Replay(ctx context.Context, session, stream, after string, fn func(id string, data []byte) error) error {
	start := "-"
	if after != "" {
		if !validID(after) {
			return fmt.Errorf("redisstore: event id %q: %w", after, mcphttp.ErrUnknownEvent)
		}
		start = "(" + after
	}
	key := s.streamKey(session, stream)
	first := true
	for {
		msgs, err := s.rdb.XRangeN(ctx, key, start, "+", replayBatch).Result()
		if err != nil {
			return unavailable(s.rdb, "replay events", err)
		}
		if first && len(msgs) == 0 && after != "" {
			if err := s.checkIssued(ctx, key, after); err != nil {
				return err
			}
		}
		first = false
		for _, m := range msgs {
			if err := ctx.Err(); err != nil {
				return err
			}
			d, _ := m.Values["d"].(string)
			if err := fn(m.ID, []byte(d)); err != nil {
				return err
			}
		}
		if len(msgs) < replayBatch {
			return nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

// checkIssued returns an error wrapping ErrUnknownEvent when after is past
// the last id the stream issued: no event can follow it, so it was not
// ours. A stream that expired or never existed has nothing to replay.
func (s *EventStore) checkIssued(ctx context.Context, key, after string) error {
	info, err := s.rdb.XInfoStream(ctx, key).Result()
	if err != nil {
		if strings.Contains(err.Error(), "no such key") || errors.Is(err, redis.Nil) {
			return nil
		}
		return unavailable(s.rdb, "replay events", err)
	}
	if compareIDs(after, info.LastGeneratedID) > 0 {
		return fmt.Errorf("redisstore: event id %q: %w", after, mcphttp.ErrUnknownEvent)
	}
	return nil
}

// deleteScript deletes every stream of a session and the set naming them.
var deleteScript = redis.NewScript(`
local names = redis.call('SMEMBERS', KEYS[1])
for _, n in ipairs(names) do redis.call('DEL', KEYS[1] .. ':' .. n) end
redis.call('DEL', KEYS[1])
return #names
`)

// DeleteSession implements mcphttp.EventStore.
func (s *EventStore) DeleteSession(ctx context.Context, session string) error {
	if err := deleteScript.Run(ctx, s.rdb, []string{s.streamsKey(session)}).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return unavailable(s.rdb, "delete session events", err)
	}
	return nil
}

// Ping reports whether Redis answers, for readiness checks.
func (s *EventStore) Ping(ctx context.Context) error { return ping(ctx, s.rdb) }

// validID reports whether id has the form of a Redis stream entry id,
// "<ms>-<seq>".
func validID(id string) bool {
	ms, seq, ok := strings.Cut(id, "-")
	if !ok {
		return false
	}
	_, err1 := strconv.ParseUint(ms, 10, 64)
	_, err2 := strconv.ParseUint(seq, 10, 64)
	return err1 == nil && err2 == nil
}

// compareIDs orders two valid stream entry ids.
func compareIDs(a, b string) int {
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	an, _ := strconv.ParseUint(am, 10, 64)
	bn, _ := strconv.ParseUint(bm, 10, 64)
	if an != bn {
		if an < bn {
			return -1
		}
		return 1
	}
	an, _ = strconv.ParseUint(as, 10, 64)
	bn, _ = strconv.ParseUint(bs, 10, 64)
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}
