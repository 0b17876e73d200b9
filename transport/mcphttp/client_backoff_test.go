package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// TestDefaultReconnectBackoffWithin5s: with the default options, however
// many attempts to reconnect a stream failed, the next one comes within
// 4 seconds, so that a stream is back within 5 seconds of the server
// (issue 32: recovery within 5 s of the fault healing). The default was
// 30 seconds: after a 10-15 s outage a stream stayed away 8-30 s more.
func TestDefaultReconnectBackoffWithin5s(t *testing.T) {
	c := NewClientStream("http://127.0.0.1:1/mcp", nil)
	defer c.Close()
	for _, retry := range []time.Duration{c.delay, DefaultRetryInterval} {
		for failures := 1; failures <= 40; failures++ {
			if d := c.backoff(failures, retry); d > 4*time.Second {
				t.Fatalf("wait after %d failures (retry %v) = %v, want at most 4s", failures, retry, d)
			}
		}
	}
}

// outage is a Handler's front that, while down, answers GET with 502 (a
// proxy whose backend is gone) and can cut the GET streams open.
type outage struct {
	h    http.Handler
	down atomic.Bool

	mu    sync.Mutex
	cuts  []context.CancelFunc
	fails chan struct{} // one per GET refused
	gets  chan struct{} // one per GET let through
}

func (o *outage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		o.h.ServeHTTP(w, r)
		return
	}
	if o.down.Load() {
		w.WriteHeader(http.StatusBadGateway)
		o.fails <- struct{}{}
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	o.mu.Lock()
	o.cuts = append(o.cuts, cancel)
	o.mu.Unlock()
	o.gets <- struct{}{}
	o.h.ServeHTTP(w, r.WithContext(ctx))
}

// fail takes the server down and ends the GET streams open.
func (o *outage) fail() {
	o.down.Store(true)
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, cut := range o.cuts {
		cut()
	}
	o.cuts = nil
}

// TestStandaloneStreamBackOnceCallSucceeds: a standalone stream backing
// off after failed reconnections comes back as soon as a request of its
// session succeeds again, not after the rest of its backoff: the server
// is back, and the stream's notifications were away all along. Scaled
// down: a 5ms retry interval, so that nine failures take about a second
// and the next wait is 0.64-1.28s.
func TestStandaloneStreamBackOnceCallSucceeds(t *testing.T) {
	srv := testServer()
	h := NewHandler(srv, &HandlerOptions{RetryInterval: 5 * time.Millisecond})
	t.Cleanup(func() { h.Close() })
	o := &outage{h: h, fails: make(chan struct{}, 64), gets: make(chan struct{}, 64)}
	ts := httptest.NewServer(o)
	t.Cleanup(ts.Close)
	cs, _ := connectTo(t, ts, ts.URL+"/mcp", &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125},
		&ClientOptions{ReconnectDelay: 5 * time.Millisecond, MaxReconnectDelay: 10 * time.Second})
	select {
	case <-o.gets:
	case <-ctx(t).Done():
		t.Fatal("the standalone stream never opened")
	}
	o.fail()
	for range 9 {
		select {
		case <-o.fails:
		case <-ctx(t).Done():
			t.Fatal("the client stopped reconnecting")
		}
	}
	o.down.Store(false) // healed
	healed := time.Now()
	if err := cs.Ping(ctx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-o.gets:
		if d := time.Since(healed); d > 400*time.Millisecond {
			t.Fatalf("the standalone stream came back %v after a call succeeded, want at once", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the standalone stream did not come back")
	}
}

// TestPauseSeesAnswerBeforeIt: a POST answered after a failed attempt of
// the standalone stream but before its wait began cuts the wait short too.
// The wait used to drop that answer as one from before the failure, and
// the stream stayed away for the whole backoff (seen in CI: 1.4s).
func TestPauseSeesAnswerBeforeIt(t *testing.T) {
	c := NewClientStream("http://127.0.0.1:1/mcp", &ClientOptions{MaxReconnectDelay: 10 * time.Second})
	defer c.Close()
	const retry = 5 * time.Millisecond
	since := c.answers.Load() // the failed attempt begins
	c.noteAnswer()            // a call succeeds
	began := time.Now()
	if !c.pause(9, retry, since) {
		t.Fatal("pause: the stream closed")
	}
	if d := time.Since(began); d > 300*time.Millisecond {
		t.Errorf("paused %v after an answer, want about %v (the backoff is %v or more)", d, retry, c.backoff(9, retry)/2)
	}
	// An answer from before the attempt does not count.
	since = c.answers.Load()
	began = time.Now()
	if !c.pause(3, retry, since) || time.Since(began) < c.backoff(3, retry)/4 {
		t.Errorf("paused %v with no answer since the attempt, want the backoff", time.Since(began))
	}
}
