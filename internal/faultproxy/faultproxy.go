// Package faultproxy is an HTTP proxy for tests that injects the faults of
// a misbehaving network between an MCP client and its server: connections
// reset in the middle of a request or of a stream, a network that stalls
// (a half-open connection), SSE streams cut short, 502, 503 and 504 from a
// gateway, refused connections, and a server restart that loses its
// sessions. It listens on loopback only, and is no part of the API.
//
// A test points the client at Proxy.URL, calls Set with a fault, lets the
// client meet it, then calls Heal (or Set(None)): the client must recover.
package faultproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Fault is one kind of misbehaviour.
type Fault int

const (
	// None forwards every request as it is.
	None Fault = iota
	// ResetRequest forwards each new request to the server, then resets the
	// client's connection (TCP RST) instead of returning the answer: the
	// request reached the server, the client cannot know.
	ResetRequest
	// ResetStreams resets every open connection once, when it is set
	// (answers and streams cut mid-way); later requests pass.
	ResetStreams
	// Stall stops every byte: new requests wait until the fault is healed,
	// and the answers and streams open meanwhile stop for good while their
	// connections stay up (half-open, as when a network path dies without
	// a reset): the client must notice the silence.
	Stall
	// TruncateSSE cuts every SSE answer after its first event, abruptly.
	TruncateSSE
	// BadGateway, Unavailable and GatewayTimeout answer every new request
	// with 502, 503 (with Retry-After: 1) or 504, without forwarding it.
	BadGateway
	Unavailable
	GatewayTimeout
	// Refuse closes the listener and resets every connection: new
	// connections are refused until the fault is healed.
	Refuse
)

var names = [...]string{"none", "reset-request", "reset-streams", "stall", "truncate-sse",
	"502", "503", "504", "refuse"}

func (f Fault) String() string {
	if f >= 0 && int(f) < len(names) {
		return names[f]
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// Proxy is a fault-injecting reverse proxy on a loopback port.
type Proxy struct {
	addr string
	rp   *httputil.ReverseProxy
	tr   *http.Transport
	srv  *http.Server

	mu       sync.Mutex
	upstream *url.URL
	fault    Fault
	healed   chan struct{} // closed when the current fault ends
	ln       net.Listener  // nil while refusing
	conns    map[net.Conn]struct{}
	serving  sync.WaitGroup
	closed   bool
	done     chan struct{} // closed by Close
}

// New starts a proxy to the server at upstream (a base URL such as
// http://127.0.0.1:8080); requests keep their path.
func New(upstream string) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	if !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("faultproxy: upstream %s is not on loopback", upstream)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{addr: ln.Addr().String(), upstream: u, healed: make(chan struct{}), done: make(chan struct{}), conns: make(map[net.Conn]struct{})}
	p.tr = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			p.mu.Lock()
			target := p.upstream
			p.mu.Unlock()
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		Transport:      p.tr,
		FlushInterval:  -1,
		ModifyResponse: p.modify,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// Upstream down (a restart in progress): what a gateway says.
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	quiet := log.New(io.Discard, "", 0) // the faults are on purpose
	p.rp.ErrorLog = quiet
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ConnState: p.track, ErrorLog: quiet}
	p.start(ln)
	return p, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (p *Proxy) start(ln net.Listener) {
	p.ln = ln
	p.serving.Add(1)
	go func() {
		defer p.serving.Done()
		_ = p.srv.Serve(ln)
	}()
}

// URL returns the proxy's base URL; append the server's path.
func (p *Proxy) URL() string { return "http://" + p.addr }

// SetUpstream points the proxy at another server (the restarted one) and
// resets every connection to the old one: a restart that loses the
// sessions, as the client sees it.
func (p *Proxy) SetUpstream(upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.upstream = u
	p.mu.Unlock()
	p.resetAll()
	p.tr.CloseIdleConnections()
	return nil
}

// Set injects fault f, in place of the current one.
func (p *Proxy) Set(f Fault) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errors.New("faultproxy: closed")
	}
	prev := p.fault
	p.fault = f
	close(p.healed) // whatever waited on the previous fault goes on
	p.healed = make(chan struct{})
	var ln net.Listener
	if f == Refuse && p.ln != nil {
		ln, p.ln = p.ln, nil
	}
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	if f == ResetStreams || f == Refuse {
		p.resetAll()
	}
	if prev == Refuse && f != Refuse {
		return p.listenAgain()
	}
	return nil
}

