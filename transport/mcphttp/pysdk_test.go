package mcphttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// pyServer answers as the Python SDK's Streamable HTTP server does
// (mcp.server.streamable_http, v1.29 and v2 main, behind Starlette and
// sse-starlette), headers included:
//   - a notification or response gets 202 with Content-Type
//     application/json, the session id and an empty body (Content-Length 0);
//   - a request gets an SSE stream (Cache-Control "no-cache, no-transform",
//     CRLF line ends, "event: message" before each message, a priming event
//     from 2025-11-25 on when it keeps events) or, in JSON mode, an
//     application/json body; both carry the session id;
//   - GET opens the standalone stream, held until the session ends (this
//     one sends a keep-alive comment and a ping request on it);
//   - DELETE gets 200 with Content-Type application/json and an empty body.
type pyServer struct {
	json bool // is_json_response_enabled

	mu         sync.Mutex
	sid        string
	terminated bool
	ended      chan struct{} // closed by DELETE: the standalone stream ends
	log        []string      // "METHOD what status", in order
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

// plain writes a Starlette Response: Content-Type application/json, the
// session id once there is one, and body (Content-Length even when empty).
func (p *pyServer) plain(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	p.mu.Lock()
	if p.sid != "" {
		h.Set("Mcp-Session-Id", p.sid)
	}
	p.mu.Unlock()
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (p *pyServer) fail(w http.ResponseWriter, status int, msg string) {
	p.plain(w, status, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"`+msg+`"}}`)
}

// valid is _validate_request_headers: the session, then the version.
func (p *pyServer) valid(w http.ResponseWriter, r *http.Request) bool {
	p.mu.Lock()
	sid, terminated := p.sid, p.terminated
	p.mu.Unlock()
	got := r.Header.Get("Mcp-Session-Id")
	switch {
	case terminated:
		p.fail(w, http.StatusNotFound, "Not Found: Session has been terminated")
	case got == "":
		p.fail(w, http.StatusBadRequest, "Bad Request: Missing session ID")
	case got != sid:
		p.fail(w, http.StatusNotFound, "Not Found: Invalid or expired session ID")
	case r.Header.Get("Mcp-Protocol-Version") != "" && !slices.Contains(pyVersions, r.Header.Get("Mcp-Protocol-Version")):
		p.fail(w, http.StatusBadRequest, "Bad Request: Unsupported protocol version")
	default:
		return true
	}
	return false
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
		p.note("GET stream 200")
		p.sseHeaders(w)
		// A keep-alive comment, and a request of the server's own, whose
		// answer the client POSTs.
		_, _ = io.WriteString(w, ": ping - 2026-11-26 10:00:00.000000+00:00\r\n\r\n"+
			"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\r\n\r\n")
		w.(http.Flusher).Flush()
		p.mu.Lock()
		ended := p.ended
		p.mu.Unlock()
		select {
		case <-ended:
		case <-r.Context().Done():
		}
	case http.MethodDelete:
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
	if p.sid != "" {
		h.Set("Mcp-Session-Id", p.sid)
	}
	p.mu.Unlock()
	w.WriteHeader(http.StatusOK)
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
	initialize := m.IsRequest() && m.Method == mcp.MethodInitialize
	if initialize {
		p.mu.Lock()
		p.sid, p.terminated, p.ended = "9f3c0d9a5b2e4c7f8a1d6e0b3c5f7a9d", false, make(chan struct{})
		p.mu.Unlock()
	} else if !p.valid(w, r) {
		return
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
	answer := p.answer(m)
	p.note("POST %s 200", m.Method)
	if p.json {
		p.plain(w, http.StatusOK, string(answer.AppendJSON(nil)))
		return
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if initialize {
		version = peekVersion(m.Params)
	}
	p.sseHeaders(w)
	if version >= mcp.Version20251125 {
		_, _ = io.WriteString(w, "id: "+fmt.Sprint(m.ID)+"-0\r\nretry: 100\r\ndata: \r\n\r\n")
	}
	_, _ = io.WriteString(w, "event: message\r\ndata: "+string(answer.AppendJSON(nil))+"\r\n\r\n")
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
// answers DELETE are taken for what they are.
func TestPythonSDKServer(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20250326} {
		for _, jsonMode := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/json=%v", version, jsonMode), func(t *testing.T) {
				py := &pyServer{json: jsonMode}
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
					return slices.Contains(py.exchanges(), "POST response 0 202")
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
					"POST initialize 200", "POST notifications/initialized 202", "GET stream 200", "POST response 0 202",
					"POST tools/list 200", "POST tools/call 200", "POST ping 200", "DELETE 200",
				}
				if got := py.exchanges(); !slices.Equal(got, want) {
					t.Errorf("exchanges\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}
