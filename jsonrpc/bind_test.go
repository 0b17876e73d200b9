package jsonrpc

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// A handler that keeps its Conn (to call the peer) must see it from the
// first message on: Bind runs before the reader starts.
func TestBindBeforeFirstMessage(t *testing.T) {
	sa, sb := newPipe(false)
	var held atomic.Pointer[Conn]
	var sawNil atomic.Bool
	server := NewConn(sb, ConnOptions{
		Bind: func(c *Conn) { held.Store(c) },
		Handler: HandlerFunc(func(context.Context, *Message) (any, error) {
			if held.Load() == nil {
				sawNil.Store(true)
			}
			return json.RawMessage(`{}`), nil
		}),
	})
	client := NewConn(sa, ConnOptions{})
	defer closeConn(t, client)
	defer closeConn(t, server)
	if held.Load() != server {
		t.Fatal("Bind was not given the new Conn before NewConn returned")
	}
	if err := client.Call(context.Background(), "x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if sawNil.Load() {
		t.Error("a handler ran before Bind")
	}
}

// When the peer ends the stream, ReadDone closes while a long-running
// handler is still running, so it can stop waiting; its answer still goes
// out and the Conn then ends.
func TestReadDoneAtPeerEOF(t *testing.T) {
	sa, sb := newPipe(false)
	started := make(chan struct{})
	var server *Conn
	server = NewConn(sb, ConnOptions{
		Bind: func(c *Conn) { server = c },
		Handler: HandlerFunc(func(ctx context.Context, m *Message) (any, error) {
			close(started)
			select {
			case <-server.ReadDone():
				return json.RawMessage(`{"stopped":"peer gone"}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return nil, NewError(CodeInternalError, "ReadDone never closed")
			}
		}),
	})
	if err := sa.Write(context.Background(), NewRequest(Int64ID(1), "listen", nil)); err != nil {
		t.Fatal(err)
	}
	<-started
	sa.out.close() // the peer writes no more
	resp, err := sa.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Result) != `{"stopped":"peer gone"}` {
		t.Errorf("response = %s %v, want the handler's answer after peer EOF", resp.Result, resp.Error)
	}
	select {
	case <-server.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the Conn did not end after its handler returned")
	}
	_ = sa.Close()
}
