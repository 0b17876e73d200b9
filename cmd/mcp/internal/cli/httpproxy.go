package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// Bounds of proxy --http.
const (
	httpProxyMaxSessions = 64      // sessions at once, each with its own upstream
	httpProxyMaxBody     = 4 << 20 // bytes of one POST body
	httpProxyBacklog     = 256     // server messages held for a GET stream not yet open
	httpProxyStreamQueue = 256     // messages queued for one open HTTP response stream
)

// proxyHTTP serves the target over Streamable HTTP at http://ADDR/mcp:
// each session (opened by an initialize request) gets its own connection
// to the target (for a command, its own process), and every message
// passes unchanged in both directions. A response goes back on the POST
// that carried its request; the server's own requests and notifications go
// on the newest POST stream still open, or else on the session's GET
// stream. The 2026-07-28 stateless revision needs a connection per
// request; the proxy answers server/discover with "method not found", so
// clients fall back to initialize.
func (inv *invocation) proxyHTTP(ctx context.Context) error {
	if _, err := openStream(inv.target, &inv.tf, io.Discard); err != nil { // check the target before listening
		return usageError{err}
	}
	ln, err := net.Listen("tcp", inv.httpAddr)
	if err != nil {
		return connectError{err}
	}
	p := &httpProxy{inv: inv, sessions: map[string]*proxySession{}, max: httpProxyMaxSessions}
	defer p.closeAll()
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(inv.stdout, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	p.closeAll() // ends the open streams, so that Shutdown need not wait
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	_ = srv.Close()
	return nil
}

// httpProxy is the HTTP side of proxy --http.
type httpProxy struct {
	inv      *invocation
	max      int // sessions at once
	mu       sync.Mutex
	sessions map[string]*proxySession
	closed   bool
}

// proxySession is one client's session and its upstream connection.
type proxySession struct {
	id   string
	up   jsonrpc.Stream
	done chan struct{} // closed when the upstream ends

	mu       sync.Mutex
	waiting  map[jsonrpc.ID]*proxyStream // requests in flight, by id
	posts    []*proxyStream              // open POST streams, oldest first
	get      *proxyStream                // the GET stream, if open
	backlog  []*jsonrpc.Message          // server messages waiting for a stream
	lastUsed time.Time                   // of the last request from the client
}

func (s *proxySession) lastUsedAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed
}

// proxyStream is one HTTP response carrying messages as server-sent events.
type proxyStream struct {
	msgs chan *jsonrpc.Message
	end  chan struct{} // closed after the last message (the response)
	once sync.Once
}

func newProxyStream() *proxyStream {
	return &proxyStream{msgs: make(chan *jsonrpc.Message, httpProxyStreamQueue), end: make(chan struct{})}
}

// send queues m, or reports that the client is too slow.
func (s *proxyStream) send(m *jsonrpc.Message) bool {
	select {
	case s.msgs <- m:
		return true
	default:
		return false
	}
}

func (s *proxyStream) finish() { s.once.Do(func() { close(s.end) }) }

func (p *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A page from another site must not drive local servers.
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			http.Error(w, "Origin not allowed", http.StatusForbidden)
			return
		}
	}
	switch r.Method {
	case http.MethodPost:
		p.post(w, r)
	case http.MethodGet:
		s, ok := p.session(w, r)
		if !ok {
			return
		}
		st := newProxyStream()
		s.mu.Lock()
		if s.get != nil {
			s.mu.Unlock()
			http.Error(w, "a GET stream is already open for this session", http.StatusConflict)
			return
		}
		s.get = st
		for _, m := range s.backlog {
			st.send(m)
		}
		s.backlog = nil
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.get == st {
				s.get = nil
			}
			s.mu.Unlock()
		}()
		p.stream(w, r, s, st, "")
	case http.MethodDelete:
		s, ok := p.session(w, r)
		if !ok {
			return
		}
		p.drop(s)
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// session finds the session named by the request's Mcp-Session-Id.
func (p *httpProxy) session(w http.ResponseWriter, r *http.Request) (*proxySession, bool) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		http.Error(w, "missing Mcp-Session-Id: start with initialize", http.StatusBadRequest)
		return nil, false
	}
	p.mu.Lock()
	s, ok := p.sessions[id]
	p.mu.Unlock()
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
	}
	return s, ok
}

