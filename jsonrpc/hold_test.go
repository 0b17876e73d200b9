package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// holdStream is a Buffered HoldingStream that delivers a fixed list of
// messages, reports how many remain as buffered, and records how answers
// are written. When the list is empty, Read waits for end (it does not
// flush by itself, so flushes seen are the Conn's).
type holdStream struct {
	mu     sync.Mutex
	in     []*Message
	events []string
	end    chan struct{}
	flush  chan struct{} // signalled on each FlushHeld
	idle   chan struct{} // if not nil, signalled when Read finds the list empty
	start  chan struct{} // if not nil, Read waits for it to close first
}

func newHoldStream(msgs ...*Message) *holdStream {
	return &holdStream{in: msgs, end: make(chan struct{}), flush: make(chan struct{}, 16)}
}

func (s *holdStream) Read(ctx context.Context) (*Message, error) {
	if s.start != nil {
		select {
		case <-s.start:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	if len(s.in) > 0 {
		m := s.in[0]
		s.in = s.in[1:]
		s.mu.Unlock()
		return m, nil
	}
	s.mu.Unlock()
	if s.idle != nil {
		select {
		case s.idle <- struct{}{}:
		default:
		}
	}
	select {
	case <-s.end:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *holdStream) Buffered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.in)
}

// MessageWaiting implements MessageBuffer: its input is whole messages.
func (s *holdStream) MessageWaiting() bool { return s.Buffered() > 0 }

func (s *holdStream) record(e string) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *holdStream) Write(_ context.Context, m *Message) error {
	s.record("write " + m.ID.String())
	return nil
}

func (s *holdStream) WriteHeld(_ context.Context, m *Message) error {
	s.record("held " + m.ID.String())
	return nil
}

func (s *holdStream) FlushHeld() error {
	s.record("flush")
	s.flush <- struct{}{}
	return nil
}

func (s *holdStream) Close() error { return nil }

func (s *holdStream) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// TestConnHoldsPipelinedAnswers: requests read with more input behind them
// run on the reader and their answers are held; the last of the run is
// written at once (taking the held ones with it, in the stream).
func TestConnHoldsPipelinedAnswers(t *testing.T) {
	var msgs []*Message
	for i := int64(1); i <= 3; i++ {
		msgs = append(msgs, NewRequest(Int64ID(i), "x", nil))
	}
	s := newHoldStream(msgs...)
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		return json.RawMessage(`1`), nil
	})})
	deadline := time.Now().Add(5 * time.Second)
	for len(s.log()) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// A handover (a handler slower than the budget on a loaded machine)
	// may add flushes and move the rest to workers; the answers are all
	// there, and the last one read is never held.
	got := s.log()
	var answers []string
	for _, e := range got {
		if e != "flush" {
			answers = append(answers, e)
		}
	}
	if len(answers) != 3 || slices.Contains(got, "held 3") {
		t.Fatalf("events %q", got)
	}
	if !slices.Contains(got, "flush") && fmt.Sprint(got) != fmt.Sprint([]string{"held 1", "held 2", "write 3"}) {
		t.Fatalf("events %q, want held 1, held 2, write 3", got)
	}
}

// TestConnFlushesHeldOnTakeover: when a request run on the reader blocks,
// the goroutine that takes over reading first sends the answers held for
// the requests before it, while the blocked one still runs.
func TestConnFlushesHeldOnTakeover(t *testing.T) {
	release := make(chan struct{})
	s := newHoldStream(NewRequest(Int64ID(1), "fast", nil), NewRequest(Int64ID(2), "block", nil),
		NewRequest(Int64ID(3), "fast", nil))
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		if m.Method == "block" {
			<-release
		}
		return json.RawMessage(`1`), nil
	})})
	select {
	case <-s.flush:
	case <-time.After(5 * time.Second):
		t.Fatalf("no flush while a handler blocked the reader; events %q", s.log())
	}
	got := strings.Join(s.log(), ",")
	if !strings.HasPrefix(got, "held 1,flush") {
		t.Fatalf("events %q, want held 1 then flush", got)
	}
	close(release)
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// The blocked request's answer, held after reading moved on, is sent.
	got = strings.Join(s.log(), ",")
	if i := strings.Index(got, "held 2"); i < 0 || !strings.Contains(got[i:], "flush") {
		t.Fatalf("events %q: the answer to 2 was left held", got)
	}
}

