package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// gateWriter records every Write call; the first one blocks until open is
// closed, and then fails with err if err is set, as a peer that reads
// slowly (or is gone) would make it.
type gateWriter struct {
	open    chan struct{}
	once    sync.Once
	entered chan struct{} // closed when the first Write starts
	err     error

	mu    sync.Mutex
	calls [][]byte
}

// newGateWriter returns a gateWriter that opens at the end of the test
// at the latest, so that a failing test does not leave writers blocked.
func newGateWriter(t *testing.T, err error) *gateWriter {
	w := &gateWriter{open: make(chan struct{}), entered: make(chan struct{}), err: err}
	t.Cleanup(w.release)
	return w
}

// release lets the first Write return.
func (w *gateWriter) release() { w.once.Do(func() { close(w.open) }) }

func (w *gateWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	first := len(w.calls) == 0
	w.calls = append(w.calls, bytes.Clone(p))
	w.mu.Unlock()
	if first {
		close(w.entered)
		<-w.open
		if w.err != nil {
			return 0, w.err
		}
	}
	return len(p), nil
}

func (w *gateWriter) writes() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls
}

// queuedLen is how many bytes wait for the goroutine writing; 0 while the
// lock is taken (it must not be held during a write).
func queuedLen(s *lineStream) int {
	if !s.wmu.TryLock() {
		return 0
	}
	defer s.wmu.Unlock()
	return len(s.queued)
}

// waitQueued waits until at least n bytes are queued.
func waitQueued(t *testing.T, s *lineStream, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); queuedLen(s) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes queued, want at least %d", queuedLen(s), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func note(g, i int, pad string) *jsonrpc.Message {
	return jsonrpc.NewNotification("n", json.RawMessage(fmt.Sprintf(`{"g":%d,"i":%d,"pad":%q}`, g, i, pad)))
}

// TestLineStreamCoalescesWrites: lines written while another goroutine's
// write is in progress go out together in one write once it ends, none
// lost, none reordered (each writer's lines in the order it wrote them),
// and each Write returns only once its own line is written.
func TestLineStreamCoalescesWrites(t *testing.T) {
	w := newGateWriter(t, nil)
	s := newLineStream(strings.NewReader(""), w, nil, nil, readBufferSize)
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- s.Write(ctx, note(0, 0, "")) }()
	<-w.entered
	const writers = 4
	var wg sync.WaitGroup
	returned := make(chan struct{}, writers)
	for g := 1; g <= writers; g++ {
		wg.Go(func() {
			if err := s.Write(ctx, note(g, 0, "")); err != nil {
				t.Error(err)
			}
			returned <- struct{}{}
		})
	}
	line := len(appendLineOf(t, note(1, 0, "")))
	waitQueued(t, s, writers*line)
	select {
	case <-returned:
		t.Fatal("a Write returned before its line was written")
	case <-time.After(20 * time.Millisecond):
	}
	w.release()
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	calls := w.writes()
	if len(calls) != 2 {
		t.Fatalf("%d writes, want 2 (the first line, then the %d queued behind it together)", len(calls), writers)
	}
	if n := bytes.Count(calls[1], []byte("\n")); n != writers {
		t.Fatalf("the second write holds %d lines, want %d", n, writers)
	}
	checkLines(t, bytes.Join(calls, nil), writers+1)
}

// TestLineStreamCoalescedOrder: many writers at once against a writer
// that yields inside every call; every line arrives whole, once, and in
// each writer's own order.
func TestLineStreamCoalescedOrder(t *testing.T) {
	var w trickleWriter
	s := NewLineStream(strings.NewReader(""), &w, nil, nil)
	const writers, each = 8, 60
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				if err := s.Write(context.Background(), note(g, i, strings.Repeat("z", (g*each+i)%97))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkLines(t, w.buf, writers*each)
}

// TestLineStreamQueueBound: while the peer does not read, the lines queued
// behind the blocked write stay within maxHeld (and one line): the writers
// beyond it wait, as they would for a lock, and all their lines go out, in
// order, once the peer reads again.
func TestLineStreamQueueBound(t *testing.T) {
	w := newGateWriter(t, nil)
	s := newLineStream(strings.NewReader(""), w, nil, nil, readBufferSize)
	ctx := context.Background()
	go func() { _ = s.Write(ctx, note(0, 0, "")) }()
	<-w.entered
	pad := strings.Repeat("x", 1000)
	const writers, each = 48, 2 // about 96 KB, 48 KB at once: more than maxHeld
	var wg sync.WaitGroup
	for g := 1; g <= writers; g++ {
		wg.Go(func() {
			for i := range each {
				if err := s.Write(ctx, note(g, i, pad)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	waitQueued(t, s, maxHeld-1100)
	time.Sleep(20 * time.Millisecond) // the other writers arrive, and must wait
	if n := queuedLen(s); n > maxHeld+1100 {
		t.Fatalf("%d bytes queued behind a blocked write, want at most about %d", n, maxHeld)
	}
	w.release()
	wg.Wait()
	calls := w.writes()
	checkLines(t, bytes.Join(calls, nil), writers*each+1)
	if len(calls) >= writers*each {
		t.Errorf("%d writes for %d lines: nothing was coalesced", len(calls), writers*each+1)
	}
}

// TestLineStreamCoalescedError: when the write in progress fails, the
// lines queued behind it are not written and their Writes report the
// error, as does every later Write: a line may have been cut short.
func TestLineStreamCoalescedError(t *testing.T) {
	boom := errors.New("boom")
	w := newGateWriter(t, boom)
	s := newLineStream(strings.NewReader(""), w, nil, nil, readBufferSize)
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- s.Write(ctx, note(0, 0, "")) }()
	<-w.entered
	queued := make(chan error, 1)
	go func() { queued <- s.Write(ctx, note(1, 0, "")) }()
	waitQueued(t, s, 1)
	w.release()
	for _, ch := range []chan error{first, queued} {
		if err := <-ch; !errors.Is(err, boom) {
			t.Fatalf("err %v, want %v", err, boom)
		}
	}
	if err := s.Write(ctx, note(2, 0, "")); !errors.Is(err, boom) {
		t.Fatalf("a later Write: err %v, want %v", err, boom)
	}
	if n := len(w.writes()); n != 1 {
		t.Fatalf("%d writes, want 1 (nothing after the failed one)", n)
	}
}

// appendLineOf is m as one line.
func appendLineOf(t *testing.T, m *jsonrpc.Message) []byte {
	t.Helper()
	b, err := appendLine(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkLines reads out as lines of note messages: want of them, whole,
// each once, each writer's (g) in the order of its i.
func checkLines(t *testing.T, out []byte, want int) {
	t.Helper()
	r := NewLineStream(bytes.NewReader(out), nil, nil, nil)
	next := map[int]int{}
	n := 0
	for {
		m, err := r.Read(context.Background())
		if err != nil {
			break
		}
		if m.Invalid != nil {
			t.Fatalf("torn line: %v", m.Invalid)
		}
		var p struct{ G, I int }
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.I != next[p.G] {
			t.Fatalf("writer %d: line %d, want %d (lost or reordered)", p.G, p.I, next[p.G])
		}
		next[p.G]++
		n++
	}
	if n != want {
		t.Fatalf("%d lines, want %d", n, want)
	}
}
