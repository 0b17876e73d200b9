package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pushStream is a PushStream as an HTTP server transport is one: the test
// pushes messages on its own goroutines, and replies are collected.
type pushStream struct {
	conn    *Conn
	replies chan *Message
	closed  atomic.Int32
}

func newPushStream() *pushStream { return &pushStream{replies: make(chan *Message, 1024)} }

func (s *pushStream) Attach(c *Conn) { s.conn = c }

func (s *pushStream) Read(context.Context) (*Message, error) {
	panic("Read called on a PushStream")
}

func (s *pushStream) Write(_ context.Context, m *Message) error {
	s.replies <- m
	return nil
}

func (s *pushStream) Close() error {
	s.closed.Add(1)
	s.conn.EndPush(nil)
	return nil
}

// TestPushStreamIdleHoldsNoGoroutine checks that a Conn on a PushStream
// starts no goroutine until a message needs one, and none stays once the
// work is done.
func TestPushStreamIdleHoldsNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	s := newPushStream()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(context.Context, *Message) (any, error) { return "ok", nil })})
	if got := runtime.NumGoroutine(); got != before {
		t.Fatalf("an idle Conn on a PushStream runs %d goroutines, want 0", got-before)
	}
	if err := c.Push(NewRequest(Int64ID(1), "m", nil), InlineNever); err != nil {
		t.Fatal(err)
	}
	if r := <-s.replies; r.ID != Int64ID(1) || string(r.Result) != `"ok"` {
		t.Fatalf("reply = %+v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	// More, not different: a goroutine of an earlier test may end meanwhile.
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after the request was answered", runtime.NumGoroutine()-before)
		}
		time.Sleep(time.Millisecond)
	}
	closeConn(t, c)
}

