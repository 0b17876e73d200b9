package redisstore

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/redis/go-redis/v9"
)

// gate is a TCP relay to Redis that can cut one process off from it: while
// down, it ends every connection it relays and every one it accepts.
type gate struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func newGate(t *testing.T, target string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.accept()
	t.Cleanup(g.close)
	return g
}

func (g *gate) accept() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		g.mu.Lock()
		down := g.down
		g.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		r, err := net.Dial("tcp", g.target)
		if err != nil {
			c.Close()
			continue
		}
		g.mu.Lock()
		g.conns[c], g.conns[r] = struct{}{}, struct{}{}
		g.mu.Unlock()
		g.wg.Add(2)
		go g.pipe(c, r)
		go g.pipe(r, c)
	}
}

func (g *gate) pipe(dst, src net.Conn) {
	defer g.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	g.mu.Lock()
	delete(g.conns, dst)
	delete(g.conns, src)
	g.mu.Unlock()
}

// set cuts the relay off (down) or lets it through again.
func (g *gate) set(down bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.down = down
	if down {
		for c := range g.conns {
			c.Close()
		}
	}
}

func (g *gate) close() {
	g.ln.Close()
	g.set(true)
	g.wg.Wait()
}

// client is a client of Redis through the gate, failing fast.
func (g *gate) client(t *testing.T, base *redis.Client) *redis.Client {
	o := *base.Options()
	o.Addr = g.ln.Addr().String()
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 200*time.Millisecond, time.Second, time.Second
	o.MaxRetries, o.DialerRetries = -1, 1
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestNotifierOutage: no notice is lost when one process is cut off from
// Redis for a while: the one cut off hears, when it is back, what the
// others published meanwhile; what it published meanwhile reaches the
// others, in order, when it is back; beyond its outbox, Publish fails.
func TestNotifierOutage(t *testing.T) {
	rdb, prefix := testRedis(t)
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix, MaxPendingNotices: 3}
	ga, gb := newGate(t, rdb.Options().Addr), newGate(t, rdb.Options().Addr)
	a, _, heard := twoNotifiers(t, ga.client(t, rdb), gb.client(t, rdb), opts)
	// b reads once it found the stream's end: publish until it hears.
	awaitReading(t, ctx, a, heard)
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case got := <-heard:
				if got != w {
					t.Fatalf("b heard %q, want %q", got, w)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("b never heard %q", w)
			}
		}
		select {
		case got := <-heard:
			t.Fatalf("b heard %q too", got)
		case <-time.After(200 * time.Millisecond):
		}
	}

	// b is cut off while a publishes.
	gb.set(true)
	for i := range 3 {
		if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: fmt.Sprintf("b-away-%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // b's read fails, and it retries
	gb.set(false)
	expect("b-away-0", "b-away-1", "b-away-2")

	// a is cut off while it publishes: three wait in its outbox, the
	// fourth does not fit.
	ga.set(true)
	var local int
	defer a.Subscribe(func(*shared.Notice) { local++ })()
	for i := range 3 {
		if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: fmt.Sprintf("a-away-%d", i)}); err != nil {
			t.Fatalf("Publish %d while cut off: %v", i, err)
		}
	}
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "overflow"}); err == nil {
		t.Fatal("Publish beyond the outbox succeeded")
	}
	if local != 4 {
		t.Fatalf("a's own subscribers heard %d notices while it was cut off, want 4", local)
	}
	ga.set(false)
	expect("a-away-0", "a-away-1", "a-away-2")
	// And live again, after the queued ones.
	if err := a.Publish(ctx, &shared.Notice{Method: mcp.NotificationResourceUpdated, URI: "after"}); err != nil {
		t.Fatal(err)
	}
	expect("after")
}
