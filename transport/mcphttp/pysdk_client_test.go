package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// The Python SDK's client (github.com/modelcontextprotocol/python-sdk:
// src/mcp/client/streamable_http.py, src/mcp/client/session.py and, on v2
// main, src/mcp/shared/jsonrpc_dispatcher.py), replayed byte for byte
// against our Streamable HTTP handler. The Python SDK cannot be installed
// where this project is built, so its wire behaviour is reproduced here:
//
//   - every request carries lower-case header names as it spells them:
//     "accept: application/json, text/event-stream", "content-type:
//     application/json", "mcp-session-id" once it has one and
//     "mcp-protocol-version" once negotiated (v1.29: from the initialize
//     result, on every later POST, GET and DELETE; v2: stamped per message,
//     never on initialize; at 2026-07-28 also "mcp-method" and "mcp-name");
//   - bodies are compact JSON (httpx: no spaces, non-ASCII unescaped), in
//     pydantic's member order: v1.29 writes a request as method, params,
//     jsonrpc, id (a notification as method, params, jsonrpc), v2 jsonrpc
//     first;
//   - v1.29 numbers requests from 0 and leaves out params that are None;
//     v2 numbers from 1 and always sends params with a "_meta" object;
//     a progress callback makes the request id the progressToken (an int);
//   - the GET stream (opened as notifications/initialized is sent, so it
//     may overtake it) carries, through httpx-sse, a second Accept header
//     "text/event-stream" and "Cache-Control: no-store"; it reconnects with
//     "last-event-id";
//   - SSE events are read as httpx-sse does: only type "message" counts, an
//     event with empty data is a priming event, a response ends the stream;
//   - server requests (sampling, elicitation, roots, ping) are answered by a
//     POST of their own; a timed-out request gets notifications/cancelled
//     with a reason (v2, 2025 revisions) or, at 2026-07-28, the abort of its
//     POST; close sends DELETE.

// pyFlavor is one Python SDK client.
type pyFlavor struct {
	name    string
	v2      bool // v2 main: ids from 1, params always carry _meta
	version string
}

func (f pyFlavor) modern() bool { return f.version == mcp.Version20260728 }

var pyFlavors = []pyFlavor{
	{"v1.29", false, mcp.Version20251125},
	{"v2", true, mcp.Version20251125},
	{"v2", true, mcp.Version20260728},
}

// pyCaps is the capabilities object both clients send when the sampling,
// elicitation and roots callbacks are set (ClientSession.initialize /
// _build_capabilities, dumped with exclude_none).
const pyCaps = `{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}`

const pyClientInfo = `{"name":"mcp","version":"0.1.0"}`

// pyMessage is one JSON-RPC message as the Python client's pydantic model
// would read it: only the members it looks at.
type pyMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// pyClient is the Python client's transport and session, reduced to what
// goes on the wire.
type pyClient struct {
	t      *testing.T
	f      pyFlavor
	url    string
	hc     *http.Client
	nextID int

	// answer answers a server request, as the session's callbacks do: the
	// "result" or "error" member, JSON.
	answer func(m pyMessage) string

	// next holds headers for the next request only (Mcp-Param-*).
	next http.Header

	mu            sync.Mutex
	lastID        string // the last SSE event id seen on a POST's stream
	retry         int    // the retry field with it, in ms
	sid, version  string // mcp-session-id and the negotiated mcp-protocol-version
	notifications []pyMessage
	answered      []string // the methods of the server requests answered
}

func newPyClient(t *testing.T, f pyFlavor, url string, hc *http.Client) *pyClient {
	c := &pyClient{t: t, f: f, url: url, hc: hc}
	if !f.v2 {
		c.nextID = -1 // v1.29 starts at 0
	}
	c.answer = pyCallbacks
	return c
}

// pyCallbacks answers as sampling, elicitation and roots callbacks do; the
// answers are the callback results dumped with exclude_none.
func pyCallbacks(m pyMessage) string {
	switch m.Method {
	case "sampling/createMessage":
		return `"result":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"py-model","stopReason":"endTurn"}`
	case "elicitation/create":
		return `"result":{"action":"accept","content":{"username":"ada","email":"ada@example.com","name":"Ada","confirm":true,"confirmed":true}}`
	case "roots/list":
		return `"result":{"roots":[{"uri":"file:///home/ada/project","name":"project"}]}`
	case "ping":
		return `"result":{}`
	}
	return `"error":{"code":-32601,"message":"Method not found"}`
}

// headers is StreamableHTTPTransport._prepare_headers, with the map keys
// spelled as the Python client spells them (Go sends non-canonical keys
// as they are).
func (c *pyClient) headers() http.Header {
	h := http.Header{}
	h["accept"] = []string{"application/json, text/event-stream"}
	h["content-type"] = []string{"application/json"}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sid != "" {
		h["mcp-session-id"] = []string{c.sid}
	}
	if c.version != "" {
		h["mcp-protocol-version"] = []string{c.version}
	}
	return h
}

// params builds a request's params member: v1.29 leaves it out when there
// is nothing in it; v2 always sends it, with a _meta object that at
// 2026-07-28 is stamped with the version, client info and capabilities.
func (c *pyClient) params(method, fields string, meta string) string {
	if !c.f.v2 {
		if meta != "" {
			fields = join(fields, `"_meta":{`+meta+`}`)
		}
		if fields == "" {
			return ""
		}
		return `,"params":{` + fields + `}`
	}
	if c.f.modern() && method != "server/discover" {
		meta = join(meta, `"io.modelcontextprotocol/protocolVersion":"`+c.f.version+`",`+
			`"io.modelcontextprotocol/clientInfo":`+pyClientInfo+`,`+
			`"io.modelcontextprotocol/clientCapabilities":`+pyCaps)
	}
	return `,"params":{` + join(fields, `"_meta":{`+meta+`}`) + `}`
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "," + b
}

