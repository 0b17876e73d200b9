package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Bounds of proxy --http.
const (
	httpProxyMaxSessions = 64      // sessions at once, each with its own upstream
	httpProxyMaxBody     = 4 << 20 // bytes of one POST body
	httpProxyBacklog     = 256     // server messages held for a GET stream not yet open
	httpProxyStreamQueue = 256     // messages queued for one open HTTP response stream
	httpProxyIdleUp      = 4       // idle upstream connections kept for stateless requests
)

// proxyHTTP serves the target over Streamable HTTP at http://ADDR/mcp:
// each session (opened by an initialize request) gets its own connection
// to the target (for a command, its own process), and every message
// passes unchanged in both directions. A response goes back on the POST
// that carried its request; the server's own requests and notifications go
// on the stream of the request they relate to (see pump), or else on the
// session's GET stream. A request of the 2026-07-28 stateless revision
// (no session) gets an upstream connection to itself for as long as it
// runs (see stateless).
func (inv *invocation) proxyHTTP(ctx context.Context) error {
	if _, err := openStream(inv.target, &inv.tf, io.Discard); err != nil { // check the target before listening
		return usageError{err}
	}
	g, err := newGuard(inv.allow, inv.deny)
	if err != nil {
		return usageError{err}
	}
	addr, err := inv.listenAddr("mcp proxy", "drive the target with its -H credentials")
	if err != nil {
		return err
	}
	ln, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return connectError{err}
	}
	p := &httpProxy{inv: inv, guard: g, sessions: map[string]*proxySession{}, max: httpProxyMaxSessions}
	defer p.closeAll()
	return serveUntilDone(ctx, inv, ln, p.handler(), p.closeAll)
}

// serveUntilDone serves h on ln, having said where, until ctx ends; then
// closeStreams ends the open streams, so that the server's Shutdown need
// not wait for them.
func serveUntilDone(ctx context.Context, inv *invocation, ln net.Listener, h http.Handler, closeStreams func()) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(inv.stdout, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	closeStreams()
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown)
	_ = srv.Close()
	return nil
}

// listenAddr resolves --http for a command (ListenAddr) whose server
// others could use to do what risk says.
func (inv *invocation) listenAddr(command, risk string) (*net.TCPAddr, error) {
	addr, err := ListenAddr(inv.httpAddr, inv.remote, inv.stderr, command, risk)
	if err != nil {
		return nil, usageError{err}
	}
	return addr, nil
}

// ListenAddr resolves the --http address of a command that serves MCP
// without authentication of its own (mcp proxy, mcp mock, mcp serve): an
// address off loopback (all interfaces, as ":PORT", included) is refused
// unless allowRemote (--allow-remote) says so, and then comes with a
// warning on stderr naming what others could do there (risk).
func ListenAddr(httpAddr string, allowRemote bool, stderr io.Writer, command, risk string) (*net.TCPAddr, error) {
	addr, err := net.ResolveTCPAddr("tcp", httpAddr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", httpAddr, err)
	}
	if addr.IP != nil && addr.IP.IsLoopback() {
		return addr, nil
	}
	if !allowRemote {
		return nil, fmt.Errorf("--http %s is not a loopback address: other machines could %s, and %s has no authentication; give --allow-remote to listen there anyway, or listen on 127.0.0.1", httpAddr, risk, command)
	}
	fmt.Fprintf(stderr, "%s: warning: listening on %s, off loopback, without authentication: whoever reaches it can %s\n", command, httpAddr, risk)
	return addr, nil
}

// handler serves p at /mcp behind the Host and Origin checks of mcphttp,
// made for each request from the address it arrived on: a page from
// another site, or a name rebound to the proxy's address (DNS rebinding),
// must not drive the target.
func (p *httpProxy) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.CheckHosts(p, p.inv.hosts, nil))
	return mux
}

// httpProxy is the HTTP side of proxy --http.
type httpProxy struct {
	inv      *invocation
	guard    *guard // --allow, --deny
	max      int    // sessions at once
	mu       sync.Mutex
	sessions map[string]*proxySession
	closed   bool
	idle     []jsonrpc.Stream        // upstreams free for stateless requests
	busy     map[jsonrpc.Stream]bool // upstreams serving a stateless request
	book     headerBook              // x-mcp-header annotations of the tools listed through the proxy
}

