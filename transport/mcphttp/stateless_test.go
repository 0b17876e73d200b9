package mcphttp

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// modernBody is a 2026-07-28 request; meta replaces the default _meta
// (use "-" for none).
func modernBody(id int, method, params, meta string) string {
	if meta == "" {
		meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	if params == "" {
		params = "{}"
	}
	if meta != "-" {
		params = strings.TrimSuffix(params, "}")
		if params != "{" {
			params += ","
		}
		params += `"_meta":` + meta + "}"
	}
	return `{"jsonrpc":"2.0","id":` + itoaTest(int64(id)) + `,"method":"` + method + `","params":` + params + "}"
}

func modernHeaders(method string, kv ...string) map[string]string {
	h := map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"Mcp-Protocol-Version": mcp.Version20260728,
		"Mcp-Method":           method,
	}
	return with(h, kv...)
}

func TestModernRequests(t *testing.T) {
	{
		f := newFixture(t, nil)
		echo := `{"name":"echo","arguments":{"text":"hi"}}`
		tests := []struct {
			name     string
			hdr      map[string]string
			body     string
			status   int
			code     int64 // expected JSON-RPC error code, 0 for a result
			contains string
			sse      bool
		}{
			{"tools/list", modernHeaders("tools/list"), modernBody(1, "tools/list", "", ""), 200, 0, `"name":"echo"`, false},
			{"tools/call", modernHeaders("tools/call", "Mcp-Name", "echo"), modernBody(2, "tools/call", echo, ""), 200, 0, `"text":"hi"`, false},
			{"Mcp-Name base64", modernHeaders("tools/call", "Mcp-Name", "=?base64?ZWNobw==?="), modernBody(3, "tools/call", echo, ""), 200, 0, `"text":"hi"`, false},
			{"Mcp-Name padded", modernHeaders("tools/call", "Mcp-Name", "  echo  "), modernBody(4, "tools/call", echo, ""), 200, 0, `"text":"hi"`, false},
			{"progress streams", modernHeaders("tools/call", "Mcp-Name", "progress"), modernBody(5, "tools/call", `{"name":"progress","arguments":{"n":3}}`,
				`{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`), 200, 0, `"progressToken":"p1"`, true},
			{"missing version header", modernHeaders("tools/list", "Mcp-Protocol-Version", ""), modernBody(6, "tools/list", "", ""), 400, mcp.CodeHeaderMismatch, "Missing MCP-Protocol-Version", false},
			{"missing _meta", modernHeaders("tools/list"), modernBody(7, "tools/list", "", "-"), 400, jsonrpc.CodeInvalidParams, "_meta", false},
			{"missing capabilities", modernHeaders("tools/list"), modernBody(8, "tools/list", "", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), 400, jsonrpc.CodeInvalidParams, "clientCapabilities", false},
			{"version header differs from _meta", modernHeaders("tools/list"), modernBody(9, "tools/list", "", `{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}`), 400, mcp.CodeHeaderMismatch, "differs", false},
			{"unsupported version", modernHeaders("tools/list", "Mcp-Protocol-Version", "v999"), modernBody(10, "tools/list", "", `{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}`), 400, mcp.CodeUnsupportedProtocolVersion, `"requested":"v999"`, false},
			{"missing Mcp-Method", modernHeaders("tools/list", "Mcp-Method", ""), modernBody(11, "tools/list", "", ""), 400, mcp.CodeHeaderMismatch, "Mcp-Method", false},
			{"Mcp-Method case", modernHeaders("TOOLS/LIST"), modernBody(12, "tools/list", "", ""), 400, mcp.CodeHeaderMismatch, "Mcp-Method", false},
			{"Mcp-Method for another method", modernHeaders("prompts/list"), modernBody(13, "tools/list", "", ""), 400, mcp.CodeHeaderMismatch, "", false},
			{"missing Mcp-Name", modernHeaders("tools/call"), modernBody(14, "tools/call", echo, ""), 400, mcp.CodeHeaderMismatch, "Mcp-Name", false},
			{"wrong Mcp-Name", modernHeaders("tools/call", "Mcp-Name", "other"), modernBody(15, "tools/call", echo, ""), 400, mcp.CodeHeaderMismatch, "Mcp-Name", false},
			{"bad base64 Mcp-Name", modernHeaders("tools/call", "Mcp-Name", "=?base64?ZWNobw?="), modernBody(16, "tools/call", echo, ""), 400, mcp.CodeHeaderMismatch, "base64", false},
			{"unknown method", modernHeaders("no/such"), modernBody(17, "no/such", "", ""), 404, jsonrpc.CodeMethodNotFound, "", false},
			{"initialize is not a modern method", modernHeaders("initialize"), modernBody(18, "initialize", "", ""), 404, jsonrpc.CodeMethodNotFound, "", false},
			{"ping is not a modern method", modernHeaders("ping"), modernBody(19, "ping", "", ""), 404, jsonrpc.CodeMethodNotFound, "", false},
			{"no session, no version header: _meta decides", modernHeaders("tools/list", "Mcp-Protocol-Version", ""), modernBody(20, "tools/list", "", ""), 400, mcp.CodeHeaderMismatch, "", false},
			{"notification", modernHeaders("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 202, 0, "", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := f.do("POST", tt.hdr, tt.body)
				if r.status != tt.status {
					t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
				}
				if r.header.Get("Mcp-Session-Id") != "" {
					t.Error("a stateless-revision request got a session id")
				}
				if isSSE := strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream"); isSSE != tt.sse {
					t.Errorf("Content-Type %q", r.header.Get("Content-Type"))
				}
				if !strings.Contains(r.body, tt.contains) {
					t.Errorf("body %s lacks %q", r.body, tt.contains)
				}
				if tt.status == 202 {
					return
				}
				data := r.body
				if tt.sse {
					rd := newSSEReader(strings.NewReader(r.body), 1<<20)
					for {
						ev := nextData(t, rd)
						if !strings.Contains(string(ev.data), `"method"`) {
							data = string(ev.data)
							break
						}
					}
					if strings.Contains(r.body, "id: ") {
						t.Errorf("stateless-revision stream has event ids: %s", r.body)
					}
				}
				m := jsonrpc.Decode([]byte(data))
				if m.ID.IsZero() {
					t.Errorf("answer without the request id: %s", data)
				}
				if tt.code == 0 && m.Error != nil || tt.code != 0 && (m.Error == nil || m.Error.Code != tt.code) {
					t.Errorf("answer %s, want code %d", data, tt.code)
				}
			})
		}
		// GET and DELETE are not part of the stateless revision.
		for _, method := range []string{"GET", "DELETE"} {
			r := f.do(method, map[string]string{"Accept": "text/event-stream", "Mcp-Protocol-Version": mcp.Version20260728}, "")
			if r.status != 405 || r.header.Get("Allow") != "POST" {
				t.Errorf("%s: %d %q", method, r.status, r.header.Get("Allow"))
			}
		}
		// Stateless requests build no session at all.
		if n := len(f.srv.Sessions()); n != 0 || f.h.SessionCount() != 0 {
			t.Errorf("%d server sessions, %d handler sessions after the stateless requests, want none", n, f.h.SessionCount())
		}
	}
}

