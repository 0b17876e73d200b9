package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// upStream is the stream of a Conn to an upstream peer that answers every
// request with its id, and can hold lines (HoldingStream): it records each
// write system call it would make (the ids that go out together) and
// answers what went out. failFlush makes FlushHeld fail, sending nothing.
type upStream struct {
	mu        sync.Mutex
	held      []ID
	writes    [][]ID
	answers   chan *Message
	failFlush bool
	closed    chan struct{}
	closeOnce sync.Once
}

func newUpStream() *upStream {
	return &upStream{answers: make(chan *Message, 1024), closed: make(chan struct{})}
}

func (s *upStream) Read(ctx context.Context) (*Message, error) {
	select {
	case m := <-s.answers:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// send records one write of ids (the lines held, then m's) and answers them.
func (s *upStream) send(ids []ID) {
	s.writes = append(s.writes, ids)
	for _, id := range ids {
		s.answers <- &Message{ID: id, Result: json.RawMessage(`"` + id.String() + `"`)}
	}
}

func (s *upStream) Write(_ context.Context, m *Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := append(s.held, m.ID)
	s.held = nil
	s.send(ids)
	return nil
}

func (s *upStream) WriteHeld(_ context.Context, m *Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = append(s.held, m.ID)
	return nil
}

func (s *upStream) FlushHeld() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 {
		return nil
	}
	if s.failFlush {
		s.held = nil
		return errors.New("broken pipe")
	}
	ids := s.held
	s.held = nil
	s.send(ids)
	return nil
}

func (s *upStream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

func (s *upStream) log() [][]ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]ID(nil), s.writes...)
}

// forwardAll runs a Conn whose n requests "forward" (read together, as from
// one read) each call up, followed by one request it answers itself: the
// handlers' calls hand reading over at once, and the requests they forward
// are held in up's stream while more requests wait, to go out together.
// It returns every answer the Conn wrote, by id.
func forwardAll(t *testing.T, n int, s *upStream) map[string]string {
	t.Helper()
	up := NewConn(s, ConnOptions{})
	t.Cleanup(func() { closeConn(t, up) })
	var msgs []*Message
	for i := int64(1); i <= int64(n); i++ {
		msgs = append(msgs, NewRequest(Int64ID(i), "forward", nil))
	}
	msgs = append(msgs, NewRequest(Int64ID(int64(n+1)), "local", nil))
	down := &answerStream{holdStream: newHoldStream(msgs...), got: map[string]string{}}
	go func() {
		for range down.flush {
		}
	}()
	c := NewConn(down, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
		if m.Method == "local" {
			return "local", nil
		}
		return up.CallRaw(ctx, "up", nil)
	})})
	deadline := time.Now().Add(5 * time.Second)
	for down.answered() < n+1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if k := down.answered(); k < n+1 {
		// Ending the input would send what is held: too late.
		t.Errorf("%d of %d requests answered while the reader waited for input", k, n+1)
		_ = s.Close() // the calls still waiting end with the upstream
	}
	close(down.end)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	close(down.flush)
	return down.answers()
}

// answerStream is a holdStream that keeps the answers written.
type answerStream struct {
	*holdStream
	amu sync.Mutex
	got map[string]string
}

func (s *answerStream) keep(m *Message) {
	s.amu.Lock()
	defer s.amu.Unlock()
	if m.Error != nil {
		s.got[m.ID.String()] = "error: " + m.Error.Message
		return
	}
	s.got[m.ID.String()] = string(m.Result)
}

func (s *answerStream) Write(ctx context.Context, m *Message) error {
	s.keep(m)
	return s.holdStream.Write(ctx, m)
}

func (s *answerStream) WriteHeld(ctx context.Context, m *Message) error {
	s.keep(m)
	return s.holdStream.WriteHeld(ctx, m)
}

func (s *answerStream) answered() int {
	s.amu.Lock()
	defer s.amu.Unlock()
	return len(s.got)
}

func (s *answerStream) answers() map[string]string {
	s.amu.Lock()
	defer s.amu.Unlock()
	return s.got
}

// TestConnHoldsForwardedRequests: requests read together whose handlers
// each call another Conn go out to it in fewer writes than requests, the
// last ones when the reader has read everything that waited (the request
// after them calls no one: nothing else would send them), and every
// request gets its own answer.
func TestConnHoldsForwardedRequests(t *testing.T) {
	const n = 16
	s := newUpStream()
	got := forwardAll(t, n, s)
	for i := 1; i <= n; i++ {
		id := fmt.Sprint(i)
		if got[id] == "" || strings.HasPrefix(got[id], "error") {
			t.Errorf("request %s: answer %q", id, got[id])
		}
	}
	if got[fmt.Sprint(n+1)] != `"local"` {
		t.Errorf("the local request: answer %q", got[fmt.Sprint(n+1)])
	}
	writes, lines := s.log(), 0
	for _, w := range writes {
		lines += len(w)
	}
	if lines != n {
		t.Errorf("%d requests went upstream, want %d: %v", lines, n, writes)
	}
	// A hand-over by the watch timer (a handler slower than its budget on
	// a loaded machine) may write some at once; most go out together.
	if len(writes) > n/2 {
		t.Errorf("%d requests went upstream in %d writes: %v", n, len(writes), writes)
	}
}

// TestConnForwardedFlushFails: when the held requests cannot be written,
// each call that held one fails with the error, as it would have had it
// written its line itself, rather than waiting for an answer.
func TestConnForwardedFlushFails(t *testing.T) {
	const n = 8
	s := newUpStream()
	s.failFlush = true
	got := forwardAll(t, n, s)
	failed := 0
	for i := 1; i <= n; i++ {
		a := got[fmt.Sprint(i)]
		if a == "" {
			t.Errorf("request %d: no answer", i)
		}
		if strings.Contains(a, "broken pipe") {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("no call failed with the flush's error: %v", got)
	}
}
