package redisstore

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/redis/go-redis/v9"
)

// TestNotifierOrderFollowsLocalDelivery: a notice published after this
// process's subscribers heard another (so, as a consequence of it, or of
// what they did while it was delivered) reaches every other process after
// it. The HTTP transport relies on it at a stream takeover: a resource
// update published by the new holder and delivered here before it took
// the stream (so not stored here) must reach the old holder before the
// takeover's notice, so that the old holder, which still holds the stream
// until it hears that, stores it. When the update's append came after the
// takeover's, neither stored it: the one update the soak lost across a
// rolling restart. Nor does another process hear a notice before this
// one's subscribers did: the old holder's update, heard by the new holder
// before its claim, must reach the old holder's copy of the session
// before that hears the takeover.
func TestNotifierOrderFollowsLocalDelivery(t *testing.T) {
	eachRedis(t, testNotifierOrderFollowsLocalDelivery)
}

func testNotifierOrderFollowsLocalDelivery(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	a, b := NewNotifier(rdb, opts, nil), NewNotifier(rdb, opts, nil)
	defer a.Close()
	defer b.Close()
	heard := make(chan string, 4)
	heardT := make(chan struct{})
	var early atomic.Bool // b heard the update while a's subscribers did
	delivering := atomic.Bool{}
	defer b.Subscribe(func(n *shared.Notice) {
		if n.URI == "update" && delivering.Load() {
			early.Store(true)
		}
		heard <- n.URI
		if n.URI == "taken" {
			close(heardT)
		}
	})()
	published := make(chan error, 1)
	// While a's subscribers hear "update", another goroutine of a's
	// process publishes "taken" (the GET claiming the stream, which came
	// after the update was delivered here). The subscriber returns once b
	// heard "taken", or after a while if that waits for "update".
	defer a.Subscribe(func(n *shared.Notice) {
		if n.URI != "update" {
			return
		}
		delivering.Store(true)
		defer delivering.Store(false)
		go func() { published <- a.Publish(ctx, &shared.Notice{Method: "m", URI: "taken"}) }()
		select {
		case <-heardT:
		case <-time.After(300 * time.Millisecond):
		}
	})()
	if err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "update"}); err != nil {
		t.Fatal(err)
	}
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	if early.Load() {
		t.Error("another process heard the update before this process's subscribers had")
	}
	for _, want := range []string{"update", "taken"} {
		select {
		case got := <-heard:
			if got != want {
				t.Fatalf("another process heard %q first, want %q: a notice published after this process delivered another overtook it", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("never heard %q", want)
		}
	}
}

// TestNotifierPublishWhileHearing: a subscriber that publishes while it
// hears a notice of its own process (which is not appended before the
// subscriber returns) does not wait for that, and both notices reach the
// others in order.
func TestNotifierPublishWhileHearing(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	a, _, heard := twoNotifiers(t, rdb, rdb, opts)
	defer a.Subscribe(func(n *shared.Notice) {
		if n.URI != "first" {
			return
		}
		start := time.Now()
		if err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "second"}); err != nil {
			t.Error(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Publish from a subscriber took %v", d)
		}
	})()
	if err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "first"}); err != nil {
		t.Fatal(err)
	}
	// The Publish that handed "first" out waited for what its subscriber
	// published meanwhile, which could not.
	if got := storedURIs(t, ctx, rdb, a.key); !slices.Equal(got, []string{"first", "second"}) {
		t.Fatalf("when Publish returned, Redis held %q, want [first second]", got)
	}
	hearInOrder(t, heard, "first", "second")
}

// TestNotifierPublishWaitsBehindDelivery: a Publish returns once Redis
// holds its notice, even while another goroutine of the process still
// hands an earlier notice to its subscribers (so the notice can only be
// appended after that one). The HTTP transport relies on it: a request
// that saved a subscription answers once its notice is in Redis, so the
// replica serving the client's next request hears it first; a Publish
// returning early let an update overtake it (TestReplicasCluster's
// "subscription fires from another replica", on a loaded machine).
func TestNotifierPublishWaitsBehindDelivery(t *testing.T) {
	eachRedis(t, testNotifierPublishWaitsBehindDelivery)
}

func testNotifierPublishWaitsBehindDelivery(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := testCtx(t)
	a := NewNotifier(rdb, &Options{Prefix: prefix}, nil)
	defer a.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	defer a.Subscribe(func(n *shared.Notice) {
		if n.URI != "slow" {
			return
		}
		close(entered)
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	})()
	slow := make(chan error, 1)
	go func() { slow <- a.Publish(ctx, &shared.Notice{Method: "m", URI: "slow"}) }()
	<-entered
	type result struct {
		err    error
		stored []string
	}
	done := make(chan result, 1)
	go func() {
		err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "next"})
		done <- result{err, storedURIs(t, ctx, rdb, a.key)}
	}()
	var r result
	select {
	case r = <-done:
		// Returned while "slow" was still being handed out: it cannot be
		// in Redis (it goes after "slow"), which the check below tells.
	case <-time.After(200 * time.Millisecond):
		close(release)
		r = <-done
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !slices.Equal(r.stored, []string{"slow", "next"}) {
		t.Fatalf("when Publish returned, Redis held %q, want [slow next]", r.stored)
	}
	select {
	case <-release:
	default:
		close(release)
	}
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
}

// storedURIs returns the URIs of the notices in the stream key, in order.
func storedURIs(t *testing.T, ctx context.Context, rdb redis.UniversalClient, key string) []string {
	ms, err := rdb.XRange(ctx, key, "-", "+").Result()
	if err != nil {
		t.Error(err)
		return nil
	}
	var uris []string
	for _, m := range ms {
		var e envelope
		if d, _ := m.Values["d"].(string); json.Unmarshal([]byte(d), &e) == nil && e.Notice != nil {
			uris = append(uris, e.Notice.URI)
		}
	}
	return uris
}

// TestNotifierSubscriberPanics: a subscriber that panics while it hears a
// notice of this process (the panic is the caller's to recover, as an
// HTTP server does) does not hold back the notices published after it.
func TestNotifierSubscriberPanics(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	a, _, heard := twoNotifiers(t, rdb, rdb, opts)
	defer a.Subscribe(func(n *shared.Notice) {
		if n.URI == "boom" {
			panic("subscriber")
		}
	})()
	func() {
		defer func() { _ = recover() }()
		_ = a.Publish(ctx, &shared.Notice{Method: "m", URI: "boom"})
	}()
	if err := a.Publish(ctx, &shared.Notice{Method: "m", URI: "after"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"boom", "after"} {
		select {
		case got := <-heard:
			if got != want {
				t.Fatalf("heard %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("never heard %q: the panic held back the outbox", want)
		}
	}
}
