package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// logRecorder is a slog.Handler that keeps every record, for tests that
// check what a Conn logs.
type logRecorder struct {
	mu     sync.Mutex
	recs   []string    // "LEVEL message key=value ..."
	warned chan string // if not nil, receives every Warn record too
}

func (*logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.recs = append(l.recs, b.String())
	l.mu.Unlock()
	if l.warned != nil && r.Level == slog.LevelWarn {
		l.warned <- b.String()
	}
	return nil
}

func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// warnings returns the Warn records logged so far.
func (l *logRecorder) warnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var w []string
	for _, r := range l.recs {
		if strings.HasPrefix(r, "WARN ") {
			w = append(w, r)
		}
	}
	return w
}

// rejection is one OnReject call.
type rejection struct {
	m   *Message
	err *Error
}

// rejectRecorder returns an OnReject hook that sends its calls on the
// returned channel, which holds up to n of them.
func rejectRecorder(n int) (func(*Message, *Error), chan rejection) {
	ch := make(chan rejection, n)
	return func(m *Message, err *Error) { ch <- rejection{m, err} }, ch
}

// TestNotificationFlood floods a Conn with notifications while its
// notification handler is blocked: the lane stays at its bound, the rest are
// dropped (counted, reported, logged once), memory does not grow with the
// flood, a Barrier notification still gets through, and once the handler is
// unblocked later notifications are handled again.
func TestNotificationFlood(t *testing.T) {
	f := newFlood(t)
	if got := f.c.opts.MaxQueuedNotifications; got != floodBound {
		t.Fatalf("default MaxQueuedNotifications = %d, want %d", got, floodBound)
	}
	f.push(NewNotification("block", nil))
	<-f.started
	f.flood()
	f.checkDropped()
	f.checkBarrier()
	f.checkDrained()
}

// The size of TestNotificationFlood's flood, and the lane's bound (the
// default MaxQueuedNotifications).
const (
	floodN      = 100_000
	floodBound  = 1024
	floodDrops  = floodN - floodBound
	floodMethod = "note"
)

// flood is the Conn of TestNotificationFlood and what its handler and
// OnReject saw.
type flood struct {
	t         *testing.T
	c         *Conn
	logs      *logRecorder
	release   chan struct{}
	started   chan struct{}
	cancelled chan string
	later     chan string
	notes     atomic.Int64
	rejected  atomic.Int64
	badReject atomic.Value
}

// newFlood returns a Conn on a push stream whose "block" notification
// blocks the lane until f.release is closed.
func newFlood(t *testing.T) *flood {
	f := &flood{t: t, logs: &logRecorder{}, release: make(chan struct{}), started: make(chan struct{}),
		cancelled: make(chan string, 1), later: make(chan string, 1)}
	h := HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		switch m.Method {
		case "block":
			close(f.started)
			<-f.release
		case floodMethod:
			f.notes.Add(1)
		case "cancel":
			f.cancelled <- string(m.Params)
		case "later":
			f.later <- string(m.Params)
		}
		return nil, nil
	})
	f.c = NewConn(newPushStream(), ConnOptions{
		Handler: h,
		Barrier: func(method string) bool { return method == "cancel" },
		Logger:  slog.New(f.logs),
		OnReject: func(m *Message, err *Error) {
			f.rejected.Add(1)
			if err != ErrNotificationDropped || m.Method != floodMethod {
				f.badReject.Store(fmt.Sprintf("OnReject(%s, %v)", describe(m), err))
			}
		},
	})
	return f
}

func (f *flood) push(m *Message) {
	f.t.Helper()
	if err := f.c.Push(m, InlineNever); err != nil {
		f.t.Fatal(err)
	}
}

