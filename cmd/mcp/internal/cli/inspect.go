package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// The inspector's page: plain HTML, JavaScript and CSS, built into the
// binary so that mcp inspect needs neither Node nor the network.
//
//go:embed inspector
var inspectorFiles embed.FS

// Bounds of the inspector's buffers.
const (
	inspectRecent   = 2000 // events replayed to a page that (re)connects
	inspectSubQueue = 512  // events queued per page before it is dropped
	inspectMaxBody  = 4 << 20
	inspectMaxAsks  = 64 // questions from the server waiting for the page
)

// inspectEvent is one entry of the page's live feed.
type inspectEvent struct {
	Seq  int64           `json:"seq"`
	Kind string          `json:"kind"` // message, progress, connected, disconnected, elicit, sample, answered
	Dir  string          `json:"dir,omitempty"`
	Time string          `json:"time"`
	At   int64           `json:"at"`                // Unix milliseconds, for the page's timings
	Sess int             `json:"session,omitempty"` // a message's session: the page's connections, counted from 1
	Data json.RawMessage `json:"data"`
}

// hub fans events out to every open page and keeps the last few for a page
// that connects later.
type hub struct {
	mu     sync.Mutex
	seq    int64
	recent []inspectEvent
	subs   map[chan inspectEvent]struct{}
}

// publish sends an event; v is encoded as its data.
func (h *hub) publish(kind, dir string, v any) { h.publishIn(0, kind, dir, v) }

// publishIn sends an event of session sess (0: of none).
func (h *hub) publishIn(sess int, kind, dir string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	now := time.Now()
	e := inspectEvent{Seq: h.seq, Kind: kind, Dir: dir, Time: now.Format("15:04:05.000"), At: now.UnixMilli(), Sess: sess, Data: data}
	if len(h.recent) == inspectRecent {
		copy(h.recent, h.recent[1:])
		h.recent = h.recent[:inspectRecent-1]
	}
	h.recent = append(h.recent, e)
	for c := range h.subs {
		select {
		case c <- e:
		default: // too slow: drop it; its EventSource reconnects and replays
			delete(h.subs, c)
			close(c)
		}
	}
}

// subscribe returns the recent events and a channel of the next ones.
func (h *hub) subscribe() ([]inspectEvent, chan inspectEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[chan inspectEvent]struct{}{}
	}
	c := make(chan inspectEvent, inspectSubQueue)
	h.subs[c] = struct{}{}
	return append([]inspectEvent(nil), h.recent...), c
}

func (h *hub) unsubscribe(c chan inspectEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[c]; ok {
		delete(h.subs, c)
		close(c)
	}
}

// tap is a stream that publishes every message it carries, both ways,
// as messages of session sess.
type tap struct {
	jsonrpc.Stream
	h    *hub
	sess int
}

func (t *tap) Start(ctx context.Context) error {
	if st, ok := t.Stream.(jsonrpc.Starter); ok {
		return st.Start(ctx)
	}
	return nil
}

func (t *tap) Read(ctx context.Context) (*jsonrpc.Message, error) {
	m, err := t.Stream.Read(ctx)
	if err == nil {
		t.h.publishIn(t.sess, "message", "in", json.RawMessage(m.AppendJSON(nil)))
	}
	return m, err
}

func (t *tap) Write(ctx context.Context, m *jsonrpc.Message) error {
	t.h.publishIn(t.sess, "message", "out", json.RawMessage(m.AppendJSON(nil)))
	return t.Stream.Write(ctx, m)
}

// inspector serves the page and relays its actions to the current session.
type inspector struct {
	inv   *invocation
	token string
	hub   hub

	mu       sync.Mutex
	cs       *mcp.ClientSession
	target   []string
	lastErr  string // why the last connection failed, shown while none is open
	sessions int    // connections tried, numbering their messages
	level    string // the log level the page asked for, set again on each new session

	roots *rootSet // offered to every server the page connects to

	dev *devServer // mcp dev's builder, which connects the page (nil: mcp inspect)

	sandbox *sandbox // the origin of the apps' views (inspect_apps.go)

	askMu  sync.Mutex
	askSeq int
	asks   map[int]chan json.RawMessage
}