// TestConnInlineNever: with ConnOptions.Inline InlineNever, the reader of a
// Buffered stream runs no request itself: every answer comes from a
// worker, written at once, none held.
func TestConnInlineNever(t *testing.T) {
	var msgs []*Message
	for i := int64(1); i <= 3; i++ {
		msgs = append(msgs, NewRequest(Int64ID(i), "x", nil))
	}
	s := newHoldStream(msgs...)
	c := NewConn(s, ConnOptions{Inline: InlineNever, Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		return json.RawMessage(`1`), nil
	})})
	deadline := time.Now().Add(5 * time.Second)
	for len(s.log()) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	got := s.log()
	slices.Sort(got)
	if fmt.Sprint(got) != fmt.Sprint([]string{"write 1", "write 2", "write 3"}) {
		t.Fatalf("events %q, want three answers written by workers", got)
	}
}

// TestConnQueuesBehindInline: a request read while the only worker slot
// is taken by a request the reader ran itself (and handed reading over)
// is queued once, and answered once the slot frees: not also refused as
// a duplicate of itself.
func TestConnQueuesBehindInline(t *testing.T) {
	release := make(chan struct{})
	s := newHoldStream(NewRequest(Int64ID(1), "block", nil), NewRequest(Int64ID(2), "fast", nil))
	s.idle = make(chan struct{}, 1)
	onReject, rejects := rejectRecorder(4)
	c := NewConn(s, ConnOptions{MaxConcurrency: 1, OnReject: onReject, Handler: HandlerFunc(func(_ context.Context, m *Message) (any, error) {
		if m.Method == "block" {
			<-release
		}
		return json.RawMessage(`1`), nil
	})})
	select {
	case <-s.idle: // both read: 2 was dispatched behind 1
	case <-time.After(5 * time.Second):
		t.Fatal("the reader did not read past the blocked request")
	}
	close(release)
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	got := s.log()
	var answers []string
	for _, e := range got {
		if e != "flush" {
			answers = append(answers, strings.Fields(e)[1])
		}
	}
	slices.Sort(answers)
	if fmt.Sprint(answers) != "[1 2]" {
		t.Errorf("events %q, want one answer to each request", got)
	}
	if len(rejects) != 0 || c.Stats().Rejected != 0 {
		r := <-rejects
		t.Errorf("OnReject(%s, %v): the queued request was refused too", describe(r.m), r.err)
	}
}

// TestPushOnReaderStream: a request pushed to a Conn that has a reader
// runs on the pushing goroutine as on a PushStream, without the reader's
// hand-off, which would start a second reader.
func TestPushOnReaderStream(t *testing.T) {
	s := newHoldStream()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		time.Sleep(2 * inlineBudget) // past the reader's budget
		return json.RawMessage(`1`), nil
	})})
	if err := c.Push(NewRequest(Int64ID(1), "slow", nil), InlineWhenFree); err != nil {
		t.Fatal(err)
	}
	if got := s.log(); fmt.Sprint(got) != "[write 1]" {
		t.Errorf("events %q, want the answer written before Push returned", got)
	}
	if st := c.inline.Load(); st != inlineIdle {
		t.Errorf("inline state %d after Push: the reader's hand-off ran", st)
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestConnReadsWhileCallWaits: a request run on the reader whose handler
// calls another Conn (a gateway forwarding it) hands reading over at once
// when requests wait behind it (handOff), so the next request is read and
// dispatched while the call waits. The watch timer, which would hand
// reading over too after its budget, is kept from ever being armed, so
// only the hand-off can: without it, the first request's call waits for
// the second request's handler, which is never read, and the test fails.
func TestConnReadsWhileCallWaits(t *testing.T) {
	second := make(chan struct{}) // closed when request 2's handler runs
	giveUp := make(chan struct{})
	up, _ := newConnPair(t, false, ConnOptions{}, ConnOptions{Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		select {
		case <-second:
			return json.RawMessage(`2`), nil
		case <-giveUp:
			return nil, fmt.Errorf("gave up")
		}
	})})
	s := newHoldStream(NewRequest(Int64ID(1), "forward", nil), NewRequest(Int64ID(2), "local", nil))
	s.start = make(chan struct{})
	go func() { // every hand-over flushes
		for range s.flush {
		}
	}()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
		if m.Method == "local" {
			close(second)
			return json.RawMessage(`1`), nil
		}
		return up.CallRaw(ctx, "up", nil)
	})})
	// Nothing is read before start closes: the watch stays unarmed (runInline
	// arms it only when watchArmed was false), and no run stops it.
	c.watchArmed.Store(true)
	c.watchEachRun = false
	close(s.start)
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		close(giveUp)
		t.Error("request 2 was not read while request 1's call to another Conn waited")
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	close(s.flush)
}

