package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/redis/go-redis/v9"
)

// Notifier is an mcp.Notifier over Redis Pub/Sub: Publish hands a notice
// to this process's subscribers at once, on the caller's goroutine, and
// publishes it on Options.Channel for every other process; one goroutine
// per Notifier receives the others' notices and calls the subscribers.
//
// Pub/Sub delivers within a round trip, which the HTTP transport's stream
// takeover relies on. It keeps nothing: a notice published while a process
// is cut off from Redis does not reach that process. The receiving
// goroutine reconnects by itself when Redis comes back. Close stops it.
//
// On a Redis Cluster it uses plain SUBSCRIBE: the Cluster passes every
// PUBLISH to every node, so the subscription may sit on any (go-redis puts
// it on the master of the channel's slot, and moves it on failover).
// Sharded Pub/Sub would spare the other nodes that traffic, but one channel
// carries every notice, so one shard would carry them all anyway.
type Notifier struct {
	rdb     redis.UniversalClient
	channel string
	self    string // tells this Notifier's notices from others'
	log     *slog.Logger

	mu   sync.RWMutex
	next int
	subs map[int]func(*mcp.Notice)

	ps     *redis.PubSub
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

var _ mcp.Notifier = (*Notifier)(nil)

// envelope is a notice on the channel: the publishing Notifier and the
// notice.
type envelope struct {
	From   string      `json:"from"`
	Notice *mcp.Notice `json:"notice"`
}

// NewNotifier subscribes to the channel and starts receiving. rdb stays
// the caller's (close it after the Notifier); opts may be nil. logger, if
// not nil, receives a warning when the subscription breaks.
func NewNotifier(rdb redis.UniversalClient, opts *Options, logger *slog.Logger) *Notifier {
	o := opts.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{
		rdb: rdb, channel: o.Channel, self: hex.EncodeToString(b[:]), log: logger,
		subs: make(map[int]func(*mcp.Notice)), cancel: cancel, done: make(chan struct{}),
	}
	// Subscribe without waiting for Redis: the receive loop connects (and
	// reconnects) on its own.
	n.ps = rdb.Subscribe(ctx)
	go n.receive(ctx)
	return n
}

// receive runs until Close, calling the subscribers for every notice
// another Notifier published.
func (n *Notifier) receive(ctx context.Context) {
	defer close(n.done)
	backoff := 50 * time.Millisecond
	subscribed := false
	for ctx.Err() == nil {
		if !subscribed {
			if err := n.ps.Subscribe(ctx, n.channel); err != nil {
				if !n.pause(ctx, &backoff, err) {
					return
				}
				continue
			}
			subscribed = true
		}
		msg, err := n.ps.ReceiveTimeout(ctx, 30*time.Second)
		if err != nil {
			var nerr interface{ Timeout() bool }
			if errors.As(err, &nerr) && nerr.Timeout() {
				continue // idle: go-redis pings the connection itself
			}
			if !n.pause(ctx, &backoff, err) {
				return
			}
			continue
		}
		backoff = 50 * time.Millisecond
		m, ok := msg.(*redis.Message)
		if !ok {
			continue // subscription confirmations, pongs
		}
		var e envelope
		if json.Unmarshal([]byte(m.Payload), &e) != nil || e.Notice == nil || e.From == n.self {
			continue
		}
		n.deliver(e.Notice)
	}
}

// pause waits after a failure, doubling the wait up to two seconds; it
// reports false once the Notifier is closed.
func (n *Notifier) pause(ctx context.Context, backoff *time.Duration, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	n.log.Warn("redisstore: notifier: subscription broken, retrying", "err", err, "in", *backoff)
	t := time.NewTimer(*backoff)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	*backoff = min(*backoff*2, 2*time.Second)
	return true
}

// deliver calls every subscriber with its own copy of the notice.
func (n *Notifier) deliver(nt *mcp.Notice) {
	n.mu.RLock()
	fns := make([]func(*mcp.Notice), 0, len(n.subs))
	for _, fn := range n.subs {
		fns = append(fns, fn)
	}
	n.mu.RUnlock()
	for _, fn := range fns {
		c := *nt
		fn(&c)
	}
}

// Publish implements mcp.Notifier: this process's subscribers hear the
// notice before Publish returns, whatever becomes of Redis; an error says
// the other processes did not.
func (n *Notifier) Publish(ctx context.Context, nt *mcp.Notice) error {
	n.deliver(nt)
	b, err := json.Marshal(envelope{From: n.self, Notice: nt})
	if err != nil {
		return err
	}
	if err := n.rdb.Publish(ctx, n.channel, b).Err(); err != nil {
		return unavailable("publish notice", err)
	}
	return nil
}

// Subscribe implements mcp.Notifier.
func (n *Notifier) Subscribe(fn func(*mcp.Notice)) func() {
	n.mu.Lock()
	id := n.next
	n.next++
	n.subs[id] = fn
	n.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			n.mu.Lock()
			delete(n.subs, id)
			n.mu.Unlock()
		})
	}
}

// Ping reports whether Redis answers, for readiness checks.
func (n *Notifier) Ping(ctx context.Context) error { return ping(ctx, n.rdb) }

// Close stops receiving and waits for the receiving goroutine to end.
func (n *Notifier) Close() error {
	n.once.Do(func() {
		n.cancel()
		_ = n.ps.Close()
		<-n.done
	})
	return nil
}