func TestModernClientDisconnectCancels(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, nil)
	postAndHangUp(t, f, b, modernHeaders("tools/call", "Mcp-Name", "block"), modernBody(1, "tools/call", `{"name":"block"}`, ""),
		"closing the response did not cancel the request")
}

func TestModernClientEndToEnd(t *testing.T) {
	// The mcp client probes with server/discover and speaks 2026-07-28;
	// the same endpoint serves a 2025-11-25 client at the same time.
	f := newFixture(t, nil)
	cs, stream := f.connect(&mcp.ClientOptions{ProtocolVersion: mcp.Version20260728}, nil)
	if v := cs.ProtocolVersion(); v != mcp.Version20260728 {
		t.Fatalf("negotiated %q", v)
	}
	if got := callText(t, cs, "echo", `{"text":"modern"}`); got != "modern" {
		t.Errorf("echo: %q", got)
	}
	if got := callText(t, cs, "header", `{"text":"Mcp-Name"}`); got != "header|POST|" {
		t.Errorf("header: %q", got)
	}
	if stream.SessionID() != "" || f.h.SessionCount() != 0 {
		t.Errorf("session %q, %d sessions", stream.SessionID(), f.h.SessionCount())
	}
	old, _ := f.connect(nil, nil)
	if got := callText(t, old, "echo", `{"text":"legacy"}`); got != "legacy" || f.h.SessionCount() != 1 {
		t.Errorf("legacy client beside it: %q", got)
	}
	res, err := cs.ListTools(ctx(t), nil)
	if err != nil || len(res.Tools) == 0 {
		t.Errorf("ListTools: %v", err)
	}
}

