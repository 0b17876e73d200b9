package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// awaitLaneIdle waits until the lane has handled every notification queued
// so far.
func awaitLaneIdle(t testing.TB, c *Conn) {
	t.Helper()
	c.mu.Lock()
	n := c.laneRead
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.awaitLane(ctx, n); err != nil {
		t.Fatalf("waiting for the notification lane: %v", err)
	}
}

// noteLog is a notification handler that takes a while over each
// notification, and records their params in order.
type noteLog struct {
	mu    sync.Mutex
	got   []string
	delay time.Duration
}

func (l *noteLog) Handle(_ context.Context, m *Message) (any, error) {
	time.Sleep(l.delay)
	l.mu.Lock()
	l.got = append(l.got, string(m.Params))
	l.mu.Unlock()
	return nil, nil
}

func (l *noteLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

// asyncCall runs c.Call in the background and returns the error it returns.
func asyncCall(ctx context.Context, c *Conn, method string) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, method, nil, nil) }()
	return errc
}

// requestID reads the request the Conn wrote and returns its id as JSON.
func (p *rawPeer) requestID() string {
	p.t.Helper()
	m := Decode(p.recv())
	if !m.IsRequest() {
		p.t.Fatalf("the Conn wrote %s, want a request", describe(m))
	}
	return string(m.ID.AppendJSON(nil))
}

// TestResponseAfterNotifications checks that a Call returns only once the
// (slow) handler has handled every notification the peer sent before the
// response, whether they came one by one or in one batch with it.
func TestResponseAfterNotifications(t *testing.T) {
	const n, rounds = 20, 20
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch=%v", batched), func(t *testing.T) {
			notes := &noteLog{delay: 50 * time.Microsecond}
			c, peer := newRawConn(t, ConnOptions{Handler: notes})
			for round := range rounds {
				errc := asyncCall(context.Background(), c, "ask")
				id := peer.requestID()
				var msgs []string
				for i := range n {
					msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":[%d]}`, i))
				}
				msgs = append(msgs, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
				if batched {
					peer.send("[" + join(msgs) + "]")
				} else {
					for _, m := range msgs {
						peer.send(m)
					}
				}
				if err := recvTimeout(t, errc, "the call's result"); err != nil {
					t.Fatalf("Call: %v", err)
				}
				if got := notes.take(); len(got) != n || got[0] != "[0]" || got[n-1] != "["+strconv.Itoa(n-1)+"]" {
					t.Fatalf("round %d: when Call returned, the handler had seen %v, want [0] .. [%d]", round, got, n-1)
				}
			}
		})
	}
}

func join(msgs []string) string {
	out := msgs[0]
	for _, m := range msgs[1:] {
		out += "," + m
	}
	return out
}

// TestSlowNotificationHandler checks the trade-off of the order: while a
// notification handler is stuck, the reader goes on (a request is still
// answered), but the response read after the notification waits for it,
// or for its call's context.
func TestSlowNotificationHandler(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	c, peer := newRawConn(t, ConnOptions{Handler: mux{
		"stuck": func(context.Context, *Message) (any, error) {
			close(started)
			<-release
			return nil, nil
		},
		"echo": func(_ context.Context, m *Message) (any, error) { return m.Params, nil },
	}})
	errc := asyncCall(context.Background(), c, "ask")
	id := peer.requestID()
	ctx, cancel := context.WithCancel(context.Background())
	errc2 := asyncCall(ctx, c, "ask")
	id2 := peer.requestID()
	peer.send(`{"jsonrpc":"2.0","method":"stuck"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	peer.send(`{"jsonrpc":"2.0","id":` + id2 + `,"result":{}}`)
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":"e","method":"echo","params":[1]}`), `{"jsonrpc":"2.0","id":"e","result":[1]}`)
	select {
	case err := <-errc:
		t.Fatalf("Call returned (%v) while the notification before its response was still being handled", err)
	default:
	}
	cancel()
	if err := recvTimeout(t, errc2, "the cancelled call"); !errors.Is(err, context.Canceled) {
		t.Errorf("the call whose context ended while it waited for the lane returned %v, want context.Canceled", err)
	}
	close(release)
	if err := recvTimeout(t, errc, "the call's result"); err != nil {
		t.Errorf("Call: %v", err)
	}
}

// TestCloseDrainsLane checks that closing a Conn does not drop the
// notifications it has read: the handler still gets each of them, in order,
// before Wait returns.
func TestCloseDrainsLane(t *testing.T) {
	const n = 50
	release := make(chan struct{})
	notes := &noteLog{}
	s := newPushStream()
	c := NewConn(s, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
		if m.Method == "block" {
			<-release
			return nil, nil
		}
		return notes.Handle(ctx, m)
	})})
	if err := c.Push(NewNotification("block", nil), InlineNever); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := c.Push(NewNotification("note", json.RawMessage(fmt.Sprintf("[%d]", i))), InlineNever); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	waitFor(t, "Close to start", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.closing
	})
	close(release)
	recvTimeout(t, closed, "Close")
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	got := notes.take()
	if len(got) != n {
		t.Fatalf("after Close, %d notifications were handled, want the %d read before it", len(got), n)
	}
	for i, p := range got {
		if p != "["+strconv.Itoa(i)+"]" {
			t.Fatalf("notifications handled in the order %v", got)
		}
	}
}