// flood pushes floodN notifications at the blocked lane, checking that
// the lane never holds more than its bound and the heap does not grow
// with the flood.
func (f *flood) flood() {
	t, c := f.t, f.c
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	padding := strings.Repeat("x", 256)
	for i := range floodN {
		f.push(NewNotification(floodMethod, json.RawMessage(fmt.Sprintf(`[%d,%q]`, i, padding))))
		if q := c.Stats().QueuedNotifications; q > floodBound {
			t.Fatalf("after %d notifications, %d are queued; the bound is %d", i+1, q, floodBound)
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Holding the whole flood would take some 40 MB; the bound, about 0.5 MB.
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("the heap grew by %d bytes during the flood", grown)
	}
	c.mu.Lock()
	laneLen, laneCap := len(c.lane), cap(c.lane)
	c.mu.Unlock()
	if laneLen != floodBound || laneCap > 2*floodBound {
		t.Errorf("lane holds %d notifications in a slice of capacity %d; want %d, capacity at most %d", laneLen, laneCap, floodBound, 2*floodBound)
	}
}

// checkDropped checks that every notification past the bound was counted
// and reported to OnReject as dropped.
func (f *flood) checkDropped() {
	t := f.t
	st := f.c.Stats()
	if st.QueuedNotifications != floodBound || st.DroppedNotifications != floodDrops || st.Rejected != floodDrops {
		t.Errorf("Stats() = %+v, want %d queued, %d dropped and rejected", st, floodBound, floodDrops)
	}
	if got := f.rejected.Load(); got != floodDrops {
		t.Errorf("OnReject called %d times, want %d", got, floodDrops)
	}
	if bad := f.badReject.Load(); bad != nil {
		t.Errorf("unexpected %s", bad)
	}
}

// checkBarrier checks that a Barrier notification is handled on the
// pusher, lane full or not.
func (f *flood) checkBarrier() {
	t := f.t
	f.push(NewNotification("cancel", json.RawMessage(`[1]`)))
	select {
	case got := <-f.cancelled:
		if got != `[1]` {
			t.Errorf("cancel handled with %s", got)
		}
	default:
		t.Error("the Barrier notification was not handled while the lane was full")
	}
	if st := f.c.Stats(); st.DroppedNotifications != floodDrops {
		t.Errorf("after the Barrier notification, %d dropped, want %d", st.DroppedNotifications, floodDrops)
	}
}

// checkDrained unblocks the lane and checks that the queued notifications
// are handled, the next one is handled too (not dropped), and the drops
// were logged twice: once when dropping began, once with the count when
// the lane drained, not once per notification.
func (f *flood) checkDrained() {
	t, c := f.t, f.c
	close(f.release)
	awaitLaneIdle(t, c)
	if got := f.notes.Load(); got != floodBound {
		t.Errorf("%d notifications handled, want the %d queued", got, floodBound)
	}
	f.push(NewNotification("later", json.RawMessage(`[2]`)))
	if got := recvTimeout(t, f.later, "the notification after the flood"); got != `[2]` {
		t.Errorf("later handled with %s", got)
	}
	closeConn(t, c)
	if st := c.Stats(); st.DroppedNotifications != floodDrops || st.QueuedNotifications != 0 {
		t.Errorf("at the end Stats() = %+v", st)
	}
	w := f.logs.warnings()
	if len(w) != 2 || !strings.Contains(w[0], "lane full") || !strings.Contains(w[1], fmt.Sprintf("dropped=%d", floodDrops)) {
		t.Errorf("warnings logged:\n%s", strings.Join(w, "\n"))
	}
}

// TestNotificationBurstsLogged checks that each burst of drops is logged
// anew once the lane drained in between, and that a small bound is honoured.
func TestNotificationBurstsLogged(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		if m.Method == "block" {
			started <- struct{}{}
			<-release
		}
		return nil, nil
	})
	logs := &logRecorder{warned: make(chan string, 4)}
	s := newPushStream()
	c := NewConn(s, ConnOptions{Handler: h, MaxQueuedNotifications: 2, Logger: slog.New(logs)})
	defer closeConn(t, c)
	for burst := 1; burst <= 2; burst++ {
		if err := c.Push(NewNotification("block", nil), InlineNever); err != nil {
			t.Fatal(err)
		}
		<-started
		for range 5 { // 2 queued, 3 dropped
			if err := c.Push(NewNotification("note", nil), InlineNever); err != nil {
				t.Fatal(err)
			}
		}
		if w := recvTimeout(t, logs.warned, "the first drop's warning"); !strings.Contains(w, "lane full") {
			t.Errorf("burst %d: first warning %q", burst, w)
		}
		release <- struct{}{}
		// The count is logged as the lane goroutine finds the lane empty
		// and exits, ending the burst.
		if w := recvTimeout(t, logs.warned, "the drain warning"); !strings.Contains(w, "dropped=3") {
			t.Errorf("burst %d: drain warning %q", burst, w)
		}
		if st := c.Stats(); st.DroppedNotifications != uint64(3*burst) || st.QueuedNotifications != 0 {
			t.Fatalf("after burst %d, Stats() = %+v", burst, st)
		}
	}
	if w := logs.warnings(); len(w) != 4 {
		t.Errorf("warnings logged:\n%s", strings.Join(w, "\n"))
	}
}