// TestPushStreamConcurrent pushes requests from many goroutines at once,
// with notifications from one of them, and checks every request is answered
// once and the notifications are handled in the order they were pushed.
func TestPushStreamConcurrent(t *testing.T) {
	var mu sync.Mutex
	var notes []int
	s := newPushStream()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		var n int
		if err := json.Unmarshal(m.Params, &n); err != nil {
			return nil, err
		}
		if m.ID.IsZero() {
			mu.Lock()
			notes = append(notes, n)
			mu.Unlock()
			return nil, nil
		}
		return n * 2, nil
	})})
	const pushers, each = 8, 50
	var wg sync.WaitGroup
	for p := range pushers {
		wg.Go(func() {
			for i := range each {
				n := p*each + i
				params, _ := json.Marshal(n)
				if err := c.Push(NewRequest(Int64ID(int64(n+1)), "double", params), InlineNever); err != nil {
					t.Error(err)
				}
				if p == 0 {
					if err := c.Push(NewNotification("note", params), InlineNever); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	seen := make(map[int64]bool)
	for range pushers * each {
		r := <-s.replies
		id, _ := r.ID.Int64()
		var got int64
		if err := json.Unmarshal(r.Result, &got); err != nil || got != (id-1)*2 {
			t.Fatalf("reply %v: result %s, want %d", r.ID, r.Result, (id-1)*2)
		}
		if seen[id] {
			t.Fatalf("request %d answered twice", id)
		}
		seen[id] = true
	}
	awaitLaneIdle(t, c)
	closeConn(t, c)
	for i, n := range notes {
		if n != i {
			t.Fatalf("notifications handled in order %v", notes)
		}
	}
	if len(notes) != each {
		t.Fatalf("%d notifications handled, want %d", len(notes), each)
	}
}

// TestPushStreamEnd checks EndPush: later pushes fail with ErrClosed, the
// request already in flight is still answered, then the Conn ends, closes
// the stream and calls OnDone once.
func TestPushStreamEnd(t *testing.T) {
	release := make(chan struct{})
	var doneCalls atomic.Int32
	s := newPushStream()
	c := NewConn(s, ConnOptions{
		Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
			<-release
			return "late", nil
		}),
		OnDone: func() { doneCalls.Add(1) },
	})
	if err := c.Push(NewRequest(Int64ID(7), "slow", nil), InlineNever); err != nil {
		t.Fatal(err)
	}
	c.EndPush(nil)
	c.EndPush(errors.New("ignored: already ended"))
	if err := c.Push(NewRequest(Int64ID(8), "slow", nil), InlineNever); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after EndPush = %v, want ErrClosed", err)
	}
	select {
	case <-c.ReadDone():
	case <-time.After(5 * time.Second):
		t.Fatal("ReadDone not closed after EndPush")
	}
	select {
	case <-c.Done():
		t.Fatal("the Conn ended with a request still running")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if r := <-s.replies; r.ID != Int64ID(7) || string(r.Result) != `"late"` {
		t.Fatalf("reply = %+v, want the in-flight request's", r)
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if s.closed.Load() == 0 {
		t.Fatal("the stream was not closed")
	}
	if n := doneCalls.Load(); n != 1 {
		t.Fatalf("OnDone called %d times, want 1", n)
	}
}

// TestPushStreamBarrier checks that a Barrier request is answered before
// Push returns, on the pushing goroutine.
func TestPushStreamBarrier(t *testing.T) {
	s := newPushStream()
	c := NewConn(s, ConnOptions{
		Handler: HandlerFunc(func(context.Context, *Message) (any, error) { return "first", nil }),
		Barrier: func(method string) bool { return method == "init" },
	})
	if err := c.Push(NewRequest(Int64ID(1), "init", nil), InlineNever); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-s.replies:
		if string(r.Result) != `"first"` {
			t.Fatalf("reply = %s", r.Result)
		}
	default:
		t.Fatal("Push returned before its Barrier request was answered")
	}
	closeConn(t, c)
}

// TestPushStreamClose checks that Close on a Conn over a PushStream returns
// (the stream's Close ends the input) and fails later pushes.
func TestPushStreamClose(t *testing.T) {
	s := newPushStream()
	c := NewConn(s, ConnOptions{})
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if err := c.Push(NewNotification("late", nil), InlineNever); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after Close = %v, want ErrClosed", err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestPushInline checks that Push with InlineWhenFree runs a request on
// the caller's goroutine and returns after its reply was written while a worker slot is
// free; that with none free it queues the request and returns at once; that
// CancelIncoming reaches an inline request; and that it refuses once input
// ended.
func TestPushInline(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	s := newPushStream()
	c := NewConn(s, ConnOptions{
		MaxConcurrency: 1,
		Handler: HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
			switch m.Method {
			case "whoami":
				return "me", nil
			case "block":
				started <- struct{}{}
				select {
				case <-release:
					return "released", nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return nil, nil
		}),
	})
	defer c.Close()
	// A free slot: the handler runs here, the reply is written on return.
	if err := c.Push(NewRequest(Int64ID(1), "whoami", nil), InlineWhenFree); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-s.replies:
		if r.ID != Int64ID(1) {
			t.Fatalf("reply %+v", r)
		}
	default:
		t.Fatal("Push returned before the reply was written")
	}
	// The slot taken by an inline request: the next one is queued.
	inline := make(chan error, 1)
	go func() { inline <- c.Push(NewRequest(Int64ID(2), "block", nil), InlineWhenFree) }()
	<-started
	if err := c.Push(NewRequest(Int64ID(3), "block", nil), InlineWhenFree); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
		t.Fatal("a second request ran past MaxConcurrency 1")
	case <-time.After(20 * time.Millisecond):
	}
	// Cancelling the inline one frees its slot for the queued one.
	if !c.CancelIncoming(Int64ID(2)) {
		t.Fatal("CancelIncoming did not find the inline request")
	}
	if err := <-inline; err != nil {
		t.Fatal(err)
	}
	<-started
	close(release)
	if r := <-s.replies; r.ID != Int64ID(3) || string(r.Result) != `"released"` {
		t.Fatalf("reply %+v, want the queued request's (a cancelled one gets none)", r)
	}
	c.EndPush(nil)
	if err := c.Push(NewRequest(Int64ID(4), "whoami", nil), InlineWhenFree); !errors.Is(err, ErrClosed) {
		t.Fatalf("Push after EndPush = %v, want ErrClosed", err)
	}
}

// TestPushInlineNeverOption checks that ConnOptions.Inline InlineNever
// overrides what Push is told: the request runs on a worker and Push
// returns while its handler still runs.
func TestPushInlineNeverOption(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	s := newPushStream()
	c := NewConn(s, ConnOptions{
		Inline: InlineNever,
		Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
			close(started)
			<-release
			return "ok", nil
		}),
	})
	pushed := make(chan error, 1)
	go func() { pushed <- c.Push(NewRequest(Int64ID(1), "block", nil), InlineWhenFree) }()
	<-started
	select {
	case err := <-pushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Push waited for the handler although ConnOptions.Inline is InlineNever")
	}
	close(release)
	if r := <-s.replies; string(r.Result) != `"ok"` {
		t.Fatalf("reply = %+v", r)
	}
	closeConn(t, c)
}