// inspect runs the web inspector on inv.addr until ctx ends.
func (inv *invocation) inspect(ctx context.Context) error { return inv.inspectWith(ctx, nil) }

// inspectWith runs the web inspector; with dev (mcp dev), the server dev
// builds is connected, and connected again after each rebuild, instead of
// inv.target.
func (inv *invocation) inspectWith(ctx context.Context, dev *devServer) error {
	host, _, err := net.SplitHostPort(inv.addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %q: %v", inv.addr, err)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageError{fmt.Errorf("--addr %q: the inspector listens on a loopback address only", inv.addr)}
	}
	var tok [24]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return err
	}
	roots, err := newRootSet(inv.rootDirs)
	if err != nil {
		return usageError{err}
	}
	in := &inspector{inv: inv, token: base64.RawURLEncoding.EncodeToString(tok[:]), asks: map[int]chan json.RawMessage{}, roots: roots, dev: dev}
	// A first connection that fails leaves the page up, showing why, to
	// pick another server. (mcp dev builds the server first, with the
	// page up to show how.)
	if dev == nil {
		if err := in.connect(ctx, inv.target, &inv.tf); err != nil {
			_, msg, _ := classify(ctx, err) // the message without its "mcp: " prefixes
			fmt.Fprintf(inv.stderr, "mcp inspect: %s\n", msg)
		}
	}
	defer in.close()
	ln, err := net.Listen("tcp", inv.addr)
	if err != nil {
		return connectError{err}
	}
	sb, sln, err := newSandbox(host)
	if err != nil {
		ln.Close()
		return connectError{err}
	}
	in.sandbox = sb
	sb.allowPage(ln.Addr().String())
	srv := &http.Server{Handler: in.handler(ln.Addr().String()), ReadHeaderTimeout: 10 * time.Second}
	ssrv := &http.Server{Handler: sb.handler(), ReadHeaderTimeout: 10 * time.Second}
	pageURL := fmt.Sprintf("http://%s/%s/", ln.Addr(), in.token)
	fmt.Fprintf(inv.stdout, "inspector at %s\n", pageURL)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- ssrv.Serve(sln) }()
	if dev != nil {
		devCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); dev.run(devCtx, in, pageURL) }()
		defer func() { stop(); <-done }() // before in.close: no server started after it
	}
	select {
	case err := <-errc:
		err = errors.Join(err, srv.Close(), ssrv.Close())
		<-errc
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdown) // event streams never end by themselves
	_ = srv.Close()
	_ = ssrv.Close()
	<-errc
	<-errc
	return nil
}

// connect opens a session with target, replacing the current one. When
// it fails, the current one ends too: the user meant to leave it, and a
// page still showing (and calling) the old server after a failed switch
// would look like the new one.
func (in *inspector) connect(ctx context.Context, target []string, tf *targetFlags) error {
	stream, err := openStream(target, tf, in.inv.stderr)
	if err != nil {
		in.disconnect(target, err)
		return usageError{err}
	}
	if in.inv.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.inv.timeout)
		defer cancel()
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gomcp-inspector", Version: "0.1.0"}, &mcp.ClientOptions{
		ProtocolVersion:      in.inv.version,
		Capabilities:         inspectorCapabilities(),
		ElicitationHandler:   in.elicit,
		CreateMessageHandler: in.sample,
		Roots:                in.roots.list(), // declared even when none: the page may add some
	})
	in.mu.Lock()
	in.sessions++
	sess, level := in.sessions, in.level
	in.mu.Unlock()
	in.hub.publish("connecting", "", map[string]any{"target": target, "session": sess})
	cs, err := client.Connect(ctx, &tap{Stream: stream, h: &in.hub, sess: sess})
	if err != nil {
		in.disconnect(target, err)
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return err
		}
		return connectError{err}
	}
	in.roots.attach(client)
	if level != "" && cs.ServerCapabilities().Logging != nil {
		if l, ok := mcp.ParseLoggingLevel(level); ok {
			_ = cs.SetLoggingLevel(ctx, l) // best effort: the page shows the server's answer in its log
		}
	}
	in.mu.Lock()
	old := in.cs
	in.cs, in.target, in.lastErr = cs, target, ""
	in.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	in.hub.publish("connected", "", in.state())
	go func() {
		<-cs.Done()
		in.mu.Lock()
		current := in.cs == cs
		in.mu.Unlock()
		if current { // not replaced: the server went away
			in.hub.publish("disconnected", "", map[string]any{"error": "the session with " + strings.Join(target, " ") + " ended"})
		}
	}()
	return nil
}

