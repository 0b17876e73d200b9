package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// startHTTPProxy runs mcp proxy --http in front of target and returns the
// endpoint's URL.
func startHTTPProxy(t *testing.T, target ...string) string {
	t.Helper()
	url, _ := mcpServe(t, append([]string{"proxy", "--http", "127.0.0.1:0"}, target...)...)
	return url
}

// TestProxyHTTP serves the everything server, a command, over HTTP and
// drives it with a client: requests, the server's requests (elicitation,
// sampling) and notifications (progress) all pass.
func TestProxyHTTP(t *testing.T) {
	for _, version := range []string{mcp.LatestStatefulVersion, ""} {
		era := "stateless"
		if version != "" {
			era = version
		}
		t.Run("command "+era, func(t *testing.T) { testProxyHTTP(t, version, everythingBin) })
		t.Run("url "+era, func(t *testing.T) { testProxyHTTP(t, version, everythingURL(t)) })
	}
}

// testProxyHTTP drives the proxy with a client asking for version ("" for
// the newest, the stateless revision).
func testProxyHTTP(t *testing.T, version, target string) {
	url := startHTTPProxy(t, target)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"username": "u", "email": "e"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("42")}, Model: "m"}, nil
		},
	})
	cs, err := client.Connect(ctx, mcphttp.NewClientStream(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.Stateless() != (version == "") {
		t.Errorf("stateless %v, want %v", cs.Stateless(), version == "")
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "gomcp-everything-server" {
		t.Errorf("server %q", got)
	}
	text := func(name string, args string) string {
		t.Helper()
		var raw []byte
		if args != "" {
			raw = []byte(args)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if s := text("test_elicitation", `{"message":"m"}`); !strings.Contains(s, `"username":"u"`) {
		t.Errorf("elicitation: %q", s)
	}
	if s := text("test_sampling", `{"prompt":"p"}`); s != "LLM response: 42" {
		t.Errorf("sampling: %q", s)
	}
	var progress int
	pctx := mcp.WithProgress(ctx, func(*mcp.ProgressNotificationParams) { progress++ })
	if _, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "test_tool_with_progress"}); err != nil {
		t.Fatal(err)
	}
	if progress != 3 {
		t.Errorf("%d progress notifications, want 3", progress)
	}

	// The command-line client through the proxy, and a second session.
	v := runJSON(t, "tools", "--json", url)
	if n := len(field(t, v, "tools").([]any)); n < 5 {
		t.Errorf("%d tools", n)
	}
}

func TestProxyHTTPRefuses(t *testing.T) {
	url := startHTTPProxy(t, everythingBin)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	std := func(method, name string) http.Header {
		h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}}
		if name != "" {
			h.Set("Mcp-Name", name)
		}
		return h
	}
	for _, tc := range []struct {
		name, method, body, session, origin string
		want                                int
		host                                string      // if not the proxy's
		header                              http.Header // more headers
	}{
		{"no session", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "", "", 400, "", nil},
		{"unknown session", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "nope", "", 404, "", nil},
		{"not JSON", "POST", `{`, "", "", 400, "", nil},
		{"batch", "POST", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", 400, "", nil},
		{"cross-site", "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "", "http://evil.example", 403, "", nil},
		{"discover without _meta", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, "", "", 400, "", nil},
		{"discover", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, "", "", 200, "", std("server/discover", "")},
		{"rebound name", "POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, "", "", 403, "evil.example", std("server/discover", "")},
		{"stateless call", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text",` + meta + `}}`, "", "", 200, "", std("tools/call", "test_simple_text")},
		{"Mcp-Method mismatch", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text",` + meta + `}}`, "", "", 400, "", std("tools/list", "test_simple_text")},
		{"Mcp-Name missing", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text",` + meta + `}}`, "", "", 400, "", std("tools/call", "")},
		{"version mismatch", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, "", "", 400, "", http.Header{"Mcp-Protocol-Version": {"2026-01-01"}, "Mcp-Method": {"tools/list"}}},
		// Listed through the proxy, a tool's x-mcp-header arguments are
		// checked against their Mcp-Param-* headers.
		{"stateless list", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, "", "", 200, "", std("tools/list", "")},
		{"Mcp-Param missing", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_custom_header_param","arguments":{"region":"eu"},` + meta + `}}`, "", "", 400, "", std("tools/call", "test_custom_header_param")},
		{"Mcp-Param matching", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_custom_header_param","arguments":{"region":"eu"},` + meta + `}}`, "", "", 200, "",
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"test_custom_header_param"}, "Mcp-Param-Region": {"eu"}}},
		{"removed method", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`, "", "", 404, "", std("ping", "")},
		{"GET without session", "GET", "", "", "", 400, "", nil},
		{"PUT", "PUT", "", "", "", 405, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.session != "" {
				req.Header.Set("Mcp-Session-Id", tc.session)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

// TestProxyHTTPSessionEnds: DELETE ends the session and its upstream.
func TestProxyHTTPSessionEnds(t *testing.T) {
	url := startHTTPProxy(t, everythingBin)
	post := func(sid, body string) *http.Response { return postTo(t, url, sid, body) }
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" || !strings.Contains(string(body), `"serverInfo"`) {
		t.Fatalf("initialize: session %q, body %s", sid, body)
	}
	resp = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("notification: status %d", resp.StatusCode)
	}
	resp = post(sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"id":2,"result":{}`) {
		t.Errorf("ping: %s", body)
	}
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if dresp.StatusCode != http.StatusOK {
		t.Errorf("DELETE: status %d", dresp.StatusCode)
	}
	resp = post(sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after DELETE: status %d, want 404", resp.StatusCode)
	}
}

// TestProxyHTTPGetStream: the server's messages sent while no POST is open
// wait for the GET stream, then flow on it.
func TestProxyHTTPGetStream(t *testing.T) {
	up, server := transport.Pipe()
	p := &httpProxy{inv: &invocation{stderr: io.Discard}, sessions: map[string]*proxySession{}}
	s := &proxySession{id: "s1", up: up, done: make(chan struct{}), waiting: map[jsonrpc.ID]*proxyStream{}}
	p.sessions[s.id] = s
	pumped := make(chan struct{})
	go func() { p.pump(s); close(pumped) }()
	ts := httptest.NewServer(p)
	defer ts.Close()
	defer func() { p.closeAll(); server.Close(); <-pumped }()

	ctx := context.Background()
	note := func(n int) {
		t.Helper()
		m := jsonrpc.NewNotification("notifications/message", []byte(`{"level":"info","data":`+strconv.Itoa(n)+`}`))
		if err := server.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	note(1) // no stream open: held back
	req, _ := http.NewRequest("GET", ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", "s1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	req2, _ := http.NewRequest("GET", ts.URL, nil)
	req2.Header.Set("Mcp-Session-Id", "s1")
	if resp2, err := http.DefaultClient.Do(req2); err != nil || resp2.StatusCode != http.StatusConflict {
		t.Errorf("a second GET stream: %v %v", resp2.StatusCode, err)
	} else {
		resp2.Body.Close()
	}
	r := bufio.NewReader(resp.Body)
	next := func() string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				return strings.TrimSpace(data)
			}
		}
	}
	if got := next(); !strings.Contains(got, `"data":1`) {
		t.Errorf("first event %s", got)
	}
	note(2)
	if got := next(); !strings.Contains(got, `"data":2`) {
		t.Errorf("second event %s", got)
	}
}

// TestProxyHTTPEvictsIdleSessions: at the limit, a new session ends the
// one idle the longest.
func TestProxyHTTPEvictsIdleSessions(t *testing.T) {
	var stderr lockedBuffer
	p := &httpProxy{inv: &invocation{stderr: &stderr, target: []string{everythingBin}}, sessions: map[string]*proxySession{}, max: 1}
	ts := httptest.NewServer(p)
	defer ts.Close()
	defer p.closeAll()
	connect := func() *mcp.ClientSession {
		t.Helper()
		opts := &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion} // sessions
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(), mcphttp.NewClientStream(ts.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	first := connect()
	defer first.Close()
	second := connect()
	defer second.Close()
	if err := second.Ping(context.Background()); err != nil {
		t.Errorf("the new session: %v", err)
	}
	p.mu.Lock()
	n := len(p.sessions)
	p.mu.Unlock()
	if n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
	if !strings.Contains(stderr.String(), "idle the longest") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestProxyHTTPProgressToItsRequest: a progress notification goes on the
// stream of the request that asked for it, not on the newest one.
func TestProxyHTTPProgressToItsRequest(t *testing.T) {
	url := startHTTPProxy(t, "env", "MCP_CLI_TEST_SERVER=progress", os.Args[0])
	post := func(sid, body string) *http.Response { return postTo(t, url, sid, body) }
	resp := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	// a reports progress after 300ms, when b (started later) is the
	// newest request still open.
	bodies := make(chan string, 2)
	call := func(id, token string, delay int) {
		resp := post(sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"tick","arguments":{"delay_ms":%d},"_meta":{"progressToken":%q}}}`, id, delay, token))
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies <- string(b)
	}
	go call("1", "a", 300)
	time.Sleep(100 * time.Millisecond)
	go call("2", "b", 1000)
	for range 2 {
		b := <-bodies
		switch {
		case strings.Contains(b, `"id":1,`):
			if !strings.Contains(b, `"progressToken":"a"`) || strings.Contains(b, `"progressToken":"b"`) {
				t.Errorf("a's stream: %s", b)
			}
		case strings.Contains(b, `"id":2,`):
			if !strings.Contains(b, `"progressToken":"b"`) || strings.Contains(b, `"progressToken":"a"`) {
				t.Errorf("b's stream: %s", b)
			}
		default:
			t.Errorf("stream %s", b)
		}
	}
}

// postTo POSTs body to the Streamable HTTP endpoint url, in session sid
// when it is not "", accepting JSON and SSE answers; header are more
// headers, each name followed by its value.
func postTo(t *testing.T, url, sid, body string, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// proxy --http refuses an address off loopback (all interfaces included)
// unless --allow-remote is given, and then warns.
func TestProxyHTTPLoopbackOnly(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "192.0.2.1:0"} {
		var stderr strings.Builder
		code := Run(context.Background(), []string{"proxy", "--http", addr, everythingBin}, strings.NewReader(""), io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), "--allow-remote") {
			t.Errorf("--http %s: exit %d, %q; want a usage error naming --allow-remote", addr, code, stderr.String())
		}
	}
	// Resolved, not listened on: the tests stay on loopback.
	var stderr strings.Builder
	inv := &invocation{httpAddr: "0.0.0.0:0", remote: true, stderr: &stderr}
	if _, err := inv.listenAddr("mcp proxy", "drive the target"); err != nil || !strings.Contains(stderr.String(), "warning") {
		t.Errorf("--allow-remote: %v, stderr %q; want a warning", err, stderr.String())
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		stderr.Reset()
		inv := &invocation{httpAddr: addr, stderr: &stderr}
		if _, err := inv.listenAddr("mcp proxy", "drive the target"); err != nil || stderr.Len() > 0 {
			t.Errorf("--http %s: %v, stderr %q", addr, err, stderr.String())
		}
	}
}

// The proxy checks Host and Origin for each request from the address it
// arrived on, as mcphttp does: here a listener off loopback (simulated, as
// the tests stay on loopback) refuses a rebound DNS name.
func TestProxyHTTPHostOffLoopback(t *testing.T) {
	pub := &net.TCPAddr{IP: net.IPv4(172, 17, 0, 2), Port: 8080}
	for _, tc := range []struct {
		hosts        []string
		host, origin string
		want         int // 400: past the check, to the missing session
	}{
		{nil, "evil.example:8080", "http://evil.example:8080", 403},
		{nil, "evil.example", "", 403},
		{nil, "172.17.0.2:8080", "", 400},
		{nil, "localhost:8080", "http://localhost:8080", 400},
		{nil, "172.17.0.2:8080", "http://evil.example", 403},
		{[]string{"myhost"}, "myhost:8080", "http://myhost:8080", 400},
		{[]string{"myhost"}, "evil.example", "", 403},
	} {
		p := &httpProxy{inv: &invocation{stderr: io.Discard, hosts: tc.hosts}, sessions: map[string]*proxySession{}}
		h := p.handler()
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, pub)))
		}))
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("--allow-host %q, Host %s, Origin %q: %d, want %d (%s)", tc.hosts, tc.host, tc.origin, resp.StatusCode, tc.want, body)
		}
		ts.Close()
		p.closeAll()
	}
}