// TestMalformedResponse checks that a malformed response carrying the id of
// a pending call is dropped: no reply goes back, the call keeps waiting, and
// OnReject and the log see it. The valid response that follows completes the
// call.
func TestMalformedResponse(t *testing.T) {
	onReject, rejects := rejectRecorder(4)
	logs := &logRecorder{}
	c, peer := newRawConn(t, ConnOptions{Handler: mux{}, OnReject: onReject, Logger: slog.New(logs)})
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		var s string
		err := c.Call(context.Background(), "ask", nil, &s)
		done <- result{s, err}
	}()
	req := Decode(peer.recv())
	id := string(req.ID.AppendJSON(nil))
	bad := []string{
		`{"jsonrpc":"2.0","id":` + id + `,"result":"a","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":"1","message":"m"}}`,
		`[{"jsonrpc":"2.0","id":` + id + `,"error":"boom"}]`,
	}
	for _, b := range bad {
		peer.send(b)
	}
	peer.assertAlive() // a reply to a malformed response would come first
	for _, b := range bad {
		r := recvTimeout(t, rejects, "OnReject")
		m := r.m
		if m.Batch != nil {
			m = m.Batch[0]
		}
		if !m.IsInvalidResponse() || m.ID != req.ID || r.err != m.Invalid || r.err.Code != CodeInvalidRequest {
			t.Errorf("for %s: OnReject(%s, %v)", b, describe(r.m), r.err)
		}
	}
	select {
	case r := <-done:
		t.Fatalf("the call ended on a malformed response: %q, %v", r.s, r.err)
	default:
	}
	peer.send(`{"jsonrpc":"2.0","id":` + id + `,"result":"fine"}`)
	if r := recvTimeout(t, done, "the call"); r.err != nil || r.s != "fine" {
		t.Errorf("Call = %q, %v", r.s, r.err)
	}
	if got := c.Stats().Rejected; got != uint64(len(bad)) {
		t.Errorf("Stats().Rejected = %d, want %d", got, len(bad))
	}
	w := logs.warnings()
	if len(w) != len(bad) || !strings.Contains(w[0], "malformed response") {
		t.Errorf("warnings logged:\n%s", strings.Join(w, "\n"))
	}
}

// TestOnReject checks the refusals OnReject reports besides invalid messages
// (TestStrictness covers those): overload, an id in use, responses for no
// call, inside a batch too, and that the Handler sees none of them.
func TestOnReject(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var calls atomic.Int32
	h := mux{"block": func(context.Context, *Message) (any, error) {
		calls.Add(1)
		started <- struct{}{}
		<-release
		return "ok", nil
	}}
	onReject, rejects := rejectRecorder(16)
	c, peer := newRawConn(t, ConnOptions{Handler: h, MaxConcurrency: 1, MaxQueued: 1, OnReject: onReject})
	expect := func(what string, id ID, code int64) {
		t.Helper()
		r := recvTimeout(t, rejects, what)
		if r.m.ID != id || r.err == nil || r.err.Code != code {
			t.Errorf("%s: OnReject(%s, %v), want id %v and code %d", what, describe(r.m), r.err, id, code)
		}
	}

	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`) // queued
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"block"}`), `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x"}}`)
	expect("overload", Int64ID(3), CodeServerOverloaded)
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"block"}`), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)
	expect("id in use", Int64ID(2), CodeInvalidRequest)

	// Responses no call waits for get no reply, and are reported.
	peer.send(`{"jsonrpc":"2.0","id":77,"result":{}}`)
	peer.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`)
	for _, id := range []ID{Int64ID(77), {}} {
		r := recvTimeout(t, rejects, "unknown response")
		if r.m.ID != id || r.err != ErrUnknownResponse {
			t.Errorf("OnReject(%s, %v), want id %v and ErrUnknownResponse", describe(r.m), r.err, id)
		}
	}

	// In a batch: one reply holding the refusals, each reported.
	peer.send(`[{"jsonrpc":"2.0","id":4,"method":"block"},{"jsonrpc":"2.0","id":1,"method":"block"},{"jsonrpc":"2.0","id":78,"result":1},7]`)
	assertJSON(t, peer.recv(), `[
		{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"x"}},
		{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}},
		{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}
	]`)
	expect("batched overload", Int64ID(4), CodeServerOverloaded)
	expect("batched id in use", Int64ID(1), CodeInvalidRequest)
	if r := recvTimeout(t, rejects, "batched unknown response"); r.m.ID != Int64ID(78) || r.err != ErrUnknownResponse {
		t.Errorf("OnReject(%s, %v), want id 78 and ErrUnknownResponse", describe(r.m), r.err)
	}
	expect("batched invalid element", ID{}, CodeInvalidRequest)

	close(release)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"ok"}`)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":2,"result":"ok"}`)
	if n := calls.Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2", n)
	}
	if len(rejects) != 0 {
		t.Errorf("%d more OnReject calls", len(rejects))
	}
	if st := c.Stats(); st.Rejected != 8 || st.DroppedNotifications != 0 {
		t.Errorf("Stats() = %+v, want 8 rejected, none dropped", st)
	}
}