// inspectorCapabilities are what the inspector's client declares: what
// its handlers answer (sampling, elicitation in form mode, roots), and
// that the page renders MCP Apps views, at every revision.
func inspectorCapabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{Tools: &struct{}{}},
		Elicitation: &mcp.ElicitationCapabilities{Form: &struct{}{}},
		Roots:       &mcp.RootCapabilities{ListChanged: true},
	}
	apps.DeclareClient(caps)
	return caps
}

// disconnect ends the current session, if any, after a failed connection
// to target, and tells the page why.
func (in *inspector) disconnect(target []string, err error) {
	in.mu.Lock()
	old := in.cs
	msg := plainError(err)
	in.cs, in.target, in.lastErr = nil, target, msg
	in.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	in.hub.publish("disconnected", "", map[string]any{"error": msg})
}

// plainError is err's message without the "mcp: " prefixes that the
// page and the command's own prefix would repeat.
func plainError(err error) string {
	msg := err.Error()
	for strings.HasPrefix(msg, "mcp: ") {
		msg = msg[len("mcp: "):]
	}
	return msg
}

// close ends the current session.
func (in *inspector) close() {
	in.mu.Lock()
	cs := in.cs
	in.cs = nil
	in.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// state describes the current session for the page.
func (in *inspector) state() map[string]any {
	in.mu.Lock()
	cs, target, lastErr := in.cs, in.target, in.lastErr
	in.mu.Unlock()
	var dev any // mcp dev's last build
	if in.dev != nil {
		dev = in.dev.lastStatus()
	}
	if cs == nil {
		return map[string]any{"connected": false, "target": strings.Join(target, " "), "error": lastErr, "dev": dev}
	}
	out := map[string]any{
		"dev":             dev,
		"connected":       true,
		"target":          strings.Join(target, " "),
		"protocolVersion": cs.ProtocolVersion(),
		"stateless":       cs.Stateless(),
		"capabilities":    cs.ServerCapabilities(),
		"tasks":           serverTakesTasks(cs),
		"logLevel":        in.logLevel(),
	}
	if ir := cs.InitializeResult(); ir != nil {
		out["serverInfo"], out["instructions"] = ir.ServerInfo, ir.Instructions
	}
	return out
}

// logLevel is the log level the page asked for ("" for the server's own).
func (in *inspector) logLevel() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.level
}

// ask publishes a question from the server and waits for the page's
// answer. problem, if not empty, says what was wrong with the last answer.
func (in *inspector) ask(ctx context.Context, kind string, params any, problem string) (json.RawMessage, error) {
	in.askMu.Lock()
	if len(in.asks) >= inspectMaxAsks {
		in.askMu.Unlock()
		return nil, errors.New("too many questions are waiting for an answer")
	}
	in.askSeq++
	id := in.askSeq
	c := make(chan json.RawMessage, 1)
	in.asks[id] = c
	in.askMu.Unlock()
	defer func() {
		in.askMu.Lock()
		delete(in.asks, id)
		in.askMu.Unlock()
	}()
	q := map[string]any{"id": id, "params": params}
	if problem != "" {
		q["error"] = problem
	}
	in.hub.publish(kind, "", q)
	select {
	case a := <-c:
		return a, nil
	case <-ctx.Done():
		in.hub.publish("answered", "", map[string]any{"id": id, "cancelled": true})
		return nil, ctx.Err()
	}
}

