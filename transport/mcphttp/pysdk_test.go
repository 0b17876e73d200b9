package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// pyServer answers as the Python SDK's Streamable HTTP server does
// (src/mcp/server/streamable_http.py and streamable_http_manager.py, v1.29
// and v2 main, behind Starlette and sse-starlette), headers included:
//   - a notification or response gets 202 with Content-Type
//     application/json, the session id and an empty body (Content-Length 0);
//   - a request gets an SSE stream (Cache-Control "no-cache, no-transform",
//     CRLF line ends, "event: message" before each message) or, in JSON
//     mode, an application/json body; both carry the session id;
//   - with an event store (events), from 2025-11-25 on, each stream starts
//     with a priming event and every message event has an id; sse-starlette
//     writes the fields in the order id, event, data, retry, so the priming
//     event is "id: X", "data: " and "retry: N"; a GET with Last-Event-ID
//     replays what followed that id, then primes the stream again and keeps
//     it open (_replay_events);
//   - the tool "poll" closes its POST stream right after the priming event
//     and answers later, as a handler calling close_sse_stream does: the
//     answer waits in the event store for the client's GET;
//   - GET opens the standalone stream, held until the session ends (this
//     one sends a keep-alive comment and a ping request on it);
//   - DELETE gets 200 with Content-Type application/json and an empty body;
//   - errors are JSON-RPC errors with the id "server-error" (v1.29) or null
//     (v2); a session id the manager does not know (after a restart, say)
//     gets 404 "Session not found";
//   - stateless (stateless_http=True): no session id at all, DELETE gets
//     405, and GET opens a stream on which nothing but pings ever comes.
type pyServer struct {
	json      bool // is_json_response_enabled
	events    bool // an event store, retry_interval 10 ms
	stateless bool
	v1        bool // v1.29's error id, "server-error"

	mu         sync.Mutex
	sid        string
	terminated bool
	ended      chan struct{}          // closed by DELETE: the standalone stream ends
	log        []string               // "METHOD what status", in order
	stored     map[string][]string    // stream → its events, in order, once events
	lastEvent  string                 // the Last-Event-ID of the last GET that had one
	hold       func(*jsonrpc.Message) // runs before a POSTed message is looked at
	cancelled  chan struct{}          // closed by notifications/cancelled (the tool "block" waits for it)
}

var pyVersions = []string{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326, mcp.Version20241105}

func (p *pyServer) note(format string, args ...any) {
	p.mu.Lock()
	p.log = append(p.log, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

func (p *pyServer) exchanges() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

// ping is the server's own ping request as each version writes it: v1.29
// numbers from 0 and puts Request's members first; v2's dispatcher numbers
// from 1 and always sends params with _meta.
func (p *pyServer) ping() string {
	if p.v1 {
		return `{"method":"ping","jsonrpc":"2.0","id":0}`
	}
	return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{}}}`
}

// pinged is the exchange of the client's answer to ping.
func (p *pyServer) pinged() string {
	if p.v1 {
		return "POST response 0 202"
	}
	return "POST response 1 202"
}

// restart forgets every session, as a restarted server does.
func (p *pyServer) restart() {
	p.mu.Lock()
	p.sid = "forgotten"
	p.mu.Unlock()
}

// plain writes a Starlette Response: Content-Type application/json, the
// session id once there is one, and body (Content-Length even when empty).
func (p *pyServer) plain(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	p.mu.Lock()
	if p.sid != "" && !p.stateless {
		h.Set("Mcp-Session-Id", p.sid)
	}
	p.mu.Unlock()
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (p *pyServer) fail(w http.ResponseWriter, status int, msg string) {
	id := "null"
	if p.v1 {
		id = `"server-error"`
	}
	p.plain(w, status, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600,"message":"`+msg+`"}}`)
}