// call sends a request and returns its response, delivering what comes
// before it (notifications; server requests, answered by POST).
// fields are the params members (JSON, without braces), meta the _meta
// members; name is the Mcp-Name value at 2026-07-28.
func (c *pyClient) call(method, fields, meta, name string) pyMessage {
	c.t.Helper()
	id, resp := c.start(context.Background(), method, fields, meta, name)
	defer resp.Body.Close()
	m, ok := c.finish(method, id, resp)
	if !ok {
		c.t.Fatalf("%s: the SSE stream ended without a response", method)
	}
	return m
}

// start POSTs a request (in ctx: cancelling it aborts the POST, as the v2
// transport does for a cancelled request at 2026-07-28) and returns its id
// and the answer, unread.
func (c *pyClient) start(ctx context.Context, method, fields, meta, name string) (int, *http.Response) {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q%s}`, id, method, c.params(method, fields, meta))
	if !c.f.v2 {
		// v1.29's pydantic models put Request's members first.
		body = fmt.Sprintf(`{"method":%q%s,"jsonrpc":"2.0","id":%d}`, method, c.params(method, fields, meta), id)
	}
	h := c.headers()
	if method == "initialize" {
		delete(h, "mcp-protocol-version") // v2 clears it for the handshake
	}
	if c.f.modern() {
		h["mcp-protocol-version"] = []string{c.f.version}
		h["mcp-method"] = []string{method}
		if name != "" {
			h["mcp-name"] = []string{name}
		}
	}
	for k, v := range c.next {
		h[k] = v
	}
	c.next = nil
	resp := c.postCtx(ctx, body, h)
	if method == "initialize" {
		c.mu.Lock()
		c.sid = resp.Header.Get("Mcp-Session-Id")
		c.mu.Unlock()
	}
	return id, resp
}

// finish reads the answer to request id as _handle_post_request does: by
// status, then Content-Type. ok is false when an SSE stream ended without
// the response.
func (c *pyClient) finish(method string, id int, resp *http.Response) (m pyMessage, ok bool) {
	c.t.Helper()
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode >= 400:
		// v2 surfaces a JSON-RPC error in a non-2xx body (v1.29 raises
		// on the status, but it never sees one here).
		b, _ := io.ReadAll(resp.Body)
		if json.Unmarshal(b, &m) != nil || m.Error == nil || !c.f.v2 {
			c.t.Fatalf("%s: HTTP %d %s", method, resp.StatusCode, b)
		}
		return m, true
	case strings.HasPrefix(ct, "application/json"):
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("%s: not one JSON-RPC message: %s", method, b)
		}
		return m, true
	case strings.HasPrefix(ct, "text/event-stream"):
		return c.readSSE(resp.Body, id)
	}
	c.t.Fatalf("%s: unexpected content type %q (status %d)", method, ct, resp.StatusCode)
	return m, false
}

func (c *pyClient) post(body string, h http.Header) *http.Response {
	c.t.Helper()
	return c.postCtx(context.Background(), body, h)
}

func (c *pyClient) postCtx(ctx context.Context, body string, h http.Header) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = h
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// notify POSTs a notification; the answer must be 202 (its body and
// Content-Type the client ignores).
func (c *pyClient) notify(method, params string) {
	c.t.Helper()
	body := `"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	if c.f.v2 {
		body = `{"jsonrpc":"2.0",` + body + `}`
	} else {
		body = `{` + body + `,"jsonrpc":"2.0"}`
	}
	resp := c.post(body, c.headers())
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("%s: HTTP %d, want 202", method, resp.StatusCode)
	}
}

// sseEvent is one event as httpx-sse yields it.
type pyEvent struct {
	event, data, id string
	retry           int
}

// readEvents parses an event stream as httpx-sse does (type defaults to
// "message", data lines joined with LF, comments skipped) and hands each
// event to fn until fn says stop or the stream ends.
func readEvents(r io.Reader, fn func(pyEvent) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ev pyEvent
	var data []string
	seen := false
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if seen {
				ev.data = strings.Join(data, "\n")
				if ev.event == "" {
					ev.event = "message"
				}
				if !fn(ev) {
					return
				}
			}
			ev, data, seen = pyEvent{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		seen = true
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			ev.event = value
		case "data":
			data = append(data, value)
		case "id":
			ev.id = value
		case "retry":
			_, _ = fmt.Sscan(value, &ev.retry)
		}
	}
}

// readSSE reads a POST's stream up to the response to id, as
// _handle_sse_response does.
func (c *pyClient) readSSE(r io.Reader, id int) (pyMessage, bool) {
	var resp pyMessage
	done := false
	readEvents(r, func(ev pyEvent) bool {
		if ev.id != "" {
			c.mu.Lock()
			c.lastID, c.retry = ev.id, ev.retry
			c.mu.Unlock()
		}
		if ev.event != "message" {
			c.t.Errorf("SSE event of type %q: the Python client ignores it", ev.event)
			return true
		}
		if ev.data == "" {
			return true // priming
		}
		var m pyMessage
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
			c.t.Fatalf("SSE data is not a JSON-RPC message: %q", ev.data)
		}
		if m.Method == "" {
			if string(m.ID) != fmt.Sprint(id) {
				c.t.Errorf("response id %s, want %d", m.ID, id)
			}
			resp, done = m, true
			return false
		}
		c.deliver(m)
		return true
	})
	return resp, done
}

