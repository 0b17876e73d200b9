package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of how a Conn ends: Close, a failing stream, a failed write.

func TestCloseFailsPendingCalls(t *testing.T) {
	started := make(chan struct{})
	var exited atomic.Bool
	h := mux{"hang": func(ctx context.Context, _ *Message) (any, error) {
		close(started)
		<-ctx.Done()
		time.Sleep(30 * time.Millisecond) // still busy after the connection ended
		exited.Store(true)
		return nil, nil
	}}
	sa, sb := newPipe(false)
	client := NewConn(sa, ConnOptions{})
	server := NewConn(sb, ConnOptions{Handler: h})
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "hang", nil, nil) }()
	<-started
	if err := client.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := recvTimeout(t, errc, "pending Call"); !errors.Is(err, ErrClosed) {
		t.Errorf("pending Call = %v, want ErrClosed", err)
	}
	if err := client.Call(context.Background(), "hang", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close = %v, want ErrClosed", err)
	}
	if err := client.Notify(context.Background(), "x", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after Close = %v, want ErrClosed", err)
	}
	if err := client.Wait(); err != nil {
		t.Errorf("client Wait = %v", err)
	}
	// The server saw EOF; Wait returns only once its handler has exited.
	_ = server.Close()
	if err := server.Wait(); err != nil {
		t.Errorf("server Wait = %v", err)
	}
	if !exited.Load() {
		t.Error("Wait returned before the handler exited")
	}
	select {
	case <-server.Done():
	default:
		t.Error("Done not closed after Wait")
	}
	if err := client.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// failingStream fails its first Read with err.
type failingStream struct {
	memStream
	err  error
	once sync.Once
}

func (s *failingStream) Read(ctx context.Context) (*Message, error) {
	var err error
	s.once.Do(func() { err = s.err })
	if err != nil {
		return nil, err
	}
	return s.memStream.Read(ctx)
}

func TestStreamError(t *testing.T) {
	boom := errors.New("transport broke")
	sa, _ := newPipe(false)
	c := NewConn(&failingStream{memStream: *sa, err: boom}, ConnOptions{})
	if err := c.Wait(); !errors.Is(err, boom) {
		t.Errorf("Wait = %v, want %v", err, boom)
	}
	if err := c.Err(); !errors.Is(err, boom) {
		t.Errorf("Err = %v, want %v", err, boom)
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call on a broken Conn = %v", err)
	}
	_ = c.Close()

	// EOF is a clean end.
	sa, sb := newPipe(false)
	c = NewConn(sa, ConnOptions{})
	_ = sb.Close()
	if err := c.Wait(); err != nil {
		t.Errorf("Wait after EOF = %v", err)
	}
	_ = c.Close()
}

// writeFailStream fails every Write.
type writeFailStream struct{ memStream }

var errWrite = errors.New("write failed")

func (*writeFailStream) Write(context.Context, *Message) error { return errWrite }

func TestCallWriteError(t *testing.T) {
	sa, _ := newPipe(false)
	c := NewConn(&writeFailStream{*sa}, ConnOptions{})
	defer closeConn(t, c)
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, errWrite) {
		t.Errorf("Call = %v, want %v", err, errWrite)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Errorf("%d pending calls left after a failed write", n)
	}
}

// hangUpStream answers the first request written to it and ends at once,
// from inside Write, so both have happened by the time Write returns.
type hangUpStream struct {
	memStream
	readDone <-chan struct{}
}

func (s *hangUpStream) Write(_ context.Context, m *Message) error {
	_ = s.in.push(item{b: NewResponse(m.ID, json.RawMessage(`"bye"`)).AppendJSON(nil)})
	s.in.close()
	<-s.readDone // the reader has delivered the response and seen the end
	return nil
}

// TestResponseThenClose checks that a response followed at once by the end
// of the stream is delivered, not reported as ErrClosed, even when both have
// happened by the time the caller looks.
func TestResponseThenClose(t *testing.T) {
	for i := range 50 {
		s := &hangUpStream{memStream: memStream{in: newQueue(), out: newQueue(), wire: true}}
		c := NewConn(s, ConnOptions{})
		s.readDone = c.ReadDone() // Write runs on this goroutine, inside Call
		var got string
		if err := c.Call(context.Background(), "last", nil, &got); err != nil || got != "bye" {
			t.Fatalf("iteration %d: Call = %q, %v; want the response", i, got, err)
		}
		closeConn(t, c)
	}
}

// TestCloseFromHandler checks that a handler may close its own Conn.
func TestCloseFromHandler(t *testing.T) {
	var server *Conn
	h := mux{"quit": func(context.Context, *Message) (any, error) { return nil, server.Close() }}
	client, srv := newConnPair(t, false, ConnOptions{}, ConnOptions{Handler: h})
	server = srv
	err := client.Call(context.Background(), "quit", nil, nil)
	if err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("Call = %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- server.Wait() }()
	if err := recvTimeout(t, done, "server Wait"); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

// TestCloseUnderLoad closes a Conn while calls and notifications are in
// flight in both directions; everything must return and nothing leak.
func TestCloseUnderLoad(t *testing.T) {
	h := mux{
		"work": func(ctx context.Context, _ *Message) (any, error) {
			select {
			case <-time.After(time.Millisecond):
			case <-ctx.Done():
			}
			return "ok", nil
		},
		"note": func(context.Context, *Message) (any, error) { return nil, nil },
	}
	a, b := newConnPair(t, true, ConnOptions{Handler: h, MaxConcurrency: 4, MaxQueued: 8}, ConnOptions{Handler: h, MaxConcurrency: 4, MaxQueued: 8})
	var wg sync.WaitGroup
	for i := range 16 {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				var err error
				if j%3 == 0 {
					err = c.Notify(context.Background(), "note", nil)
				} else {
					err = c.Call(context.Background(), "work", nil, nil)
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil && codeOf(err) != CodeServerOverloaded {
					t.Errorf("unexpected error %v", err)
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	_ = a.Close()
	wg.Wait()
}
