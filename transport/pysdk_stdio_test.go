package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// pyStdioMsg is a JSON-RPC message as the Python client reads it.
type pyStdioMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// pyStdio is the Python SDK's stdio client (src/mcp/client/stdio.py, v1.29
// and v2 main) on the wire: it writes each message as pydantic's
// model_dump_json (compact, non-ASCII unescaped) followed by "\n", and
// reads the server's stdout by splitting on "\n" alone, every piece being
// one JSON-RPC message (an empty or partial line is a parse error it
// reports; a batch is not a message it knows).
type pyStdio struct {
	t      *testing.T
	w      io.Writer
	lines  *bufio.Scanner
	v2     bool
	nextID int
}

func (p *pyStdio) write(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// read returns the next line as a message.
func (p *pyStdio) read() pyStdioMsg {
	p.t.Helper()
	if !p.lines.Scan() {
		p.t.Fatalf("stdout ended: %v", p.lines.Err())
	}
	line := p.lines.Text()
	var m pyStdioMsg
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "[") || json.Unmarshal([]byte(line), &m) != nil {
		p.t.Fatalf("stdout line %q is not one JSON-RPC message", line)
	}
	return m
}

// call writes a request and reads up to its response, answering server
// requests (a sampling callback) and collecting notifications.
func (p *pyStdio) call(method, params string) (result json.RawMessage, notes []pyStdioMsg) {
	p.t.Helper()
	p.nextID++
	line := fmt.Sprintf(`"method":%q`, method)
	if params != "" {
		line += `,"params":` + params
	}
	if p.v2 {
		p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, p.nextID, line))
	} else {
		// v1.29's pydantic models put Request's members first.
		p.write(fmt.Sprintf(`{%s,"jsonrpc":"2.0","id":%d}`, line, p.nextID))
	}
	for {
		m := p.read()
		switch {
		case m.Method == "" && string(m.ID) == fmt.Sprint(p.nextID):
			if m.Error != nil {
				p.t.Fatalf("%s: error %s", method, m.Error)
			}
			return m.Result, notes
		case m.Method == "":
			p.t.Fatalf("%s: a response for id %s", method, m.ID)
		case m.ID == nil:
			notes = append(notes, m)
		case m.Method == "sampling/createMessage":
			p.write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"py-model","stopReason":"endTurn"}}`)
		default:
			p.write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32600,"message":"not supported"}}`)
		}
	}
}