// deliver handles a server notification or request.
func (c *pyClient) deliver(m pyMessage) {
	if m.ID == nil {
		c.mu.Lock()
		c.notifications = append(c.notifications, m)
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.answered = append(c.answered, m.Method)
	c.mu.Unlock()
	resp := c.post(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,`+c.answer(m)+`}`, c.headers())
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		c.t.Errorf("answer to %s: HTTP %d, want 202", m.Method, resp.StatusCode)
	}
}

func (c *pyClient) takeNotifications() []pyMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.notifications
	c.notifications = nil
	return n
}

// connect is ClientSession.initialize (or, at 2026-07-28, the v2 client's
// negotiate_auto probe of server/discover): it returns the result.
func (c *pyClient) connect() map[string]json.RawMessage {
	c.t.Helper()
	if c.f.modern() {
		c.mu.Lock()
		c.version = ""
		c.mu.Unlock()
		meta := `"io.modelcontextprotocol/protocolVersion":"` + c.f.version + `",` +
			`"io.modelcontextprotocol/clientInfo":` + pyClientInfo + `,` +
			`"io.modelcontextprotocol/clientCapabilities":` + pyCaps
		r := c.result(c.call("server/discover", "", meta, ""), "server/discover")
		c.mu.Lock()
		c.version = c.f.version
		c.mu.Unlock()
		return r
	}
	r := c.result(c.call("initialize", `"protocolVersion":"`+c.f.version+`","capabilities":`+pyCaps+`,"clientInfo":`+pyClientInfo, "", ""), "initialize")
	var v string
	_ = json.Unmarshal(r["protocolVersion"], &v)
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	return r
}

// result returns a successful response's result, failing on an error.
func (c *pyClient) result(m pyMessage, what string) map[string]json.RawMessage {
	c.t.Helper()
	if m.Error != nil {
		c.t.Fatalf("%s: error %d %s", what, m.Error.Code, m.Error.Message)
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal(m.Result, &r); err != nil || r == nil {
		c.t.Fatalf("%s: result %s is not an object", what, m.Result)
	}
	return r
}

// request sends method and returns its result, checked against the
// members the Python client's result model requires at c's revision.
func (c *pyClient) request(method, fields, meta, name string) map[string]json.RawMessage {
	c.t.Helper()
	r := c.result(c.call(method, fields, meta, name), method)
	checkPyResult(c.t, method, c.f.version, r)
	return r
}

// pyRequired lists, per method, the result members the Python SDK's
// pydantic models require (mcp.types in v1.29; mcp_types._v2025_11_25 and
// mcp_types._v2026_07_28 on v2 main, which v2 validates every result
// against: mcp_types.methods.validate_server_result). At 2026-07-28 every
// result also requires resultType, and list results and
// server/discover the cache hints ttlMs and cacheScope.
var pyRequired = map[string][]string{
	"initialize":               {"protocolVersion", "capabilities", "serverInfo"},
	"server/discover":          {"supportedVersions", "capabilities"},
	"tools/list":               {"tools"},
	"tools/call":               {"content"},
	"resources/list":           {"resources"},
	"resources/templates/list": {"resourceTemplates"},
	"resources/read":           {"contents"},
	"prompts/list":             {"prompts"},
	"prompts/get":              {"messages"},
	"completion/complete":      {"completion"},
}

var pyCacheable = []string{"server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"}

func checkPyResult(t *testing.T, method, version string, r map[string]json.RawMessage) {
	t.Helper()
	want := slices.Clone(pyRequired[method])
	if str(r["resultType"]) == "input_required" {
		want = []string{"inputRequests"} // InputRequiredResult
	}
	if version == mcp.Version20260728 {
		want = append(want, "resultType")
		if slices.Contains(pyCacheable, method) {
			want = append(want, "ttlMs", "cacheScope")
		}
	}
	for _, k := range want {
		if _, ok := r[k]; !ok {
			t.Errorf("%s at %s: result lacks %q, which the Python client requires: %s", method, version, k, keys(r))
		}
	}
	if v, ok := r["nextCursor"]; ok && string(v) == "null" {
		t.Errorf("%s: nextCursor null: the Python client wants a string or nothing", method)
	}
}

func keys(r map[string]json.RawMessage) []string {
	var ks []string
	for k := range r {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// pyServer is the everything server, plus a tool with structured output
// (the Python client validates structuredContent against outputSchema).
func pyEverything(t *testing.T) (*httptest.Server, *mcphttp.Handler) {
	t.Helper()
	s, err := everything.NewServer(&everything.Options{Step: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type addOut struct {
		Result int `json:"result"`
	}
	if err := mcp.AddTool(s, &mcp.Tool{Name: "py_add", Description: "Adds two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Result: in.A + in.B}, nil
		}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&mcp.Tool{Name: "py_count", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"n":{"type":"integer","x-mcp-header":"N"},"flag":{"type":"boolean","x-mcp-header":"Flag"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(req.Params.Arguments))}}, nil
		}); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return ts, h
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// contentTypes returns the "type" of each content block.
func contentTypes(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("content %s: %v", raw, err)
	}
	var types []string
	for _, b := range blocks {
		ty := str(b["type"])
		types = append(types, ty)
		need := map[string][]string{"text": {"text"}, "image": {"data", "mimeType"}, "audio": {"data", "mimeType"}, "resource": {"resource"}, "resource_link": {"uri", "name"}}[ty]
		if need == nil {
			t.Errorf("content block type %q: not one the Python client parses", ty)
		}
		for _, k := range need {
			if _, ok := b[k]; !ok {
				t.Errorf("%s content lacks %q: %s", ty, k, raw)
			}
		}
	}
	return types
}

// TestPythonSDKClient drives every operation the Python SDK's
// ClientSession offers against the everything server, as v1.29 and v2 send
// them at 2025-11-25 and as v2 sends them at 2026-07-28, and checks each
// answer against what the Python client parses.
func TestPythonSDKClient(t *testing.T) {
	for _, f := range pyFlavors {
		t.Run(f.name+"/"+f.version, func(t *testing.T) {
			ts, _ := pyEverything(t)
			c := newPyClient(t, f, ts.URL+"/mcp", ts.Client())
			init := c.connect()
			if f.modern() {
				checkPyResult(t, "server/discover", f.version, init)
				if !strings.Contains(string(init["supportedVersions"]), mcp.Version20260728) {
					t.Fatalf("supportedVersions %s", init["supportedVersions"])
				}
			} else {
				checkPyResult(t, "initialize", f.version, init)
				if c.sid == "" {
					t.Fatal("no mcp-session-id")
				}
				// ClientSession.initialize sends notifications/initialized;
				// the transport starts the GET stream as it does, so the
				// GET may arrive first.
				get := c.openGet("")
				defer get.Body.Close()
				c.notify("notifications/initialized", "")
			}
			pyOperations(t, c)
			if !f.modern() {
				c.close()
			}
		})
	}
}

// openGet opens the standalone stream as handle_get_stream does, through
// httpx-sse: the transport's headers, then a second Accept and
// Cache-Control.
func (c *pyClient) openGet(lastEventID string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.url, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = c.headers()
	if lastEventID != "" {
		req.Header["last-event-id"] = []string{lastEventID}
	}
	req.Header["Accept"] = append(req.Header["Accept"], "text/event-stream")
	req.Header["Cache-Control"] = []string{"no-store"}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.t.Fatalf("GET: HTTP %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp
}

// close is the transport's exit: DELETE with the session; 200 or 204 (or
// 405) is what terminate_session accepts quietly.
func (c *pyClient) close() {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header = c.headers()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		c.t.Errorf("DELETE: HTTP %d", resp.StatusCode)
	}
}

func pyOperations(t *testing.T, c *pyClient) {
	modern := c.f.modern()

	if modern {
		// 2026-07-28 has no ping (nor logging/setLevel, nor
		// resources/subscribe): mcp_types.methods knows none of them there.
		if m := c.call("ping", "", "", ""); m.Error == nil || m.Error.Code != -32601 {
			t.Errorf("ping at 2026-07-28: %+v, want -32601", m)
		}
	} else {
		c.request("ping", "", "", "")
	}

	tools := c.request("tools/list", "", "", "")
	var tl []map[string]json.RawMessage
	if err := json.Unmarshal(tools["tools"], &tl); err != nil {
		t.Fatal(err)
	}
	outputSchemas := map[string]json.RawMessage{}
	for _, tool := range tl {
		if str(tool["name"]) == "" || !strings.Contains(string(tool["inputSchema"]), `"object"`) {
			t.Errorf("tool %v: name and an object inputSchema are required", tool)
		}
		if os, ok := tool["outputSchema"]; ok {
			outputSchemas[str(tool["name"])] = os
		}
	}
	if _, ok := outputSchemas["py_add"]; !ok {
		t.Errorf("py_add has no outputSchema")
	}

	callTool := func(name, args, meta string) map[string]json.RawMessage {
		t.Helper()
		fields := `"name":"` + name + `"`
		if args != "" {
			fields += `,"arguments":` + args
		}
		r := c.request("tools/call", fields, meta, name)
		if modern && str(r["resultType"]) != "complete" {
			t.Errorf("%s: resultType %s", name, r["resultType"])
		}
		// ClientSession.call_tool / validate_tool_result: a tool with an
		// output schema must return structuredContent.
		if _, ok := outputSchemas[name]; ok && !isErr(r) {
			if _, ok := r["structuredContent"]; !ok {
				t.Errorf("%s: has an outputSchema but returned no structuredContent", name)
			}
		}
		return r
	}
	for name, want := range map[string][]string{
		"test_simple_text":            {"text"},
		"test_image_content":          {"image"},
		"test_audio_content":          {"audio"},
		"test_embedded_resource":      {"resource"},
		"test_multiple_content_types": {"text", "image", "resource"},
	} {
		r := callTool(name, "", "")
		if got := contentTypes(t, r["content"]); !slices.Equal(got, want) || isErr(r) {
			t.Errorf("%s: content %v, isError %s", name, got, r["isError"])
		}
	}
	r := callTool("py_add", `{"a":2,"b":3}`, "")
	if string(r["structuredContent"]) != `{"result":5}` {
		t.Errorf("py_add: structuredContent %s", r["structuredContent"])
	}
	r = callTool("test_error_handling", "", "")
	if !isErr(r) {
		t.Errorf("test_error_handling: isError %s", r["isError"])
	}
	// Non-ASCII arguments, unescaped as httpx sends them.
	r = callTool("json_schema_2020_12_tool", `{"name":"Zoë 😀","email":"z@example.com"}`, "")
	if !strings.Contains(string(r["content"]), "Zoë 😀") {
		t.Errorf("json_schema_2020_12_tool: %s", r["content"])
	}

	// Arguments escaped as json.dumps(ensure_ascii=True) writes them,
	// surrogate pairs included, must decode to the same text.
	pg := c.request("prompts/get", `"name":"test_prompt_with_arguments","arguments":{"arg1":"Zo\u00eb \ud83d\ude00","arg2":"b"}`, "", "test_prompt_with_arguments")
	var msgs []struct{ Content struct{ Text string } }
	if _ = json.Unmarshal(pg["messages"], &msgs); len(msgs) != 1 || !strings.Contains(msgs[0].Content.Text, "arg1='Zoë 😀'") {
		t.Errorf("escaped prompt arguments: %s", pg["messages"])
	}
	if modern {
		// x-mcp-header arguments mirrored into Mcp-Param-* headers
		// (mcp_param_headers): plain tokens as they are, anything else
		// base64-wrapped by encode_header_value.
		for region, header := range map[string]string{"us-west": "us-west", "Zürich": "=?base64?WsO8cmljaA==?="} {
			c.next = http.Header{"Mcp-Param-Region": {header}}
			r := callTool("test_custom_header_param", `{"region":"`+region+`","query":"q"}`, "")
			if !strings.Contains(string(r["content"]), "Region: "+region) {
				t.Errorf("test_custom_header_param %s: %s", region, r["content"])
			}
		}
		// Scalars as _render_header_scalar writes them: str() of the
		// number (so 42.0 for a float), true/false for a bool.
		for args, hdr := range map[string]http.Header{
			`{"n":42,"flag":true}`:  {"Mcp-Param-N": {"42"}, "Mcp-Param-Flag": {"true"}},
			`{"n":42.0}`:            {"Mcp-Param-N": {"42.0"}},
			`{"n":-7,"flag":false}`: {"Mcp-Param-N": {"-7"}, "Mcp-Param-Flag": {"false"}},
		} {
			c.next = hdr
			callTool("py_count", args, "")
		}
	}

	// Progress: the request id is the token, an int; the callback is found
	// by that int, so the server must echo it as one.
	c.takeNotifications()
	callTool("test_tool_with_progress", "", fmt.Sprintf(`"progressToken":%d`, c.nextID+1))
	progress := 0
	for _, n := range c.takeNotifications() {
		if n.Method != "notifications/progress" {
			continue
		}
		progress++
		var p map[string]json.RawMessage
		_ = json.Unmarshal(n.Params, &p)
		if string(p["progressToken"]) != fmt.Sprint(c.nextID) {
			t.Errorf("progressToken %s, want the int %d", p["progressToken"], c.nextID)
		}
		if _, ok := p["progress"]; !ok {
			t.Errorf("progress notification without progress: %s", n.Params)
		}
	}
	if progress != 3 {
		t.Errorf("%d progress notifications before the result, want 3", progress)
	}

	// Logging: set_logging_level, or at 2026-07-28 the per-request logLevel.
	logMeta := ""
	if modern {
		logMeta = `"io.modelcontextprotocol/logLevel":"debug"`
	} else {
		r := c.request("logging/setLevel", `"level":"debug"`, "", "")
		if len(r) > 0 && !(len(r) == 1 && r["_meta"] != nil) {
			t.Logf("logging/setLevel result %v", keys(r))
		}
	}
	callTool("test_tool_with_logging", "", logMeta)
	logs := 0
	for _, n := range c.takeNotifications() {
		if n.Method == "notifications/message" {
			var p map[string]json.RawMessage
			_ = json.Unmarshal(n.Params, &p)
			if p["level"] == nil || p["data"] == nil {
				t.Errorf("notifications/message without level or data: %s", n.Params)
			}
			logs++
		}
	}
	if logs != 3 {
		t.Errorf("%d log messages before the result, want 3", logs)
	}

	// Sampling, elicitation and roots: server requests on the POST's
	// stream before 2026-07-28; input_required rounds at 2026-07-28.
	if modern {
		pyInputRequired(t, c)
		// A notification the v2 client still POSTs at 2026-07-28
		// (send_roots_list_changed), stamped like a request: the
		// transport ignores the answer's status; 202, as the Python
		// server's 2026 entry answers.
		h := c.headers()
		h["mcp-method"] = []string{"notifications/roots/list_changed"}
		resp := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"`+c.params("notifications/roots/list_changed", "", "")+`}`, h)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("notification at 2026-07-28: HTTP %d", resp.StatusCode)
		}
	} else {
		r := callTool("test_sampling", `{"prompt":"Capital of France?"}`, "")
		if !strings.Contains(string(r["content"]), "LLM response: Paris") {
			t.Errorf("test_sampling: %s", r["content"])
		}
		r = callTool("test_elicitation", `{"message":"Who are you?"}`, "")
		if !strings.Contains(string(r["content"]), "action: accept") {
			t.Errorf("test_elicitation: %s", r["content"])
		}
		if !slices.Equal(c.answered, []string{"sampling/createMessage", "elicitation/create"}) {
			t.Errorf("answered %v", c.answered)
		}
		// A declined elicitation (ElicitResult(action="decline"): no
		// content), and the default callback's error for sampling.
		c.answer = func(m pyMessage) string {
			if m.Method == "elicitation/create" {
				return `"result":{"action":"decline"}`
			}
			return `"error":{"code":-32600,"message":"Sampling not supported"}`
		}
		r = callTool("test_elicitation", `{"message":"Who are you?"}`, "")
		if !strings.Contains(string(r["content"]), "action: decline") {
			t.Errorf("declined test_elicitation: %s", r["content"])
		}
		m := c.call("tools/call", `"name":"test_sampling","arguments":{"prompt":"?"}`, "", "test_sampling")
		if m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
			t.Errorf("test_sampling with sampling refused: %s", m.Result)
		}
		c.answer = pyCallbacks
		c.notify("notifications/roots/list_changed", "")
		// send_progress_notification: client-to-server progress.
		c.notify("notifications/progress", `{"progressToken":"upload-1","progress":0.5,"total":1.0,"message":"half"}`)
	}

	if !modern {
		// A stream the server ends before its answer (test_reconnection
		// calls CloseSSEStream): _handle_reconnection waits the retry
		// delay, then GETs with last-event-id and takes the answer there.
		id, resp := c.start(context.Background(), "tools/call", `"name":"test_reconnection"`, "", "")
		m, ok := c.finish("tools/call", id, resp)
		resp.Body.Close()
		c.mu.Lock()
		last := c.lastID
		c.mu.Unlock()
		if !ok {
			if last == "" {
				t.Fatal("test_reconnection: the stream ended with no event id to resume from")
			}
			get := c.openGet(last)
			m, ok = c.readSSE(get.Body, id)
			get.Body.Close()
		}
		if !ok || m.Error != nil || !strings.Contains(string(m.Result), "properly reconnected") {
			t.Errorf("test_reconnection: %+v", m)
		}
	}

	// Resources.
	rl := c.request("resources/list", "", "", "")
	for _, want := range []string{"test://static-text", "test://static-binary"} {
		if !strings.Contains(string(rl["resources"]), want) {
			t.Errorf("resources/list lacks %s", want)
		}
	}
	rt := c.request("resources/templates/list", "", "", "")
	if !strings.Contains(string(rt["resourceTemplates"]), `"uriTemplate":"test://template/{id}/data"`) {
		t.Errorf("resources/templates/list: %s", rt["resourceTemplates"])
	}
	for uri, member := range map[string]string{"test://static-text": `"text"`, "test://static-binary": `"blob"`, "test://template/7/data": `"text"`} {
		r := c.request("resources/read", `"uri":"`+uri+`"`, "", uri)
		if !strings.Contains(string(r["contents"]), member+":") || !strings.Contains(string(r["contents"]), `"uri":"`+uri+`"`) {
			t.Errorf("resources/read %s: %s", uri, r["contents"])
		}
	}
	if !modern {
		c.request("resources/subscribe", `"uri":"test://watched-resource"`, "", "")
		c.request("resources/unsubscribe", `"uri":"test://watched-resource"`, "", "")
	}

	// Prompts.
	pl := c.request("prompts/list", "", "", "")
	if !strings.Contains(string(pl["prompts"]), `"name":"test_prompt_with_arguments"`) {
		t.Errorf("prompts/list: %s", pl["prompts"])
	}
	for name, args := range map[string]string{
		"test_simple_prompt":                 "",
		"test_prompt_with_arguments":         `,"arguments":{"arg1":"a","arg2":"b"}`,
		"test_prompt_with_embedded_resource": `,"arguments":{"resourceUri":"test://static-text"}`,
		"test_prompt_with_image":             "",
	} {
		r := c.request("prompts/get", `"name":"`+name+`"`+args, "", name)
		var msgs []map[string]json.RawMessage
		_ = json.Unmarshal(r["messages"], &msgs)
		if len(msgs) == 0 {
			t.Errorf("prompts/get %s: no messages", name)
		}
		for _, m := range msgs {
			if str(m["role"]) == "" || m["content"] == nil {
				t.Errorf("prompts/get %s: message %v", name, m)
			}
			contentTypes(t, json.RawMessage("["+string(m["content"])+"]"))
		}
	}

	// Completion: ClientSession.complete with a PromptReference and a
	// ResourceTemplateReference.
	for _, ref := range []string{
		`"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"x"}`,
		`"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":""},"context":{"arguments":{}}`,
	} {
		r := c.request("completion/complete", ref, "", "")
		var comp map[string]json.RawMessage
		_ = json.Unmarshal(r["completion"], &comp)
		if comp["values"] == nil || string(comp["values"]) == "null" {
			t.Errorf("completion/complete: values required: %s", r["completion"])
		}
	}

}

