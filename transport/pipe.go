package transport

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/gomcp/sdk/jsonrpc"
)

// pipeBuffer is how many messages each direction of a Pipe holds before
// Write blocks.
const pipeBuffer = 64

// Pipe returns two connected in-memory Streams: what is written to a is read
// from b and the other way round. It is meant for tests and for running a
// client and a server in one process, and it is the fastest transport: the
// *jsonrpc.Message values themselves are handed over through buffered
// channels (64 messages each way), with no JSON encoding of the envelope and
// no goroutines. A writer must therefore not modify a message, or the bytes
// it refers to, after writing it. A message whose fields say more than its
// wire form would (say, a response carrying both Result and Error) is
// delivered as the peer would have decoded it.
//
// Write blocks while the buffer is full, until the peer reads, ctx is done
// or the pipe is closed. Read blocks until a message arrives, ctx is done or
// the pipe is closed.
//
// Closing either end closes the pipe in both directions. Afterwards Write
// on either end returns jsonrpc.ErrClosed, Read on the end that was closed
// returns jsonrpc.ErrClosed, and Read on the other end returns the messages
// already written (every Write that returned nil is delivered) and then
// io.EOF.
func Pipe() (a, b jsonrpc.Stream) {
	sh := &pipeShared{done: make(chan struct{})}
	ab := make(chan *jsonrpc.Message, pipeBuffer)
	ba := make(chan *jsonrpc.Message, pipeBuffer)
	return &pipeEnd{sh: sh, in: ba, out: ab}, &pipeEnd{sh: sh, in: ab, out: ba}
}

// pipeShared is the state common to both ends of a Pipe.
type pipeShared struct {
	done chan struct{} // closed by the first Close on either end
	once sync.Once
	// Writers hold mu for reading while they send; a reader that sees done
	// takes it for writing to wait out in-flight sends before draining, so
	// that no acknowledged message is lost.
	mu sync.RWMutex
}

// pipeEnd is one end of a Pipe.
type pipeEnd struct {
	sh     *pipeShared
	in     <-chan *jsonrpc.Message
	out    chan<- *jsonrpc.Message
	closed atomic.Bool // this end was closed
}

// Read returns the next message from the other end. See Pipe.
func (p *pipeEnd) Read(ctx context.Context) (*jsonrpc.Message, error) {
	if p.closed.Load() {
		return nil, jsonrpc.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case m := <-p.in:
		return m, nil
	default:
	}
	select {
	case m := <-p.in:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.sh.done:
		if p.closed.Load() {
			return nil, jsonrpc.ErrClosed
		}
		// An empty critical section: wait out in-flight writes.
		p.sh.mu.Lock()
		p.sh.mu.Unlock()
		select {
		case m := <-p.in:
			return m, nil
		default:
			return nil, io.EOF
		}
	}
}

// Write hands m to the other end. See Pipe.
func (p *pipeEnd) Write(ctx context.Context, m *jsonrpc.Message) error {
	if m == nil {
		return errNilMessage
	}
	m = canonical(m)
	p.sh.mu.RLock()
	defer p.sh.mu.RUnlock()
	select {
	case <-p.sh.done:
		return jsonrpc.ErrClosed
	default:
	}
	// Prefer delivery when there is room, even if ctx is already done, as a
	// stream that encodes would.
	select {
	case p.out <- m:
		return nil
	default:
	}
	select {
	case p.out <- m:
		return nil
	case <-p.sh.done:
		return jsonrpc.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes both directions of the pipe. It is idempotent and always
// returns nil.
func (p *pipeEnd) Close() error {
	p.closed.Store(true)
	p.sh.once.Do(func() { close(p.sh.done) })
	return nil
}

// canonical returns m as the receiver would decode its wire form
// ((*jsonrpc.Message).AppendJSON): a batch carries only its elements, a
// request only its id, method and params, an error response only its id and
// error (Invalid standing in for Error), and a success response only its id
// and result ({} when nil). Messages already in that shape, which is nearly
// all of them, are returned as they are.
func canonical(m *jsonrpc.Message) *jsonrpc.Message {
	switch {
	case m.Batch != nil:
		var batch []*jsonrpc.Message
		for i, e := range m.Batch {
			if c := canonical(e); c != e {
				if batch == nil {
					batch = append([]*jsonrpc.Message(nil), m.Batch...)
				}
				batch[i] = c
			}
		}
		if batch == nil && m.ID.IsZero() && m.Method == "" && m.Params == nil &&
			m.Result == nil && m.Error == nil && m.Invalid == nil {
			return m
		}
		if batch == nil {
			batch = m.Batch
		}
		return &jsonrpc.Message{Batch: batch}
	case m.Method != "":
		if m.Result == nil && m.Error == nil && m.Invalid == nil {
			return m
		}
		return &jsonrpc.Message{ID: m.ID, Method: m.Method, Params: m.Params}
	case m.Error != nil || m.Invalid != nil:
		if m.Error != nil && m.Invalid == nil && m.Result == nil && m.Params == nil {
			return m
		}
		e := m.Error
		if e == nil {
			e = m.Invalid
		}
		return &jsonrpc.Message{ID: m.ID, Error: e}
	default:
		if m.Result != nil && m.Params == nil {
			return m
		}
		r := m.Result
		if r == nil {
			r = jsonrpc.NewResponse(m.ID, nil).Result
		}
		return &jsonrpc.Message{ID: m.ID, Result: r}
	}
}
