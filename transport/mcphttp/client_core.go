// clientCore: what the Streamable HTTP and the legacy HTTP+SSE clients
// share: the read queue, requests with credentials and their retries on
// 401/403, bounded JSON and SSE reading, and HTTP errors.

package mcphttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/internal/origin"
	"github.com/gomcp/sdk/jsonrpc"
)

// clientCore is what the Streamable HTTP and HTTP+SSE clients share: the
// HTTP client and its settings, and the queue of incoming messages.
type clientCore struct {
	hc       *http.Client
	auth     Authorizer
	header   http.Header
	max      int
	delay    time.Duration
	maxDelay time.Duration // cap of reconnection backoff
	idle     time.Duration // standalone stream idle timeout; 0: none
	tries    int
	log      *slog.Logger

	in   chan *jsonrpc.Message
	eof  chan struct{} // closed when the server ended the connection (HTTP+SSE)
	done chan struct{} // closed by Close

	bg     context.Context // ends at Close; background requests use it
	cancel context.CancelFunc

	mu      sync.Mutex
	closing bool // Close has started
	closed  bool
	failed  error // why the client gave up (see fail)
	eofOnce sync.Once
	wg      sync.WaitGroup
}

// defaultMaxReconnectDelay is ClientOptions.MaxReconnectDelay's default:
// with equal jitter, a stream reconnects 2 to 4 seconds after a failed
// attempt at worst, so it is back within 5 seconds of the server.
const defaultMaxReconnectDelay = 4 * time.Second

func newClientCore(opts *ClientOptions) *clientCore {
	c := &clientCore{
		hc:       http.DefaultClient,
		max:      16 << 20,
		delay:    time.Second,
		maxDelay: defaultMaxReconnectDelay,
		idle:     75 * time.Second,
		tries:    5,
		log:      slog.New(slog.DiscardHandler),
		in:       make(chan *jsonrpc.Message, 16),
		eof:      make(chan struct{}),
		done:     make(chan struct{}),
	}
	if opts != nil {
		if opts.HTTPClient != nil {
			c.hc = opts.HTTPClient
		}
		c.header = opts.Header.Clone()
		c.auth = opts.Authorizer
		if opts.MaxMessageBytes > 0 {
			c.max = opts.MaxMessageBytes
		}
		if opts.ReconnectDelay > 0 {
			c.delay = opts.ReconnectDelay
		}
		if opts.MaxReconnects > 0 {
			c.tries = opts.MaxReconnects
		}
		if opts.MaxReconnectDelay > 0 {
			c.maxDelay = opts.MaxReconnectDelay
		}
		switch d := opts.StreamIdleTimeout; {
		case d > 0:
			c.idle = d
		case d < 0:
			c.idle = 0
		}
		if opts.Logger != nil {
			c.log = opts.Logger
		}
	}
	hc := *c.hc
	hc.CheckRedirect = origin.CheckRedirect("mcphttp", 10, c.hc.CheckRedirect)
	c.hc = &hc
	c.bg, c.cancel = context.WithCancel(context.Background())
	return c
}

// read implements jsonrpc.Stream.Read.
func (c *clientCore) read(ctx context.Context) (*jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, jsonrpc.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.eof:
		select {
		case m := <-c.in:
			return m, nil
		default:
			c.mu.Lock()
			err := c.failed
			c.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
	}
}

// fail ends the connection because the client cannot keep it (the server
// lost the session and refuses a new one): err is what the connection
// ends with, so that the application learns it (mcp.ClientSession's Wait
// and Done).
func (c *clientCore) fail(err error) {
	c.mu.Lock()
	if c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
	c.log.Warn("mcphttp: giving up the session", "err", err)
	c.ended()
}

// push queues an incoming message; it reports false once the stream is
// closed.
func (c *clientCore) push(m *jsonrpc.Message) bool {
	select {
	case c.in <- m:
		return true
	case <-c.done:
		return false
	}
}

// ended marks the connection as ended by the server.
func (c *clientCore) ended() { c.eofOnce.Do(func() { close(c.eof) }) }

// goBackground runs f on a tracked goroutine, unless the stream is closed.
func (c *clientCore) goBackground(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// shutdown closes the stream and waits for background goroutines.
func (c *clientCore) shutdown() {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return
	}
	close(c.done)
	c.cancel()
	c.wg.Wait()
}

func (c *clientCore) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// newRequest builds a request with the configured headers.
func (c *clientCore) newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if body != nil {
		req.Header["Content-Type"] = valueJSON
	}
	return req, nil
}

// maxAuthRetries bounds how often one request is sent again after the
// Authorizer resolved a 401 or 403: a login can be followed by a DPoP
// nonce challenge.
const maxAuthRetries = 2