// TestConnHandsOffToCalls: many requests run on the reader whose handlers
// call another Conn, with requests waiting behind them: reading is handed
// over again and again, readers that handed it over stand by to read
// again (standBy, up to maxSpares of them), every request is answered, and
// Wait returns once the stream ends with no goroutine left (goleak), the
// spares included. (That reading goes on while a call waits is
// TestConnReadsWhileCallWaits.)
func TestConnHandsOffToCalls(t *testing.T) {
	up, _ := newConnPair(t, false, ConnOptions{}, ConnOptions{Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		return json.RawMessage(`2`), nil
	})})
	const n = 200
	var msgs []*Message
	for i := int64(1); i <= n; i++ {
		msgs = append(msgs, NewRequest(Int64ID(i), "forward", nil))
	}
	s := newHoldStream(msgs...)
	drained := make(chan struct{})
	defer func() { <-drained }()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // every hand-over flushes
		defer close(drained)
		for {
			select {
			case <-s.flush:
			case <-stop:
				return
			}
		}
	}()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, _ *Message) (any, error) {
		return up.CallRaw(ctx, "up", nil)
	})})
	deadline := time.Now().Add(10 * time.Second)
	answered := func() int {
		k := 0
		for _, e := range s.log() {
			if e != "flush" {
				k++
			}
		}
		return k
	}
	for answered() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if k := answered(); k != n {
		t.Fatalf("%d of %d requests answered", k, n)
	}
}

// TestConnKeepsSpares: readers that handed reading over to calls made
// together stand by to read again, all of them up to maxSpares, so that
// the next hand-overs wake them rather than start goroutines whose stacks
// grow again (with one spare, a gateway at 32 in flight started a
// goroutine for about every other call).
func TestConnKeepsSpares(t *testing.T) {
	const n = 4
	var arrived sync.WaitGroup
	arrived.Add(n)
	up, _ := newConnPair(t, false, ConnOptions{}, ConnOptions{MaxConcurrency: 2 * n, Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
		arrived.Done()
		arrived.Wait() // all n calls wait at once
		return json.RawMessage(`2`), nil
	})})
	var msgs []*Message
	for i := int64(1); i <= n; i++ {
		msgs = append(msgs, NewRequest(Int64ID(i), "forward", nil))
	}
	s := newHoldStream(msgs...)
	go func() { // every hand-over flushes
		for range s.flush {
		}
	}()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, _ *Message) (any, error) {
		return up.CallRaw(ctx, "up", nil)
	})})
	spares := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.idleSpares
	}
	deadline := time.Now().Add(10 * time.Second)
	for spares() < n-1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if k := spares(); k < n-1 {
		t.Errorf("%d readers stand by after %d calls that handed reading over ended, want at least %d", k, n, n-1)
	}
	close(s.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	close(s.flush)
}
