package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gomcp/sdk/mcp/shared"
	"github.com/redis/go-redis/v9"
)

// Notifier is a shared.Notifier over a Redis stream, the key
// Options.Channel: Publish hands a notice to this process's subscribers at
// once, on the caller's goroutine, and appends it to the stream for every
// other process; one goroutine per Notifier reads the stream (XREAD BLOCK,
// which returns as soon as an entry is appended, so a notice reaches the
// others within a round trip, as the HTTP transport's stream takeover
// needs) and calls the subscribers for the others' notices.
//
// A blink of Redis loses no notice. A Notifier that was cut off reads on
// from the last entry it saw when it reconnects, so it hears what the
// others published meanwhile, as long as the stream holds it: the stream
// keeps about Options.MaxNotices entries, and expires Options.EventTTL
// after the last append. A notice this process could not append waits in
// an outbox of at most Options.MaxPendingNotices notices (and
// maxPendingBytes), appended in order when Redis answers again; Publish
// fails only when the outbox is full. An append whose answer was lost, or
// whose WAIT for a replica (Options.ReplicaAcks) failed, is made again,
// and every Notifier skips an envelope id it heard among the last
// min(MaxNotices, 65536): each notice is heard once. After a failover the
// stream may end before the last entry a Notifier saw (what the old master
// never passed on), and new entries may have lower ids (see rewind).
//
// The stream is one key, so on a Redis Cluster it lives on one shard,
// which every Notifier reads. Close appends what the outbox holds (for up
// to two seconds), stops the goroutines (within readBlock) and drops what
// the outbox still holds then.
type Notifier struct {
	rdb    redis.UniversalClient
	key    string
	ttl    time.Duration
	maxLen int
	self   string // tells this Notifier's notices from others'
	log    *slog.Logger
	ack    *acker
	seen   *recent // the envelopes heard lately, to skip a copy appended again

	mu   sync.RWMutex
	next int
	subs map[int]func(*shared.Notice)

	omu        sync.Mutex
	outbox     []*pending // envelopes not appended yet, in the order Publish was called
	outBytes   int
	maxPending int
	failing    bool          // the last append failed: Publish does not wait for its own
	wake       chan struct{} // the outbox has something
	stop       <-chan struct{}

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

var _ shared.Notifier = (*Notifier)(nil)

const (
	// readBlock is how long one XREAD waits for new notices: Close waits
	// for the one in flight, since a blocked read ignores its context.
	readBlock = 500 * time.Millisecond
	// readCount bounds the notices one XREAD returns.
	readCount = 128
	// maxPendingBytes bounds the bytes of the outbox.
	maxPendingBytes = 16 << 20
	// closeFlush bounds how long Close waits for the outbox to be appended.
	closeFlush = 2 * time.Second
	// startTimeout bounds how long NewNotifier waits for Redis.
	startTimeout = 2 * time.Second
)

// envelope is a notice on the stream: the publishing Notifier and the
// notice.
type envelope struct {
	From string `json:"from"`
	// ID names this envelope (random), so that a copy appended again, after
	// an append whose outcome was unknown, is skipped.
	ID     uint64         `json:"id,omitempty"`
	Notice *shared.Notice `json:"notice"`
}

// NewNotifier starts reading the stream from its end, and appending what
// the outbox holds. It waits for Redis for up to two seconds, to find the
// stream's end: a notice published after it returns is heard. rdb stays the caller's (close it after the Notifier);
// opts may be nil. logger, if not nil, receives a warning when Redis does
// not answer.
func NewNotifier(rdb redis.UniversalClient, opts *Options, logger *slog.Logger) *Notifier {
	o := opts.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{
		rdb: rdb, key: o.Channel, ttl: o.EventTTL, maxLen: o.MaxNotices, self: hex.EncodeToString(b[:]), log: logger,
		ack: newAcker(rdb, o), seen: newRecent(min(o.MaxNotices, maxSeen)),
		subs: make(map[int]func(*shared.Notice)), maxPending: o.MaxPendingNotices, wake: make(chan struct{}, 1),
		stop: ctx.Done(), cancel: cancel,
	}
	// Find the stream's end now, so that every notice published after
	// NewNotifier returns is heard; if Redis does not answer at once, the
	// receiving goroutine finds it when Redis does.
	ectx, ecancel := context.WithTimeout(ctx, startTimeout)
	last, err := n.end(ectx)
	ecancel()
	if err != nil {
		last = ""
	}
	n.wg.Add(2)
	go n.receive(ctx, last)
	go n.flush(ctx)
	return n
}

// receive runs until Close, calling the subscribers for every notice
// another Notifier appended after last, the id of the last entry seen
// ("" until the stream's end is known).
func (n *Notifier) receive(ctx context.Context, last string) {
	defer n.wg.Done()
	backoff := 50 * time.Millisecond
	check := false // whether the stream may have gone back
	for ctx.Err() == nil {
		if check && last != "" {
			last = n.rewind(ctx, last)
			check = false
		}
		if last == "" {
			id, err := n.end(ctx)
			if err != nil {
				if !n.pause(ctx, &backoff, "read notices", err) {
					return
				}
				continue
			}
			last = id
		}
		res, err := n.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{n.key, last}, Count: readCount, Block: readBlock}).Result()
		if errors.Is(err, redis.Nil) {
			check = true // nothing new: or the stream went back
			continue
		}
		if err != nil {
			check = true
			if !n.pause(ctx, &backoff, "read notices", err) {
				return
			}
			continue
		}
		backoff = 50 * time.Millisecond
		for _, s := range res {
			for _, m := range s.Messages {
				last = m.ID
				d, _ := m.Values["d"].(string)
				var e envelope
				if json.Unmarshal([]byte(d), &e) != nil || e.Notice == nil || e.From == n.self || !n.seen.add(e.ID) {
					continue
				}
				n.deliver(e.Notice)
			}
		}
	}
}