// TestPythonSDKStdioClient drives the everything server over stdio as the
// Python SDK's client does (src/mcp/client/stdio.py and session.py): v1.29
// and v2 at 2025-11-25 (initialize, notifications/initialized, ids from 0
// or 1, v2's params always with _meta), v2 at 2026-07-28 (server/discover,
// then every request stamped in _meta, and listen() under a string id).
// Lines in are compact with raw
// UTF-8; lines out must split on "\n" into single messages, notifications
// before their result; closing stdin ends the server, which the client
// waits 2 s for before it kills it.
func TestPythonSDKStdioClient(t *testing.T) {
	const caps = `{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}`
	const info = `{"name":"mcp","version":"0.1.0"}`
	for _, tc := range []struct {
		name    string
		v2      bool
		version string
	}{
		{"v1.29", false, mcp.Version20251125},
		{"v2", true, mcp.Version20251125},
		{"v2", true, mcp.Version20260728},
	} {
		t.Run(tc.name+"/"+tc.version, func(t *testing.T) {
			s, err := everything.NewServer(&everything.Options{Step: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- s.Run(context.Background(), transport.NewLineStream(inR, outW, inR, nil))
				outW.Close()
			}()
			sc := bufio.NewScanner(outR)
			sc.Buffer(make([]byte, 64<<10), 8<<20)
			p := &pyStdio{t: t, w: inW, lines: sc, v2: tc.v2, nextID: -1}
			modern := tc.version == mcp.Version20260728
			if tc.v2 {
				p.nextID = 0
			}
			stamp := "" // the _meta members v2 stamps on every request at 2026-07-28
			if modern {
				stamp = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":` + info +
					`,"io.modelcontextprotocol/clientCapabilities":` + caps
			}
			// params is the params member with fields and the _meta members
			// extra: v1.29 leaves out what is empty, v2 always sends _meta.
			params := func(fields, extra string) string {
				meta := join(stamp, extra)
				if !tc.v2 && meta == "" {
					if fields == "" {
						return ""
					}
					return "{" + fields + "}"
				}
				return "{" + join(fields, `"_meta":{`+meta+`}`) + "}"
			}
			if modern {
				r, _ := p.call("server/discover", params("", ""))
				if !strings.Contains(string(r), `"supportedVersions"`) || !strings.Contains(string(r), `"resultType"`) {
					t.Fatalf("server/discover: %s", r)
				}
			} else {
				r, _ := p.call("initialize", params(`"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":`+info, ""))
				if !strings.Contains(string(r), `"protocolVersion":"2025-11-25"`) {
					t.Fatalf("initialize: %s", r)
				}
				if tc.v2 {
					p.write(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
				} else {
					p.write(`{"method":"notifications/initialized","jsonrpc":"2.0"}`)
				}
				if r, _ := p.call("ping", params("", "")); strings.TrimSpace(string(r)) != "{}" {
					t.Errorf("ping: %s", r)
				}
				p.call("logging/setLevel", params(`"level":"debug"`, ""))
			}

			r, _ := p.call("tools/list", params("", ""))
			if !strings.Contains(string(r), `"name":"test_simple_text"`) {
				t.Errorf("tools/list: %s", r)
			}
			r, _ = p.call("tools/call", params(`"name":"json_schema_2020_12_tool","arguments":{"name":"Zoë 😀","email":"z@example.com"}`, ""))
			if !strings.Contains(string(r), "Zoë 😀") && !strings.Contains(string(r), `Zo\u00eb`) {
				t.Errorf("non-ASCII arguments: %s", r)
			}
			r, notes := p.call("tools/call", params(`"name":"test_tool_with_progress"`, `"progressToken":`+fmt.Sprint(p.nextID+1)))
			if n := count(notes, "notifications/progress", `"progressToken":`+fmt.Sprint(p.nextID)+`,`); n != 3 || !strings.Contains(string(r), "Progress test completed") {
				t.Errorf("progress: %d notifications with the int token before %s", n, r)
			}
			logLevel := "" // at 2026-07-28 logging is asked for per request
			if modern {
				logLevel = `"io.modelcontextprotocol/logLevel":"debug"`
			}
			r, notes = p.call("tools/call", params(`"name":"test_tool_with_logging"`, logLevel))
			if n := count(notes, "notifications/message", ""); n != 3 || !strings.Contains(string(r), "Logging test completed") {
				t.Errorf("logging: %d log messages before %s", n, r)
			}
			if !modern {
				r, _ = p.call("tools/call", params(`"name":"test_sampling","arguments":{"prompt":"Capital of France?"}`, ""))
				if !strings.Contains(string(r), "LLM response: Paris") {
					t.Errorf("sampling: %s", r)
				}
			}
			r, _ = p.call("resources/read", params(`"uri":"test://static-binary"`, ""))
			if !strings.Contains(string(r), `"blob":"`) {
				t.Errorf("resources/read: %s", r)
			}
			r, _ = p.call("prompts/get", params(`"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}`, ""))
			if !strings.Contains(string(r), "arg1='a'") {
				t.Errorf("prompts/get: %s", r)
			}
			r, _ = p.call("completion/complete", params(`"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"x"}`, ""))
			if !strings.Contains(string(r), `"values":["x-completed"]`) {
				t.Errorf("completion/complete: %s", r)
			}
			if modern {
				// listen() on stdio: the id is the string it mints, and
				// everything for the subscription names it in _meta.
				p.write(`{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":` +
					params(`"notifications":{"toolsListChanged":true}`, "") + `}`)
				if ack := p.read(); ack.Method != "notifications/subscriptions/acknowledged" ||
					!strings.Contains(string(ack.Params), `"io.modelcontextprotocol/subscriptionId":"listen-1"`) {
					t.Errorf("listen: first message %s %s", ack.Method, ack.Params)
				}
				_, notes := p.call("tools/call", params(`"name":"test_trigger_tool_change"`, ""))
				// The server may tell the change after the call's result:
				// read on until it comes (a stuck read is cut after 5 s).
				watchdog := time.AfterFunc(5*time.Second, func() { outR.Close() })
				for count(notes, "notifications/tools/list_changed", "") == 0 {
					notes = append(notes, p.read())
				}
				watchdog.Stop()
				if count(notes, "notifications/tools/list_changed", `"io.modelcontextprotocol/subscriptionId":"listen-1"`) != 1 {
					t.Errorf("listen: notifications %+v", notes)
				}
				// Leaving listen(): the dispatcher's courtesy cancel.
				p.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen-1","reason":"subscription closed"}}`)
			}

			// The client closes stdin; the server must end by itself.
			inW.Close()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("the server did not end within the 2 s the Python client waits after closing stdin")
			}
			for sc.Scan() {
			}
		})
	}
}

func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "," + b
}

func count(notes []pyStdioMsg, method, contains string) int {
	n := 0
	for _, m := range notes {
		if m.Method == method && strings.Contains(string(m.Params), contains) {
			n++
		}
	}
	return n
}