// proxySession is one client's session and its upstream connection.
type proxySession struct {
	id    string
	up    jsonrpc.Stream
	done  chan struct{} // closed when the upstream ends
	lists *listWatch    // the list requests in flight, whose results the guard filters

	mu       sync.Mutex
	waiting  map[jsonrpc.ID]*proxyStream // requests in flight, by id
	progress map[string]*proxyStream     // their streams by progress token (its JSON)
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

// removePost forgets st as an open POST stream; s.mu is held.
func (s *proxySession) removePost(st *proxyStream) {
	for i, x := range s.posts {
		if x == st {
			s.posts = append(s.posts[:i], s.posts[i+1:]...)
			return
		}
	}
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
	case r.Header.Get("Mcp-Session-Id") == "" && (m.Method == mcp.MethodServerDiscover || declaresStateless(m)):
		p.stateless(w, r, m)
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
	if no := p.guard.refuse(m); no != nil {
		w.Header().Set("Mcp-Session-Id", s.id)
		writeJSONMessage(w, http.StatusOK, no)
		return
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
	token := progressToken(m.Params)
	if token != "" {
		if s.progress == nil {
			s.progress = map[string]*proxyStream{}
		}
		s.progress[token] = st
	}
	s.mu.Unlock()
	s.lists.note(m)
	defer func() {
		s.mu.Lock()
		if s.waiting[m.ID] == st {
			delete(s.waiting, m.ID)
		}
		if token != "" && s.progress[token] == st {
			delete(s.progress, token)
		}
		s.removePost(st)
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
	if err := startStream(context.WithoutCancel(ctx), up); err != nil {
		return nil, err
	}
	s := &proxySession{id: rand.Text(), up: up, done: make(chan struct{}), lists: &listWatch{g: p.guard}, waiting: map[jsonrpc.ID]*proxyStream{}}
	p.mu.Lock()
	p.sessions[s.id] = s
	p.mu.Unlock()
	go p.pump(s)
	return s, nil
}

// progressToken returns the JSON of params._meta.progressToken, "" if none.
func progressToken(params json.RawMessage) string {
	if len(params) == 0 || params[0] != '{' {
		return ""
	}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		ProgressToken json.RawMessage `json:"progressToken"` // of a progress notification
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if len(p.ProgressToken) > 0 {
		return string(p.ProgressToken)
	}
	return string(p.Meta.ProgressToken)
}

// pump routes the upstream's messages to the session's HTTP streams: a
// response to its request's POST, a progress notification to the POST
// that carried its progress token, anything else to the newest POST still
// open (the only one, when requests do not overlap), or else the GET
// stream.
func (p *httpProxy) pump(s *proxySession) {
	defer p.drop(s)
	for {
		m, err := s.up.Read(context.Background())
		if err != nil {
			return
		}
		if m = s.lists.filter(m); m == nil {
			continue // about a hidden item
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
				// Ended: what comes next goes to a stream still open,
				// not to this one, whose handler may have drained it
				// already and left.
				st.finish()
				s.removePost(st)
			}
		case m.Method == mcp.NotificationProgress && s.progress[progressToken(m.Params)] != nil:
			if st = s.progress[progressToken(m.Params)]; !st.send(m) {
				st = nil
			}
		case len(s.posts) > 0:
			// Nothing in a message tells which request it belongs to
			// (a stdio server's elicitation inside a tool call carries
			// no request id): the newest request is the best guess.
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
	ups := p.idle
	p.idle = nil
	for up := range p.busy {
		ups = append(ups, up)
	}
	p.mu.Unlock()
	for _, up := range ups {
		_ = up.Close()
	}
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

// declaresStateless reports whether m is a request of the 2026-07-28
// revision (its _meta names a protocol version).
func declaresStateless(m *jsonrpc.Message) bool {
	v, _ := stateless(m)
	return v != ""
}

// stateless relays one request of the stateless revision. It has an
// upstream connection to itself until its response, so that everything the
// server writes meanwhile (progress, log messages) belongs to it and goes
// on its response stream; the connection then serves later requests. The
// request's standard headers pass on to an HTTP target as they came.
func (p *httpProxy) stateless(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
	msg := headerMismatch(r, m)
	if msg == "" {
		msg = p.book.check(r.Header, m)
	}
	if msg != "" {
		writeJSONMessage(w, http.StatusBadRequest, jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(mcp.CodeHeaderMismatch, msg)))
		return
	}
	if no := p.guard.refuse(m); no != nil {
		writeJSONMessage(w, answerStatus(no), no)
		return
	}
	up, err := p.takeUpstream(r.Context())
	if err != nil {
		writeJSONMessage(w, http.StatusOK, jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "proxy: "+err.Error())))
		return
	}
	done := false // the response came: up is fit for another request
	defer func() { p.releaseUpstream(up, done) }()
	h := http.Header{}
	for k, v := range r.Header {
		if k == mcpheader.HeaderProtocolVersion || strings.HasPrefix(k, "Mcp-") {
			h[k] = v
		}
	}
	p.book.note(m)
	if err := up.Write(mcpheader.WithHTTPHeaders(r.Context(), h), m); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	first, err := up.Read(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	isAnswer := func(x *jsonrpc.Message) bool {
		if (x.IsResponse() || x.IsInvalidResponse()) && x.ID == m.ID {
			p.book.learn(x)
			return true
		}
		return false
	}
	if isAnswer(first) {
		done = true
		writeJSONMessage(w, answerStatus(first), p.guard.filter(m.Method, first))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for x := first; ; {
		if x.IsResponse() && x.ID == m.ID {
			x = p.guard.filter(m.Method, x)
		}
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", x.AppendJSON(nil)); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		if isAnswer(x) {
			done = true
			return
		}
		if x, err = up.Read(r.Context()); err != nil {
			return
		}
	}
}

// takeUpstream returns an idle upstream connection or opens one, at most
// max at once.
func (p *httpProxy) takeUpstream(ctx context.Context) (jsonrpc.Stream, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("shutting down")
	}
	if n := len(p.idle); n > 0 {
		up := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.busy[up] = true
		p.mu.Unlock()
		return up, nil
	}
	if len(p.busy) >= p.max {
		p.mu.Unlock()
		return nil, fmt.Errorf("too many stateless requests at once (%d)", p.max)
	}
	p.mu.Unlock()
	up, err := openStream(p.inv.target, &p.inv.tf, p.inv.stderr)
	if err != nil {
		return nil, err
	}
	if err := startStream(context.WithoutCancel(ctx), up); err != nil {
		return nil, err
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		if p.busy == nil {
			p.busy = map[jsonrpc.Stream]bool{}
		}
		p.busy[up] = true
	}
	p.mu.Unlock()
	if closed {
		_ = up.Close()
		return nil, errors.New("shutting down")
	}
	return up, nil
}

// releaseUpstream keeps up for the next stateless request if reusable,
// and there is room, or closes it.
func (p *httpProxy) releaseUpstream(up jsonrpc.Stream, reusable bool) {
	p.mu.Lock()
	if !p.busy[up] {
		p.mu.Unlock()
		return // closeAll closed it
	}
	delete(p.busy, up)
	keep := reusable && !p.closed && len(p.idle) < httpProxyIdleUp
	if keep {
		p.idle = append(p.idle, up)
	}
	p.mu.Unlock()
	if !keep {
		_ = up.Close()
	}
}

// headerMismatch checks a stateless request's standard headers against
// its body, as a Streamable HTTP server must (SEP-2243): the version, the
// method and the name. It returns what is wrong, or "". (Mcp-Param-*
// would need the tool's schema; the target checks those if it can.)
func headerMismatch(r *http.Request, m *jsonrpc.Message) string {
	version, p := stateless(m)
	if version == "" {
		return "" // server/discover without _meta: the target answers
	}
	switch got := r.Header.Get(mcpheader.HeaderProtocolVersion); {
	case got == "":
		return "Missing MCP-Protocol-Version header"
	case got != version:
		return fmt.Sprintf("Header mismatch: MCP-Protocol-Version %q differs from _meta protocolVersion %q", got, version)
	}
	if got := r.Header.Get(mcpheader.HeaderMethod); got != m.Method {
		if got == "" {
			return "Header mismatch: missing Mcp-Method header"
		}
		return fmt.Sprintf("Header mismatch: Mcp-Method %q differs from the request method %q", got, m.Method)
	}
	var name string
	switch m.Method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet:
		name = p.Name
	case mcp.MethodResourcesRead:
		name = p.URI
	}
	if name == "" {
		return ""
	}
	got, ok := r.Header[http.CanonicalHeaderKey(mcpheader.HeaderName)]
	if !ok {
		return "Header mismatch: missing Mcp-Name header"
	}
	v, err := mcpheader.DecodeHeaderValue(got[0])
	if err != nil {
		return "Header mismatch: Mcp-Name: " + err.Error()
	}
	if v != name {
		return fmt.Sprintf("Header mismatch: Mcp-Name %q differs from the request's %q", got[0], name)
	}
	return ""
}

// answerStatus is the HTTP status of a stateless request's answer sent
// alone as JSON: 404 for a method not found, 400 for what the request got
// wrong, else 200.
func answerStatus(m *jsonrpc.Message) int {
	if m.Error == nil {
		return http.StatusOK
	}
	switch m.Error.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