func isErr(r map[string]json.RawMessage) bool { return string(r["isError"]) == "true" }

// pyInputRequired is the 2026-07-28 round trip of a tool needing input:
// the server answers input_required, the v2 client calls again with
// inputResponses and the requestState.
func pyInputRequired(t *testing.T, c *pyClient) {
	t.Helper()
	for _, tc := range []struct{ tool, key, answer, want string }{
		{"test_input_required_result_sampling", "", `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"py-model","stopReason":"endTurn"}`, "Paris"},
		{"test_input_required_result_list_roots", "", `{"roots":[{"uri":"file:///home/ada/project","name":"project"}]}`, "file:///home/ada/project"},
		{"test_input_required_result_elicitation", "", `{"action":"accept","content":{"name":"Ada"}}`, "Ada"},
	} {
		first := c.request("tools/call", `"name":"`+tc.tool+`"`, "", tc.tool)
		if str(first["resultType"]) != "input_required" {
			t.Errorf("%s: resultType %s, want input_required", tc.tool, first["resultType"])
			continue
		}
		var reqs map[string]json.RawMessage
		if err := json.Unmarshal(first["inputRequests"], &reqs); err != nil || len(reqs) == 0 {
			t.Errorf("%s: inputRequests %s", tc.tool, first["inputRequests"])
			continue
		}
		var answers []string
		for k := range reqs {
			answers = append(answers, fmt.Sprintf("%q:%s", k, tc.answer))
		}
		fields := `"name":"` + tc.tool + `","inputResponses":{` + strings.Join(answers, ",") + `}`
		if s, ok := first["requestState"]; ok {
			fields += `,"requestState":` + string(s)
		}
		r := c.request("tools/call", fields, "", tc.tool)
		if str(r["resultType"]) != "complete" || !strings.Contains(string(r["content"]), tc.want) {
			t.Errorf("%s: second round %v: %s", tc.tool, r["resultType"], r["content"])
		}
	}
	// get_prompt(..., input_responses=...): the same rounds for a prompt.
	first := c.request("prompts/get", `"name":"test_input_required_result_prompt"`, "", "test_input_required_result_prompt")
	if str(first["resultType"]) != "input_required" || !strings.Contains(string(first["inputRequests"]), `"user_context"`) {
		t.Fatalf("prompt: %v %s", first["resultType"], first["inputRequests"])
	}
	fields := `"name":"test_input_required_result_prompt","inputResponses":{"user_context":{"action":"accept","content":{"context":"Zoë"}}}`
	if s, ok := first["requestState"]; ok {
		fields += `,"requestState":` + string(s)
	}
	r := c.request("prompts/get", fields, "", "test_input_required_result_prompt")
	if !strings.Contains(string(r["messages"]), "Use this context: Zoë") {
		t.Errorf("prompt, second round: %s", r["messages"])
	}
}

