package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRelatedRequest(t *testing.T) {
	type write struct {
		kind    string
		related string
	}
	writes := make(chan write, 10)
	var server *Conn
	h := mux{
		"work": func(ctx context.Context, m *Message) (any, error) {
			id, ok := RelatedRequest(ctx)
			if !ok || id != m.ID {
				t.Errorf("handler: RelatedRequest = %v, %v; want %v", id, ok, m.ID)
			}
			return nil, server.Notify(ctx, "progress", nil)
		},
		"note": func(ctx context.Context, _ *Message) (any, error) {
			if id, ok := RelatedRequest(ctx); ok {
				t.Errorf("notification handler: RelatedRequest = %v", id)
			}
			return nil, nil
		},
	}
	sa, sb := newPipe(true)
	sb.onWrite = func(ctx context.Context, m *Message) {
		kind := "response"
		if m.Method != "" {
			kind = m.Method
		}
		related := "none"
		if id, ok := RelatedRequest(ctx); ok {
			related = id.String()
		}
		writes <- write{kind, related}
	}
	client := NewConn(sa, ConnOptions{})
	server = NewConn(sb, ConnOptions{Handler: h})
	defer closeConn(t, client)
	defer closeConn(t, server)
	if err := client.Call(context.Background(), "work", nil, nil); err != nil {
		t.Fatal(err)
	}
	if w := recvTimeout(t, writes, "progress write"); w != (write{"progress", "1"}) {
		t.Errorf("progress written with %+v", w)
	}
	if w := recvTimeout(t, writes, "response write"); w != (write{"response", "1"}) {
		t.Errorf("response written with %+v", w)
	}
	if err := client.Notify(context.Background(), "note", nil); err != nil {
		t.Fatal(err)
	}
	if err := server.Notify(context.Background(), "unrelated", nil); err != nil {
		t.Fatal(err)
	}
	if w := recvTimeout(t, writes, "unrelated write"); w != (write{"unrelated", "none"}) {
		t.Errorf("unrelated notification written with %+v", w)
	}
}

func TestBatches(t *testing.T) {
	srv := &specServer{}
	_, peer := newRawConn(t, ConnOptions{Handler: srv})
	// Requests, notifications, a stray response, a malformed response and
	// invalid elements: one array with replies for the requests and the
	// invalid elements only.
	peer.send(`[
		{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2]},
		{"jsonrpc":"2.0","method":"update","params":[1]},
		5,
		{"jsonrpc":"2.0","id":99,"result":"stray response"},
		{"jsonrpc":"2.0","id":98,"result":1,"error":{"code":1,"message":"malformed response: no reply"}},
		{"jsonrpc":"2.0","id":"x","method":"subtract","params":{"minuend":1,"subtrahend":2}},
		{"jsonrpc":"1.0","id":3,"method":"sum","params":[]},
		{"jsonrpc":"2.0","id":4,"method":"nope"}
	]`)
	assertJSON(t, peer.recv(), `[
		{"jsonrpc":"2.0","id":1,"result":3},
		{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}},
		{"jsonrpc":"2.0","id":"x","result":-1},
		{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"x"}},
		{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"x"}}
	]`)
	// All notifications (and responses): no reply at all.
	peer.send(`[{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","id":98,"result":1}]`)
	peer.expectNothing(50 * time.Millisecond)
	peer.assertAlive()
	if got := srv.handled(); len(got) != 2 || got[0] != "update" || got[1] != "notify_hello" {
		t.Errorf("notifications handled: %v", got)
	}
}

// TestBatchedResponses checks that responses arriving in a batch reach their
// calls.
func TestBatchedResponses(t *testing.T) {
	c, peer := newRawConn(t, ConnOptions{})
	type result struct {
		method, got string
		err         error
	}
	results := make(chan result, 2)
	for _, method := range []string{"one", "two"} {
		go func() {
			var s string
			err := c.Call(context.Background(), method, nil, &s)
			results <- result{method, s, err}
		}()
	}
	var batch []*Message
	for range 2 {
		req := Decode(peer.recv())
		batch = append(batch, NewResponse(req.ID, json.RawMessage(strconv.Quote("answer to "+req.Method))))
	}
	batch = append(batch, NewResponse(Int64ID(12345), nil)) // unknown: ignored
	peer.send(string((&Message{Batch: batch}).AppendJSON(nil)))
	for range 2 {
		r := recvTimeout(t, results, "batched response")
		if r.err != nil || r.got != "answer to "+r.method {
			t.Errorf("%s = %q, %v", r.method, r.got, r.err)
		}
	}
	peer.expectNothing(20 * time.Millisecond)
}

