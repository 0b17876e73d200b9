package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after a few seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// recvTimeout receives from ch or fails the test.
func recvTimeout[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// mux is a small method-name router for tests.
type mux map[string]func(ctx context.Context, m *Message) (any, error)

func (x mux) Handle(ctx context.Context, m *Message) (any, error) {
	if h := x[m.Method]; h != nil {
		return h(ctx, m)
	}
	if m.Method == "ping" {
		return struct{}{}, nil
	}
	return nil, Errorf(CodeMethodNotFound, "method not found: %s", m.Method)
}

func codeOf(err error) int64 {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestConnSymmetric(t *testing.T) {
	for _, wire := range []bool{false, true} {
		t.Run(fmt.Sprintf("wire=%v", wire), func(t *testing.T) {
			var a, b *Conn
			notes := make(chan string, 10)
			side := func(name string, self **Conn) mux {
				return mux{
					"whoami": func(context.Context, *Message) (any, error) { return name, nil },
					"add": func(_ context.Context, m *Message) (any, error) {
						var p struct{ X, Y int }
						if err := json.Unmarshal(m.Params, &p); err != nil {
							return nil, NewError(CodeInvalidParams, err.Error())
						}
						return p.X + p.Y, nil
					},
					// nested asks the peer who it is, from inside a request handler.
					"nested": func(ctx context.Context, _ *Message) (any, error) {
						var who string
						err := (*self).Call(ctx, "whoami", nil, &who)
						return name + " asked " + who, err
					},
					"note": func(_ context.Context, m *Message) (any, error) {
						notes <- name + " got " + string(m.Params)
						return nil, nil
					},
				}
			}
			a, b = newConnPair(t, wire, ConnOptions{Handler: side("a", &a)}, ConnOptions{Handler: side("b", &b)})
			ctx := context.Background()
			for _, tc := range []struct {
				from *Conn
				want string
			}{{a, "b"}, {b, "a"}} {
				var who string
				if err := tc.from.Call(ctx, "whoami", nil, &who); err != nil || who != tc.want {
					t.Errorf("whoami = %q, %v; want %q", who, err, tc.want)
				}
				var sum int
				if err := tc.from.Call(ctx, "add", map[string]int{"X": 2, "Y": 40}, &sum); err != nil || sum != 42 {
					t.Errorf("add = %d, %v", sum, err)
				}
				if err := tc.from.Call(ctx, "nope", nil, nil); codeOf(err) != CodeMethodNotFound {
					t.Errorf("unknown method: %v", err)
				}
			}
			var s string
			if err := a.Call(ctx, "nested", nil, &s); err != nil || s != "b asked a" {
				t.Errorf("nested from a = %q, %v", s, err)
			}
			if err := b.Call(ctx, "nested", nil, &s); err != nil || s != "a asked b" {
				t.Errorf("nested from b = %q, %v", s, err)
			}
			if err := a.Notify(ctx, "note", []int{1}); err != nil {
				t.Fatal(err)
			}
			if err := b.Notify(ctx, "note", []int{2}); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{recvTimeout(t, notes, "note"): true, recvTimeout(t, notes, "note"): true}
			if !got["b got [1]"] || !got["a got [2]"] {
				t.Errorf("notifications: %v", got)
			}
		})
	}
}

func TestCallParamsAndResults(t *testing.T) {
	echo := mux{"echo": func(_ context.Context, m *Message) (any, error) { return m.Params, nil }}
	c, _ := newConnPair(t, true, ConnOptions{}, ConnOptions{Handler: echo})
	ctx := context.Background()

	var raw json.RawMessage
	if err := c.Call(ctx, "echo", json.RawMessage(`{"a":[1, 2]}`), &raw); err != nil || string(raw) != `{"a":[1, 2]}` {
		t.Errorf("raw params round trip = %s, %v", raw, err)
	}
	got, err := c.CallRaw(ctx, "echo", struct {
		N int `json:"n"`
	}{7})
	if err != nil || string(got) != `{"n":7}` {
		t.Errorf("CallRaw = %s, %v", got, err)
	}
	var wrong struct{ A string }
	if err := c.Call(ctx, "echo", map[string]int{"A": 1}, &wrong); err == nil {
		t.Error("decoding a mismatched result did not fail")
	}
	if err := c.Call(ctx, "echo", make(chan int), nil); err == nil {
		t.Error("unencodable params did not fail")
	}
	// No params at all: the handler sees nil and the result is null.
	if err := c.Call(ctx, "echo", nil, &raw); err != nil || string(raw) != `{}` {
		t.Errorf("no params: result %s, %v", raw, err)
	}
}

// TestDefaultHandler checks that a Conn without a Handler answers requests
// with method not found and ignores notifications.
func TestDefaultHandler(t *testing.T) {
	_, peer := newRawConn(t, ConnOptions{})
	peer.send(`{"jsonrpc":"2.0","method":"note"}`)
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`)
}

func TestConcurrencyBound(t *testing.T) {
	const limit, calls = 2, 8
	var running, maxRunning, total atomic.Int32
	release := make(chan struct{})
	h := mux{"work": func(ctx context.Context, _ *Message) (any, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		total.Add(1)
		return nil, nil
	}}
	client, _ := newConnPair(t, false, ConnOptions{}, ConnOptions{Handler: h, MaxConcurrency: limit})
	errs := make(chan error, calls)
	for range calls {
		go func() { errs <- client.Call(context.Background(), "work", nil, nil) }()
	}
	waitFor(t, "two handlers to start", func() bool { return running.Load() == limit })
	time.Sleep(50 * time.Millisecond) // give a third handler every chance to start
	if m := maxRunning.Load(); m != limit {
		t.Errorf("%d handlers ran at once, limit %d", m, limit)
	}
	close(release)
	for range calls {
		if err := recvTimeout(t, errs, "call"); err != nil {
			t.Error(err)
		}
	}
	if m, n := maxRunning.Load(), total.Load(); m > limit || n != calls {
		t.Errorf("max concurrency %d, handled %d; want ≤%d, %d", m, n, limit, calls)
	}
}

// TestWorkersExit checks that request workers do not outlive their work.
func TestWorkersExit(t *testing.T) {
	client, _ := newConnPair(t, false, ConnOptions{}, ConnOptions{Handler: mux{"ok": func(context.Context, *Message) (any, error) { return nil, nil }}})
	base := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := client.Call(context.Background(), "ok", nil, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "workers to exit", func() bool { return runtime.NumGoroutine() <= base })
}

func TestMaxQueued(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 10)
	h := mux{"block": func(_ context.Context, m *Message) (any, error) {
		started <- m.ID.String()
		<-release
		return m.ID.String(), nil
	}}
	_, peer := newRawConn(t, ConnOptions{Handler: h, MaxConcurrency: 1, MaxQueued: 1})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	if id := recvTimeout(t, started, "first handler"); id != "1" {
		t.Fatalf("first handler for id %s", id)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`) // queued
	// The third is refused at once, while the first is still running.
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"block"}`), `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x"}}`)
	// So is a batch element past the limit, in the batch's single reply.
	peer.send(`[{"jsonrpc":"2.0","id":4,"method":"block"},{"jsonrpc":"2.0","id":5,"method":"nope"}]`)
	assertJSON(t, peer.recv(), `[{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"x"}},{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"x"}}]`)
	close(release)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"1"}`)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":2,"result":"2"}`)
	if id := recvTimeout(t, started, "queued handler"); id != "2" {
		t.Errorf("queued handler ran for id %s", id)
	}
	peer.expectNothing(20 * time.Millisecond)
}