// rewind returns where to read the stream on from, given the last entry
// seen: last, unless the stream now ends before it. A failover does that:
// the new master never had the entries after its end (the old one did not
// pass them on), and appends new ones with ids of its own clock, which may
// be below last. Then the Notifier reads the stream's last
// min(MaxNotices, 65536) entries again, skipping those it heard (by
// envelope id; one of a Notifier of an older version, without an id, is
// heard again), so that it hears those appended since, whatever their ids.
// Called when a read found nothing new or failed: one XREVRANGE of one
// entry per idle read.
func (n *Notifier) rewind(ctx context.Context, last string) string {
	end, err := n.end(ctx)
	if err != nil || compareIDs(end, last) >= 0 {
		return last
	}
	window := int64(len(n.seen.ring))
	ms, err := n.rdb.XRevRangeN(ctx, n.key, "+", "-", window+1).Result()
	if err != nil {
		return end
	}
	if int64(len(ms)) <= window {
		return "0-0"
	}
	return ms[window].ID
}

// end returns the id of the stream's last entry, "0-0" if it has none.
func (n *Notifier) end(ctx context.Context) (string, error) {
	ms, err := n.rdb.XRevRangeN(ctx, n.key, "+", "-", 1).Result()
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "0-0", nil
	}
	return ms[0].ID, nil
}