// do sends req (built by newRequest) through the Authorizer, if any: it
// decorates the request and, on a 401 or 403 the Authorizer can resolve,
// sends it again with the new credentials.
func (c *clientCore) do(req *http.Request) (*http.Response, error) {
	if c.auth == nil {
		return c.hc.Do(req)
	}
	for try := 0; ; try++ {
		if try > 0 {
			again := req.Clone(req.Context())
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				again.Body = body
			}
			req = again
		}
		if err := c.auth.Authorize(req); err != nil {
			return nil, fmt.Errorf("mcphttp: authorization: %w", err)
		}
		resp, err := c.hc.Do(req)
		if err != nil || try == maxAuthRetries ||
			(resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
			return resp, err
		}
		retry, err := c.auth.Challenged(req.Context(), req, resp)
		if err != nil {
			drain(resp)
			return nil, fmt.Errorf("mcphttp: authorization: %w", err)
		}
		if !retry {
			return resp, nil
		}
		drain(resp)
	}
}

// readJSON reads and decodes a JSON response body.
func (c *clientCore) readJSON(resp *http.Response) (*jsonrpc.Message, error) {
	defer resp.Body.Close()
	var body []byte
	var err error
	switch n := resp.ContentLength; {
	case n > int64(c.max):
		return nil, fmt.Errorf("mcphttp: response larger than %d bytes", c.max)
	case n >= 0: // one buffer of the announced size
		body = make([]byte, n)
		_, err = io.ReadFull(resp.Body, body)
	default:
		body, err = io.ReadAll(io.LimitReader(resp.Body, int64(c.max)+1))
	}
	if err != nil {
		return nil, fmt.Errorf("mcphttp: reading response: %w", err)
	}
	if len(body) > c.max {
		return nil, fmt.Errorf("mcphttp: response larger than %d bytes", c.max)
	}
	m := jsonrpc.Decode(body)
	if m.Invalid != nil {
		return nil, fmt.Errorf("mcphttp: invalid response body: %s", m.Invalid.Message)
	}
	return m, nil
}

// HTTPError is returned when a server answers with an unexpected HTTP
// status and no response to the request. A JSON-RPC error in its body
// (which names no request, or another one) is in Err, where errors.As
// finds it: the server's code and message.
type HTTPError struct {
	StatusCode int
	Status     string
	// Body is the beginning of the response body, for diagnostics.
	Body string
	// Err is the JSON-RPC error the body carried, if any.
	Err *jsonrpc.Error
}

func (e *HTTPError) Error() string {
	switch {
	case e.Err != nil:
		return "mcphttp: server answered " + e.Status + ": " + e.Err.Error()
	case e.Body == "":
		return "mcphttp: server answered " + e.Status
	}
	return "mcphttp: server answered " + e.Status + ": " + e.Body
}

// Unwrap returns Err, when the body carried a JSON-RPC error.
func (e *HTTPError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// httpError consumes resp and describes it.
func httpError(resp *http.Response) *HTTPError {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	e := &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Body: string(bytes.TrimSpace(b))}
	if mediaType(resp) == "application/json" {
		if m := jsonrpc.Decode(b); m.Invalid == nil && m.Error != nil {
			e.Err = m.Error
		}
	}
	return e
}

func mediaType(resp *http.Response) string {
	mt, _ := parseMediaRange(resp.Header.Get("Content-Type"))
	return mt
}

// Header values the client sends on every request, shared to save an
// allocation per header (net/http does not modify them).
var (
	valueJSON       = []string{"application/json"}
	valueAcceptBoth = []string{"application/json, text/event-stream"}
)

// headerValue caches the one-element header value of a string that rarely
// changes (the session id, the negotiated version), so that setting it
// costs no allocation per request.
type headerValue struct{ p atomic.Pointer[[]string] }

func (h *headerValue) get(v string) []string {
	if p := h.p.Load(); p != nil && (*p)[0] == v {
		return *p
	}
	vs := []string{v}
	h.p.Store(&vs)
	return vs
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// discard ends an answer whose content, if any, means nothing: an SSE
// stream is closed unread (a server could hold it open), any other body
// drained as far as drain goes.
func discard(resp *http.Response) {
	if mediaType(resp) == "text/event-stream" {
		resp.Body.Close()
		return
	}
	drain(resp)
}

// sseCursor tracks what a client has seen of one SSE stream.
type sseCursor struct {
	lastID   string
	retry    time.Duration
	progress bool // a message arrived since the cursor was last reset
}

// consume reads the events of an SSE body, handing each message to deliver
// and noting ids and retry fields in cur. It returns when deliver says
// stop, the body ends (io.EOF and friends) or the stream is closed.
func (c *clientCore) consume(body io.Reader, cur *sseCursor, deliver func(*jsonrpc.Message) (stop bool)) error {
	r := getSSEReader(body, c.max)
	defer putSSEReader(r)
	for {
		ev, err := r.next()
		if err != nil {
			return err
		}
		if ev.hasID {
			cur.lastID = ev.id
		}
		if ev.retry > 0 {
			cur.retry = ev.retry
		}
		if len(bytes.TrimSpace(ev.data)) == 0 || (ev.event != "" && ev.event != "message") {
			continue // a priming event, or not a message
		}
		m := jsonrpc.Decode(ev.data)
		if m.Invalid != nil {
			c.log.Warn("mcphttp: invalid message in SSE stream", "err", m.Invalid.Message)
			continue
		}
		cur.progress = true
		if deliver(m) {
			return nil
		}
	}
}

// sleep waits d, or less if ctx ends; it reports whether it waited fully.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
