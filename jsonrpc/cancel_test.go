package jsonrpc

import (
	"context"
	"errors"
	"testing"
)

// TestCancelledQueuedRequestFreesItsPlace: a queued request the peer
// cancels leaves the queue at once, gets no response, and its place takes
// the next request instead of an overloaded error.
func TestCancelledQueuedRequestFreesItsPlace(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{}, 4)
	h := mux{"block": func(context.Context, *Message) (any, error) {
		started <- struct{}{}
		<-release
		return "done", nil
	}}
	c, peer := newRawConn(t, ConnOptions{Handler: h, MaxConcurrency: 1, MaxQueued: 1})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	recvTimeout(t, started, "the first request running")
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"block"}`)
	// The queue is full: a third request is refused.
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":3,"method":"block"}`), `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x"}}`)
	if !c.CancelIncoming(Int64ID(2)) {
		t.Fatal("CancelIncoming(2): not in flight")
	}
	peer.send(`{"jsonrpc":"2.0","id":4,"method":"block"}`) // takes 2's place
	close(release)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"done"}`)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":4,"result":"done"}`)
}

// TestNothingSentAfterCancel: a handler that goes on reporting after the
// peer cancelled its request sends nothing; its Notify and Call fail.
func TestNothingSentAfterCancel(t *testing.T) {
	var conn *Conn
	errs, started := make(chan error, 2), make(chan struct{})
	h := mux{"work": func(ctx context.Context, _ *Message) (any, error) {
		close(started)
		<-ctx.Done()
		errs <- conn.Notify(ctx, "progress", nil)
		_, err := conn.CallRaw(ctx, "ask", nil)
		errs <- err
		return nil, ctx.Err()
	}}
	c, peer := newRawConn(t, ConnOptions{Handler: h})
	conn = c
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	recvTimeout(t, started, "the handler running")
	if !c.CancelIncoming(Int64ID(1)) {
		t.Fatal("CancelIncoming(1): not in flight")
	}
	for range 2 {
		if err := recvTimeout(t, errs, "the handler's sends"); !errors.Is(err, context.Canceled) {
			t.Errorf("send after cancel = %v, want context.Canceled", err)
		}
	}
	// Nothing was written for request 1: the next message is the answer to a ping.
	assertJSON(t, peer.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), `{"jsonrpc":"2.0","id":2,"result":{}}`)
}
