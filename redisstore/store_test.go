package redisstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

func TestSessionStore(t *testing.T) { eachRedis(t, testSessionStore) }

func testSessionStore(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewSessionStore(rdb, &Options{Prefix: prefix, SessionTTL: time.Minute})
	if _, err := s.Load(ctx, "nope"); !errors.Is(err, shared.ErrNoSession) {
		t.Fatalf("Load of an unknown id: %v, want ErrNoSession", err)
	}
	st := &shared.SessionState{
		ID: "s1", ProtocolVersion: mcp.Version20251125, Initialized: true, LogLevel: "warning",
		ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`), Subscriptions: []string{"a://1", "b://2"}, Principal: "alice",
	}
	if err := s.Save(ctx, st); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ProtocolVersion != st.ProtocolVersion || !got.Initialized || got.LogLevel != st.LogLevel ||
		string(got.ClientInfo) != string(st.ClientInfo) || strings.Join(got.Subscriptions, ",") != "a://1,b://2" || got.Principal != "alice" {
		t.Fatalf("Load = %+v, want %+v", got, st)
	}
	ttl := rdb.PTTL(ctx, prefix+"session:s1").Val()
	if ttl <= 0 || ttl > time.Minute {
		t.Fatalf("session key TTL %v, want in (0, 1m]", ttl)
	}
	// Load renews the TTL.
	rdb.PExpire(ctx, prefix+"session:s1", time.Second)
	if _, err := s.Load(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if ttl := rdb.PTTL(ctx, prefix+"session:s1").Val(); ttl < 30*time.Second {
		t.Fatalf("TTL after Load %v, want renewed to about 1m", ttl)
	}
	// Touch renews the TTL too, without a read.
	rdb.PExpire(ctx, prefix+"session:s1", time.Second)
	if err := s.Touch(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if ttl := rdb.PTTL(ctx, prefix+"session:s1").Val(); ttl < 30*time.Second {
		t.Fatalf("TTL after Touch %v, want renewed to about 1m", ttl)
	}
	if err := s.Touch(ctx, "nope"); err != nil {
		t.Fatalf("Touch of an unknown id: %v", err)
	}
	if err := s.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "s1"); !errors.Is(err, shared.ErrNoSession) {
		t.Fatalf("Load after Delete: %v", err)
	}
	if err := s.Delete(ctx, "s1"); err != nil {
		t.Fatalf("Delete of an unknown id: %v", err)
	}
	// Garbage under a session key is a missing session, not a crash.
	rdb.Set(ctx, prefix+"session:bad", "{not json", time.Minute)
	if _, err := s.Load(ctx, "bad"); !errors.Is(err, shared.ErrNoSession) {
		t.Fatalf("Load of garbage: %v, want ErrNoSession", err)
	}
	// A session expires SessionTTL after its last use.
	short := NewSessionStore(rdb, &Options{Prefix: prefix, SessionTTL: 50 * time.Millisecond})
	if err := short.Save(ctx, &shared.SessionState{ID: "brief"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if _, err := short.Load(ctx, "brief"); !errors.Is(err, shared.ErrNoSession) {
		t.Fatalf("Load after the TTL: %v, want ErrNoSession", err)
	}
}

// TestSessionStoreUpdate: updates of one session from many goroutines at
// once (processes, in production) all take effect; Update keeps the id,
// renews the TTL and knows no session it does not hold.
func TestSessionStoreUpdate(t *testing.T) { eachRedis(t, testSessionStoreUpdate) }

func testSessionStoreUpdate(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewSessionStore(rdb, &Options{Prefix: prefix, SessionTTL: time.Minute})
	if _, err := s.Update(ctx, "nope", func(*shared.SessionState) { t.Error("change ran for an unknown session") }); !errors.Is(err, shared.ErrNoSession) {
		t.Fatalf("Update of an unknown id: %v, want ErrNoSession", err)
	}
	if err := s.Save(ctx, &shared.SessionState{ID: "s", ProtocolVersion: mcp.Version20251125}); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			uri := fmt.Sprintf("test://%d", i)
			if _, err := s.Update(ctx, "s", func(st *shared.SessionState) {
				st.ID = "other"
				st.Subscriptions = append(st.Subscriptions, uri)
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Subscriptions)
	if len(got.Subscriptions) != n || got.ID != "s" || got.ProtocolVersion != mcp.Version20251125 {
		t.Errorf("after %d concurrent updates: %+v", n, got)
	}
	if ttl := rdb.PTTL(ctx, prefix+"session:s").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("TTL after Update: %v", ttl)
	}
}

func TestEventStore(t *testing.T) { eachRedis(t, testEventStore) }

func testEventStore(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewEventStore(rdb, &Options{Prefix: prefix, MaxStreamEvents: 5, MaxEventBytes: 100, EventTTL: time.Minute})
	var ids []string
	for i := range 3 {
		id, err := s.Append(ctx, "sess", "0", fmt.Appendf(nil, "e%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(id, "\r\n\x00_") {
			t.Fatalf("id %q has a forbidden character", id)
		}
		if len(ids) > 0 && compareIDs(ids[len(ids)-1], id) >= 0 {
			t.Fatalf("ids not increasing: %q then %q", ids[len(ids)-1], id)
		}
		ids = append(ids, id)
	}
	if _, err := s.Append(ctx, "sess", "h1_1", []byte("other")); err != nil {
		t.Fatal(err)
	}
	replay := func(stream, after string) (string, error) {
		var b strings.Builder
		err := s.Replay(ctx, "sess", stream, after, func(id string, data []byte) error {
			fmt.Fprintf(&b, "%s;", data)
			return nil
		})
		return b.String(), err
	}
	for _, tc := range []struct {
		name, stream, after, want string
		err                       error
	}{
		{"from the start", "0", "", "e0;e1;e2;", nil},
		{"after the first", "0", ids[0], "e1;e2;", nil},
		{"after the last", "0", ids[2], "", nil},
		{"another stream", "h1_1", "", "other;", nil},
		{"unknown stream", "zz", "", "", nil},
		{"malformed id", "0", "abc", "", mcphttp.ErrUnknownEvent},
		{"id never issued", "0", "99999999999999-0", "", mcphttp.ErrUnknownEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replay(tc.stream, tc.after)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if got != tc.want {
				t.Fatalf("replayed %q, want %q", got, tc.want)
			}
		})
	}
	// fn's error stops the replay.
	stop := errors.New("stop")
	n := 0
	if err := s.Replay(ctx, "sess", "0", "", func(string, []byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Replay with a failing fn: %v after %d events", err, n)
	}
	// Bounds: events per stream, bytes per event, TTLs on every key.
	for i := 3; i < 12; i++ {
		if _, err := s.Append(ctx, "sess", "0", fmt.Appendf(nil, "e%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := replay("0", ""); got != "e7;e8;e9;e10;e11;" {
		t.Fatalf("after trimming: %q", got)
	}
	if _, err := s.Append(ctx, "sess", "0", bytes.Repeat([]byte("x"), 101)); err == nil {
		t.Fatal("an event over MaxEventBytes was stored")
	}
	keys := keysOf(ctx, t, rdb, prefix+"*")
	if len(keys) != 3 {
		t.Fatalf("keys %v, want two streams and their set", keys)
	}
	for _, k := range keys {
		if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Minute {
			t.Fatalf("key %s has TTL %v", k, ttl)
		}
	}
	if err := s.DeleteSession(ctx, "sess"); err != nil {
		t.Fatal(err)
	}
	if keys := keysOf(ctx, t, rdb, prefix+"*"); len(keys) != 0 {
		t.Fatalf("keys left after DeleteSession: %v", keys)
	}
	if err := s.DeleteSession(ctx, "sess"); err != nil {
		t.Fatalf("DeleteSession of an unknown session: %v", err)
	}
}

// TestEventStoreNames: session ids, stream names and prefixes holding
// braces keep a session's keys in one slot (on a Cluster, the append and
// delete scripts fail otherwise).
func TestEventStoreNames(t *testing.T) { eachRedis(t, testEventStoreNames) }

func testEventStoreNames(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	for _, p := range []string{prefix, prefix + "{", prefix + "}", prefix + "{app}:"} {
		s := NewEventStore(rdb, &Options{Prefix: p})
		for _, sess := range []string{"", "}", "a}b", "{x}", "{", "é"} {
			for _, stream := range []string{"0", "}{"} {
				if _, err := s.Append(ctx, sess, stream, []byte("d")); err != nil {
					t.Fatalf("prefix %q, session %q, stream %q: Append: %v", p, sess, stream, err)
				}
				n := 0
				if err := s.Replay(ctx, sess, stream, "", func(string, []byte) error { n++; return nil }); err != nil || n != 1 {
					t.Fatalf("prefix %q, session %q, stream %q: Replay: %d events, %v", p, sess, stream, n, err)
				}
			}
			if err := s.DeleteSession(ctx, sess); err != nil {
				t.Fatalf("prefix %q, session %q: DeleteSession: %v", p, sess, err)
			}
		}
	}
	if keys := keysOf(ctx, t, rdb, prefix+"*"); len(keys) != 0 {
		t.Fatalf("keys left after DeleteSession: %v", keys)
	}
}

func TestNotifier(t *testing.T) { eachRedis(t, testNotifier) }

func testNotifier(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	a, b := NewNotifier(rdb, opts, nil), NewNotifier(rdb, opts, nil)
	defer a.Close()
	defer b.Close()
	got := make(chan string, 16)
	ua := a.Subscribe(func(n *shared.Notice) { got <- "a:" + n.Method + ":" + n.URI })
	ub := b.Subscribe(func(n *shared.Notice) { got <- "b:" + n.Method + ":" + n.URI })
	// Wait until b's subscription is live: publish until it hears the
	// latest probe, so that it heard (in order) every probe before it and
	// hears nothing more of them.
	deadline := time.Now().Add(5 * time.Second)
	for probe, ready := 0, false; !ready; probe++ {
		if time.Now().After(deadline) {
			t.Fatal("the notifier never subscribed")
		}
		uri := fmt.Sprintf("probe://%d", probe)
		if err := a.Publish(ctx, &shared.Notice{Method: "probe", URI: uri}); err != nil {
			t.Fatal(err)
		}
		timeout := time.After(100 * time.Millisecond)
	drain:
		for !ready {
			select {
			case s := <-got:
				ready = s == "b:probe:"+uri
			case <-timeout:
				break drain
			}
		}
	}
	for len(got) > 0 {
		<-got
	}
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "x://1"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for range 2 {
		select {
		case s := <-got:
			seen[s]++
		case <-time.After(5 * time.Second):
			t.Fatalf("heard %v, want each notifier once", seen)
		}
	}
	if seen["a:"+mcp.NotificationResourceUpdated+":x://1"] != 1 || seen["b:"+mcp.NotificationResourceUpdated+":x://1"] != 1 {
		t.Fatalf("heard %v", seen)
	}
	select {
	case s := <-got:
		t.Fatalf("heard twice: %s", s)
	case <-time.After(200 * time.Millisecond):
	}
	// A Notifier hears what is published as soon as NewNotifier returned.
	c := NewNotifier(anotherClient(t, rdb), opts, nil)
	defer c.Close()
	heardC := make(chan string, 4)
	defer c.Subscribe(func(n *shared.Notice) { heardC <- n.URI })()
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "x://early"}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-heardC:
		if u != "x://early" {
			t.Fatalf("the new notifier heard %q", u)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the new notifier missed a notice published as soon as it was made")
	}
	// a heard it in Publish; b hears it on its own goroutine, maybe after
	// c: only once it did is nothing left to hear before unsubscribing.
	for want := map[string]bool{"a:" + mcp.NotificationResourceUpdated + ":x://early": true, "b:" + mcp.NotificationResourceUpdated + ":x://early": true}; len(want) > 0; {
		select {
		case s := <-got:
			delete(want, s)
		case <-time.After(5 * time.Second):
			t.Fatalf("a and b never heard x://early: missing %v", want)
		}
	}
	ua()
	ub()
	ub()
	if err := a.Publish(ctx, &shared.Notice{Method: "after"}); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		t.Fatalf("heard %s after unsubscribing", s)
	case <-time.After(200 * time.Millisecond):
	}
	if err := a.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSharedKey(t *testing.T) { eachRedis(t, testSharedKey) }

func testSharedKey(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	k1, err := SharedKey(ctx, rdb, opts, "state", 32)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := SharedKey(ctx, rdb, opts, "state", 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(k1) != 32 || !bytes.Equal(k1, k2) {
		t.Fatalf("two replicas got different keys: %x, %x", k1, k2)
	}
	if k3, _ := SharedKey(ctx, rdb, opts, "other", 32); bytes.Equal(k1, k3) {
		t.Fatal("two names share a key")
	}
	if _, err := SharedKey(ctx, rdb, opts, "state", 8); err == nil {
		t.Fatal("an 8-byte key was accepted")
	}
}

// TestUnavailable checks that every operation fails with ErrUnavailable,
// promptly, when Redis (a single node or a whole Cluster) is down, and
// that the Notifier closes all the same.
func TestUnavailable(t *testing.T) {
	t.Run("single", func(t *testing.T) { testUnavailable(t, deadRedis(t)) })
	t.Run("cluster", func(t *testing.T) {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"},
			MaxRetries: -1, MaxRedirects: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
		t.Cleanup(func() { c.Close() })
		testUnavailable(t, c)
	})
}

func testUnavailable(t *testing.T, rdb redis.UniversalClient) {
	ctx := testCtx(t)
	ss, es, ts := NewSessionStore(rdb, nil), NewEventStore(rdb, nil), NewTaskStore(rdb, nil)
	n := NewNotifier(rdb, &Options{MaxPendingNotices: 1}, nil)
	defer n.Close()
	// The first notice waits in the outbox, the second finds it full.
	if err := n.Publish(ctx, &shared.Notice{Method: "m"}); err != nil {
		t.Errorf("Publish of a notice the outbox can hold: %v", err)
	}
	heard := 0
	defer n.Subscribe(func(*shared.Notice) { heard++ })()
	for name, op := range map[string]func() error{
		"Load":   func() error { _, err := ss.Load(ctx, "x"); return err },
		"Save":   func() error { return ss.Save(ctx, &shared.SessionState{ID: "x"}) },
		"Delete": func() error { return ss.Delete(ctx, "x") },
		"Update": func() error {
			_, err := ss.Update(ctx, "x", func(*shared.SessionState) {})
			return err
		},
		"Append":        func() error { _, err := es.Append(ctx, "x", "0", []byte("d")); return err },
		"Replay":        func() error { return es.Replay(ctx, "x", "0", "", func(string, []byte) error { return nil }) },
		"DeleteSession": func() error { return es.DeleteSession(ctx, "x") },
		"Publish":       func() error { return n.Publish(ctx, &shared.Notice{Method: "m"}) },
		"Ping":          func() error { return ss.Ping(ctx) },
		"SharedKey":     func() error { _, err := SharedKey(ctx, rdb, nil, "k", 32); return err },
		"Create task":   func() error { return ts.Create(ctx, &tasks.Record{ID: "x", Owner: "o"}) },
		"List tasks": func() error {
			_, _, err := ts.List(ctx, "o", "", 10)
			return err
		},
		"Delete task": func() error { return ts.Delete(ctx, "x") },
	} {
		if err := op(); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", name, err)
		}
	}
	if heard != 1 { // the first was published before Subscribe
		t.Fatalf("local subscribers heard %d notices while Redis was down, want 1", heard)
	}
}

// ReplayCache is the auth package's interface.
var _ auth.ReplayCache = (*ReplayCache)(nil)

func TestReplayCache(t *testing.T) { eachRedis(t, testReplayCache) }

func testReplayCache(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	a, b := NewReplayCache(rdb, &Options{Prefix: prefix}), NewReplayCache(rdb, &Options{Prefix: prefix})
	until := time.Now().Add(time.Minute)
	for _, tc := range []struct {
		name    string
		cache   *ReplayCache
		jkt, id string
		isNew   bool
	}{
		{"first use", a, "key-1", "jti-1", true},
		{"replay on the same replica", a, "key-1", "jti-1", false},
		{"replay on another replica", b, "key-1", "jti-1", false},
		{"another proof", b, "key-1", "jti-2", true},
		{"the same jti from another key", a, "key-2", "jti-1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := tc.cache.Use(ctx, tc.jkt, tc.id, until)
			if err != nil || ok != tc.isNew {
				t.Fatalf("Use(%q, %q) = %v, %v; want %v", tc.jkt, tc.id, ok, err, tc.isNew)
			}
		})
	}
	if ttl := rdb.PTTL(ctx, prefix+"dpop:key-1 jti-1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("TTL %v", ttl)
	}
	if _, err := NewReplayCache(deadRedis(t), nil).Use(ctx, "key-1", "x", until); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Use with Redis down: %v", err)
	}
}

// TestEventStoreWait: Wait returns as soon as the stream holds an event
// after the given one, else after its time; beyond MaxEventWaits blocked
// at once it fails at once (the Handler then polls).
func TestEventStoreWait(t *testing.T) { eachRedis(t, testEventStoreWait) }

func testEventStoreWait(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	s := NewEventStore(rdb, &Options{Prefix: prefix, MaxEventWaits: 1})
	timed := func(after string, d time.Duration) (time.Duration, error) {
		start := time.Now()
		err := s.Wait(ctx, "sess", "p", after, d)
		return time.Since(start), err
	}
	// Nothing in the stream: it waits its time.
	if took, err := timed("", 300*time.Millisecond); err != nil || took < 250*time.Millisecond {
		t.Fatalf("Wait on an empty stream: %v after %v, want its 300ms", err, took)
	}
	// An event appended meanwhile ends it.
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(200 * time.Millisecond)
		if _, err := s.Append(ctx, "sess", "p", []byte("e0")); err != nil {
			t.Error(err)
		}
	})
	took, err := timed("", 10*time.Second)
	wg.Wait()
	if err != nil || took > 5*time.Second {
		t.Fatalf("Wait for an event appended after 200ms: %v after %v", err, took)
	}
	var first string
	_ = s.Replay(ctx, "sess", "p", "", func(id string, _ []byte) error { first = id; return nil })
	// One after the given id already: at once. None after it: its time.
	if _, err := s.Append(ctx, "sess", "p", []byte("e1")); err != nil {
		t.Fatal(err)
	}
	if took, err := timed(first, 10*time.Second); err != nil || took > 5*time.Second {
		t.Fatalf("Wait with an event after the id: %v after %v", err, took)
	}
	if _, err := timed("garbage", time.Second); !errors.Is(err, mcphttp.ErrUnknownEvent) {
		t.Fatalf("Wait after a malformed id: %v", err)
	}
	// A second Wait while one blocks fails at once.
	wg.Go(func() { _ = s.Wait(ctx, "sess", "other", "", time.Second) })
	time.Sleep(200 * time.Millisecond)
	if took, err := timed("", 5*time.Second); err == nil || took > time.Second {
		t.Fatalf("a Wait beyond MaxEventWaits: %v after %v, want an error at once", err, took)
	}
	wg.Wait()
}