// pyStdioServer answers as a Python SDK server on stdio does
// (src/mcp/server/stdio.py, v1.29 and v2 main): every message it writes is
// pydantic's model_dump_json (compact, raw UTF-8, members in model order:
// v1.29 writes requests and notifications as method, params, jsonrpc, id,
// responses as jsonrpc, id, result or error) followed by a newline,
// which Python's text stdout writes as eol ("\r\n" on Windows). Each line
// it reads must be one JSON-RPC message object. Its tool "ask" asks the
// client's model (a sampling/createMessage request of the server's own,
// numbered from 0), logs, reports progress when asked to, and answers with
// what the model said. v1.29 knows no server/discover: a method outside
// its ClientRequest union fails validation and gets -32602 "Invalid request
// parameters" (shared/session.py), one it knows but has no handler for
// -32601. v2 (modern) answers server/discover with 2026-07-28 and then
// wants every request stamped; its 2026 results carry resultType, the
// serverInfo stamp and, for lists, ttlMs and cacheScope; it has no ping
// (nor server requests: its tool logs, reports progress and answers).
func pyStdioServer(t *testing.T, in io.Reader, out io.Writer, eol string, modern bool) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	write := func(s string) { _, _ = io.WriteString(out, s+eol) }
	var pending *pyStdioMsg // the tools/call waiting for the model
	for sc.Scan() {
		line := sc.Text()
		var m pyStdioMsg
		if strings.HasPrefix(strings.TrimSpace(line), "[") || json.Unmarshal([]byte(line), &m) != nil {
			t.Errorf("the client wrote %q, which is not one JSON-RPC message", line)
			continue
		}
		id := string(m.ID)
		if modern {
			pyStdioModern(t, m, write)
			continue
		}
		switch m.Method {
		case "server/discover":
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`)
		case "":
			if pending != nil && id == "1" {
				// The elicitation's answer.
				write(`{"jsonrpc":"2.0","id":` + string(pending.ID) + `,"result":{"content":[{"type":"text","text":` + strconv.Quote(string(m.Result)) + `}],"isError":false}}`)
				pending = nil
				continue
			}
			if pending == nil || id != "0" {
				t.Errorf("unexpected response %s", line)
				continue
			}
			var r struct{ Content struct{ Text string } }
			_ = json.Unmarshal(m.Result, &r)
			write(`{"method":"notifications/message","params":{"level":"info","logger":"ask","data":"asked the model"},"jsonrpc":"2.0"}`)
			var p struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(pending.Params, &p)
			if p.Meta.ProgressToken != nil {
				write(`{"method":"notifications/progress","params":{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":1.0,"total":1.0},"jsonrpc":"2.0"}`)
			}
			write(`{"jsonrpc":"2.0","id":` + string(pending.ID) + `,"result":{"content":[{"type":"text","text":"` + r.Content.Text + `"}],"isError":false}}`)
			pending = nil
		case "initialize":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{},"logging":{},` +
				`"prompts":{"listChanged":false},"resources":{"subscribe":false,"listChanged":false},"tools":{"listChanged":false}},` +
				`"serverInfo":{"name":"pý","version":"1.29.0"},"instructions":"Frägt das Modell"}}`)
		case "notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed":
		case "ping", "logging/setLevel":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		case "tools/list":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"ask","description":"Fragt 🤖","inputSchema":{"properties":{"q":{"title":"Q","type":"string"}},"required":["q"],"title":"askArguments","type":"object"}}]}}`)
		case "tools/call":
			mc := m
			pending = &mc
			if strings.Contains(string(m.Params), `"book"`) {
				// ctx.elicit(schema=BookingPreferences): FastMCP sends the
				// pydantic model's model_json_schema() as it is: titles,
				// defaults, an enum, and anyOf with null for an Optional
				// field, which the spec's restricted schema does not have.
				write(`{"method":"elicitation/create","params":{"mode":"form","message":"No tables on that date. Another one?","requestedSchema":` + pyBookingSchema + `},"jsonrpc":"2.0","id":1}`)
				continue
			}
			write(`{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hauptstadt?"}}],"maxTokens":100},"jsonrpc":"2.0","id":0}`)
		default:
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	}
}

// pyBookingSchema is what pydantic's model_json_schema() makes of a
// FastMCP elicitation model with a required bool, a defaulted string, an
// Optional string, a defaulted int and a Literal.
const pyBookingSchema = `{"properties":{"checkAlternative":{"description":"Would you like to check another date?","title":"Checkalternative","type":"boolean"},` +
	`"alternativeDate":{"default":"2024-12-26","description":"Alternative date (YYYY-MM-DD)","title":"Alternativedate","type":"string"},` +
	`"note":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"Anything else?","title":"Note"},` +
	`"seats":{"default":2,"title":"Seats","type":"integer"},"tier":{"default":"economy","enum":["economy","business"],"title":"Tier","type":"string"}},` +
	`"required":["checkAlternative"],"title":"BookingPreferences","type":"object"}`