// appendNoticeScript appends one notice to the stream, trims it to about its
// bound and renews its TTL.
var appendNoticeScript = redis.NewScript(`
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// append appends an encoded envelope to the stream.
func (n *Notifier) append(ctx context.Context, b []byte) error {
	return n.ack.run(ctx, n.rdb, appendNoticeScript, []string{n.key}, n.maxLen, b, n.ttl.Milliseconds()).Err()
}

// pending is an envelope in the outbox (its fields guarded by omu). It is
// ready once this process's subscribers heard its notice: only then is it
// appended, and nothing queued after it before. tried is closed once an
// append of it was tried, or failed before it (told: it was). g is the
// goroutine that publishes it, and hands it to the subscribers meanwhile;
// last is the latest notice published by its subscribers while they hear
// it (see queue), which its Publish waits for instead.
type pending struct {
	b     []byte
	ready bool
	tried chan struct{}
	told  bool
	g     uint64
	last  *pending
}

// tell closes p.tried once. n.omu must be held.
func (p *pending) tell() {
	if !p.told {
		p.told = true
		close(p.tried)
	}
}

// maxBatch bounds the envelopes flush appends in one round trip.
const maxBatch = 64

// flush runs until Close, appending what the outbox holds in its order,
// each envelope once it is ready, in batches of one round trip (a
// pipeline keeps their order), each until Redis takes it.
func (n *Notifier) flush(ctx context.Context) {
	defer n.wg.Done()
	backoff := 50 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			batch := n.readyBatch()
			if len(batch) == 0 {
				break // empty, or its head not ready yet: Publish wakes flush
			}
			err := n.appendAll(ctx, batch)
			n.settle(batch, err)
			if err != nil {
				if !n.pause(ctx, &backoff, "append queued notice", err) {
					return
				}
				continue
			}
			backoff = 50 * time.Millisecond
		}
	}
}

// readyBatch returns the ready envelopes at the head of the outbox, at
// most maxBatch.
func (n *Notifier) readyBatch() []*pending {
	n.omu.Lock()
	defer n.omu.Unlock()
	k := 0
	for k < len(n.outbox) && k < maxBatch && n.outbox[k].ready {
		k++
	}
	return slices.Clone(n.outbox[:k])
}

// settle records the outcome of appending batch, the head of the outbox:
// taken, it leaves the outbox; failed, it stays, and every Publish waiting
// returns (its notice queued behind the failure), as does every Publish
// until an append succeeds again.
func (n *Notifier) settle(batch []*pending, err error) {
	n.omu.Lock()
	defer n.omu.Unlock()
	n.failing = err != nil
	if err != nil {
		for _, p := range n.outbox {
			p.tell()
		}
		return
	}
	for _, p := range batch {
		n.outBytes -= len(p.b)
		p.tell()
	}
	clear(n.outbox[:len(batch)])
	n.outbox = n.outbox[len(batch):]
}

// appendAll appends the encoded envelopes of batch to the stream, in
// order, in one round trip.
func (n *Notifier) appendAll(ctx context.Context, batch []*pending) error {
	if len(batch) == 1 {
		return n.append(ctx, batch[0].b)
	}
	_, err := n.ack.pipelined(ctx, n.rdb, n.key, func(p redis.Pipeliner) {
		for _, e := range batch {
			appendNoticeScript.Eval(ctx, p, []string{n.key}, n.maxLen, e.b, n.ttl.Milliseconds())
		}
	})
	return err
}

// queue puts b, published by goroutine g, at the end of the outbox, not
// ready yet, unless it is full (nil). Publish makes it ready (markReady).
//
// When g is handing out a notice of its own that is not ready yet (one of
// this process's subscribers publishes while it hears a notice, outer),
// b is appended after outer, so only once that subscriber returned:
// Publish cannot wait for it, and outer's Publish waits for it instead.
func (n *Notifier) queue(b []byte, g uint64) (p, outer *pending) {
	n.omu.Lock()
	defer n.omu.Unlock()
	if len(n.outbox) >= n.maxPending || n.outBytes+len(b) > maxPendingBytes {
		return nil, nil
	}
	p = &pending{b: b, tried: make(chan struct{}), g: g}
	if n.failing {
		p.tell()
	}
	for _, q := range n.outbox {
		if !q.ready && q.g == g {
			outer, q.last = q, p
			break
		}
	}
	n.outbox = append(n.outbox, p)
	n.outBytes += len(b)
	return p, outer
}

// markReady lets flush append p, once this process's subscribers heard
// it, and returns the notice whose append Publish waits for: p, or the
// last one its subscribers published meanwhile (appended after p); nil
// when p was published by a subscriber hearing outer (see queue).
func (n *Notifier) markReady(p, outer *pending) (wait *pending) {
	n.omu.Lock()
	defer n.omu.Unlock()
	p.ready = true
	select {
	case n.wake <- struct{}{}:
	default:
	}
	switch {
	case outer != nil:
		return nil
	case p.last != nil:
		return p.last
	}
	return p
}

// drained reports whether the outbox is empty, or appends fail now.
func (n *Notifier) drained() bool {
	n.omu.Lock()
	defer n.omu.Unlock()
	return len(n.outbox) == 0 || n.failing
}

// pause waits after a failure, doubling the wait up to two seconds; it
// reports false once the Notifier is closed.
func (n *Notifier) pause(ctx context.Context, backoff *time.Duration, op string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	n.log.Warn("redisstore: notifier: "+op+": retrying", "err", unavailable(n.rdb, op, err), "in", *backoff)
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
func (n *Notifier) deliver(nt *shared.Notice) {
	n.mu.RLock()
	fns := make([]func(*shared.Notice), 0, len(n.subs))
	for _, fn := range n.subs {
		fns = append(fns, fn)
	}
	n.mu.RUnlock()
	for _, fn := range fns {
		c := *nt
		fn(&c)
	}
}

// Publish implements shared.Notifier: this process's subscribers hear the
// notice before Publish returns, whatever becomes of Redis. The other
// processes hear it once it is appended to the stream, by the outbox's
// goroutine, after the notices queued before it: now, or when Redis
// answers again. Publish returns once Redis took the notice, so that
// what the caller does next (answer a request that another process may
// serve) comes after it everywhere; or once an append failed (Redis does
// not answer: the notice waits in the outbox), ctx ended or Close began.
// An error says the outbox was full, so the others never will.
//
// A subscriber that publishes while it hears a notice of this process
// (on the goroutine handing it out) does not wait: its notice is appended
// after that one, which waits for the subscriber to return. The Publish
// that handed that notice out waits for both instead, so its caller still
// gets the guarantee above for all it caused. A subscriber must not wait
// for a Publish on another goroutine (it would wait for the subscriber),
// nor for a lock held around one.
//
// Every notice is queued before this process's subscribers hear it, and
// appended only after they did, in the order Publish was called: so the
// others never hear a notice before this process's subscribers did, and
// a notice published after they heard another (one of them published it,
// or anything that followed) reaches the others after it. The HTTP
// transport's stream takeover relies on both
// (TestNotifierOrderFollowsLocalDelivery): the old holder, which stores
// the session's events until it hears the takeover, must hear an update
// the new holder delivered before it took the stream; and an update the
// old holder published must reach its own sessions before the new holder,
// which may not hold the stream yet, hears it.
func (n *Notifier) Publish(ctx context.Context, nt *shared.Notice) error {
	b, err := json.Marshal(envelope{From: n.self, ID: randomID(), Notice: nt})
	if err != nil {
		n.deliver(nt)
		return err
	}
	p, outer := n.queue(b, goid())
	w := n.deliverQueued(nt, p, outer)
	if p == nil {
		return unavailable(n.rdb, "publish notice", errOutboxFull)
	}
	if w != nil {
		select {
		case <-w.tried:
		case <-ctx.Done():
		case <-n.stop:
		}
	}
	return nil
}

// deliverQueued hands nt to this process's subscribers, then makes p
// ready (if queued: not nil) and returns what Publish waits for (see
// markReady). p is made ready even when a subscriber panics: a notice
// never made ready would hold back every notice queued after it.
func (n *Notifier) deliverQueued(nt *shared.Notice, p, outer *pending) (wait *pending) {
	if p == nil {
		n.deliver(nt)
		return nil
	}
	defer func() { wait = n.markReady(p, outer) }()
	n.deliver(nt)
	return nil
}

// goid returns the id of the calling goroutine, which Go has no API for,
// from the first line of its stack trace ("goroutine 18 [running]:"):
// Publish needs it to tell a subscriber publishing while it hears a
// notice of this process (on the goroutine handing it out, which cannot
// wait for its own subscriber) from another goroutine (which must wait).
func goid() uint64 {
	var buf [64]byte
	b, _ := bytes.CutPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// errOutboxFull is why a notice queued behind others was dropped.
var errOutboxFull = errors.New("the outbox of notices waiting for Redis is full")

// Subscribe implements shared.Notifier.
func (n *Notifier) Subscribe(fn func(*shared.Notice)) func() {
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

// Close waits (up to two seconds, while Redis answers) until the outbox
// was appended, stops reading and appending, and waits for both
// goroutines to end; notices still in the outbox are dropped (and logged).
func (n *Notifier) Close() error {
	n.once.Do(func() {
		// What Publish queued goes first, unless Redis fails: a process
		// that stops (a rolling restart) loses no notice it published.
		deadline := time.Now().Add(closeFlush)
		for !n.drained() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		n.cancel()
		n.wg.Wait()
		n.omu.Lock()
		if len(n.outbox) > 0 {
			n.log.Warn("redisstore: notifier: closed with notices Redis never took", "dropped", len(n.outbox))
		}
		for _, p := range n.outbox {
			p.tell()
		}
		n.outbox = nil
		n.omu.Unlock()
	})
	return nil
}

// maxSeen bounds the envelope ids a Notifier remembers.
const maxSeen = 1 << 16

// randomID returns a random envelope id, never 0.
func randomID() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if id := binary.LittleEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

// recent remembers the last size ids added, to tell a copy of an envelope
// heard already: a notice whose append failed in a way that may have
// appended it is appended again, after a failover usually, so the copies
// are at most the notices appended meanwhile apart. Used by one goroutine.
type recent struct {
	ids  map[uint64]struct{}
	ring []uint64
	next int
}

func newRecent(size int) *recent {
	return &recent{ids: make(map[uint64]struct{}, size), ring: make([]uint64, max(size, 1))}
}

// add records id and reports whether it is new; 0 (an envelope of an
// older Notifier, without an id) is always new.
func (r *recent) add(id uint64) bool {
	if id == 0 {
		return true
	}
	if _, ok := r.ids[id]; ok {
		return false
	}
	if old := r.ring[r.next]; old != 0 {
		delete(r.ids, old)
	}
	r.ring[r.next] = id
	r.next = (r.next + 1) % len(r.ring)
	r.ids[id] = struct{}{}
	return true
}