// elicit lets the page fill in the server's form, or show its link, and
// asks again, saying why, while the answer does not fit the requested
// schema.
func (in *inspector) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if req.Params.Mode == mcp.ElicitModeURL && !isWebURL(req.Params.URL) {
		// The page would make it a link for the user to click: a server
		// must not get a javascript:, data: or file: URL there.
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: the inspector opens only http and https URLs")
	}
	problem := ""
	for {
		a, err := in.ask(ctx, "elicit", req.Params, problem)
		if err != nil {
			return nil, err
		}
		var res mcp.ElicitResult
		if err := json.Unmarshal(a, &res); err != nil {
			return nil, err
		}
		if res.Action != mcp.ElicitActionAccept || req.Params.RequestedSchema == nil {
			return &res, nil
		}
		err = checkElicitation(req.Params.RequestedSchema, res.Content)
		if err == nil {
			return &res, nil
		}
		problem = err.Error()
	}
}

// isWebURL reports whether s is an absolute http or https URL.
func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// sample lets the page's user write the model's reply.
func (in *inspector) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a, err := in.ask(ctx, "sample", req.Params, "")
	if err != nil {
		return nil, err
	}
	var reply struct {
		Text   string `json:"text"`
		Refuse bool   `json:"refuse"`
	}
	if err := json.Unmarshal(a, &reply); err != nil {
		return nil, err
	}
	if reply.Refuse {
		return nil, jsonrpc.NewError(-1, "the user refused the sampling request")
	}
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent(reply.Text)},
		Model: "human", StopReason: "endTurn"}, nil
}

// handler serves the page, its feed and its API under /TOKEN/, to requests
// addressed to addr (or localhost) from the page itself.
func (in *inspector) handler(addr string) http.Handler {
	hosts := pageHosts(addr)
	csp := "default-src 'self'; img-src 'self' data:; media-src 'self' data:; frame-ancestors 'none'"
	if in.sandbox != nil {
		csp += "; frame-src " + in.sandbox.origin // the apps' views, and nothing else
	}
	static, _ := fs.Sub(inspectorFiles, "inspector")
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", files)
	mux.Handle("GET /app.js", files)
	mux.Handle("GET /apps.js", files)
	mux.Handle("GET /log.js", files)
	mux.Handle("GET /ui.js", files)
	mux.Handle("GET /dev.js", files)
	mux.Handle("GET /app.css", files)
	mux.HandleFunc("GET /events", in.serveEvents)
	mux.HandleFunc("POST /api/{op}", in.serveAPI)
	prefix := "/" + in.token + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page from another site, or a name rebound to 127.0.0.1, is refused.
		if !hosts[r.Host] {
			http.Error(w, "wrong Host", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(w, "wrong Origin", http.StatusForbidden)
			return
		}
		if r.URL.Path == "/favicon.ico" { // asked for by the browser, without the token
			noContent(w)
			return
		}
		if len(r.URL.Path) < len(prefix) || subtle.ConstantTimeCompare([]byte(r.URL.Path[:len(prefix)]), []byte(prefix)) != 1 {
			http.Error(w, "this inspector's address has a token: use the URL mcp inspect printed", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + r.URL.Path[len(prefix):]
		r2.URL.RawPath = ""
		mux.ServeHTTP(w, r2)
	})
}

// noContent answers a request that has nothing to get, such as a
// browser's /favicon.ico (the page names its icon itself), without an
// error in the browser's console.
func noContent(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "max-age=86400")
	w.WriteHeader(http.StatusNoContent)
}