func (p *httpProxy) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, httpProxyMaxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	m := jsonrpc.Decode(body)
	if m.Invalid != nil || m.Batch != nil {
		writeJSONMessage(w, http.StatusBadRequest, jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "want one JSON-RPC message")))
		return
	}
	var s *proxySession
	switch {
	case m.IsRequest() && m.Method == mcp.MethodServerDiscover && r.Header.Get("Mcp-Session-Id") == "":
		writeJSONMessage(w, http.StatusOK, refuseDiscover(m))
		return
	case m.IsRequest() && m.Method == "initialize" && r.Header.Get("Mcp-Session-Id") == "":
		if s, err = p.open(r.Context()); err != nil {
			writeJSONMessage(w, http.StatusOK, jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "proxy: "+err.Error())))
			return
		}
	default:
		var ok bool
		if s, ok = p.session(w, r); !ok {
			return
		}
	}
	if !m.IsRequest() {
		// Notifications and the client's answers to the server's requests.
		if err := s.up.Write(r.Context(), m); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newProxyStream()
	s.mu.Lock()
	if _, dup := s.waiting[m.ID]; dup {
		s.mu.Unlock()
		writeJSONMessage(w, http.StatusOK, jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "a request with this id is in flight")))
		return
	}
	s.waiting[m.ID] = st
	s.posts = append(s.posts, st)
	s.lastUsed = time.Now()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.waiting[m.ID] == st {
			delete(s.waiting, m.ID)
		}
		for i, x := range s.posts {
			if x == st {
				s.posts = append(s.posts[:i], s.posts[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	}()
	if err := s.up.Write(r.Context(), m); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	p.stream(w, r, s, st, s.id)
}

// stream writes st's messages as server-sent events until st ends, the
// client goes away, or the session ends.
func (p *httpProxy) stream(w http.ResponseWriter, r *http.Request, s *proxySession, st *proxyStream, sid string) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	for {
		select {
		case m := <-st.msgs:
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", m.AppendJSON(nil)); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		case <-st.end:
			// Drain what came before the end.
			for {
				select {
				case m := <-st.msgs:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", m.AppendJSON(nil))
				default:
					return
				}
			}
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}

// open starts a session and its upstream connection.
func (p *httpProxy) open(ctx context.Context) (*proxySession, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("shutting down")
	}
	var evict *proxySession
	if len(p.sessions) >= p.max {
		// Make room by ending the session idle the longest, if any is idle.
		for _, s := range p.sessions {
			s.mu.Lock()
			idle := len(s.waiting) == 0 // a GET stream open is still idle
			used := s.lastUsed
			s.mu.Unlock()
			if idle && (evict == nil || used.Before(evict.lastUsedAt())) {
				evict = s
			}
		}
		if evict == nil {
			p.mu.Unlock()
			return nil, fmt.Errorf("too many sessions (%d), all busy", p.max)
		}
	}
	p.mu.Unlock()
	if evict != nil {
		fmt.Fprintf(p.inv.stderr, "mcp proxy: ending the session idle the longest to make room\n")
		p.drop(evict)
	}
	up, err := openStream(p.inv.target, &p.inv.tf, p.inv.stderr)
	if err != nil {
		return nil, err
	}
	if st, ok := up.(jsonrpc.Starter); ok {
		if err := st.Start(context.WithoutCancel(ctx)); err != nil {
			_ = up.Close()
			return nil, err
		}
	}
	s := &proxySession{id: rand.Text(), up: up, done: make(chan struct{}), waiting: map[jsonrpc.ID]*proxyStream{}}
	p.mu.Lock()
	p.sessions[s.id] = s
	p.mu.Unlock()
	go p.pump(s)
	return s, nil
}

// pump routes the upstream's messages to the session's HTTP streams.
func (p *httpProxy) pump(s *proxySession) {
	defer p.drop(s)
	for {
		m, err := s.up.Read(context.Background())
		if err != nil {
			return
		}
		s.mu.Lock()
		var st *proxyStream
		switch {
		case m.IsResponse() || m.IsInvalidResponse():
			st = s.waiting[m.ID]
			delete(s.waiting, m.ID)
			if st != nil && !st.send(m) {
				st = nil
			}
			if st != nil {
				st.finish()
			}
		case len(s.posts) > 0:
			st = s.posts[len(s.posts)-1]
			if !st.send(m) {
				st = nil
			}
		case s.get != nil:
			if st = s.get; !st.send(m) {
				st = nil
			}
		case len(s.backlog) < httpProxyBacklog:
			s.backlog = append(s.backlog, m)
			st = &proxyStream{} // held, not lost
		}
		s.mu.Unlock()
		if st == nil {
			what := m.Method
			if what == "" {
				what = "response " + m.ID.String()
			}
			fmt.Fprintf(p.inv.stderr, "mcp proxy: dropped a server message (%s): the client is not reading\n", what)
		}
	}
}

// drop ends a session and its upstream.
func (p *httpProxy) drop(s *proxySession) {
	p.mu.Lock()
	_, ok := p.sessions[s.id]
	delete(p.sessions, s.id)
	p.mu.Unlock()
	if ok {
		_ = s.up.Close()
		close(s.done)
	}
}

// closeAll ends every session and refuses new ones.
func (p *httpProxy) closeAll() {
	p.mu.Lock()
	p.closed = true
	all := make([]*proxySession, 0, len(p.sessions))
	for _, s := range p.sessions {
		all = append(all, s)
	}
	p.mu.Unlock()
	for _, s := range all {
		p.drop(s)
	}
}

// writeJSONMessage answers with one JSON-RPC message.
func writeJSONMessage(w http.ResponseWriter, code int, m *jsonrpc.Message) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(m.AppendJSON(nil))
}