// TestPushInlineDuplicateRejected checks that a request pushed to run
// inline whose id is in use is refused, and reported, like the reader's.
func TestPushInlineDuplicateRejected(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	onReject, rejects := rejectRecorder(1)
	s := newPushStream()
	c := NewConn(s, ConnOptions{
		Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
			close(started)
			<-release
			return "ok", nil
		}),
		OnReject: onReject,
	})
	if err := c.Push(NewRequest(Int64ID(1), "slow", nil), InlineNever); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := c.Push(NewRequest(Int64ID(1), "slow", nil), InlineWhenFree); err != nil {
		t.Fatal(err)
	}
	if r := <-s.replies; !r.ID.IsZero() || r.Error == nil || r.Error.Code != CodeInvalidRequest {
		t.Fatalf("reply = %s, want an invalid request error with id null", describe(r))
	}
	if r := recvTimeout(t, rejects, "OnReject"); r.m.ID != Int64ID(1) || r.err.Code != CodeInvalidRequest {
		t.Errorf("OnReject(%s, %v)", describe(r.m), r.err)
	}
	close(release)
	if r := <-s.replies; string(r.Result) != `"ok"` {
		t.Errorf("reply = %s", describe(r))
	}
	closeConn(t, c)
	if got := c.Stats().Rejected; got != 1 {
		t.Errorf("Stats().Rejected = %d, want 1", got)
	}
}

// TestBatchesOption checks that Batches can refuse a batch whole: one error
// response with a null id, nothing dispatched, OnReject told; and that a
// batch it allows is dispatched as usual.
func TestBatchesOption(t *testing.T) {
	var refuse atomic.Bool
	refusal := NewError(CodeInvalidRequest, "batches are not supported in this protocol revision")
	srv := &specServer{}
	var calls atomic.Int32
	h := HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
		calls.Add(1)
		return srv.Handle(ctx, m)
	})
	onReject, rejects := rejectRecorder(4)
	c, peer := newRawConn(t, ConnOptions{
		Handler:  h,
		OnReject: onReject,
		Batches: func() *Error {
			if refuse.Load() {
				return refusal
			}
			return nil
		},
	})
	batch := `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},{"jsonrpc":"2.0","method":"update","params":[1]}]`
	assertJSON(t, peer.roundTrip(batch), `[{"jsonrpc":"2.0","id":1,"result":3}]`)
	awaitLaneIdle(t, c) // "update" has been handled

	refuse.Store(true)
	calls.Store(0)
	for _, b := range []string{batch, `[{"jsonrpc":"2.0","method":"update"}]`} {
		reply := Decode(peer.roundTrip(b))
		if reply.Batch != nil || !reply.ID.IsZero() || reply.Error == nil || reply.Error.Code != refusal.Code || reply.Error.Message != refusal.Message {
			t.Errorf("reply to a refused batch = %s", describe(reply))
		}
		r := recvTimeout(t, rejects, "OnReject")
		if r.m.Batch == nil || r.err != refusal {
			t.Errorf("OnReject(%s, %v), want the batch and the refusal", describe(r.m), r.err)
		}
	}
	// Single messages are not batches.
	peer.assertAlive()
	if n := calls.Load(); n != 1 {
		t.Errorf("the handler ran %d times after batches were refused, want 1 (the ping)", n)
	}
	if st := c.Stats(); st.Rejected != 2 {
		t.Errorf("Stats().Rejected = %d, want 2", st.Rejected)
	}
	if len(rejects) != 0 {
		t.Errorf("%d more OnReject calls", len(rejects))
	}
}
