package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// proxy relays messages, unchanged and in both directions, between a client
// on stdin and stdout and the target: a client that only speaks stdio can
// so reach a server over HTTP, with the headers given by -H. It returns nil
// when the client closes stdin.
//
// Both eras pass: over HTTP a 2026-07-28 request must repeat parts of its
// body in headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*), which the proxy computes from the body and from the tools
// it has seen listed (headerBook), as a client does.
func (inv *invocation) proxy(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	g, err := newGuard(inv.allow, inv.deny)
	if err != nil {
		return usageError{err}
	}
	up, err := openStream(inv.target, &inv.tf, inv.stderr)
	if err != nil {
		return usageError{err}
	}
	if err := startStream(ctx, up); err != nil {
		return connectError{err}
	}
	defer up.Close()
	var down jsonrpc.Stream
	if stdin == os.Stdin && stdout == os.Stdout {
		down = transport.Stdio() // reads honour ctx on a pipe
	} else {
		down = transport.NewLineStream(stdin, stdout, nil, nil)
	}
	defer down.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fromClient := make(chan error, 1)
	fromServer := make(chan error, 1)
	var book *headerBook
	if _, isCommand := up.(*transport.CommandTransport); !isCommand {
		book = &headerBook{}
	}
	r := &relayer{book: book, fl: &inFlight{}, lists: &listWatch{g: g}}
	go func() { fromClient <- r.fromClient(ctx, down, up) }()
	go func() { fromServer <- r.fromServer(ctx, up, down) }()
	select {
	case err = <-fromClient:
		if errors.Is(err, io.EOF) {
			// The client is done; the answers to its last requests are
			// still due (echo REQUEST | mcp proxy URL).
			select {
			case <-r.fl.whenEmpty():
			case <-fromServer:
			case <-ctx.Done():
			case <-time.After(proxyDrainTimeout):
			}
			return nil
		}
	case err = <-fromServer:
		if err == io.EOF {
			return connectError{errors.New("the server closed the connection")}
		}
		if errors.Is(err, io.EOF) { // saying why: a command's exit
			return connectError{fmt.Errorf("the server closed the connection: %w", err)}
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// relayer copies messages between the client and the target. With a
// book, messages to an HTTP target carry their standard headers, and the
// server's answers teach the book; with a guard (in lists), requests for
// hidden items are answered by the proxy and list results filtered.
type relayer struct {
	book  *headerBook
	fl    *inFlight
	lists *listWatch
}

// fromClient copies the client's messages (from down) to up until one fails.
func (r *relayer) fromClient(ctx context.Context, down, up jsonrpc.Stream) error {
	for {
		m, err := down.Read(ctx)
		if err != nil {
			return err
		}
		if no := r.lists.g.refuse(m); no != nil {
			if err := down.Write(ctx, no); err != nil {
				return err
			}
			continue
		}
		r.lists.note(m)
		wctx := ctx
		if r.book != nil {
			if h := r.book.headers(m); h != nil {
				wctx = mcpheader.WithHTTPHeaders(ctx, h)
			}
		}
		if m.IsRequest() {
			r.fl.add(m.ID)
		}
		if err := up.Write(wctx, m); err != nil {
			no := passBack(ctx, m, err)
			if no == nil {
				return err
			}
			r.fl.done(m.ID)
			if err := down.Write(ctx, no); err != nil {
				return err
			}
		}
	}
}

// passBack turns the target's refusal of the client's request m into m's
// error response, so that the client decides what to do and the proxy keeps
// running: a 2025 server refuses the 2026-07-28 server/discover probe (HTTP
// 400, "Server not initialized"), and the client then falls back to
// initialize. It returns nil when err ends the relay: the client is gone or
// the target's connection is broken, or the target wants credentials the
// proxy holds (HTTP 401 or 403, exit status 4).
func passBack(ctx context.Context, m *jsonrpc.Message, err error) *jsonrpc.Message {
	if ctx.Err() != nil || !m.IsRequest() {
		return nil
	}
	var he *mcphttp.HTTPError
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &he) && (he.StatusCode == 401 || he.StatusCode == 403):
		return nil
	case errors.As(err, &je):
		return jsonrpc.NewErrorResponse(m.ID, je)
	case he != nil:
		return jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error()))
	}
	return nil
}

// fromServer copies the target's messages (from up) to down until one fails.
func (r *relayer) fromServer(ctx context.Context, up, down jsonrpc.Stream) error {
	for {
		m, err := up.Read(ctx)
		if err != nil {
			return err
		}
		if r.book != nil {
			r.book.learn(m)
		}
		out := r.lists.filter(m)
		if out == nil {
			continue // about a hidden item
		}
		if err := down.Write(ctx, out); err != nil {
			return err
		}
		if m.IsResponse() || m.IsInvalidResponse() {
			r.fl.done(m.ID)
		}
	}
}

// proxyDrainTimeout bounds how long mcp proxy waits, once the client has
// closed stdin, for the answers to its requests; maxInFlight bounds the
// requests it tracks for that.
const (
	proxyDrainTimeout = 30 * time.Second
	maxInFlight       = 4096
)

// inFlight tracks the client's requests not yet answered.
type inFlight struct {
	mu   sync.Mutex
	ids  map[jsonrpc.ID]bool
	wake chan struct{} // closed when ids empties
}

func (f *inFlight) add(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil {
		f.ids = map[jsonrpc.ID]bool{}
	}
	if len(f.ids) < maxInFlight {
		f.ids[id] = true
	}
}

func (f *inFlight) done(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
	if len(f.ids) == 0 && f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// whenEmpty returns a channel closed once no request is in flight.
func (f *inFlight) whenEmpty() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan struct{})
	if len(f.ids) == 0 {
		close(c)
		return c
	}
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	return f.wake
}