// pyStdioModern is pyStdioServer for the Python SDK v2 at 2026-07-28.
func pyStdioModern(t *testing.T, m pyStdioMsg, write func(string)) {
	const stamp = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"pý","version":"2.0.0"}}`
	id := string(m.ID)
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if m.ID != nil && string(p.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` {
		write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Invalid request parameters"}}`)
		return
	}
	switch m.Method {
	case "server/discover":
		write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"tools":{"listChanged":false}},` +
			`"instructions":"Frägt das Modell","ttlMs":0,"cacheScope":"private",` + stamp + `}}`)
	case "tools/list":
		write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"ask","description":"Fragt 🤖","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"private",` + stamp + `}}`)
	case "tools/call":
		if string(p.Meta["io.modelcontextprotocol/logLevel"]) != "" {
			write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"ask","data":"asked the model"}}`)
		}
		if tok := p.Meta["progressToken"]; tok != nil {
			write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(tok) + `,"progress":1.0,"total":1.0}}`)
		}
		write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"Zoë 😀"}],"isError":false,` + stamp + `}}`)
	case "":
		t.Errorf("a response at 2026-07-28: %s", m.ID)
	default:
		if m.ID != nil {
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	}
}

// TestPythonSDKStdioServer: the client over stdio against a Python SDK
// server (see pyStdioServer), with Unix and Windows line ends: the
// handshake, a tool that makes a sampling request of its own and logs and
// reports progress before its result, non-ASCII text both ways, ping, and
// a -32601 for a method the server lacks.
func TestPythonSDKStdioServer(t *testing.T) {
	for _, tc := range []struct {
		name, eol string
		modern    bool
	}{{"v1.29/LF", "\n", false}, {"v1.29/CRLF", "\r\n", false}, {"v2/2026-07-28", "\n", true}} {
		eol := tc.eol
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan struct{})
			go func() {
				defer close(served)
				pyStdioServer(t, inR, outW, eol, tc.modern)
				outW.Close()
			}()
			logs := make(chan string, 4)
			c := mcp.NewClient(&mcp.Implementation{Name: "py-interop", Version: "1"}, &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("Zoë 😀")}, Model: "m"}, nil
				},
				LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
					logs <- string(p.Data)
				},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					var names []string
					if rs := req.Params.RequestedSchema; rs != nil {
						for _, p := range rs.Properties {
							names = append(names, p.Name)
						}
					}
					if want := []string{"checkAlternative", "alternativeDate", "note", "seats", "tier"}; !slices.Equal(names, want) {
						t.Errorf("requested schema properties %v, want %v", names, want)
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"checkAlternative": true, "seats": 3}}, nil
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, transport.NewLineStream(outR, inW, inW, nil))
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if init := cs.InitializeResult(); init.ServerInfo.Name != "pý" || init.Instructions != "Frägt das Modell" {
				t.Errorf("initialize: %+v", init)
			}
			want := mcp.Version20251125
			if tc.modern {
				want = mcp.Version20260728
			}
			if v := cs.ProtocolVersion(); v != want {
				t.Errorf("version %s, want %s", v, want)
			}
			if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
				t.Fatalf("SetLoggingLevel: %v", err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Description != "Fragt 🤖" {
				t.Fatalf("ListTools: %+v, %v", tools, err)
			}
			var progress []float64
			pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) })
			res, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{"q":"Hauptstadt?"}`)})
			if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Zoë 😀" {
				t.Fatalf("CallTool: %+v, %v", res, err)
			}
			if len(progress) != 1 {
				t.Errorf("progress %v", progress)
			}
			if !tc.modern {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book", Arguments: json.RawMessage(`{}`)})
				if err != nil || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"action":"accept"`) {
					t.Errorf("CallTool book: %+v, %v", res, err)
				}
			}
			if err := cs.Ping(ctx); err != nil {
				t.Errorf("Ping: %v", err)
			}
			_, err = cs.ListPrompts(ctx, nil)
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("ListPrompts: %v, want -32601", err)
			}
			// The log line precedes the result on the wire, so its
			// handler has seen it by the time the call returned.
			select {
			case l := <-logs:
				if l != `"asked the model"` {
					t.Errorf("log %s", l)
				}
			default:
				t.Error("no log message when the call returned")
			}
			if err := cs.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			<-served
		})
	}
}
