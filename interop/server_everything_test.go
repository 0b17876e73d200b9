//go:build interop

package interop

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// The reference server's pinned package (scripts/npm/package.json).
const serverEverythingPackage = "@modelcontextprotocol/server-everything"

// envMarker is set in the reference server's environment and read back
// through its get-env tool.
const envMarker = "GOMCP_INTEROP_MARKER"

// recorder collects what the reference server sends the client on its own:
// log messages, resource updates, list changes, sampling and elicitation
// requests. Its handlers run on the client's notification lane and never
// block.
type recorder struct {
	mu               sync.Mutex
	logs             []*mcp.LoggingMessageNotificationParams
	updated          []string
	samples          []*mcp.CreateMessageParams
	elicits          []*mcp.ElicitParams
	elicitReply      func(*mcp.ElicitParams) *mcp.ElicitResult
	toolsChanged     int
	resourcesChanged int
}

func (r *recorder) logTexts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.logs))
	for _, l := range r.logs {
		var s string
		if json.Unmarshal(l.Data, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

func (r *recorder) setElicitReply(f func(*mcp.ElicitParams) *mcp.ElicitResult) {
	r.mu.Lock()
	r.elicitReply = f
	r.elicits = nil
	r.mu.Unlock()
}

func (r *recorder) lastElicit() *mcp.ElicitParams {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.elicits) == 0 {
		return nil
	}
	return r.elicits[len(r.elicits)-1]
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hasLog reports whether a log message whose text contains s arrived.
func (r *recorder) hasLog(s string) func() bool {
	return func() bool {
		return slices.ContainsFunc(r.logTexts(), func(l string) bool { return strings.Contains(l, s) })
	}
}

// everythingTransport is one way of running server-everything: start
// launches the server (bin, with the environment env) and connects to it.
// The server is stopped when the test ends, after the session is closed.
type everythingTransport struct {
	name  string
	start func(t *testing.T, bin string, env []string) everythingConn

	// initializedNotices says whether what the server sends while it
	// handles notifications/initialized reaches the client: the
	// tools/list_changed notifications for the tools it registers then.
	//
	// Over Streamable HTTP they are lost, a limitation of server-everything
	// (and of its TypeScript SDK transport) that no client opening its
	// standalone GET stream after the initialized notification can avoid:
	// the SDK's WebStandardStreamableHTTPServerTransport.handlePostRequest
	// dispatches a notification-only POST (onmessage) before it answers
	// 202, and the server's oninitialized hook (dist/server/index.js) calls
	// registerConditionalTools then, each registration sending
	// tools/list_changed without a related request. send() puts such a
	// message on the standalone SSE stream, and as none is open yet it only
	// stores it in the event store ("Stream is disconnected - event is
	// stored for replay, nothing more to do"), from which a fresh GET
	// replays nothing. The TypeScript SDK's own client, which like gomcp's
	// opens the GET stream once the initialized notification is accepted,
	// receives none of them either (checked by hand against this version);
	// a client that opened it before sending the notification got them.
	// The tools themselves are there from the first tools/list, and
	// list_changed delivery over HTTP is exercised by the
	// resources/list_changed that gzip-file-as-resource causes.
	initializedNotices bool
}

// everythingTransports are the transports TestServerEverything walks the
// reference server's features over, each in a subtest of that name.
var everythingTransports = []everythingTransport{
	{name: "stdio", start: startEverythingStdio, initializedNotices: true},
	{name: "streamable-http", start: startEverythingHTTP},
}

// everythingConn is a connection to a server-everything process.
type everythingConn struct {
	stream jsonrpc.Stream
	output func() string // what the server wrote, for failure logs
	// ended checks, once the client session is closed, that the server saw
	// it end.
	ended func(t *testing.T)
}

// startEverythingStdio runs `server-everything stdio` as a subprocess.
func startEverythingStdio(t *testing.T, bin string, env []string) everythingConn {
	cmd := exec.Command(bin, "stdio")
	cmd.Env = env
	stderr := &syncBuffer{}
	stream := &transport.CommandTransport{Cmd: cmd, Stderr: stderr}
	return everythingConn{
		stream: stream, // started by the client's Connect
		output: func() string { return "stderr:\n" + stderr.String() },
		ended: func(t *testing.T) {
			// Closing stdin ends the server, which exits by itself.
			if err := stream.Wait(); err != nil {
				t.Errorf("server-everything exited with %v once stdin closed", err)
			}
		},
	}
}

// startEverythingHTTP runs `server-everything streamableHttp`, which serves
// http://localhost:$PORT/mcp (dist/transports/streamableHttp.js: express,
// `app.listen(process.env.PORT || 3001)`, on every interface) and announces
// "MCP Streamable HTTP Server listening on port $PORT" on stderr once it
// listens. Since it cannot be told to pick a port itself (PORT=0 would not
// say which one it got), the test picks a free one, and tries another if the
// server finds it taken meanwhile. The server logs each request on stdout,
// and shuts down with exit status 0 on SIGINT.
func startEverythingHTTP(t *testing.T, bin string, env []string) everythingConn {
	const attempts = 3
	for range attempts {
		port := freePort(t)
		cmd := exec.Command(bin, "streamableHttp")
		cmd.Env = append(slices.Clip(env), "PORT="+port) // the last PORT wins
		want := "MCP Streamable HTTP Server listening on port " + port + "\n"
		sp, failure := startServerProcess(t, cmd, os.Interrupt, func(_, stderr string) (string, bool) {
			return "http://127.0.0.1:" + port + "/mcp", strings.Contains(stderr, want)
		})
		if sp == nil {
			if strings.Contains(failure, "EADDRINUSE") || strings.Contains(failure, "already in use") {
				t.Logf("port %s was taken: %s", port, failure)
				continue
			}
			t.Fatal(failure)
		}
		stream := mcphttp.NewClientStream(sp.url, nil)
		return everythingConn{
			stream: stream,
			output: func() string {
				// Leave out the line the server logs for every POST.
				out := strings.ReplaceAll(sp.stdout.String(), "Received MCP POST request\n", "")
				return "stdout (without the POST lines):\n" + out + "\nstderr:\n" + sp.stderr.String()
			},
			ended: func(t *testing.T) {
				// Close sent DELETE with the session id the server issued.
				sid := stream.SessionID()
				if sid == "" {
					t.Fatal("the client stream has no session id")
				}
				waitFor(t, "the server to end session "+sid, func() bool {
					return strings.Contains(sp.stdout.String(), "Transport closed for session "+sid+",")
				})
				if !strings.Contains(sp.stdout.String(), "Received session termination request for session "+sid+"\n") {
					t.Errorf("the session ended without a DELETE")
				}
			},
		}
	}
	t.Fatalf("server-everything found no free port in %d attempts", attempts)
	return everythingConn{}
}

// freePort returns a TCP port that was free on the loopback interface a
// moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// everythingSession is a gomcp client session with the reference server.
type everythingSession struct {
	cs      *mcp.ClientSession
	client  *mcp.Client
	tr      everythingTransport
	conn    everythingConn
	rec     *recorder
	docs    string      // the package's dist/docs folder, served as resources
	tamper  atomic.Bool // corrupt get-structured-content results (see newEverythingSession)
	rootURI string
}

// newEverythingSession starts server-everything over tr and connects
// gomcp's client to it; the session is closed when the test ends.
func newEverythingSession(t *testing.T, tr everythingTransport) *everythingSession {
	env := requireEnv(t, "SERVER_EVERYTHING", "MCP_TS_SDK_DIR")
	es := &everythingSession{
		rec:     &recorder{},
		tr:      tr,
		docs:    filepath.Join(env["MCP_TS_SDK_DIR"], serverEverythingPackage, "dist", "docs"),
		rootURI: "file://" + filepath.ToSlash(t.TempDir()),
	}
	rec := es.rec
	es.client = mcp.NewClient(&mcp.Implementation{Name: "gomcp-interop-client", Version: "1.0.0"}, &mcp.ClientOptions{
		Roots: []*mcp.Root{{URI: es.rootURI, Name: "interop root"}},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			rec.mu.Lock()
			rec.samples = append(rec.samples, req.Params)
			rec.mu.Unlock()
			return &mcp.CreateMessageResult{
				Role:       mcp.RoleAssistant,
				Content:    []mcp.Content{mcp.NewTextContent("MCP is the Model Context Protocol.")},
				Model:      "gomcp-interop-model",
				StopReason: mcp.StopReasonEndTurn,
			}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.elicits = append(rec.elicits, req.Params)
			if rec.elicitReply == nil {
				return &mcp.ElicitResult{Action: mcp.ElicitActionCancel}, nil
			}
			return rec.elicitReply(req.Params), nil
		},
		ElicitationURL: true,
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			rec.mu.Lock()
			rec.logs = append(rec.logs, p)
			rec.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			rec.mu.Lock()
			rec.updated = append(rec.updated, p.URI)
			rec.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			rec.mu.Lock()
			rec.toolsChanged++
			rec.mu.Unlock()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) {
			rec.mu.Lock()
			rec.resourcesChanged++
			rec.mu.Unlock()
		},
		// The tamper middleware rewrites a get-structured-content result so
		// that it no longer matches the tool's output schema, to prove the
		// client validates structured content.
		Sending: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				res, err := next(ctx, r)
				if err != nil || r.Method != mcp.MethodToolsCall || !es.tamper.Load() {
					return res, err
				}
				raw, _ := res.(json.RawMessage)
				return json.RawMessage(bytes.Replace(raw, []byte(`"humidity":82`), []byte(`"humidity":"damp"`), 1)), nil
			}
		}},
		RequestTimeout: 30 * time.Second,
	})

	es.conn = tr.start(t, env["SERVER_EVERYTHING"], append(os.Environ(), envMarker+"=interop-42"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	es.cs, err = es.client.Connect(ctx, es.conn.stream)
	if err != nil {
		t.Fatalf("connect to server-everything over %s: %v\nserver %s", tr.name, err, es.conn.output())
	}
	t.Cleanup(func() {
		// Closing again after the walk's close subtest is harmless.
		if err := es.cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if t.Failed() {
			t.Logf("server-everything %s", es.conn.output())
		}
	})
	return es
}

// call calls a tool with JSON arguments and fails the test on a protocol
// error.
func (es *everythingSession) call(t *testing.T, ctx context.Context, name, args string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	res, err := es.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// texts returns the text of every text block of a result.
func texts(t *testing.T, content []mcp.Content) []string {
	t.Helper()
	var out []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// oneText returns the text of a result that must be a single text block.
func oneText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("want one text block, got isError=%v %s", res.IsError, mustJSON(t, res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return string(b)
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("decoding %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("decoding %q: %v", want, err)
	}
	return mustJSON(t, g) == mustJSON(t, w)
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func assertPNG(t *testing.T, img *mcp.ImageContent) {
	t.Helper()
	if img.MIMEType != "image/png" {
		t.Errorf("image mimeType = %q, want image/png", img.MIMEType)
	}
	data, err := img.DecodeData()
	if err != nil || !bytes.HasPrefix(data, pngMagic) {
		t.Errorf("image data is not a base64 PNG (err %v)", err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestServerEverything drives @modelcontextprotocol/server-everything, the
// reference server, with gomcp's client through every feature it offers,
// over each of everythingTransports (stdio and Streamable HTTP) in a subtest
// of its own. The two run in parallel, each with its own server.
func TestServerEverything(t *testing.T) {
	for _, tr := range everythingTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			walkServerEverything(t, newEverythingSession(t, tr))
		})
	}
}

// walkServerEverything is the feature walk: its subtests share the session
// and run in order.
func walkServerEverything(t *testing.T, es *everythingSession) {
	cs, rec := es.cs, es.rec
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("initialize", func(t *testing.T) {
		if got := cs.ProtocolVersion(); got != mcp.LatestStatefulVersion {
			t.Errorf("protocol version = %q, want %q", got, mcp.LatestStatefulVersion)
		}
		init := cs.InitializeResult()
		want := mcp.Implementation{Name: "mcp-servers/everything", Title: "Everything Reference Server", Version: "2.0.0"}
		if init.ServerInfo == nil || mustJSON(t, init.ServerInfo) != mustJSON(t, want) {
			t.Errorf("serverInfo = %s, want %s", mustJSON(t, init.ServerInfo), mustJSON(t, want))
		}
		instructions, err := os.ReadFile(filepath.Join(es.docs, "instructions.md"))
		if err != nil {
			t.Fatal(err)
		}
		if init.Instructions != string(instructions) {
			t.Errorf("instructions differ from %s/instructions.md:\n%q", es.docs, init.Instructions)
		}
		caps := cs.ServerCapabilities()
		switch {
		case caps.Logging == nil, caps.Completions == nil:
			t.Errorf("logging or completions missing: %s", mustJSON(t, caps))
		case caps.Tools == nil || !caps.Tools.ListChanged:
			t.Errorf("tools capability: %s", mustJSON(t, caps.Tools))
		case caps.Prompts == nil || !caps.Prompts.ListChanged:
			t.Errorf("prompts capability: %s", mustJSON(t, caps.Prompts))
		case caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged:
			t.Errorf("resources capability: %s", mustJSON(t, caps.Resources))
		case !tasksCapable(caps):
			t.Errorf("tasks capability: %s", caps.Tasks)
		}
	})

	if hs, ok := es.conn.stream.(*mcphttp.ClientStream); ok {
		t.Run("streamable-http session", func(t *testing.T) {
			// The server issued a session id with its initialize answer, and
			// the stream sends the negotiated version with every request.
			if hs.SessionID() == "" {
				t.Error("no Mcp-Session-Id")
			}
			if got := hs.ProtocolVersion(); got != cs.ProtocolVersion() {
				t.Errorf("the stream's protocol version = %q, the session's %q", got, cs.ProtocolVersion())
			}
		})
	}

	t.Run("ping", func(t *testing.T) {
		if err := cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		// The server adds the tools that depend on client capabilities once
		// the handshake is done, announcing each with list_changed (which
		// does not reach the client over Streamable HTTP: see
		// everythingTransport.initializedNotices).
		toolsChanged := func() bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			return rec.toolsChanged > 0
		}
		if es.tr.initializedNotices {
			waitFor(t, "tools/list_changed", toolsChanged)
		} else if !toolsChanged() {
			t.Logf("no tools/list_changed over %s, as expected (see everythingTransport.initializedNotices)", es.tr.name)
		}
		want := []string{
			"echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference",
			"get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource",
			"toggle-simulated-logging", "toggle-subscriber-updates", "trigger-long-running-operation",
			"get-roots-list", "trigger-elicitation-request", "trigger-url-elicitation",
			"trigger-sampling-request", "simulate-research-query",
		}
		var tools []*mcp.Tool
		waitFor(t, "the capability-dependent tools", func() bool {
			tools = tools[:0]
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, tool)
			}
			return len(tools) >= len(want)
		})
		var names []string
		byName := map[string]*mcp.Tool{}
		for _, tool := range tools {
			names = append(names, tool.Name)
			byName[tool.Name] = tool
		}
		if !slices.Equal(names, want) {
			t.Fatalf("tools = %q\nwant    %q", names, want)
		}
		page, err := cs.ListTools(ctx, nil)
		if err != nil || len(page.Tools) != len(want) || page.NextCursor != "" {
			t.Errorf("ListTools: %d tools, cursor %q, err %v", len(page.Tools), page.NextCursor, err)
		}

		echo := byName["echo"]
		if echo.Title != "Echo Tool" || echo.Description != "Echoes back the input string" {
			t.Errorf("echo title/description: %q / %q", echo.Title, echo.Description)
		}
		wantAnn := mcp.ToolAnnotations{ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)}
		if echo.Annotations == nil || mustJSON(t, echo.Annotations) != mustJSON(t, wantAnn) {
			t.Errorf("echo annotations = %s", mustJSON(t, echo.Annotations))
		}
		var schema struct {
			Type       string                                        `json:"type"`
			Properties map[string]struct{ Type, Description string } `json:"properties"`
			Required   []string                                      `json:"required"`
		}
		if err := json.Unmarshal(echo.InputSchema.(json.RawMessage), &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" || schema.Properties["message"].Type != "string" ||
			schema.Properties["message"].Description != "Message to echo" || !slices.Equal(schema.Required, []string{"message"}) {
			t.Errorf("echo inputSchema = %s", echo.InputSchema)
		}
		if byName["get-structured-content"].OutputSchema == nil {
			t.Error("get-structured-content has no outputSchema")
		}
		if ex := byName["simulate-research-query"].Execution; ex == nil || ex.TaskSupport != mcp.TaskSupportRequired {
			t.Errorf("simulate-research-query execution = %s", mustJSON(t, ex))
		}
	})

	t.Run("echo and get-sum", func(t *testing.T) {
		if got := oneText(t, es.call(t, ctx, "echo", `{"message":"hello, interop ✓"}`)); got != "Echo: hello, interop ✓" {
			t.Errorf("echo = %q", got)
		}
		if got := oneText(t, es.call(t, ctx, "get-sum", `{"a":2,"b":3.5}`)); got != "The sum of 2 and 3.5 is 5.5." {
			t.Errorf("get-sum = %q", got)
		}
	})

	t.Run("tool errors", func(t *testing.T) {
		for _, tc := range []struct{ name, args, want string }{
			{"echo", `{}`, "Input validation error"},
			{"get-sum", `{"a":"two","b":3}`, "Input validation error"},
			{"no-such-tool", `{}`, "Tool no-such-tool not found"},
			// The one task-only tool: gomcp's client does not run tools as
			// tasks, so the server refuses the plain call.
			{"simulate-research-query", `{"topic":"x"}`, "requires task augmentation"},
		} {
			res := es.call(t, ctx, tc.name, tc.args)
			if !res.IsError || len(texts(t, res.Content)) != 1 || !strings.Contains(texts(t, res.Content)[0], tc.want) {
				t.Errorf("%s %s: want an isError result containing %q, got %s", tc.name, tc.args, tc.want, mustJSON(t, res))
			}
		}
	})

	t.Run("get-tiny-image", func(t *testing.T) {
		res := es.call(t, ctx, "get-tiny-image", "")
		if len(res.Content) != 3 {
			t.Fatalf("want 3 blocks, got %s", mustJSON(t, res.Content))
		}
		if got := texts(t, res.Content); !slices.Equal(got, []string{"Here's the image you requested:", "The image above is the MCP logo."}) {
			t.Errorf("texts = %q", got)
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok {
			t.Fatalf("block 1 is %T", res.Content[1])
		}
		assertPNG(t, img)
	})

	t.Run("get-annotated-message", func(t *testing.T) {
		res := es.call(t, ctx, "get-annotated-message", `{"messageType":"error","includeImage":true}`)
		if len(res.Content) != 2 {
			t.Fatalf("want 2 blocks, got %s", mustJSON(t, res.Content))
		}
		txt, ok1 := res.Content[0].(*mcp.TextContent)
		img, ok2 := res.Content[1].(*mcp.ImageContent)
		if !ok1 || !ok2 {
			t.Fatalf("blocks are %T, %T", res.Content[0], res.Content[1])
		}
		if txt.Text != "Error: Operation failed" ||
			mustJSON(t, txt.Annotations) != `{"audience":["user","assistant"],"priority":1}` {
			t.Errorf("text block = %s", mustJSON(t, txt))
		}
		assertPNG(t, img)
		if mustJSON(t, img.Annotations) != `{"audience":["user"],"priority":0.5}` {
			t.Errorf("image annotations = %s", mustJSON(t, img.Annotations))
		}
		res = es.call(t, ctx, "get-annotated-message", `{"messageType":"debug"}`)
		if len(res.Content) != 1 || mustJSON(t, res.Content[0].(*mcp.TextContent).Annotations) != `{"audience":["assistant"],"priority":0.3}` {
			t.Errorf("debug message = %s", mustJSON(t, res.Content))
		}
	})

	t.Run("get-structured-content", func(t *testing.T) {
		res := es.call(t, ctx, "get-structured-content", `{"location":"Chicago"}`)
		want := `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`
		if !jsonEqual(t, string(res.StructuredContent), want) {
			t.Errorf("structuredContent = %s, want %s", res.StructuredContent, want)
		}
		if got := texts(t, res.Content); len(got) != 1 || !jsonEqual(t, got[0], want) {
			t.Errorf("text fallback = %q", got)
		}
		// A result that breaks the declared output schema is refused.
		es.tamper.Store(true)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-structured-content", Arguments: json.RawMessage(`{"location":"Chicago"}`)})
		es.tamper.Store(false)
		if err == nil || !strings.Contains(err.Error(), "output schema") {
			t.Errorf("tampered structured content: err = %v, want an output schema mismatch", err)
		}
	})

	t.Run("get-resource-links", func(t *testing.T) {
		res := es.call(t, ctx, "get-resource-links", `{"count":4}`)
		if len(res.Content) != 5 {
			t.Fatalf("want 5 blocks, got %s", mustJSON(t, res.Content))
		}
		if got := texts(t, res.Content); !slices.Equal(got, []string{"Here are 4 resource links to resources available in this server:"}) {
			t.Errorf("intro = %q", got)
		}
		for i, c := range res.Content[1:] {
			id := i + 1
			link, ok := c.(*mcp.ResourceLink)
			if !ok {
				t.Fatalf("block %d is %T", id, c)
			}
			kind, name := "blob", "Blob"
			if id%2 == 0 {
				kind, name = "text", "Text"
			}
			wantURI := "demo://resource/dynamic/" + kind + "/" + strconv.Itoa(id)
			if link.URI != wantURI || link.Name != name+" Resource "+strconv.Itoa(id) || link.MIMEType != "text/plain" {
				t.Errorf("link %d = %s", id, mustJSON(t, link))
			}
			// Every link can be read.
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
			if err != nil || len(rr.Contents) != 1 {
				t.Fatalf("read %s: %v %s", link.URI, err, mustJSON(t, rr))
			}
		}
	})

	t.Run("get-resource-reference", func(t *testing.T) {
		res := es.call(t, ctx, "get-resource-reference", `{"resourceType":"Text","resourceId":2}`)
		if len(res.Content) != 3 {
			t.Fatalf("want 3 blocks, got %s", mustJSON(t, res.Content))
		}
		emb, ok := res.Content[1].(*mcp.EmbeddedResource)
		if !ok {
			t.Fatalf("block 1 is %T", res.Content[1])
		}
		trc, ok := emb.Resource.(*mcp.TextResourceContents)
		if !ok || trc.URI != "demo://resource/dynamic/text/2" || trc.MIMEType != "text/plain" ||
			!strings.HasPrefix(trc.Text, "Resource 2: This is a plaintext resource created at ") {
			t.Errorf("embedded text resource = %s", mustJSON(t, emb))
		}
		if got := texts(t, res.Content); len(got) != 2 || got[1] != "You can access this resource using the URI: demo://resource/dynamic/text/2" {
			t.Errorf("texts = %q", got)
		}

		res = es.call(t, ctx, "get-resource-reference", `{"resourceType":"Blob","resourceId":3}`)
		emb, ok = res.Content[1].(*mcp.EmbeddedResource)
		if !ok {
			t.Fatalf("block 1 is %T", res.Content[1])
		}
		brc, ok := emb.Resource.(*mcp.BlobResourceContents)
		if !ok || brc.URI != "demo://resource/dynamic/blob/3" {
			t.Fatalf("embedded blob resource = %s", mustJSON(t, emb))
		}
		if data, err := brc.DecodeData(); err != nil || !strings.HasPrefix(string(data), "Resource 3: This is a base64 blob created at ") {
			t.Errorf("blob = %q (%v)", data, err)
		}
	})

	t.Run("get-env", func(t *testing.T) {
		var env map[string]string
		if err := json.Unmarshal([]byte(oneText(t, es.call(t, ctx, "get-env", ""))), &env); err != nil {
			t.Fatal(err)
		}
		if env[envMarker] != "interop-42" {
			t.Errorf("server environment lacks %s=interop-42", envMarker)
		}
	})

	t.Run("gzip-file-as-resource", func(t *testing.T) {
		payload := "hello from the gomcp interop test\n"
		dataURI := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(payload))
		gunzip := func(t *testing.T, blob *mcp.BlobResourceContents) string {
			t.Helper()
			raw, err := blob.DecodeData()
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}

		res := es.call(t, ctx, "gzip-file-as-resource", `{"name":"inline.txt.gz","data":"`+dataURI+`","outputType":"resource"}`)
		emb, ok := res.Content[0].(*mcp.EmbeddedResource)
		if !ok || len(res.Content) != 1 {
			t.Fatalf("want one embedded resource, got %s", mustJSON(t, res.Content))
		}
		blob, ok := emb.Resource.(*mcp.BlobResourceContents)
		if !ok || blob.URI != "demo://resource/session/inline.txt.gz" || blob.MIMEType != "application/gzip" {
			t.Fatalf("embedded resource = %s", mustJSON(t, emb))
		}
		if got := gunzip(t, blob); got != payload {
			t.Errorf("gunzipped = %q", got)
		}

		res = es.call(t, ctx, "gzip-file-as-resource", `{"name":"linked.txt.gz","data":"`+dataURI+`"}`)
		link, ok := res.Content[0].(*mcp.ResourceLink)
		if !ok || link.URI != "demo://resource/session/linked.txt.gz" || link.Name != "linked.txt.gz" {
			t.Fatalf("want a resource link, got %s", mustJSON(t, res.Content))
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("read %s: %v", link.URI, err)
		}
		blob, ok = rr.Contents[0].(*mcp.BlobResourceContents)
		if !ok {
			t.Fatalf("contents are %T", rr.Contents[0])
		}
		if got := gunzip(t, blob); got != payload {
			t.Errorf("gunzipped = %q", got)
		}
		// Registering the session resources changed the resource list.
		waitFor(t, "resources/list_changed", func() bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			return rec.resourcesChanged > 0
		})
		var uris []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if !slices.Contains(uris, "demo://resource/session/linked.txt.gz") {
			t.Errorf("session resource not listed: %q", uris)
		}
	})

	t.Run("progress", func(t *testing.T) {
		// Every notification the server sends before its result must reach
		// the callback, the last one included: the server writes it just
		// before the result, so the client must not let the result overtake
		// it. Several short runs make a reordering show up.
		run := func(args string) ([][2]float64, string) {
			var mu sync.Mutex
			var got [][2]float64
			pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
				mu.Lock()
				got = append(got, [2]float64{p.Progress, p.Total})
				mu.Unlock()
			})
			res, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(got), oneText(t, res)
		}
		got, text := run(`{"duration":0.3,"steps":3}`)
		if text != "Long running operation completed. Duration: 0.3 seconds, Steps: 3." {
			t.Errorf("result = %q", text)
		}
		if want := [][2]float64{{1, 3}, {2, 3}, {3, 3}}; !slices.Equal(got, want) {
			t.Errorf("progress = %v, want %v", got, want)
		}
		const runs = 20
		lost := 0
		for range runs {
			if got, _ := run(`{"duration":0.01,"steps":2}`); !slices.Equal(got, [][2]float64{{1, 2}, {2, 2}}) {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("in %d of %d calls the client lost progress the server sent before its result", lost, runs)
		}
	})

	t.Run("cancellation", func(t *testing.T) {
		// Five steps of 200ms; the call is cancelled when the first progress
		// notification arrives, which sends notifications/cancelled.
		cctx, stop := context.WithCancel(ctx)
		defer stop()
		var once sync.Once
		pctx := mcp.WithProgress(cctx, func(*mcp.ProgressNotificationParams) { once.Do(stop) })
		start := time.Now()
		_, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: json.RawMessage(`{"duration":1,"steps":5}`)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 800*time.Millisecond {
			t.Errorf("the cancelled call took %v", d)
		}
		// The session carries on; the server's late progress for the
		// cancelled token is ignored.
		if err := cs.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if got := oneText(t, es.call(t, ctx, "echo", `{"message":"still here"}`)); got != "Echo: still here" {
			t.Errorf("echo after cancel = %q", got)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		res := es.call(t, ctx, "trigger-sampling-request", `{"prompt":"What is MCP?","maxTokens":42}`)
		text := oneText(t, res)
		const prefix = "LLM sampling result: \n"
		if !strings.HasPrefix(text, prefix) {
			t.Fatalf("result = %q", text)
		}
		want := `{"model":"gomcp-interop-model","role":"assistant","stopReason":"endTurn","content":{"type":"text","text":"MCP is the Model Context Protocol."}}`
		if !jsonEqual(t, text[len(prefix):], want) {
			t.Errorf("sampling result seen by the server = %s, want %s", text[len(prefix):], want)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.samples) != 1 {
			t.Fatalf("%d sampling requests", len(rec.samples))
		}
		p := rec.samples[0]
		if p.MaxTokens != 42 || p.SystemPrompt != "You are a helpful test server." || p.Temperature == nil || *p.Temperature != 0.7 {
			t.Errorf("sampling params = %s", mustJSON(t, p))
		}
		if len(p.Messages) != 1 || p.Messages[0].Role != mcp.RoleUser || len(p.Messages[0].Content) != 1 ||
			mustJSON(t, p.Messages[0].Content[0]) != `{"type":"text","text":"Resource trigger-sampling-request context: What is MCP?"}` {
			t.Errorf("sampling messages = %s", mustJSON(t, p.Messages))
		}
	})

	t.Run("elicitation form", func(t *testing.T) {
		rec.setElicitReply(func(*mcp.ElicitParams) *mcp.ElicitResult {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{
				"name": "Ada Lovelace", "check": true, "email": "ada@example.com", "integer": 7,
			}}
		})
		res := es.call(t, ctx, "trigger-elicitation-request", "")
		got := texts(t, res.Content)
		if len(got) != 3 || got[0] != "✅ User provided the requested information!" {
			t.Fatalf("result = %q", got)
		}
		for _, line := range []string{"- Name: Ada Lovelace", "- Agreed to terms: true", "- Email: ada@example.com", "- Favorite Integer: 7", "- Favorite Number: 3.14"} {
			if !strings.Contains(got[1], line) {
				t.Errorf("user inputs lack %q:\n%s", line, got[1])
			}
		}
		// The client filled in the defaults of the fields left out (SEP-1034).
		var raw struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(got[2], "\nRaw result: ")), &raw); err != nil {
			t.Fatalf("raw result %q: %v", got[2], err)
		}
		wantContent := `{"check":true,"email":"ada@example.com","firstLine":"It was a dark and stormy night.","integer":7,` +
			`"legacyTitledEnum":"pet-1","name":"Ada Lovelace","number":3.14,"titledMultipleSelectEnum":["fish-1"],` +
			`"titledSingleSelectEnum":"hero-1","untitledMultipleSelectEnum":["Guitar"],"untitledSingleSelectEnum":"Monica"}`
		if raw.Action != "accept" || mustJSON(t, raw.Content) != wantContent {
			t.Errorf("content the server received = %s\nwant %s", mustJSON(t, raw.Content), wantContent)
		}

		// The form, as the client decoded it: fields in order, every kind.
		p := rec.lastElicit()
		if p == nil || p.RequestedSchema == nil {
			t.Fatal("no form elicitation received")
		}
		if p.Mode != "" && p.Mode != mcp.ElicitModeForm || p.Message != "Please provide inputs for the following fields:" {
			t.Errorf("mode %q message %q", p.Mode, p.Message)
		}
		var order []string
		for _, prop := range p.RequestedSchema.Properties {
			order = append(order, prop.Name)
		}
		wantOrder := []string{"name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number",
			"untitledSingleSelectEnum", "untitledMultipleSelectEnum", "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum"}
		if !slices.Equal(order, wantOrder) || !slices.Equal(p.RequestedSchema.Required, []string{"name"}) {
			t.Errorf("properties %q required %q", order, p.RequestedSchema.Required)
		}
		for name, want := range map[string]string{
			"email":                      `{"type":"string","title":"String with email format","description":"Your email address (will be verified, and never shared with anyone else)","format":"email"}`,
			"integer":                    `{"type":"integer","title":"Integer","description":"Your favorite integer (do not give us your phone number, pin, or other sensitive info)","minimum":1,"maximum":100,"default":42}`,
			"untitledMultipleSelectEnum": `{"type":"array","title":"Untitled Multiple Select Enum","description":"Choose your favorite instruments","items":{"type":"string","enum":["Guitar","Piano","Violin","Drums","Bass"]},"minItems":1,"maxItems":3,"default":["Guitar"]}`,
			"titledSingleSelectEnum":     `{"type":"string","title":"Titled Single Select Enum","description":"Choose your favorite hero","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Green Lantern"},{"const":"hero-3","title":"Wonder Woman"}],"default":"hero-1"}`,
			"titledMultipleSelectEnum":   `{"type":"array","title":"Titled Multiple Select Enum","description":"Choose your favorite types of fish","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"},{"const":"fish-3","title":"Trout"}]},"minItems":1,"maxItems":3,"default":["fish-1"]}`,
			"legacyTitledEnum":           `{"type":"string","title":"Legacy Titled Single Select Enum","description":"Choose your favorite type of pet","enum":["pet-1","pet-2","pet-3","pet-4","pet-5"],"enumNames":["Cats","Dogs","Birds","Fish","Reptiles"],"default":"pet-1"}`,
		} {
			if got := mustJSON(t, p.RequestedSchema.Property(name)); !jsonEqual(t, got, want) {
				t.Errorf("field %s = %s\nwant %s", name, got, want)
			}
		}

		for _, tc := range []struct {
			action mcp.ElicitAction
			want   string
		}{
			{mcp.ElicitActionDecline, "❌ User declined to provide the requested information."},
			{mcp.ElicitActionCancel, "⚠️ User cancelled the elicitation dialog."},
		} {
			rec.setElicitReply(func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: tc.action} })
			if got := texts(t, es.call(t, ctx, "trigger-elicitation-request", "").Content); len(got) != 2 || got[0] != tc.want {
				t.Errorf("%s: result = %q", tc.action, got)
			}
		}
	})

	t.Run("elicitation url", func(t *testing.T) {
		rec.setElicitReply(func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: mcp.ElicitActionAccept} })
		args := `{"url":"https://example.com/interop","elicitationId":"interop-url-1"}`
		got := texts(t, es.call(t, ctx, "trigger-url-elicitation", args).Content)
		if len(got) != 2 || got[0] != "✅ User completed the URL elicitation flow.\nElicitation ID: interop-url-1\nURL: https://example.com/interop" {
			t.Errorf("result = %q", got)
		}
		p := rec.lastElicit()
		if p == nil || p.Mode != mcp.ElicitModeURL || p.URL != "https://example.com/interop" || p.ElicitationID != "interop-url-1" ||
			p.Message != "Please open the link to complete this action." || p.RequestedSchema != nil {
			t.Errorf("url elicitation = %s", mustJSON(t, p))
		}

		// The error path: -32042 names a prerequisite URL; the retry proceeds.
		args = `{"url":"https://example.com/interop-2","errorPath":true}`
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-url-elicitation", Arguments: json.RawMessage(args)})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeURLElicitationRequired {
			t.Fatalf("err = %v, want a -32042 error", err)
		}
		var data mcp.URLElicitationRequiredData
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Fatalf("error data %s: %v", je.Data, err)
		}
		if len(data.Elicitations) != 1 || data.Elicitations[0].Mode != mcp.ElicitModeURL ||
			data.Elicitations[0].URL != "https://modelcontextprotocol.io" || data.Elicitations[0].ElicitationID == "" {
			t.Errorf("error data = %s", je.Data)
		}
		if got := texts(t, es.call(t, ctx, "trigger-url-elicitation", args).Content); len(got) != 2 || !strings.HasPrefix(got[0], "✅") {
			t.Errorf("retry = %q", got)
		}
	})

	t.Run("roots", func(t *testing.T) {
		// The server asks for the roots once the handshake is done.
		waitFor(t, "the server's first roots/list", rec.hasLog("Roots updated: 1 root(s) received from client"))
		got := oneText(t, es.call(t, ctx, "get-roots-list", ""))
		if want := "Current MCP Roots (1 total):\n\n1. interop root\n   URI: " + es.rootURI + "\n\n"; !strings.HasPrefix(got, want) {
			t.Errorf("get-roots-list = %q, want prefix %q", got, want)
		}
		// Changing the roots notifies the server, which asks again.
		es.client.SetRoots(&mcp.Root{URI: es.rootURI, Name: "interop root"}, &mcp.Root{URI: "file:///srv/second"})
		waitFor(t, "the server's second roots/list", rec.hasLog("Roots updated: 2 root(s) received from client"))
		got = oneText(t, es.call(t, ctx, "get-roots-list", ""))
		if want := "Current MCP Roots (2 total):\n\n1. interop root\n   URI: " + es.rootURI + "\n\n2. Unnamed Root\n   URI: file:///srv/second\n\n"; !strings.HasPrefix(got, want) {
			t.Errorf("get-roots-list = %q, want prefix %q", got, want)
		}
	})

	t.Run("resources", func(t *testing.T) {
		entries, err := os.ReadDir(es.docs)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, e := range entries {
			want["demo://resource/static/document/"+e.Name()] = true
		}
		page, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var iterated []*mcp.Resource
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			iterated = append(iterated, r)
		}
		if mustJSON(t, iterated) != mustJSON(t, page.Resources) {
			t.Errorf("the iterator and ListResources disagree")
		}
		static := 0
		for _, r := range page.Resources {
			if !strings.HasPrefix(r.URI, "demo://resource/static/") {
				continue
			}
			static++
			if !want[r.URI] || r.MIMEType != "text/markdown" || r.Description != "Static document file exposed from /docs: "+r.Name {
				t.Errorf("unexpected resource %s", mustJSON(t, r))
			}
		}
		if static != len(want) {
			t.Errorf("%d static resources listed, %d files in %s", static, len(want), es.docs)
		}

		body, err := os.ReadFile(filepath.Join(es.docs, "features.md"))
		if err != nil {
			t.Fatal(err)
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/static/document/features.md"})
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("read features.md: %v", err)
		}
		if trc, ok := rr.Contents[0].(*mcp.TextResourceContents); !ok || trc.Text != string(body) || trc.MIMEType != "text/markdown" {
			t.Errorf("features.md contents differ from the file")
		}

		var templates []string
		for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, tmpl.Name+" "+tmpl.URITemplate+" "+tmpl.MIMEType)
		}
		if want := []string{
			"Dynamic Text Resource demo://resource/dynamic/text/{resourceId} text/plain",
			"Dynamic Blob Resource demo://resource/dynamic/blob/{resourceId} application/octet-stream",
		}; !slices.Equal(templates, want) {
			t.Errorf("templates = %q", templates)
		}
		rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/text/5"})
		if err != nil {
			t.Fatal(err)
		}
		if trc, ok := rr.Contents[0].(*mcp.TextResourceContents); !ok || !strings.HasPrefix(trc.Text, "Resource 5: This is a plaintext resource created at ") {
			t.Errorf("text/5 = %s", mustJSON(t, rr))
		}
		rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/blob/5"})
		if err != nil {
			t.Fatal(err)
		}
		brc, ok := rr.Contents[0].(*mcp.BlobResourceContents)
		if !ok {
			t.Fatalf("blob/5 = %s", mustJSON(t, rr))
		}
		if data, err := brc.DecodeData(); err != nil || !strings.HasPrefix(string(data), "Resource 5: This is a base64 blob created at ") {
			t.Errorf("blob/5 = %q (%v)", data, err)
		}

		for _, uri := range []string{"demo://no-such-resource", "demo://resource/dynamic/text/abc"} {
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || !strings.Contains(je.Message, uri) {
				t.Errorf("read %s: err = %v, want a JSON-RPC error naming the uri", uri, err)
			}
		}
	})

	t.Run("subscriptions", func(t *testing.T) {
		const uri = "demo://resource/static/document/architecture.md"
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the subscribe acknowledgement log", rec.hasLog("Received Subscribe Resource request for URI: "+uri))
		// The toggle sends notifications/resources/updated for every
		// subscribed uri at once, then every 5 seconds until toggled off.
		if got := oneText(t, es.call(t, ctx, "toggle-subscriber-updates", "")); !strings.HasPrefix(got, "Started simulated resource updated notifications") {
			t.Errorf("toggle on = %q", got)
		}
		waitFor(t, "notifications/resources/updated", func() bool {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			return slices.Contains(rec.updated, uri)
		})
		if got := oneText(t, es.call(t, ctx, "toggle-subscriber-updates", "")); !strings.HasPrefix(got, "Stopped simulated resource updates") {
			t.Errorf("toggle off = %q", got)
		}
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the unsubscribe acknowledgement log", rec.hasLog("Received Unsubscribe Resource request: "+uri))
	})

	t.Run("logging", func(t *testing.T) {
		simulated := func() []*mcp.LoggingMessageNotificationParams {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			var out []*mcp.LoggingMessageNotificationParams
			for _, l := range rec.logs {
				if bytes.Contains(l.Data, []byte("-level message")) || bytes.Contains(l.Data, []byte("level-message")) {
					out = append(out, l)
				}
			}
			return out
		}
		if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
			t.Fatal(err)
		}
		if got := oneText(t, es.call(t, ctx, "toggle-simulated-logging", "")); !strings.HasPrefix(got, "Started simulated, random-leveled logging") {
			t.Errorf("toggle on = %q", got)
		}
		// One message is sent at once, at a random level it names.
		waitFor(t, "a simulated log message", func() bool { return len(simulated()) > 0 })
		for _, l := range simulated() {
			if !strings.Contains(strings.ToLower(string(l.Data)), l.Level.String()) {
				t.Errorf("message %s came at level %v", l.Data, l.Level)
			}
		}
		if got := oneText(t, es.call(t, ctx, "toggle-simulated-logging", "")); !strings.HasPrefix(got, "Stopped simulated logging") {
			t.Errorf("toggle off = %q", got)
		}

		// At the highest threshold only emergencies get through.
		if err := cs.SetLoggingLevel(ctx, mcp.LevelEmergency); err != nil {
			t.Fatal(err)
		}
		before := len(simulated())
		es.call(t, ctx, "toggle-simulated-logging", "")
		es.call(t, ctx, "toggle-simulated-logging", "")
		time.Sleep(200 * time.Millisecond) // lets a message sent at once arrive
		for _, l := range simulated()[before:] {
			if l.Level != mcp.LevelEmergency {
				t.Errorf("level %v message %s got past the emergency threshold", l.Level, l.Data)
			}
		}
		if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		var got []string
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, mustJSON(t, p))
		}
		want := []string{
			`{"name":"simple-prompt","title":"Simple Prompt","description":"A prompt with no arguments"}`,
			`{"name":"args-prompt","title":"Arguments Prompt","description":"A prompt with two arguments, one required and one optional","arguments":[{"name":"city","description":"Name of the city","required":true},{"name":"state"}]}`,
			`{"name":"completable-prompt","title":"Team Management","description":"First argument choice narrows values for second argument.","arguments":[{"name":"department","description":"Choose the department.","required":true},{"name":"name","description":"Choose a team member to lead the selected department.","required":true}]}`,
			`{"name":"resource-prompt","title":"Resource Prompt","description":"A prompt that includes an embedded resource reference","arguments":[{"name":"resourceType","description":"Type of resource to fetch","required":true},{"name":"resourceId","description":"ID of the text resource to fetch","required":true}]}`,
		}
		if !slices.Equal(got, want) {
			t.Errorf("prompts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}

		for _, tc := range []struct {
			name string
			args map[string]string
			want string // the JSON of the messages
		}{
			{"simple-prompt", nil, `[{"role":"user","content":{"type":"text","text":"This is a simple prompt without arguments."}}]`},
			{"args-prompt", map[string]string{"city": "Paris"}, `[{"role":"user","content":{"type":"text","text":"What's weather in Paris?"}}]`},
			{"args-prompt", map[string]string{"city": "Austin", "state": "TX"}, `[{"role":"user","content":{"type":"text","text":"What's weather in Austin, TX?"}}]`},
			{"completable-prompt", map[string]string{"department": "Engineering", "name": "Alice"}, `[{"role":"user","content":{"type":"text","text":"Please promote Alice to the head of the Engineering team."}}]`},
		} {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got := mustJSON(t, res.Messages); got != tc.want {
				t.Errorf("%s %v = %s\nwant %s", tc.name, tc.args, got, tc.want)
			}
		}

		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "resource-prompt", Arguments: map[string]string{"resourceType": "Text", "resourceId": "3"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != 2 {
			t.Fatalf("resource-prompt = %s", mustJSON(t, res.Messages))
		}
		if emb, ok := res.Messages[1].Content.(*mcp.EmbeddedResource); !ok {
			t.Errorf("message 1 is %T", res.Messages[1].Content)
		} else if trc, ok := emb.Resource.(*mcp.TextResourceContents); !ok || trc.URI != "demo://resource/dynamic/text/3" {
			t.Errorf("embedded = %s", mustJSON(t, emb))
		}
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "resource-prompt", Arguments: map[string]string{"resourceType": "Blob", "resourceId": "4"}})
		if err != nil {
			t.Fatal(err)
		}
		if emb, ok := res.Messages[1].Content.(*mcp.EmbeddedResource); !ok {
			t.Errorf("message 1 is %T", res.Messages[1].Content)
		} else if brc, ok := emb.Resource.(*mcp.BlobResourceContents); !ok || brc.URI != "demo://resource/dynamic/blob/4" {
			t.Errorf("embedded = %s", mustJSON(t, emb))
		}

		_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("args-prompt without city: err = %v, want -32602", err)
		}
	})

	t.Run("completion", func(t *testing.T) {
		for _, tc := range []struct {
			ref  mcp.CompleteReference
			arg  mcp.CompleteArgument
			ctx  map[string]string
			want []string
		}{
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "completable-prompt"}, mcp.CompleteArgument{Name: "department", Value: "Eng"}, nil, []string{"Engineering"}},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "completable-prompt"}, mcp.CompleteArgument{Name: "name", Value: ""}, map[string]string{"department": "Sales"}, []string{"David", "Eve", "Frank"}},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "completable-prompt"}, mcp.CompleteArgument{Name: "name", Value: "K"}, map[string]string{"department": "Support"}, []string{"Kim"}},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "resource-prompt"}, mcp.CompleteArgument{Name: "resourceType", Value: "B"}, nil, []string{"Blob"}},
			{mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "demo://resource/dynamic/text/{resourceId}"}, mcp.CompleteArgument{Name: "resourceId", Value: "7"}, nil, []string{"7"}},
			{mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "demo://resource/dynamic/blob/{resourceId}"}, mcp.CompleteArgument{Name: "resourceId", Value: "x"}, nil, []string{}},
		} {
			p := &mcp.CompleteParams{Ref: tc.ref, Argument: tc.arg}
			if tc.ctx != nil {
				p.Context = &mcp.CompleteContext{Arguments: tc.ctx}
			}
			res, err := cs.Complete(ctx, p)
			if err != nil {
				t.Fatalf("complete %s: %v", mustJSON(t, p), err)
			}
			if !slices.Equal(res.Completion.Values, tc.want) {
				t.Errorf("complete %s = %q, want %q", mustJSON(t, p), res.Completion.Values, tc.want)
			}
		}
	})

	t.Run("close", func(t *testing.T) {
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		es.conn.ended(t)
	})
}

// tasksCapable reports whether a server advertised tasks/list, tasks/cancel
// and task-augmented tools/call (2025-11-25).
func tasksCapable(caps *mcp.ServerCapabilities) bool {
	tc, err := tasks.ServerCapabilitiesOf(caps)
	return err == nil && tc != nil && tc.List != nil && tc.Cancel != nil &&
		tc.Requests != nil && tc.Requests.Tools != nil && tc.Requests.Tools.Call != nil
}
