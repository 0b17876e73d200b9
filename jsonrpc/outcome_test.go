package jsonrpc

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptStream is a Stream whose writes are answered by a function of the
// test: it returns the write's error and the messages the peer sends back.
type scriptStream struct {
	write  func(m *Message) ([]*Message, error)
	in     chan *Message
	closed chan struct{}
	once   sync.Once
}

func newScriptStream(write func(m *Message) ([]*Message, error)) *scriptStream {
	return &scriptStream{write: write, in: make(chan *Message, 16), closed: make(chan struct{})}
}

func (s *scriptStream) Read(ctx context.Context) (*Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *scriptStream) Write(_ context.Context, m *Message) error {
	back, err := s.write(m)
	for _, b := range back {
		s.in <- b
	}
	return err
}

func (s *scriptStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// TestCallOutcome: every failed call says whether its request may have
// reached the peer, and still matches its cause.
func TestCallOutcome(t *testing.T) {
	refused := errors.New("connection refused")
	c := NewConn(newScriptStream(func(m *Message) ([]*Message, error) {
		switch m.Method {
		case "refused":
			return nil, NotSent(refused)
		case "broken":
			return nil, errors.New("connection reset")
		case "cut":
			return []*Message{FailedResponse(m.ID, errors.New("stream cut"))}, nil
		case "error":
			return []*Message{NewErrorResponse(m.ID, NewError(CodeInvalidParams, "no"))}, nil
		}
		return nil, nil // "silent": never answered
	}), ConnOptions{})
	defer closeConn(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	for _, tc := range []struct {
		method      string
		kind, cause error
	}{
		{"refused", ErrNotSent, refused},
		{"broken", ErrOutcomeUnknown, nil},
		{"cut", ErrOutcomeUnknown, nil},
		{"silent", ErrOutcomeUnknown, context.DeadlineExceeded},
	} {
		err := c.Call(ctx, tc.method, nil, nil)
		if !errors.Is(err, tc.kind) || (tc.cause != nil && !errors.Is(err, tc.cause)) {
			t.Errorf("%s: %v, want %v wrapping %v", tc.method, err, tc.kind, tc.cause)
		}
		other := ErrNotSent
		if tc.kind == ErrNotSent {
			other = ErrOutcomeUnknown
		}
		if errors.Is(err, other) {
			t.Errorf("%s: %v matches both kinds", tc.method, err)
		}
	}
	err := c.Call(context.Background(), "error", nil, nil)
	var je *Error
	if !errors.As(err, &je) || errors.Is(err, ErrNotSent) || errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("an error response: %v, want the peer's *Error alone", err)
	}
	c.Close()
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrNotSent) || !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrNotSent and ErrClosed", err)
	}
}

// TestIdempotentResend: a call under Idempotent is sent again (with a new
// id) after its answer was lost, and one without it is not.
func TestIdempotentResend(t *testing.T) {
	var writes atomic.Int64
	c := NewConn(newScriptStream(func(m *Message) ([]*Message, error) {
		if writes.Add(1)%2 == 1 {
			return []*Message{FailedResponse(m.ID, errors.New("stream cut"))}, nil
		}
		return []*Message{NewResponse(m.ID, []byte(`{"ok":true}`))}, nil
	}), ConnOptions{})
	defer closeConn(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Call(ctx, "plain", nil, nil); !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("a plain call: %v, want ErrOutcomeUnknown", err)
	}
	writes.Store(0)
	id, res, err := c.CallRawID(Idempotent(ctx), "again", nil)
	if err != nil || string(res) != `{"ok":true}` || writes.Load() != 2 {
		t.Errorf("an idempotent call: %s, %v after %d writes", res, err, writes.Load())
	}
	if id.IsZero() {
		t.Error("no id reported")
	}
}

// TestCancelDoesNotBlock: a call whose deadline ends returns by it, while
// OnCancel (telling the peer) takes its time on its own goroutine; Wait
// waits for it.
func TestCancelDoesNotBlock(t *testing.T) {
	release := make(chan struct{})
	var ran atomic.Bool
	c := NewConn(newScriptStream(func(*Message) ([]*Message, error) { return nil, nil }), ConnOptions{
		OnCancel: func(ID, error) {
			<-release
			ran.Store(true)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	began := time.Now()
	err := c.Call(ctx, "slow", nil, nil)
	if took := time.Since(began); took > time.Second || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the call returned after %v with %v", took, err)
	}
	close(release)
	c.Close()
	c.Wait()
	if !ran.Load() {
		t.Error("Wait returned before OnCancel did")
	}
}