// serveEvents streams the feed as server-sent events.
func (in *inspector) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	recent, c := in.hub.subscribe()
	defer in.hub.unsubscribe(c)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	write := func(e inspectEvent) bool {
		b, _ := json.Marshal(e)
		_, err := fmt.Fprintf(w, "data: %s\n\n", b)
		return err == nil
	}
	for _, e := range recent {
		if !write(e) {
			return
		}
	}
	fl.Flush()
	for {
		select {
		case e, ok := <-c:
			if !ok || !write(e) {
				return
			}
			fl.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// serveAPI runs one action of the page.
func (in *inspector) serveAPI(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "want application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, inspectMaxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	res, err := in.do(r.Context(), r.PathValue("op"), body)
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusOK)
		out := map[string]any{"error": plainError(err)}
		var je *jsonrpc.Error
		if errors.As(err, &je) { // the page passes it on to a view as it is
			out["code"], out["error"] = je.Code, je.Message
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"result": res})
}

// do performs the action op with the JSON arguments body.
func (in *inspector) do(ctx context.Context, op string, body []byte) (any, error) {
	var a struct {
		Target    string          `json:"target"`
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		ID        int             `json:"id"`
		Result    json.RawMessage `json:"result"`
		Task      bool            `json:"task"`   // call: as a task
		TaskID    string          `json:"taskId"` // task-cancel
		Dir       string          `json:"dir"`    // roots-add, roots-remove
		View      string          `json:"view"`   // app-call, app-read: the view's id
		// complete: Name (a prompt) or URI (a template) names what is
		// completed, Argument and Value the field being typed, Context
		// the form's other fields.
		Level    string            `json:"level"` // set-level
		Argument string            `json:"argument"`
		Value    string            `json:"value"`
		Context  map[string]string `json:"context"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, fmt.Errorf("bad request: %v", err)
		}
	}
	switch op {
	case "state":
		return in.state(), nil
	case "connect":
		target, err := splitWords(a.Target)
		if err != nil {
			return nil, err
		}
		if len(target) == 0 {
			return nil, errors.New("name a URL, a command, or @NAME")
		}
		if err := in.connect(ctx, target, &targetFlags{config: in.inv.tf.config}); err != nil {
			return nil, err
		}
		return in.state(), nil
	case "answer":
		in.askMu.Lock()
		c, ok := in.asks[a.ID]
		delete(in.asks, a.ID)
		in.askMu.Unlock()
		if !ok {
			return nil, errors.New("that question is no longer waiting")
		}
		c <- a.Result
		in.hub.publish("answered", "", map[string]any{"id": a.ID})
		return map[string]any{}, nil
	case "roots":
		return in.roots.list(), nil
	case "roots-add", "roots-remove":
		change := in.roots.add
		if op == "roots-remove" {
			change = in.roots.remove
		}
		if err := change(a.Dir); err != nil {
			return nil, err
		}
		return in.roots.list(), nil
	}
	in.mu.Lock()
	cs, lastErr := in.cs, in.lastErr
	in.mu.Unlock()
	if cs == nil {
		if lastErr != "" {
			return nil, fmt.Errorf("not connected to a server (%s): connect to one first", lastErr)
		}
		return nil, errors.New("not connected to a server: connect to one first")
	}
	if in.inv.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.inv.timeout)
		defer cancel()
	}
	caps := cs.ServerCapabilities()
	switch op {
	case "tools":
		if caps.Tools == nil {
			return []any{}, nil
		}
		return collect(cs.Tools(ctx, nil))
	case "resources":
		if caps.Resources == nil {
			return []any{}, nil
		}
		return collect(cs.Resources(ctx, nil))
	case "templates":
		if caps.Resources == nil {
			return []any{}, nil
		}
		return collect(cs.ResourceTemplates(ctx, nil))
	case "prompts":
		if caps.Prompts == nil {
			return []any{}, nil
		}
		return collect(cs.Prompts(ctx, nil))
	case "call":
		ctx = mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { in.hub.publish("progress", "", p) })
		if len(a.Arguments) == 0 || string(a.Arguments) == "null" {
			a.Arguments = nil
		}
		p := &mcp.CallToolParams{Name: a.Name, Arguments: a.Arguments}
		if a.Task {
			return in.callTask(ctx, cs, p)
		}
		res, err := cs.CallTool(ctx, p)
		if needsTasks(err) { // a 2026-07-28 tool that runs only as a task
			return in.callTask(ctx, cs, p)
		}
		return res, err
	case "task-cancel":
		return map[string]any{}, tasks.Cancel(ctx, cs, a.TaskID)
	case "read":
		return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: a.URI})
	case "get":
		var args map[string]string
		if len(a.Arguments) > 0 {
			if err := json.Unmarshal(a.Arguments, &args); err != nil {
				return nil, fmt.Errorf("prompt arguments must be strings: %v", err)
			}
		}
		return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: a.Name, Arguments: args})
	case "ping":
		return map[string]any{}, cs.Ping(ctx)
	case "set-level":
		return in.setLevel(ctx, cs, a.Level)
	case "app":
		return in.openView(ctx, cs, a.Name)
	case "app-call":
		return in.appCall(ctx, cs, a.View, a.Name, a.Arguments)
	case "app-read":
		return in.appRead(ctx, cs, a.View, a.URI)
	case "complete":
		if caps.Completions == nil {
			return []string{}, nil // the page offers no suggestions
		}
		return complete(ctx, cs, a.Name, a.URI, a.Argument, a.Value, a.Context)
	}
	return nil, fmt.Errorf("unknown action %q", op)
}

// splitWords splits a command line into words as a shell would for the
// simple cases: blanks separate words, and single or double quotes and
// backslashes keep them together.
func splitWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '\'':
			cur.WriteRune(r)
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case quote == '"':
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// callTask calls a tool letting the server make it a task, and follows
// the task to its result, publishing each status as a task event for the
// page, which offers to cancel it meanwhile. A page that leaves before the
// end cancels the task.
func (in *inspector) callTask(ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	tc, err := tasks.CallTool(ctx, cs, p, nil)
	if err != nil {
		return nil, err
	}
	if tc.Task == nil {
		return tc.Result, nil
	}
	return followTask(ctx, cs, tc, func(t *tasks.TaskInfo) {
		in.hub.publish("task", "", map[string]any{"tool": p.Name, "task": t})
	})
}

// setLevel asks the server for log messages of level and above
// (logging/setLevel; at 2026-07-28, in every later request's _meta), and
// keeps the level for the sessions the page opens next.
func (in *inspector) setLevel(ctx context.Context, cs *mcp.ClientSession, level string) (any, error) {
	l, ok := mcp.ParseLoggingLevel(level)
	if !ok {
		return nil, fmt.Errorf("unknown log level %q", level)
	}
	if cs.ServerCapabilities().Logging == nil {
		return nil, errors.New("the server does not send log messages (no logging capability)")
	}
	if err := cs.SetLoggingLevel(ctx, l); err != nil {
		return nil, err
	}
	in.mu.Lock()
	in.level = level
	in.mu.Unlock()
	return map[string]any{"level": level}, nil
}

// serverTakesTasks reports whether the server of cs runs tools/call as a
// task when asked: at 2026-07-28 it declares the tasks extension, at
// 2025-11-25 tasks.requests.tools.call. The page offers "run as a task"
// only then (or for a tool that requires it).
func serverTakesTasks(cs *mcp.ClientSession) bool {
	caps := cs.ServerCapabilities()
	if caps == nil {
		return false
	}
	if cs.Stateless() {
		_, ok := caps.Extensions[tasks.ExtensionID]
		return ok
	}
	tc, err := tasks.ServerCapabilitiesOf(caps)
	return err == nil && tc != nil && tc.Requests != nil && tc.Requests.Tools != nil && tc.Requests.Tools.Call != nil
}

// complete asks the server for values of a prompt's (name) or a resource
// template's (uri) argument, for the form field being typed.
func complete(ctx context.Context, cs *mcp.ClientSession, name, uri, arg, value string, others map[string]string) ([]string, error) {
	ref := mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: name}
	if uri != "" {
		ref = mcp.CompleteReference{Type: mcp.RefTypeResource, URI: uri}
	}
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: arg, Value: value}}
	if len(others) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: others}
	}
	res, err := cs.Complete(ctx, p)
	if err != nil {
		return nil, err
	}
	return res.Completion.Values, nil
}