// Heal ends the current fault: Set(None).
func (p *Proxy) Heal() error { return p.Set(None) }

// listenAgain reopens the listener on the same address after Refuse.
func (p *Proxy) listenAgain() error {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger for a moment
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("faultproxy: listening again on %s: %w", p.addr, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		ln.Close()
		return nil
	}
	p.start(ln)
	return nil
}

// Close stops the proxy and resets every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	close(p.healed)
	p.healed = make(chan struct{})
	p.fault = None
	ln := p.ln
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.resetAll()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
	p.serving.Wait()
	p.tr.CloseIdleConnections()
	return nil
}

// current returns the fault in force and the channel closed when it ends.
func (p *Proxy) current() (Fault, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault, p.healed
}

func (p *Proxy) track(c net.Conn, st http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st {
	case http.StateNew:
		p.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

// resetAll resets every client connection (RST, not FIN).
func (p *Proxy) resetAll() {
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		reset(c)
	}
}

func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	f, healed := p.current()
	for f == Stall {
		select {
		case <-healed:
		case <-r.Context().Done():
			return
		}
		f, healed = p.current()
	}
	switch f {
	case BadGateway:
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return
	case Unavailable:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	case GatewayTimeout:
		http.Error(w, "gateway timeout", http.StatusGatewayTimeout)
		return
	case ResetRequest:
		p.forwardThenReset(w, r)
		return
	}
	p.rp.ServeHTTP(w, r)
}

// forwardThenReset sends r to the server, waits for the answer's headers,
// and resets the client's connection instead of answering.
func (p *Proxy) forwardThenReset(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	target := *p.upstream
	p.mu.Unlock()
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if resp, err := p.tr.RoundTrip(out.WithContext(ctx)); err == nil {
		resp.Body.Close()
	}
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		reset(c)
		return
	}
	panic(http.ErrAbortHandler)
}

// modify wraps the server's answer so that a stall or a truncation can
// reach it mid-way.
func (p *Proxy) modify(resp *http.Response) error {
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	resp.Body = &body{p: p, rc: resp.Body, sse: sse, ctx: resp.Request.Context()}
	return nil
}

// body is an answer's body as the proxy forwards it: it waits while the
// network stalls, and ends an SSE stream abruptly after its first event
// while TruncateSSE is in force.
type body struct {
	p       *Proxy
	rc      io.ReadCloser
	sse     bool
	ctx     context.Context // ends when the client's connection does
	br      *bufio.Reader
	pending []byte // the rest of the line being forwarded
	events  int
	dead    bool // caught by a stall
}

var (
	errTruncated = errors.New("faultproxy: SSE stream truncated")
	errHalfOpen  = errors.New("faultproxy: connection caught by a stall")
)

func (b *body) Read(buf []byte) (int, error) {
	f, _ := b.p.current()
	if f == Stall || b.dead {
		// A connection caught by a stall stays silent for good, as a
		// half-open one does: the client must notice, and drop it.
		b.dead = true
		select {
		case <-b.ctx.Done():
		case <-b.p.done:
		}
		return 0, errHalfOpen
	}
	if f == TruncateSSE && b.sse && b.events >= 1 {
		return 0, errTruncated // ReverseProxy aborts the connection
	}
	if !b.sse {
		return b.rc.Read(buf)
	}
	// Forward SSE line by line, counting events, so that a truncation
	// falls between two of them.
	if len(b.pending) == 0 {
		if b.br == nil {
			b.br = bufio.NewReaderSize(b.rc, 64<<10)
		}
		line, err := b.br.ReadSlice('\n')
		if len(line) == 0 {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			return 0, err
		}
		if len(line) == 1 || (len(line) == 2 && line[0] == '\r') {
			b.events++
		}
		b.pending = append(b.pending[:0], line...)
	}
	n := copy(buf, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *body) Close() error { return b.rc.Close() }