func TestNotificationOrder(t *testing.T) {
	const n = 500
	var (
		mu      sync.Mutex
		got     []int
		inLane  atomic.Int32
		overlap atomic.Bool
		done    = make(chan struct{})
	)
	h := mux{
		"seq": func(_ context.Context, m *Message) (any, error) {
			if inLane.Add(1) != 1 {
				overlap.Store(true)
			}
			defer inLane.Add(-1)
			var i int
			if err := json.Unmarshal(m.Params, &[]*int{&i}); err != nil {
				t.Error(err)
			}
			if i%50 == 0 {
				time.Sleep(time.Millisecond) // let others pile up behind
			}
			mu.Lock()
			got = append(got, i)
			if len(got) == n {
				close(done)
			}
			mu.Unlock()
			return nil, nil
		},
		"req": func(context.Context, *Message) (any, error) { return nil, nil },
	}
	client, _ := newConnPair(t, true, ConnOptions{}, ConnOptions{Handler: h})
	ctx := context.Background()
	for i := range n {
		if err := client.Notify(ctx, "seq", []int{i}); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 { // requests in between do not disturb the lane
			if err := client.Call(ctx, "req", nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	recvTimeout(t, done, "all notifications")
	if overlap.Load() {
		t.Error("two notification handlers ran at once")
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d handled in position %d", v, i)
		}
	}
}

// TestNotificationHandlerCalls checks that a notification handler can call
// the peer with its context and wait for the answer: that response does not
// wait for the lane (busy with the handler, the other kicks queued behind).
func TestNotificationHandlerCalls(t *testing.T) {
	var server *Conn
	results := make(chan string, 3)
	serverH := mux{"kick": func(ctx context.Context, m *Message) (any, error) {
		var s string
		err := server.Call(ctx, "answer", m.Params, &s)
		results <- fmt.Sprint(s, err)
		return nil, nil
	}}
	clientH := mux{"answer": func(_ context.Context, m *Message) (any, error) { return "answer to " + string(m.Params), nil }}
	client, srv := newConnPair(t, false, ConnOptions{Handler: clientH}, ConnOptions{Handler: serverH})
	server = srv
	for i := range 3 {
		if err := client.Notify(context.Background(), "kick", []int{i}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if got, want := recvTimeout(t, results, "kick"), fmt.Sprintf("answer to [%d]<nil>", i); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestCancelIncoming(t *testing.T) {
	started := make(chan ID, 10)
	causes := make(chan error, 10)
	release := make(chan struct{})
	ran := make(chan ID, 10)
	h := mux{
		"wait": func(ctx context.Context, m *Message) (any, error) {
			started <- m.ID
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return "too late", ctx.Err()
		},
		"block": func(_ context.Context, m *Message) (any, error) {
			ran <- m.ID
			<-release
			return "done", nil
		},
	}
	c, peer := newRawConn(t, ConnOptions{Handler: h, MaxConcurrency: 1})

	// A running request: its context ends and its response is suppressed.
	peer.send(`{"jsonrpc":"2.0","id":7,"method":"wait"}`)
	recvTimeout(t, started, "handler start")
	if c.CancelIncoming(StringID("7")) {
		t.Error(`CancelIncoming("7") matched integer id 7`)
	}
	if !c.CancelIncoming(Int64ID(7)) {
		t.Fatal("CancelIncoming(7) = false for a running request")
	}
	if cause := recvTimeout(t, causes, "handler cancellation"); !errors.Is(cause, errPeerCancelled) {
		t.Errorf("handler context cause = %v", cause)
	}
	peer.expectNothing(50 * time.Millisecond)
	peer.assertAlive()
	if c.CancelIncoming(Int64ID(7)) {
		t.Error("CancelIncoming(7) = true after the request finished")
	}
	if c.CancelIncoming(Int64ID(12345)) {
		t.Error("CancelIncoming of an unknown id = true")
	}

	// A queued request is never run.
	peer.send(`{"jsonrpc":"2.0","id":"a","method":"block"}`)
	recvTimeout(t, ran, "first block")
	peer.send(`{"jsonrpc":"2.0","id":"b","method":"block"}`) // queued behind "a"
	waitFor(t, "b to be queued", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.inflight[StringID("b")]
		return ok
	})
	if !c.CancelIncoming(StringID("b")) {
		t.Fatal("CancelIncoming of a queued request = false")
	}
	close(release)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":"a","result":"done"}`)
	peer.expectNothing(50 * time.Millisecond)
	select {
	case id := <-ran:
		t.Errorf("cancelled queued request %v ran", id)
	default:
	}

	// In a batch, the cancelled request is left out of the reply, and a
	// batch whose only request was cancelled gets no reply at all.
	peer.send(`[{"jsonrpc":"2.0","id":8,"method":"wait"},{"jsonrpc":"2.0","method":"note"}]`)
	recvTimeout(t, started, "batched handler start")
	c.CancelIncoming(Int64ID(8))
	recvTimeout(t, causes, "batched handler cancellation")
	peer.expectNothing(50 * time.Millisecond)
	peer.send(`[{"jsonrpc":"2.0","id":9,"method":"wait"},{"jsonrpc":"2.0","id":10,"method":"ping"}]`)
	recvTimeout(t, started, "batched handler start")
	c.CancelIncoming(Int64ID(9))
	assertJSON(t, peer.recv(), `[{"jsonrpc":"2.0","id":10,"result":{}}]`)
}

// TestCallCancel checks the caller's side: a Call whose context ends returns
// at once, OnCancel learns the id (MCP sends notifications/cancelled with it),
// and the response that arrives later is dropped.
func TestCallCancel(t *testing.T) {
	type cancelled struct {
		id    ID
		cause error
	}
	onCancel := make(chan cancelled, 1)
	var client *Conn
	started := make(chan ID, 1)
	peerCause := make(chan error, 1)
	serverH := mux{
		"slow": func(ctx context.Context, m *Message) (any, error) {
			started <- m.ID
			<-ctx.Done()
			peerCause <- context.Cause(ctx)
			return nil, ctx.Err()
		},
		"ping": func(context.Context, *Message) (any, error) { return "pong", nil },
	}
	var server *Conn
	serverH["cancelled"] = func(_ context.Context, m *Message) (any, error) {
		var p struct {
			RequestID ID `json:"requestId"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, err
		}
		server.CancelIncoming(p.RequestID)
		return nil, nil
	}
	client, server = newConnPair(t, true, ConnOptions{OnCancel: func(id ID, cause error) {
		onCancel <- cancelled{id, cause}
		_ = client.Notify(context.Background(), "cancelled", map[string]ID{"requestId": id})
	}}, ConnOptions{Handler: serverH})

	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "slow", nil, nil) }()
	id := recvTimeout(t, started, "slow to start")
	myCause := errors.New("user gave up")
	cancel(myCause)
	if err := recvTimeout(t, errc, "Call to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("Call returned %v, want context.Canceled", err)
	}
	got := recvTimeout(t, onCancel, "OnCancel")
	if got.id != id || got.cause != myCause {
		t.Errorf("OnCancel(%v, %v), want (%v, %v)", got.id, got.cause, id, myCause)
	}
	if cause := recvTimeout(t, peerCause, "server handler cancellation"); !errors.Is(cause, errPeerCancelled) {
		t.Errorf("server handler cause = %v", cause)
	}
	var s string
	if err := client.Call(context.Background(), "ping", nil, &s); err != nil || s != "pong" {
		t.Errorf("ping after cancel = %q, %v", s, err)
	}
}

// TestLateResponse checks that a response arriving after its Call gave up is
// dropped, and that responses for unknown ids are ignored.
func TestLateResponse(t *testing.T) {
	var cancels atomic.Int32
	onReject, rejects := rejectRecorder(8)
	c, peer := newRawConn(t, ConnOptions{OnCancel: func(ID, error) { cancels.Add(1) }, OnReject: onReject})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want deadline exceeded", err)
	}
	req := Decode(peer.recv())
	if !req.IsRequest() || req.Method != "slow" {
		t.Fatalf("peer got %s", describe(req))
	}
	// Late, unknown, string-id and null-id responses are all dropped, and
	// reported.
	peer.send(string(NewResponse(req.ID, json.RawMessage(`"late"`)).AppendJSON(nil)))
	peer.send(`{"jsonrpc":"2.0","id":999,"result":1}`)
	peer.send(`{"jsonrpc":"2.0","id":"1","result":1}`)
	peer.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`)
	peer.send(`{"jsonrpc":"2.0","id":1000,"error":{"code":1,"message":"bad"}}`)

	// The next call gets its own answer, not the late one.
	errc := make(chan error, 1)
	var s string
	go func() { errc <- c.Call(context.Background(), "next", nil, &s) }()
	next := Decode(peer.recv())
	if next.ID == req.ID {
		t.Fatalf("id %v reused", next.ID)
	}
	peer.send(string(NewResponse(next.ID, json.RawMessage(`"fresh"`)).AppendJSON(nil)))
	if err := recvTimeout(t, errc, "next call"); err != nil || s != "fresh" {
		t.Errorf("next call = %q, %v", s, err)
	}
	peer.expectNothing(20 * time.Millisecond) // responses are never answered
	if n := cancels.Load(); n != 1 {
		t.Errorf("OnCancel called %d times, want 1", n)
	}
	for _, id := range []ID{req.ID, Int64ID(999), StringID("1"), {}, Int64ID(1000)} {
		if r := recvTimeout(t, rejects, "OnReject"); r.m.ID != id || r.err != ErrUnknownResponse {
			t.Errorf("OnReject(%s, %v), want id %v and ErrUnknownResponse", describe(r.m), r.err, id)
		}
	}
	if len(rejects) != 0 || c.Stats().Rejected != 5 {
		t.Errorf("%d more OnReject calls, Stats() = %+v", len(rejects), c.Stats())
	}
}

func TestCallTimeout(t *testing.T) {
	causes := make(chan error, 3)
	release := make(chan struct{})
	defer close(release)
	h := mux{"hang": func(ctx context.Context, _ *Message) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}}
	client, _ := newConnPair(t, false, ConnOptions{CallTimeout: 30 * time.Millisecond, OnCancel: func(_ ID, cause error) { causes <- cause }}, ConnOptions{Handler: h})
	for _, tc := range []struct {
		name     string
		deadline time.Duration // 0: none
		max      time.Duration
	}{
		{"no deadline of its own", 0, 1500 * time.Millisecond},
		{"later deadline of its own", 3 * time.Second, 1500 * time.Millisecond},
		{"earlier deadline of its own", 5 * time.Millisecond, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			err := client.Call(ctx, "hang", nil, nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Call = %v, want deadline exceeded", err)
			}
			if d := time.Since(start); d > tc.max {
				t.Errorf("Call took %v", d)
			}
			if cause := recvTimeout(t, causes, "OnCancel"); !errors.Is(cause, context.DeadlineExceeded) {
				t.Errorf("OnCancel cause = %v", cause)
			}
		})
	}
}

type panickyResult struct{}

func (panickyResult) MarshalJSON() ([]byte, error) { panic("MarshalJSON exploded") }

func TestHandlerFailures(t *testing.T) {
	var nilErr *Error
	laneRan := make(chan string, 10)
	h := mux{
		"panic":       func(context.Context, *Message) (any, error) { panic("boom") },
		"panic-nil":   func(context.Context, *Message) (any, error) { panic(nil) },
		"panic-error": func(context.Context, *Message) (any, error) { panic(errors.New("an error value")) },
		"rpc-error": func(context.Context, *Message) (any, error) {
			return nil, NewError(-32042, "custom").WithData(map[string]any{"why": "because"})
		},
		"wrapped-error": func(context.Context, *Message) (any, error) {
			return nil, fmt.Errorf("context: %w", NewError(CodeInvalidParams, "bad param"))
		},
		"plain-error": func(context.Context, *Message) (any, error) { return nil, errors.New("disk on fire") },
		"typed-nil":   func(context.Context, *Message) (any, error) { return nil, nilErr },
		"unencodable": func(context.Context, *Message) (any, error) { return make(chan int), nil },
		"marshal-panic": func(context.Context, *Message) (any, error) {
			return panickyResult{}, nil
		},
		"nil-result": func(context.Context, *Message) (any, error) { return nil, nil },
		"note-panic": func(context.Context, *Message) (any, error) {
			laneRan <- "panicked"
			panic("in the lane")
		},
		"note": func(context.Context, *Message) (any, error) { laneRan <- "ok"; return nil, nil },
	}
	client, _ := newConnPair(t, true, ConnOptions{}, ConnOptions{Handler: h})
	ctx := context.Background()
	tests := []struct {
		method string
		code   int64
		msg    string // "" means any
		data   string
	}{
		{"panic", CodeInternalError, "", ""},
		{"panic-nil", CodeInternalError, "", ""},
		{"panic-error", CodeInternalError, "", ""},
		{"rpc-error", -32042, "custom", `{"why":"because"}`},
		{"wrapped-error", CodeInvalidParams, "bad param", ""},
		{"plain-error", CodeInternalError, "disk on fire", ""},
		{"typed-nil", CodeInternalError, "", ""},
		{"unencodable", CodeInternalError, "", ""},
		{"marshal-panic", CodeInternalError, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			err := client.Call(ctx, tt.method, nil, nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Call = %v, want *Error", err)
			}
			if e.Code != tt.code || (tt.msg != "" && e.Message != tt.msg) || string(e.Data) != tt.data {
				t.Errorf("error = %d %q %s; want %d %q %s", e.Code, e.Message, e.Data, tt.code, tt.msg, tt.data)
			}
			if e.Message == "" {
				t.Error("empty error message")
			}
			// The connection keeps working.
			var raw json.RawMessage
			if err := client.Call(ctx, "nil-result", nil, &raw); err != nil || string(raw) != "{}" {
				t.Errorf("after %s: %s, %v", tt.method, raw, err)
			}
		})
	}
	// A panicking notification handler does not stop the lane.
	_ = client.Notify(ctx, "note-panic", nil)
	_ = client.Notify(ctx, "note", nil)
	if a, b := recvTimeout(t, laneRan, "lane"), recvTimeout(t, laneRan, "lane"); a != "panicked" || b != "ok" {
		t.Errorf("lane ran %q, %q", a, b)
	}
}

func TestDuplicateID(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	refused6 := make(chan struct{}) // closed when the second id 6 of the batch is refused
	h := mux{"block": func(context.Context, *Message) (any, error) {
		started <- struct{}{}
		<-release
		return "done", nil
	}, "hold": func(context.Context, *Message) (any, error) {
		// Still in flight when the batch's second id 6 is dispatched:
		// once finished, the id could be used again.
		<-refused6
		return "done", nil
	}}
	onReject := func(m *Message, _ *Error) {
		if m.ID == Int64ID(6) {
			close(refused6)
		}
	}
	_, peer := newRawConn(t, ConnOptions{Handler: h, OnReject: onReject})
	peer.send(`{"jsonrpc":"2.0","id":5,"method":"block"}`)
	recvTimeout(t, started, "handler")
	// The refusal has id null: with id 5 it would answer the live request.
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"block"}`), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)
	// The same id as a string is a different id.
	peer.send(`{"jsonrpc":"2.0","id":"5","method":"block"}`)
	recvTimeout(t, started, "handler for string id")
	close(release)
	r1, r2 := peer.recv(), peer.recv()
	assertJSON(t, []byte("["+string(r1)+","+string(r2)+"]"), `[{"jsonrpc":"2.0","id":5,"result":"done"},{"jsonrpc":"2.0","id":"5","result":"done"}]`)
	// Once finished, an id may be used again.
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":5,"method":"block"}`), `{"jsonrpc":"2.0","id":5,"result":"done"}`)
	// Within one batch, the second use of an id is refused.
	peer.send(`[{"jsonrpc":"2.0","id":6,"method":"hold"},{"jsonrpc":"2.0","id":6,"method":"hold"}]`)
	assertJSON(t, peer.recv(), `[{"jsonrpc":"2.0","id":6,"result":"done"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}]`)
}
