package jsonrpc

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// item is one message in flight through a test pipe: either a decoded message
// handed over whole, or wire bytes (decoded by the reader, as a transport does).
type item struct {
	m *Message
	b []byte
}

// queue is an unbounded FIFO between two pipe ends. Writes never block, so two
// Conns writing to each other from their readers cannot deadlock.
type queue struct {
	mu     sync.Mutex
	items  []item
	ready  chan struct{} // signalled (cap 1) on every push
	closed chan struct{}
	once   sync.Once
}

func newQueue() *queue {
	return &queue{ready: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (q *queue) push(it item) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case <-q.closed:
		return ErrClosed
	default:
	}
	q.items = append(q.items, it)
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return nil
}

// pop returns the next item. Items pushed before the queue was closed are
// still delivered (like a pipe whose writer wrote, then closed), unless ctx
// has ended.
func (q *queue) pop(ctx context.Context) (item, error) {
	for {
		if err := ctx.Err(); err != nil {
			return item{}, err
		}
		q.mu.Lock()
		if len(q.items) > 0 {
			it := q.items[0]
			q.items[0] = item{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return it, nil
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-q.closed:
			q.mu.Lock()
			n := len(q.items)
			q.mu.Unlock()
			if n == 0 {
				return item{}, io.EOF
			}
		case <-ctx.Done():
			return item{}, ctx.Err()
		}
	}
}

func (q *queue) close() { q.once.Do(func() { close(q.closed) }) }

// memStream is one end of an in-memory Stream pair. With wire set, every
// message is encoded with AppendJSON on Write and decoded with Decode on Read,
// exactly as a byte transport does; otherwise messages are handed over whole.
type memStream struct {
	in, out *queue
	wire    bool
	onWrite func(ctx context.Context, m *Message) // test hook, may be nil
}

func (s *memStream) Read(ctx context.Context) (*Message, error) {
	it, err := s.in.pop(ctx)
	if err != nil {
		return nil, err
	}
	if it.m != nil {
		return it.m, nil
	}
	return Decode(it.b), nil
}

func (s *memStream) Write(ctx context.Context, m *Message) error {
	if s.onWrite != nil {
		s.onWrite(ctx, m)
	}
	if s.wire {
		return s.out.push(item{b: m.AppendJSON(nil)})
	}
	return s.out.push(item{m: m})
}

// Close ends both directions, like net.Pipe.
func (s *memStream) Close() error {
	s.in.close()
	s.out.close()
	return nil
}

// newPipe returns two connected streams.
func newPipe(wire bool) (a, b *memStream) {
	ab, ba := newQueue(), newQueue()
	return &memStream{in: ba, out: ab, wire: wire}, &memStream{in: ab, out: ba, wire: wire}
}

// closeConn closes c and waits for every handler to return.
func closeConn(t testing.TB, c *Conn) {
	t.Helper()
	_ = c.Close()
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("Conn.Wait did not return after Close")
	}
}

// newConnPair returns two connected Conns, closed at the end of the test.
func newConnPair(t testing.TB, wire bool, a, b ConnOptions) (ca, cb *Conn) {
	sa, sb := newPipe(wire)
	ca, cb = NewConn(sa, a), NewConn(sb, b)
	t.Cleanup(func() { closeConn(t, ca); closeConn(t, cb) })
	return ca, cb
}

// rawPeer drives a Conn with raw wire bytes and reads its raw output.
type rawPeer struct {
	t      testing.TB
	stream *memStream // the Conn's end
}

// newRawConn returns a Conn whose peer is the test, speaking raw JSON.
func newRawConn(t testing.TB, opts ConnOptions) (*Conn, *rawPeer) {
	t.Helper()
	s := &memStream{in: newQueue(), out: newQueue(), wire: true}
	c := NewConn(s, opts)
	t.Cleanup(func() { closeConn(t, c) })
	return c, &rawPeer{t: t, stream: s}
}

// send delivers one wire message to the Conn.
func (p *rawPeer) send(line string) {
	p.t.Helper()
	if err := p.stream.in.push(item{b: []byte(line)}); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// recv returns the next wire message the Conn wrote.
func (p *rawPeer) recv() []byte {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	it, err := p.stream.out.pop(ctx)
	if err != nil {
		p.t.Fatalf("recv: no message from Conn: %v", err)
	}
	if it.m != nil {
		return it.m.AppendJSON(nil)
	}
	return it.b
}

// expectNothing asserts that the Conn writes nothing within d.
func (p *rawPeer) expectNothing(d time.Duration) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if it, err := p.stream.out.pop(ctx); err == nil {
		b := it.b
		if it.m != nil {
			b = it.m.AppendJSON(nil)
		}
		p.t.Fatalf("expected no message, got %s", b)
	}
}

// roundTrip sends line and returns the reply.
func (p *rawPeer) roundTrip(line string) []byte {
	p.t.Helper()
	p.send(line)
	return p.recv()
}

// normalize decodes a JSON text for semantic comparison. Error messages are
// implementation-defined ("SHOULD be limited to a concise single sentence"),
// so a non-empty string message is replaced by "*"; anything else is left for
// the comparison to fail on. Batch replies may come in any order, so arrays at
// the top level are sorted by their canonical encoding.
func normalize(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, data)
	}
	fix := func(x any) any {
		if o, ok := x.(map[string]any); ok {
			if e, ok := o["error"].(map[string]any); ok {
				if s, ok := e["message"].(string); ok && s != "" {
					e["message"] = "*"
				}
			}
		}
		return x
	}
	if a, ok := v.([]any); ok {
		for i := range a {
			a[i] = fix(a[i])
		}
		sort.Slice(a, func(i, j int) bool {
			bi, _ := json.Marshal(a[i])
			bj, _ := json.Marshal(a[j])
			return string(bi) < string(bj)
		})
		return a
	}
	return fix(v)
}

// assertJSON compares got with want semantically (see normalize).
func assertJSON(t testing.TB, got []byte, want string) {
	t.Helper()
	g, w := normalize(t, got), normalize(t, []byte(want))
	if !reflect.DeepEqual(g, w) {
		t.Errorf("reply mismatch\n got: %s\nwant: %s", got, want)
	}
}