// TestModernSameIDs sends stateless requests from many clients at once, all
// with the same request id, while a long request is in flight with that id
// too: they belong to no session, so the ids never meet, and each answer
// must carry the client's id and its own result.
func TestModernSameIDs(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, nil)
	blocked := make(chan raw, 1)
	go func() {
		blocked <- f.do("POST", modernHeaders("tools/call", "Mcp-Name", "block"), modernBody(1, "tools/call", `{"name":"block"}`, ""))
	}()
	<-b.started
	const clients = 40
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			text := "client-" + itoaTest(int64(i))
			r := f.do("POST", with(modernHeaders("tools/call", "Mcp-Name", "echo"), "Accept", "application/json"),
				modernBody(1, "tools/call", `{"name":"echo","arguments":{"text":"`+text+`"}}`, ""))
			m := jsonrpc.Decode([]byte(r.body))
			if r.status != 200 || m.ID != jsonrpc.Int64ID(1) || m.Error != nil || !strings.Contains(string(m.Result), `"text":"`+text+`"`) {
				t.Errorf("client %d: %d %s", i, r.status, r.body)
			}
		})
	}
	wg.Wait()
	close(b.release)
	if r := <-blocked; r.status != 200 || !strings.Contains(r.body, `"id":1`) {
		t.Errorf("blocked request: %d %s", r.status, r.body)
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("%d server sessions, want none", n)
	}
}

// TestModernKeepAlive checks that a stateless request answered on an event
// stream gets keep-alive comments while its handler runs.
func TestModernKeepAlive(t *testing.T) {
	srv := testServer()
	b := addBlocker(srv)
	f := newFixtureWith(t, srv, &HandlerOptions{KeepAliveInterval: 20 * time.Millisecond})
	done := make(chan raw, 1)
	go func() {
		done <- f.do("POST", with(modernHeaders("tools/call", "Mcp-Name", "block"), "Accept", "text/event-stream"),
			modernBody(9, "tools/call", `{"name":"block"}`, ""))
	}()
	<-b.started
	time.Sleep(150 * time.Millisecond)
	close(b.release)
	r := <-done
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
	}
	if n := strings.Count(r.body, string(keepAliveComment)); n < 2 {
		t.Errorf("%d keep-alive comments in %q, want several", n, r.body)
	}
	if !strings.Contains(r.body, `"id":9`) {
		t.Errorf("no answer in %q", r.body)
	}
}

// TestStatelessNotifications: a 2026-07-28 POST's notification is checked
// as a request is (a bad one is a 400) and accepted with 202;
// notifications/cancelled is accepted without a look. Delivery to the
// server's handler: mcp's TestTypedCustomMethod/http/2026-07-28.
func TestStatelessNotifications(t *testing.T) {
	f := newFixture(t, nil)
	note := func(method, meta string) string {
		return `{"jsonrpc":"2.0","method":"` + method + `","params":{"_meta":` + meta + `}}`
	}
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tt := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
	}{
		{"checked and accepted", modernHeaders("x/note"), note("x/note", meta), 202},
		{"missing Mcp-Method", modernHeaders("x/note", "Mcp-Method", ""), note("x/note", meta), 400},
		{"Mcp-Method differs", modernHeaders("x/other"), note("x/note", meta), 400},
		{"missing capabilities", modernHeaders("x/note"), note("x/note", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), 400},
		{"cancelled", modernHeaders("notifications/cancelled", "Mcp-Method", ""), note("notifications/cancelled", `{}`), 202},
		// As go-sdk sends it on a 2026-07-28 connection: dropped, not refused.
		{"roots changed", modernHeaders("notifications/roots/list_changed", "Mcp-Method", ""), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 202},
	} {
		if r := f.do("POST", tt.hdr, tt.body); r.status != tt.status {
			t.Errorf("%s: status %d, want %d: %s", tt.name, r.status, tt.status, r.body)
		}
	}
}