// TestPythonSDKClientCancel: a request the v2 client gives up on (its read
// timeout) is cancelled as JSONRPCDispatcher._cancel_outbound and
// StreamableHTTPTransport._consume_modern_cancellation do it: before
// 2026-07-28 a POSTed notifications/cancelled with a reason, whose POST gets
// 202, while the request's own stream ends with no response (the client
// then settles the request itself); at 2026-07-28 nothing is POSTed and the
// request's POST is aborted. Either way the tool's context ends. (v1.29
// sends no cancellation: it only stops waiting.)
func TestPythonSDKClientCancel(t *testing.T) {
	for _, f := range pyFlavors[1:] {
		t.Run(f.version, func(t *testing.T) {
			started, cancelled := make(chan struct{}), make(chan struct{})
			s := mcp.NewServer(&mcp.Implementation{Name: "py-cancel", Version: "1"}, nil)
			if err := mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
				close(started)
				<-ctx.Done()
				close(cancelled)
				return "", ctx.Err()
			}); err != nil {
				t.Fatal(err)
			}
			h := mcphttp.NewHandler(s, nil)
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); h.Close() })
			c := newPyClient(t, f, ts.URL+"/mcp", ts.Client())
			c.connect()
			if !f.modern() {
				c.notify("notifications/initialized", "")
			}
			if f.modern() {
				// The answer's headers may wait for the result: the POST is
				// aborted while it waits, as the transport's cancel scope does.
				ctx, abort := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(
						`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"block","_meta":{`+
							`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":`+pyClientInfo+
							`,"io.modelcontextprotocol/clientCapabilities":`+pyCaps+`}}}`))
					req.Header = c.headers()
					req.Header["mcp-method"] = []string{"tools/call"}
					req.Header["mcp-name"] = []string{"block"}
					resp, err := c.hc.Do(req)
					if err == nil {
						_, err = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					done <- err
				}()
				waitPy(t, "the tool to start", started)
				abort()
				<-done
			} else {
				// The handler sends the stream's headers lazily, so the
				// answer is read on the side while the cancellation is
				// POSTed, as the transport's task group does.
				type answer struct {
					m  pyMessage
					ok bool
				}
				id := c.nextID + 1
				got := make(chan answer, 1)
				go func() {
					id, resp := c.start(context.Background(), "tools/call", `"name":"block"`, "", "block")
					defer resp.Body.Close()
					m, ok := c.finish("tools/call", id, resp)
					got <- answer{m, ok}
				}()
				waitPy(t, "the tool to start", started)
				c.notify("notifications/cancelled", fmt.Sprintf(`{"requestId":%d,"reason":"timed out after 0.5s"}`, id))
				if a := <-got; a.ok {
					t.Errorf("the cancelled request's stream carried a response: %+v", a.m)
				}
			}
			waitPy(t, "the tool's context to end", cancelled)
			if !f.modern() {
				c.close()
			}
		})
	}
}