// valid is the manager's session lookup, then the transport's
// _validate_request_headers: the session, then the version.
func (p *pyServer) valid(w http.ResponseWriter, r *http.Request) bool {
	p.mu.Lock()
	sid, terminated := p.sid, p.terminated
	p.mu.Unlock()
	got := r.Header.Get("Mcp-Session-Id")
	switch {
	case p.stateless:
	case got == "":
		// The manager made a session for the request (it has no id), and
		// the transport refuses it: the answer names that new session.
		w.Header().Set("Mcp-Session-Id", "0e5a1c9d7b3f4a2e8c6d1f0b9a7e5c3d")
		p.fail(w, http.StatusBadRequest, "Bad Request: Missing session ID")
		return false
	case got != sid:
		// The manager's answer: no session header, always "server-error".
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Session not found"}}`)
		return false
	case terminated:
		p.fail(w, http.StatusNotFound, "Not Found: Session has been terminated")
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(pyVersions, v) {
		p.fail(w, http.StatusBadRequest, "Bad Request: Unsupported protocol version: "+v)
		return false
	}
	return true
}

func (p *pyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		p.post(w, r)
	case http.MethodGet:
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			p.fail(w, http.StatusNotAcceptable, "Not Acceptable: Client must accept text/event-stream")
			return
		}
		if !p.valid(w, r) {
			return
		}
		if last := r.Header.Get("Last-Event-Id"); last != "" {
			p.replay(w, r, last)
			return
		}
		p.note("GET stream 200")
		p.sseHeaders(w)
		_, _ = io.WriteString(w, ": ping - 2026-11-26 10:00:00.000000+00:00\r\n\r\n")
		if !p.stateless {
			// A request of the server's own, whose answer the client POSTs.
			_, _ = io.WriteString(w, "event: message\r\ndata: "+p.ping()+"\r\n\r\n")
		}
		w.(http.Flusher).Flush()
		p.mu.Lock()
		ended := p.ended
		p.mu.Unlock()
		select {
		case <-ended:
		case <-r.Context().Done():
		}
	case http.MethodDelete:
		if p.stateless {
			p.note("DELETE 405")
			p.fail(w, http.StatusMethodNotAllowed, "Method Not Allowed: Session termination not supported")
			return
		}
		if !p.valid(w, r) {
			return
		}
		p.mu.Lock()
		p.terminated = true
		close(p.ended)
		p.mu.Unlock()
		p.note("DELETE 200")
		p.plain(w, http.StatusOK, "")
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		p.fail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

func (p *pyServer) sseHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Connection", "keep-alive")
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	p.mu.Lock()
	if p.sid != "" && !p.stateless {
		h.Set("Mcp-Session-Id", p.sid)
	}
	p.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// store keeps an event of stream (data "" for a priming event) and returns
// its SSE frame.
func (p *pyServer) store(stream, data string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stored == nil {
		p.stored = map[string][]string{}
	}
	id := fmt.Sprintf("%s-%d", stream, len(p.stored[stream]))
	var frame string
	if data == "" {
		frame = "id: " + id + "\r\ndata: \r\nretry: 10\r\n\r\n"
	} else {
		frame = "id: " + id + "\r\nevent: message\r\ndata: " + data + "\r\n\r\n"
	}
	p.stored[stream] = append(p.stored[stream], frame)
	return frame
}

// replay answers a GET with Last-Event-ID: the stored events after it, a
// new priming event, then the stream stays open until the client leaves.
func (p *pyServer) replay(w http.ResponseWriter, r *http.Request, last string) {
	stream, n, _ := strings.Cut(last, "-")
	p.mu.Lock()
	p.lastEvent = last
	events := slices.Clone(p.stored[stream])
	p.mu.Unlock()
	var after int
	_, _ = fmt.Sscan(n, &after)
	p.note("GET replay %s 200", last)
	p.sseHeaders(w)
	for _, ev := range events[min(after+1, len(events)):] {
		_, _ = io.WriteString(w, ev)
	}
	_, _ = io.WriteString(w, p.store(stream, ""))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func (p *pyServer) post(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "application/json") || (!p.json && !strings.Contains(accept, "text/event-stream")) {
		p.fail(w, http.StatusNotAcceptable, "Not Acceptable: Client must accept both application/json and text/event-stream")
		return
	}
	body, _ := io.ReadAll(r.Body)
	m := jsonrpc.Decode(body)
	if m.Invalid != nil || m.Batch != nil {
		p.fail(w, http.StatusBadRequest, "Parse error")
		return
	}
	p.mu.Lock()
	hold := p.hold
	p.mu.Unlock()
	if hold != nil {
		hold(m)
	}
	initialize := m.IsRequest() && m.Method == mcp.MethodInitialize
	if initialize && !p.stateless {
		p.mu.Lock()
		p.sid, p.terminated, p.ended = "9f3c0d9a5b2e4c7f8a1d6e0b3c5f7a9d", false, make(chan struct{})
		p.mu.Unlock()
	} else if !p.valid(w, r) {
		return
	}
	if m.Method == mcp.NotificationCancelled && p.cancelled != nil {
		close(p.cancelled)
	}
	if !m.IsRequest() {
		what := m.Method
		if what == "" {
			what = "response " + fmt.Sprint(m.ID)
		}
		p.note("POST %s 202", what)
		p.plain(w, http.StatusAccepted, "")
		return
	}
	answer := string(p.answer(m).AppendJSON(nil))
	p.note("POST %s 200", m.Method)
	if p.json {
		p.plain(w, http.StatusOK, answer)
		return
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if initialize {
		version = peekVersion(m.Params)
	}
	p.sseHeaders(w)
	stream := strings.Trim(string(m.ID.AppendJSON(nil)), `"`)
	if !p.events || version < mcp.Version20251125 {
		_, _ = io.WriteString(w, "event: message\r\ndata: "+answer+"\r\n\r\n")
		return
	}
	_, _ = io.WriteString(w, p.store(stream, ""))
	if m.Method == "tools/call" && strings.Contains(string(m.Params), `"block"`) {
		// The v2 server ends a cancelled request's stream with
		// REQUEST_CANCELLED (_terminate_unanswered_request).
		w.(http.Flusher).Flush()
		select {
		case <-p.cancelled:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, p.store(stream, `{"jsonrpc":"2.0","id":`+string(m.ID.AppendJSON(nil))+`,"error":{"code":-32800,"message":"Request cancelled"}}`))
		return
	}
	if m.Method == "tools/call" && strings.Contains(string(m.Params), `"poll"`) {
		// close_sse_stream: the connection ends; the answer is stored for
		// the client's GET.
		p.store(stream, answer)
		return
	}
	_, _ = io.WriteString(w, p.store(stream, answer))
}

func peekVersion(params json.RawMessage) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	return p.ProtocolVersion
}

// answer is what a FastMCP server with one tool, add, answers.
func (p *pyServer) answer(m *jsonrpc.Message) *jsonrpc.Message {
	var result string
	switch m.Method {
	case mcp.MethodInitialize:
		v := peekVersion(m.Params)
		if !slices.Contains(pyVersions, v) {
			v = pyVersions[0]
		}
		result = `{"protocolVersion":"` + v + `","capabilities":{"experimental":{},"logging":{},"prompts":{"listChanged":false},` +
			`"resources":{"subscribe":false,"listChanged":false},"tools":{"listChanged":false}},` +
			`"serverInfo":{"name":"py","version":"1.29.0"},"instructions":"adds numbers"}`
	case "ping":
		result = `{}`
	case "tools/list":
		result = `{"tools":[{"name":"add","description":"Add two numbers","inputSchema":{"properties":{"a":{"title":"A","type":"integer"},` +
			`"b":{"title":"B","type":"integer"}},"required":["a","b"],"title":"addArguments","type":"object"},` +
			`"outputSchema":{"properties":{"result":{"title":"Result","type":"integer"}},"required":["result"],"title":"addOutput","type":"object"}}]}`
	case "tools/call":
		var c struct {
			Name      string
			Arguments struct{ A, B int }
		}
		_ = json.Unmarshal(m.Params, &c)
		sum := c.Arguments.A + c.Arguments.B
		result = fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}],"structuredContent":{"result":%d},"isError":false}`, sum, sum)
	default:
		return jsonrpc.NewErrorResponse(m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found"))
	}
	return jsonrpc.NewResponse(m.ID, json.RawMessage(result))
}

// TestPythonSDKServer: the client goes through a whole session with a
// server answering as the Python SDK's does, in both of its response modes
// and at both ends of the 2025 revisions: the 202 with Content-Type
// application/json and no body that answers notifications/initialized
// (which the client once parsed, and failed on) and the empty 200 that
// answers DELETE are taken for what they are. JSON mode runs as v1.29
// writes its messages, SSE mode (with an event store) as v2 does.
func TestPythonSDKServer(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20250326} {
		for _, jsonMode := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/json=%v", version, jsonMode), func(t *testing.T) {
				py := &pyServer{json: jsonMode, events: !jsonMode, v1: jsonMode}
				ts := httptest.NewServer(py)
				t.Cleanup(ts.Close)
				stream := NewClientStream(ts.URL+"/mcp", &ClientOptions{HTTPClient: ts.Client()})
				c := mcp.NewClient(&mcp.Implementation{Name: "py-interop", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
				cs, err := c.Connect(ctx(t), stream)
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				if stream.SessionID() != py.sid || stream.ProtocolVersion() != version {
					t.Errorf("session %q, version %q", stream.SessionID(), stream.ProtocolVersion())
				}
				if got := cs.InitializeResult().Instructions; got != "adds numbers" {
					t.Errorf("instructions %q", got)
				}
				eventually(t, "the answer to the server's ping", func() bool {
					return slices.Contains(py.exchanges(), py.pinged())
				})
				tools, err := cs.ListTools(ctx(t), nil)
				if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "add" {
					t.Fatalf("ListTools: %+v, %v", tools, err)
				}
				res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
				if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "3" {
					t.Fatalf("CallTool: %+v, %v", res, err)
				}
				if err := cs.Ping(ctx(t)); err != nil {
					t.Fatalf("Ping: %v", err)
				}
				if err := cs.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				want := []string{
					"POST initialize 200", "POST notifications/initialized 202", "GET stream 200", py.pinged(),
					"POST tools/list 200", "POST tools/call 200", "POST ping 200", "DELETE 200",
				}
				if got := py.exchanges(); !slices.Equal(got, want) {
					t.Errorf("exchanges\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}

// pyConnect connects a client at version through a ClientStream to h.
func pyConnect(t *testing.T, h http.Handler, version string) (*mcp.ClientSession, *ClientStream) {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	stream := NewClientStream(ts.URL+"/mcp", &ClientOptions{HTTPClient: ts.Client()})
	c := mcp.NewClient(&mcp.Implementation{Name: "py-interop", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	cs, err := c.Connect(ctx(t), stream)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return cs, stream
}

func pyAdd(t *testing.T, cs *mcp.ClientSession, tool string, a, b int) {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(fmt.Sprintf(`{"a":%d,"b":%d}`, a, b))})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != fmt.Sprint(a+b) {
		t.Fatalf("CallTool %s: %+v, %v", tool, res, err)
	}
}

// TestPythonSDKServerProbe: the client at its default revision first
// probes server/discover, which a Python SDK v1.29 server does not know:
// its session manager opens a session for the id-less POST and the
// transport refuses it with 400 "Missing session ID" (id "server-error",
// the new session's id in the header). The client takes that for a
// stateful server and initializes at 2025-11-25.
func TestPythonSDKServerProbe(t *testing.T) {
	py := &pyServer{v1: true}
	cs, stream := pyConnect(t, py, "")
	if v := cs.ProtocolVersion(); v != mcp.Version20251125 {
		t.Fatalf("version %q", v)
	}
	if stream.SessionID() != "9f3c0d9a5b2e4c7f8a1d6e0b3c5f7a9d" {
		t.Errorf("session %q: not the one initialize made", stream.SessionID())
	}
	pyAdd(t, cs, "add", 2, 2)
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestPythonSDKServerPolling: a Python server with an event store whose
// tool handler calls close_sse_stream (SEP-1699 polling): the POST's
// stream ends after its priming event ("id", "data: ", "retry" in
// sse-starlette's order); the client comes back with GET and Last-Event-ID
// set to the priming event's id, and takes the answer from the replay,
// which Python keeps open after it (and primes again).
func TestPythonSDKServerPolling(t *testing.T) {
	py := &pyServer{events: true}
	cs, _ := pyConnect(t, py, mcp.Version20251125)
	pyAdd(t, cs, "poll", 2, 3)
	py.mu.Lock()
	last := py.lastEvent
	py.mu.Unlock()
	if !strings.HasSuffix(last, "-0") {
		t.Errorf("Last-Event-ID %q, want the priming event's (<request id>-0)", last)
	}
	pyAdd(t, cs, "add", 1, 1) // the session goes on
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := py.exchanges(); !slices.ContainsFunc(got, func(e string) bool { return strings.HasPrefix(e, "GET replay ") }) {
		t.Errorf("no resumption: %q", got)
	}
}

// TestPythonSDKServerCancelled: the client gives up on a call; the Python
// SDK v2 server, told so by notifications/cancelled, ends the request's
// stream with a -32800 "Request cancelled" error, which the client drops;
// the session goes on.
func TestPythonSDKServerCancelled(t *testing.T) {
	py := &pyServer{events: true, cancelled: make(chan struct{})}
	cs, _ := pyConnect(t, py, mcp.Version20251125)
	cctx, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
		done <- err
	}()
	eventually(t, "the call to reach the server", func() bool { return slices.Contains(py.exchanges(), "POST tools/call 200") })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v, want context.Canceled", err)
	}
	eventually(t, "notifications/cancelled", func() bool { return slices.Contains(py.exchanges(), "POST notifications/cancelled 202") })
	pyAdd(t, cs, "add", 5, 6)
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestPythonSDKServerRestart: a restarted Python server knows no session;
// the session manager answers 404 with the JSON-RPC error "Session not
// found" under the id "server-error" and no session header. The client
// opens a new session and the call succeeds, with v1.29's and v2's error
// spellings alike.
func TestPythonSDKServerRestart(t *testing.T) {
	for _, v1 := range []bool{true, false} {
		t.Run(fmt.Sprintf("v1=%v", v1), func(t *testing.T) {
			py := &pyServer{v1: v1}
			cs, _ := pyConnect(t, py, mcp.Version20251125)
			pyAdd(t, cs, "add", 1, 2)
			py.restart()
			pyAdd(t, cs, "add", 3, 4)
			if err := cs.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			inits := 0
			for _, e := range py.exchanges() {
				if e == "POST initialize 200" {
					inits++
				}
			}
			if inits != 2 {
				t.Errorf("%d initializations, want 2: %q", inits, py.exchanges())
			}
		})
	}
}

// TestPythonSDKServerLateAnswer: a message the client wrote just before
// it closed (its answer to a ping the server sent on the GET stream, say)
// reaches the Python server after the DELETE that ended the session, and
// gets 404 "Session has been terminated". The client must not take that
// for a lost session and open a new one, which nobody would ever close.
func TestPythonSDKServerLateAnswer(t *testing.T) {
	py := &pyServer{}
	cs, stream := pyConnect(t, py, mcp.Version20251125)
	pyAdd(t, cs, "add", 1, 2)
	eventually(t, "the answer to the server's ping", func() bool { return slices.Contains(py.exchanges(), py.pinged()) })
	py.mu.Lock()
	ended := py.ended
	py.mu.Unlock()
	arrived := make(chan struct{})
	var once sync.Once
	late := jsonrpc.Int64ID(7)
	py.mu.Lock()
	py.hold = func(m *jsonrpc.Message) {
		if m.IsResponse() && m.ID == late {
			once.Do(func() { close(arrived) })
			<-ended // delivered after the session's end
		}
	}
	py.mu.Unlock()
	wrote := make(chan error, 1)
	go func() { wrote <- stream.Write(ctx(t), jsonrpc.NewResponse(late, json.RawMessage(`{}`))) }()
	<-arrived
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-wrote; err == nil {
		t.Error("the late write succeeded")
	}
	inits := 0
	for _, e := range py.exchanges() {
		if e == "POST initialize 200" {
			inits++
		}
	}
	if inits != 1 {
		t.Errorf("a new session was opened while closing: %q", py.exchanges())
	}
}

// TestPythonSDKServerCloseDuringReinit: the client is opening a new
// session (the server was restarted) when it is closed: the session it
// opens is ended with DELETE at once instead of left on the server.
func TestPythonSDKServerCloseDuringReinit(t *testing.T) {
	py := &pyServer{}
	cs, stream := pyConnect(t, py, mcp.Version20251125)
	pyAdd(t, cs, "add", 1, 2)
	// The client's answer to the ping on the GET stream must not race
	// the restart.
	eventually(t, "the answer to the server's ping", func() bool { return slices.Contains(py.exchanges(), py.pinged()) })
	py.restart()
	reinit, release := make(chan struct{}), make(chan struct{})
	py.mu.Lock()
	py.hold = func(m *jsonrpc.Message) {
		if m.IsRequest() && m.Method == mcp.MethodInitialize {
			close(reinit)
			<-release
		}
	}
	py.mu.Unlock()
	wrote := make(chan error, 1)
	go func() { wrote <- stream.Write(ctx(t), jsonrpc.NewResponse(jsonrpc.Int64ID(8), json.RawMessage(`{}`))) }()
	<-reinit
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	close(release)
	if err := <-wrote; err == nil {
		t.Error("the write went through a session opened while closing")
	}
	if got := py.exchanges(); got[len(got)-1] != "DELETE 200" {
		t.Errorf("the new session was not ended: %q", got)
	}
}

// TestPythonSDKServerStateless: FastMCP(stateless_http=True,
// json_response=True), the usual serverless deployment: no session id, a
// standalone GET stream on which only pings come, 405 for DELETE. The
// client works and closes without waiting on the idle stream.
func TestPythonSDKServerStateless(t *testing.T) {
	for _, jsonMode := range []bool{true, false} {
		t.Run(fmt.Sprintf("json=%v", jsonMode), func(t *testing.T) {
			py := &pyServer{stateless: true, json: jsonMode}
			cs, stream := pyConnect(t, py, mcp.Version20251125)
			if stream.SessionID() != "" {
				t.Errorf("session %q", stream.SessionID())
			}
			pyAdd(t, cs, "add", 1, 2)
			if err := cs.Ping(ctx(t)); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- cs.Close() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Close: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close hangs")
			}
			for _, e := range py.exchanges() {
				if strings.HasPrefix(e, "DELETE") {
					t.Errorf("DELETE without a session: %q", e)
				}
			}
		})
	}
}

// pyModernServer answers as the Python SDK v2's 2026-07-28 entry does
// (src/mcp/server/_streamable_http_modern.py, runner.py, lowlevel/server.py):
//   - one POST, one request: the routing headers are checked against the
//     body (mcp-protocol-version, mcp-method, mcp-name for tools/call,
//     prompts/get and resources/read; a mismatch is -32020 with 400);
//   - errors carry the request's id and the status of ERROR_CODE_HTTP_STATUS
//     (-32601 → 404, the -326xx and -3202x client faults → 400);
//   - the answer is JSON unless the handler sent a notification first, then
//     an SSE stream of bare "event: message" frames (CRLF, no ids, no
//     priming) serialised by json.dumps, which escapes every non-ASCII
//     character, surrogate pairs included;
//   - every result has resultType and the serverInfo stamp in _meta; list
//     results and server/discover also ttlMs 0 and cacheScope "private";
//   - a notification POST gets 202 with no Content-Type and no body; there
//     is no ping, logging/setLevel or resources/subscribe at this revision.
type pyModernServer struct {
	mu  sync.Mutex
	log []string
}

const pyStamp = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"py","version":"2.0.0"}}`