// TestRelatedRequestBatch checks that handlers of batched requests see their
// own ids, while the batch reply is tied to none of them.
func TestRelatedRequestBatch(t *testing.T) {
	seen := make(chan string, 4)
	h := mux{"work": func(ctx context.Context, m *Message) (any, error) {
		id, ok := RelatedRequest(ctx)
		seen <- fmt.Sprint(m.ID, "=", id, ok)
		return nil, nil
	}}
	_, peer := newRawConn(t, ConnOptions{Handler: h})
	var related []string
	var mu sync.Mutex
	peer.stream.onWrite = func(ctx context.Context, m *Message) {
		id, ok := RelatedRequest(ctx)
		mu.Lock()
		related = append(related, fmt.Sprint(m.Batch != nil, id, ok))
		mu.Unlock()
	}
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"work"},{"jsonrpc":"2.0","id":"two","method":"work"}]`)
	peer.recv()
	got := map[string]bool{recvTimeout(t, seen, "handler"): true, recvTimeout(t, seen, "handler"): true}
	if !got["1=1 true"] || !got[`"two"="two" true`] {
		t.Errorf("handlers saw %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(related) != 1 || related[0] != "true <none> false" {
		t.Errorf("batch reply written with %v", related)
	}
}

func TestRequestContext(t *testing.T) {
	type otherKey struct{}
	base, cancel := context.WithCancelCause(context.WithValue(context.Background(), otherKey{}, "other"))
	defer cancel(nil)
	if _, ok := RelatedRequest(base); ok {
		t.Error("RelatedRequest on a plain context reports an id")
	}
	ctx := WithRelatedRequest(base, StringID("outer"))
	inner := WithRelatedRequest(ctx, Int64ID(2))
	if id, ok := RelatedRequest(inner); !ok || id != Int64ID(2) {
		t.Errorf("inner RelatedRequest = %v, %v", id, ok)
	}
	if id, ok := RelatedRequest(WithRelatedRequest(ctx, ID{})); !ok || id != StringID("outer") {
		t.Errorf("a zero id hides the outer one: %v, %v", id, ok)
	}
	if MessageInfo(inner) != nil {
		t.Error("MessageInfo without info")
	}
	info := withInfo(inner, "transport info")
	if MessageInfo(info) != "transport info" || inner.Value(otherKey{}) != "other" || info.Value(otherKey{}) != "other" {
		t.Error("values not passed through")
	}
	if id, _ := RelatedRequest(info); id != Int64ID(2) {
		t.Errorf("RelatedRequest through info = %v", id)
	}
	if withInfo(inner, nil) != inner {
		t.Error("withInfo(nil) allocates a new context")
	}
	// Cancellation and causes pass through, also to children.
	child, childCancel := context.WithCancel(info)
	defer childCancel()
	boom := errors.New("boom")
	cancel(boom)
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("child not cancelled")
	}
	if context.Cause(info) != boom || context.Cause(child) != boom {
		t.Errorf("causes %v, %v", context.Cause(info), context.Cause(child))
	}
}

// infoStream tags every message it reads with transport info.
type infoStream struct{ memStream }

func (s *infoStream) Read(ctx context.Context) (*Message, error) {
	m, err := s.memStream.Read(ctx)
	if m != nil {
		m.Info = "via " + m.Method
	}
	return m, err
}

func TestMessageInfo(t *testing.T) {
	seen := make(chan string, 4)
	h := mux{
		"req": func(ctx context.Context, _ *Message) (any, error) {
			seen <- fmt.Sprint(MessageInfo(ctx))
			return nil, nil
		},
		"note": func(ctx context.Context, _ *Message) (any, error) {
			seen <- fmt.Sprint(MessageInfo(ctx))
			return nil, nil
		},
	}
	sa, sb := newPipe(false)
	writeInfo := make(chan string, 1)
	sb.onWrite = func(ctx context.Context, m *Message) {
		if m.IsResponse() {
			writeInfo <- fmt.Sprint(MessageInfo(ctx))
		}
	}
	client := NewConn(sa, ConnOptions{})
	server := NewConn(&infoStream{*sb}, ConnOptions{Handler: h})
	defer closeConn(t, client)
	defer closeConn(t, server)
	if err := client.Call(context.Background(), "req", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := recvTimeout(t, seen, "request handler"); got != "via req" {
		t.Errorf("request handler info = %q", got)
	}
	if got := recvTimeout(t, writeInfo, "response write"); got != "via req" {
		t.Errorf("response written with info %q", got)
	}
	if err := client.Notify(context.Background(), "note", nil); err != nil {
		t.Fatal(err)
	}
	if got := recvTimeout(t, seen, "notification handler"); got != "via note" {
		t.Errorf("notification handler info = %q", got)
	}
}

// TestBarrier checks that a barrier request finishes before anything sent
// after it is dispatched.
func TestBarrier(t *testing.T) {
	var initialized atomic.Bool
	h := mux{
		"initialize": func(context.Context, *Message) (any, error) {
			time.Sleep(30 * time.Millisecond)
			initialized.Store(true)
			return "ready", nil
		},
		"work": func(context.Context, *Message) (any, error) { return initialized.Load(), nil },
	}
	_, peer := newRawConn(t, ConnOptions{Handler: h, Barrier: func(method string) bool { return method == "initialize" }})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"work"}`)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":1,"result":"ready"}`)
	assertJSON(t, peer.recv(), `{"jsonrpc":"2.0","id":2,"result":true}`)
}

// TestFirstID: outgoing ids start at ConnOptions.FirstID and count up,
// and a FirstID beyond 2^52 is brought down so that ids stay exact in any
// JSON reader.
func TestFirstID(t *testing.T) {
	for _, tt := range []struct {
		first int64
		want  []int64
	}{
		{0, []int64{1, 2}},
		{-5, []int64{1, 2}},
		{1 << 40, []int64{1 << 40, 1<<40 + 1}},
		{1 << 60, []int64{1 << 52, 1<<52 + 1}},
	} {
		var mu sync.Mutex
		var got []int64
		echo := HandlerFunc(func(_ context.Context, m *Message) (any, error) {
			n, _ := m.ID.Int64()
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
			return true, nil
		})
		a, _ := newConnPair(t, true, ConnOptions{FirstID: tt.first}, ConnOptions{Handler: echo})
		for range tt.want {
			if err := a.Call(context.Background(), "x", nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		mu.Lock()
		if !slices.Equal(got, tt.want) {
			t.Errorf("FirstID %d: ids %v, want %v", tt.first, got, tt.want)
		}
		mu.Unlock()
	}
}