func waitPy(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestPythonSDKClientStandaloneStream: the standalone GET stream as the
// Python client's handle_get_stream uses it, through httpx-sse (a second
// Accept, Cache-Control: no-store): server notifications arrive on it as
// "message" events, and after the stream breaks the client reconnects with
// the "last-event-id" of the last event it saw and gets what it missed.
func TestPythonSDKClientStandaloneStream(t *testing.T) {
	for _, f := range pyFlavors[:2] {
		t.Run(f.name, func(t *testing.T) {
			ts, _ := pyEverything(t)
			c := newPyClient(t, f, ts.URL+"/mcp", ts.Client())
			c.connect()
			get := c.openGet("")
			c.notify("notifications/initialized", "")
			events := make(chan pyEvent, 16)
			go func() {
				defer close(events)
				readEvents(get.Body, func(ev pyEvent) bool { events <- ev; return true })
			}()
			next := func() (lastID string) {
				t.Helper()
				c.request("tools/call", `"name":"test_trigger_tool_change"`, "", "")
				for {
					select {
					case ev, ok := <-events:
						if !ok {
							t.Fatal("the GET stream ended")
						}
						if ev.id != "" {
							lastID = ev.id
						}
						if ev.event != "message" {
							t.Errorf("event type %q: the Python client drops it", ev.event)
						}
						if strings.Contains(ev.data, `"notifications/tools/list_changed"`) {
							return lastID
						}
					case <-time.After(5 * time.Second):
						t.Fatal("no notifications/tools/list_changed on the GET stream")
					}
				}
			}
			lastID := next()
			if lastID == "" {
				t.Fatal("no event id on the GET stream: the client could not resume it")
			}
			get.Body.Close()
			for range events {
			}
			// Missed while the stream was down.
			c.request("tools/call", `"name":"test_trigger_tool_change"`, "", "")
			again := c.openGet(lastID)
			defer again.Body.Close()
			found := make(chan struct{})
			go func() {
				readEvents(again.Body, func(ev pyEvent) bool {
					if strings.Contains(ev.data, `"notifications/tools/list_changed"`) {
						close(found)
						return false
					}
					return true
				})
			}()
			waitPy(t, "the missed notifications/tools/list_changed on the resumed stream", found)
			again.Body.Close()
			c.close()
		})
	}
}

// TestPythonSDKLegacyClient: the Python SDK's HTTP+SSE client
// (src/mcp/client/sse.py, v1.29) against our SSEHandler: it GETs the
// stream through httpx-sse (Accept: text/event-stream, Cache-Control:
// no-store), resolves the "endpoint" event's data against the stream's URL
// with urljoin and refuses another origin, then POSTs every message there
// (httpx's json=: compact, Content-Type application/json), wanting any 2xx,
// and reads every answer, and the server's own requests, from "message"
// events on the stream.
func TestPythonSDKLegacyClient(t *testing.T) {
	s, err := everything.NewServer(&everything.Options{Step: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewSSEHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	base, _ := url.Parse(ts.URL + "/sse")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base.String(), nil)
	req.Header["Accept"] = []string{"text/event-stream"}
	req.Header["Cache-Control"] = []string{"no-store"}
	resp, err := ts.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", resp, err)
	}
	defer resp.Body.Close()
	events := make(chan pyEvent, 16)
	go func() {
		defer close(events)
		readEvents(resp.Body, func(ev pyEvent) bool { events <- ev; return true })
	}()
	next := func() pyEvent {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return pyEvent{}
	}
	ev := next()
	if ev.event != "endpoint" {
		t.Fatalf("first event %+v, want endpoint", ev)
	}
	ref, err := url.Parse(ev.data)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := base.ResolveReference(ref)
	if endpoint.Scheme != base.Scheme || endpoint.Host != base.Host {
		t.Fatalf("endpoint %s: another origin, which the client refuses", endpoint)
	}
	post := func(body string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, endpoint.String(), strings.NewReader(body))
		req.Header["Content-Type"] = []string{"application/json"}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: HTTP %d (raise_for_status)", body, resp.StatusCode)
		}
	}
	// call POSTs a request and reads events up to its response, answering
	// the server's requests as the sampling callback does.
	call := func(id int, method, params string) pyMessage {
		t.Helper()
		post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
		for {
			ev := next()
			if ev.event != "message" {
				t.Errorf("event %q: the client logs it as unknown", ev.event)
				continue
			}
			var m pyMessage
			if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
				t.Fatalf("message %q: %v", ev.data, err)
			}
			switch {
			case m.Method == "" && string(m.ID) == fmt.Sprint(id):
				if m.Error != nil {
					t.Fatalf("%s: %d %s", method, m.Error.Code, m.Error.Message)
				}
				return m
			case m.Method != "" && m.ID != nil:
				post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,` + pyCallbacks(m) + `}`)
			}
		}
	}
	m := call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":`+pyCaps+`,"clientInfo":`+pyClientInfo+`}`)
	if !strings.Contains(string(m.Result), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", m.Result)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := call(1, "tools/list", `{}`); !strings.Contains(string(m.Result), `"test_sampling"`) {
		t.Errorf("tools/list: %s", m.Result)
	}
	if m := call(2, "tools/call", `{"name":"test_sampling","arguments":{"prompt":"Capital?"}}`); !strings.Contains(string(m.Result), "LLM response: Paris") {
		t.Errorf("test_sampling: %s", m.Result)
	}
	if m := call(3, "ping", `{}`); string(m.Result) != "{}" {
		t.Errorf("ping: %s", m.Result)
	}
}