func (p *pyModernServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m := jsonrpc.Decode(body)
	if r.Method != http.MethodPost || m.Invalid != nil || m.Batch != nil {
		http.Error(w, "unexpected", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.log = append(p.log, m.Method)
	p.mu.Unlock()
	if !m.IsRequest() {
		w.Header()["Content-Type"] = nil // Starlette's Response(status_code=202): no media type
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var params struct {
		Name string
		URI  string
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &params)
	name := map[string]string{"tools/call": params.Name, "prompts/get": params.Name, "resources/read": params.URI}[m.Method]
	id := string(m.ID.AppendJSON(nil))
	fail := func(status, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
	}
	switch {
	case r.Header.Get("Mcp-Protocol-Version") != mcp.Version20260728:
		fail(400, -32022, "Unsupported protocol version")
		return
	case r.Header.Get("Mcp-Method") != m.Method, name != "" && r.Header.Get("Mcp-Name") != name:
		fail(400, -32020, "Header mismatch")
		return
	case string(params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` || params.Meta["io.modelcontextprotocol/clientCapabilities"] == nil:
		fail(400, -32602, "Invalid params: missing the per-request _meta")
		return
	}
	const cache = `"ttlMs":0,"cacheScope":"private",`
	var result string
	var notes []string
	switch m.Method {
	case "server/discover":
		result = `{"supportedVersions":["2026-07-28"],"capabilities":{"experimental":{},"logging":{},"prompts":{"listChanged":false},` +
			`"resources":{"subscribe":false,"listChanged":false},"tools":{"listChanged":false}},"instructions":"adds numbers",` + cache + `"resultType":"complete",` + pyStamp + `}`
	case "tools/list":
		result = `{"tools":[{"name":"greet","description":"Gr\u00fc\u00dft","inputSchema":{"properties":{"who":{"title":"Who","type":"string"}},` +
			`"required":["who"],"title":"greetArguments","type":"object"}}],` + cache + `"resultType":"complete",` + pyStamp + `}`
	case "tools/call":
		var tok json.RawMessage
		if t, ok := params.Meta["progressToken"]; ok {
			tok = t
		}
		if tok != nil {
			notes = append(notes, `{"method":"notifications/progress","params":{"progressToken":`+string(tok)+`,"progress":0.5,"total":1.0},"jsonrpc":"2.0"}`)
		}
		if level, ok := params.Meta["io.modelcontextprotocol/logLevel"]; ok && string(level) == `"debug"` {
			notes = append(notes, `{"method":"notifications/message","params":{"level":"info","logger":"greet","data":"greeting"},"jsonrpc":"2.0"}`)
		}
		// json.dumps(ensure_ascii=True): "Zoë 😀" as \u escapes.
		result = `{"content":[{"type":"text","text":"Hallo Zo\u00eb \ud83d\ude00"}],"isError":false,"resultType":"complete",` + pyStamp + `}`
	default:
		fail(404, -32601, "Method not found")
		return
	}
	answer := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
	if len(notes) == 0 {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	for _, n := range append(notes, answer) {
		_, _ = io.WriteString(w, "event: message\r\ndata: "+n+"\r\n\r\n")
	}
}

// TestPythonSDKServerModern: the client at 2026-07-28 against the Python
// SDK v2's 2026-07-28 entry (see pyModernServer): the discover probe, every
// request's routing headers and _meta, JSON and SSE answers with ASCII-only
// escapes, progress and log notifications ahead of the result, a -32601
// error in a 404 body, and no DELETE at the end.
func TestPythonSDKServerModern(t *testing.T) {
	py := &pyModernServer{}
	ts := httptest.NewServer(py)
	t.Cleanup(ts.Close)
	var mu sync.Mutex
	var logs []string
	c := mcp.NewClient(&mcp.Implementation{Name: "py-interop", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.Version20260728,
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			mu.Lock()
			logs = append(logs, string(p.Data))
			mu.Unlock()
		},
	})
	cs, err := c.Connect(ctx(t), NewClientStream(ts.URL+"/mcp", &ClientOptions{HTTPClient: ts.Client()}))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if v := cs.ProtocolVersion(); v != mcp.Version20260728 {
		t.Fatalf("version %q", v)
	}
	if got := cs.InitializeResult(); got.Instructions != "adds numbers" || got.ServerInfo == nil || got.ServerInfo.Name != "py" {
		t.Errorf("discover: %+v", got)
	}
	tools, err := cs.ListTools(ctx(t), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Description != "Grüßt" {
		t.Fatalf("ListTools: %+v, %v", tools, err)
	}
	if err := cs.SetLoggingLevel(ctx(t), mcp.LevelDebug); err != nil {
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	var progress []float64
	pctx := mcp.WithProgress(ctx(t), func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) })
	res, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"who":"Zoë"}`)})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Hallo Zoë 😀" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	if !slices.Equal(progress, []float64{0.5}) {
		t.Errorf("progress %v", progress)
	}
	// The log line comes before the result on the stream, so its handler
	// has seen it by the time the call returns.
	mu.Lock()
	if !slices.Equal(logs, []string{`"greeting"`}) {
		t.Errorf("logs %q when the call returned", logs)
	}
	mu.Unlock()
	// 2026-07-28 has no ping: the client pings with server/discover.
	if err := cs.Ping(ctx(t)); err != nil {
		t.Errorf("Ping: %v", err)
	}
	// A method the server lacks: -32601 in a 404 body is the call's error.
	_, err = cs.Complete(ctx(t), &mcp.CompleteParams{Ref: mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteArgument{Name: "a", Value: "b"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("Complete: %v, want the server's -32601", err)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	py.mu.Lock()
	defer py.mu.Unlock()
	if want := []string{"server/discover", "tools/list", "tools/call", "server/discover", "completion/complete"}; !slices.Equal(py.log, want) {
		t.Errorf("requests %q, want %q", py.log, want)
	}
}

// pyLegacyServer is a Python SDK server on the HTTP+SSE transport
// (src/mcp/server/sse.py, as FastMCP mounts it): GET /sse is a
// sse-starlette stream ("text/event-stream; charset=utf-8", CRLF) that
// starts with an "endpoint" event naming "/messages/?session_id=<hex>";
// POSTs there get 202 with the text body "Accepted"; answers come on the
// GET stream as "message" events. The /sse route takes GET only, so a
// Streamable HTTP POST to it gets Starlette's 405.
type pyLegacyServer struct {
	py  pyServer // for its answers
	out chan string
}

func (p *pyLegacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/sse" && r.Method == http.MethodGet:
		h := w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("Connection", "keep-alive")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: endpoint\r\ndata: /messages/?session_id=6d0c5f3a9e8b4c1d2a7f0e9b8c6d5a4f\r\n\r\n: ping - 2026-11-26 10:00:00.000000+00:00\r\n\r\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case m := <-p.out:
				_, _ = io.WriteString(w, "event: message\r\ndata: "+m+"\r\n\r\n")
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.URL.Path == "/sse":
		w.Header().Set("Allow", "GET")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = io.WriteString(w, "Method Not Allowed")
	case r.URL.Path == "/messages/" && r.Method == http.MethodPost:
		if r.URL.Query().Get("session_id") != "6d0c5f3a9e8b4c1d2a7f0e9b8c6d5a4f" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "Could not find session")
			return
		}
		body, _ := io.ReadAll(r.Body)
		m := jsonrpc.Decode(body)
		if m.Invalid != nil || m.Batch != nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "Could not parse message")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "Accepted")
		if m.IsRequest() {
			p.out <- string(p.py.answer(m).AppendJSON(nil))
		}
	default:
		http.NotFound(w, r)
	}
}