// TestPythonSDKClientListen: the Python SDK v2's listen() at 2026-07-28
// (src/mcp/client/subscriptions.py): subscriptions/listen under an id it
// mints as a string ("listen-1", unlike its int ids elsewhere), routed by
// the "io.modelcontextprotocol/subscriptionId" _meta of what comes back,
// which must therefore carry that same string: first the acknowledgment
// with the honored filter, then the changes. Leaving listen() aborts the
// POST.
func TestPythonSDKClientListen(t *testing.T) {
	ts, _ := pyEverything(t)
	c := newPyClient(t, pyFlavors[2], ts.URL+"/mcp", ts.Client())
	c.connect()
	ctx, abort := context.WithCancel(context.Background())
	defer abort()
	body := `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen"` +
		c.params("subscriptions/listen", `"notifications":{"toolsListChanged":true}`, "") + `}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	req.Header = c.headers()
	req.Header["mcp-method"] = []string{"subscriptions/listen"}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: HTTP %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	msgs := make(chan pyMessage, 8)
	go func() {
		defer close(msgs)
		readEvents(resp.Body, func(ev pyEvent) bool {
			var m pyMessage
			if ev.data != "" && json.Unmarshal([]byte(ev.data), &m) == nil {
				msgs <- m
			}
			return true
		})
	}()
	next := func(method string) map[string]json.RawMessage {
		t.Helper()
		select {
		case m := <-msgs:
			var p map[string]json.RawMessage
			_ = json.Unmarshal(m.Params, &p)
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(p["_meta"], &meta)
			if m.Method != method || string(meta["io.modelcontextprotocol/subscriptionId"]) != `"listen-1"` {
				t.Fatalf("got %s %s, want %s for subscription \"listen-1\"", m.Method, m.Params, method)
			}
			return p
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", method)
		}
		return nil
	}
	ack := next("notifications/subscriptions/acknowledged")
	if !strings.Contains(string(ack["notifications"]), `"toolsListChanged":true`) {
		t.Errorf("honored %s", ack["notifications"])
	}
	c.request("tools/call", `"name":"test_trigger_tool_change"`, "", "test_trigger_tool_change")
	next("notifications/tools/list_changed")
	abort()
	for range msgs {
	}
}