// TestPythonSDKLegacyServer: the client pointed at a Python SDK server's
// /sse endpoint (HTTP+SSE, 2024-11-05): the 405 to its Streamable HTTP
// POST sends it to the legacy transport, which follows the endpoint event
// (a path with a query), takes the 202 "Accepted" text answers, and reads
// the answers from the stream.
func TestPythonSDKLegacyServer(t *testing.T) {
	// The default client probes server/discover first (405 too), then
	// initializes at 2025-11-25 over the legacy transport, which the
	// Python server accepts.
	for ask, want := range map[string]string{mcp.Version20241105: mcp.Version20241105, "": mcp.Version20251125} {
		t.Run(want, func(t *testing.T) {
			py := &pyLegacyServer{out: make(chan string, 8)}
			ts := httptest.NewServer(py)
			t.Cleanup(ts.Close)
			c := mcp.NewClient(&mcp.Implementation{Name: "py-interop", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: ask})
			cs, err := c.Connect(ctx(t), NewClientStream(ts.URL+"/sse", &ClientOptions{HTTPClient: ts.Client()}))
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if v := cs.ProtocolVersion(); v != want {
				t.Errorf("version %q", v)
			}
			pyAdd(t, cs, "add", 20, 22)
			if err := cs.Ping(ctx(t)); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			if err := cs.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}
