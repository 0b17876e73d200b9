//go:build interop

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestTypeScriptV2Server drives ts/server_v2.mjs, a server built with the
// TypeScript SDK 2 (@modelcontextprotocol/server 2.0.0 and
// @modelcontextprotocol/node 2.0.0), with gomcp's client, over stdio and
// Streamable HTTP, at the revision the two negotiate by default (2026-07-28,
// after server/discover) and pinned to 2025-11-25. Each cell runs in
// parallel with its own server process.
func TestTypeScriptV2Server(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR")
	for _, tc := range []struct{ version, want string }{
		{"", "2026-07-28"},
		{"2025-11-25", "2025-11-25"},
	} {
		t.Run("stdio/"+tc.want, func(t *testing.T) {
			t.Parallel()
			stderr := &syncBuffer{}
			cmd := exec.Command(env["NODE22"], "ts/server_v2.mjs", "stdio")
			stream := &transport.CommandTransport{Cmd: cmd, Stderr: stderr}
			w := newV2Walk(t, stream, tc.version, stderr.String)
			w.run(t, tc.want)
			if err := stream.Wait(); err != nil {
				t.Errorf("the server exited with %v once stdin closed", err)
			}
			w.noErrors(t)
		})
		t.Run("streamable-http/"+tc.want, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(env["NODE22"], "ts/server_v2.mjs", "http")
			sp, failure := startServerProcess(t, cmd, syscall.SIGTERM, func(stdout, _ string) (string, bool) {
				line, _, complete := strings.Cut(stdout, "\n")
				url, ok := strings.CutPrefix(line, "listening on ")
				return url, complete && ok
			})
			if sp == nil {
				t.Fatal(failure)
			}
			w := newV2Walk(t, mcphttp.NewClientStream(sp.url, nil), tc.version, sp.stderr.String)
			w.run(t, tc.want)
			if err := sp.shutdown(); err != nil {
				t.Errorf("server_v2.mjs after SIGTERM: %v", err)
			}
			w.noErrors(t)
		})
	}
}

// v2Walk is gomcp's client connected to the TypeScript SDK 2 fixture.
type v2Walk struct {
	cs     *mcp.ClientSession
	client *mcp.Client
	stream jsonrpc.Stream
	events func() string // the server's stderr: "event: ..." lines

	mu   sync.Mutex
	logs []*mcp.LoggingMessageNotificationParams
}

func newV2Walk(t *testing.T, stream jsonrpc.Stream, version string, events func() string) *v2Walk {
	t.Helper()
	w := &v2Walk{stream: stream, events: events}
	w.client = mcp.NewClient(&mcp.Implementation{Name: "gomcp-interop-client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			text, _ := req.Params.Messages[0].Content[0].(*mcp.TextContent)
			if len(req.Params.Messages) != 1 || text == nil || req.Params.MaxTokens != 50 {
				return nil, fmt.Errorf("unexpected sampling request %s", mustJSON(t, req.Params))
			}
			return &mcp.CreateMessageResult{Model: "test-model", Role: mcp.RoleAssistant,
				Content: []mcp.Content{&mcp.TextContent{Text: "echo " + text.Text}}, StopReason: mcp.StopReasonEndTurn}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Message != "What is your name?" || req.Params.RequestedSchema.Property("name") == nil {
				return nil, fmt.Errorf("unexpected elicitation %s", mustJSON(t, req.Params))
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///workspace", Name: "workspace"}},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			w.mu.Lock()
			w.logs = append(w.logs, p)
			w.mu.Unlock()
		},
		RequestTimeout: 30 * time.Second,
		// Node can take more than the default 3 seconds to start the
		// server and answer the server/discover probe on a loaded
		// machine, and a probe that times out falls back to initialize.
		ProbeTimeout: 30 * time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := w.client.Connect(ctx, stream)
	if err != nil {
		t.Fatalf("connect: %v\nserver stderr:\n%s", err, events())
	}
	w.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", events())
		}
	})
	return w
}

// takeLogs returns the log messages received so far and forgets them.
func (w *v2Walk) takeLogs() []*mcp.LoggingMessageNotificationParams {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.logs
	w.logs = nil
	return l
}

// noErrors checks that the server reported no error of its own.
func (w *v2Walk) noErrors(t *testing.T) {
	t.Helper()
	if s := w.events(); strings.Contains(s, "event: error") {
		t.Errorf("the server reported errors:\n%s", s)
	}
}

func (w *v2Walk) call(t *testing.T, ctx context.Context, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := w.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// run walks every feature of the fixture; its subtests share the session.
func (w *v2Walk) run(t *testing.T, want string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := w.cs
	modern := want == "2026-07-28"

	t.Run("initialize", func(t *testing.T) {
		if got := cs.ProtocolVersion(); got != want {
			t.Fatalf("negotiated %q, want %q", got, want)
		}
		init := cs.InitializeResult()
		if init.ServerInfo == nil || init.ServerInfo.Name != "ts-v2-fixture" || init.ServerInfo.Version != "2.0.0" {
			t.Errorf("serverInfo %s", mustJSON(t, init.ServerInfo))
		}
		if init.Instructions != "The TypeScript SDK 2 interop fixture." {
			t.Errorf("instructions %q", init.Instructions)
		}
		caps := cs.ServerCapabilities()
		if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging == nil || caps.Completions == nil {
			t.Errorf("capabilities %s", mustJSON(t, caps))
		}
		if !modern {
			if err := cs.Ping(ctx); err != nil {
				t.Errorf("ping: %v", err)
			}
		}
	})

	t.Run("tools", func(t *testing.T) {
		var names []string
		tools := map[string]*mcp.Tool{}
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			tools[tool.Name] = tool
		}
		if want := []string{"add", "echo", "fail", "progress", "log", "sample", "elicit", "roots", "block", "image"}; !slices.Equal(names, want) {
			t.Fatalf("tools = %q, want %q", names, want)
		}
		if add := tools["add"]; add.OutputSchema == nil || !bytes.Contains(add.InputSchema.(json.RawMessage), []byte(`"integer"`)) {
			t.Errorf("add schemas: %s / %s", add.InputSchema, add.OutputSchema)
		}
		// Our client validates the structured content against the
		// output schema the SDK declared.
		res := w.call(t, ctx, "add", `{"a":2,"b":40}`)
		if res.IsError || !jsonEqual(t, string(res.StructuredContent), `{"sum":42}`) {
			t.Errorf("add = %s", mustJSON(t, res))
		}
		if got := oneText(t, w.call(t, ctx, "echo", `{"text":"héllo <&> \"q\"\n"}`)); got != "héllo <&> \"q\"\n" {
			t.Errorf("echo = %q", got)
		}
		if res := w.call(t, ctx, "fail", `{}`); !res.IsError || !strings.Contains(mustJSON(t, res.Content), "boom") {
			t.Errorf("fail = %s", mustJSON(t, res))
		}
		// Arguments that fail the input schema: an isError result (the
		// SDK reports input validation in the result, as the spec asks).
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":"two","b":40}`)}); err == nil && !res.IsError {
			t.Errorf("add with a string: %s", mustJSON(t, res))
		}
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool", Arguments: json.RawMessage(`{}`)})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown tool: err = %v, want -32602", err)
		}
		res = w.call(t, ctx, "image", `{}`)
		if len(res.Content) != 2 {
			t.Fatalf("image = %s", mustJSON(t, res))
		}
		img, _ := res.Content[0].(*mcp.ImageContent)
		if data, err := img.DecodeData(); err != nil || !bytes.Equal(data, []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 3}) {
			t.Errorf("image data %v, %v", data, err)
		}
		if er, _ := res.Content[1].(*mcp.EmbeddedResource); er == nil || mustJSON(t, er.Resource) != `{"uri":"file:///hello.txt","mimeType":"text/plain","text":"hello world"}` {
			t.Errorf("embedded resource %s", mustJSON(t, res.Content[1]))
		}
	})

	t.Run("progress", func(t *testing.T) {
		if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
			t.Fatal(err)
		}
		w.takeLogs()
		var mu sync.Mutex
		var got []string
		pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
			mu.Lock()
			got = append(got, fmt.Sprintf("%g/%g %s", p.Progress, p.Total, p.Message))
			mu.Unlock()
		})
		if text := oneText(t, w.call(t, pctx, "progress", `{}`)); text != "done" {
			t.Errorf("progress = %q", text)
		}
		// Every notification the server sent before the result is
		// delivered before the result: no waiting.
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"1/3 one", "2/3 two", "3/3 three"}; !slices.Equal(got, want) {
			t.Errorf("progress = %q, want %q", got, want)
		}
		if l := w.takeLogs(); len(l) != 1 || l[0].Level != mcp.LevelInfo || l[0].Logger != "fixture" || string(l[0].Data) != `"progress done"` {
			t.Errorf("logs = %s", mustJSON(t, l))
		}
	})

	t.Run("logging", func(t *testing.T) {
		if err := cs.SetLoggingLevel(ctx, mcp.LevelWarning); err != nil {
			t.Fatal(err)
		}
		if text := oneText(t, w.call(t, ctx, "log", `{}`)); text != "logged" {
			t.Errorf("log = %q", text)
		}
		var got []string
		for _, l := range w.takeLogs() {
			got = append(got, l.Level.String()+" "+string(l.Data))
		}
		if want := []string{`warning {"n":2,"level":"warning"}`, `error {"n":3,"level":"error"}`}; !slices.Equal(got, want) {
			t.Errorf("logs = %q, want %q", got, want)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		if got := oneText(t, w.call(t, ctx, "sample", `{"text":"hi"}`)); got != "test-model: echo hi" {
			t.Errorf("sample = %q", got)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		if got := oneText(t, w.call(t, ctx, "elicit", `{}`)); got != "accept Ada" {
			t.Errorf("elicit = %q", got)
		}
	})

	t.Run("roots", func(t *testing.T) {
		if got := oneText(t, w.call(t, ctx, "roots", `{}`)); got != "file:///workspace" {
			t.Errorf("roots = %q", got)
		}
		w.client.SetRoots(&mcp.Root{URI: "file:///workspace", Name: "workspace"}, &mcp.Root{URI: "file:///other"})
		if got := oneText(t, w.call(t, ctx, "roots", `{}`)); got != "file:///workspace,file:///other" {
			t.Errorf("roots after SetRoots = %q", got)
		}
	})

	t.Run("cancellation", func(t *testing.T) {
		before := strings.Count(w.events(), "event: block cancelled")
		callCtx, stop := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
			errc <- err
		}()
		waitFor(t, "the block tool to start", func() bool { return strings.Contains(w.events(), "event: block started") })
		stop()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool = %v, want context.Canceled", err)
		}
		waitFor(t, "the server to see the cancellation", func() bool {
			return strings.Count(w.events(), "event: block cancelled") > before
		})
		if got := oneText(t, w.call(t, ctx, "echo", `{"text":"after"}`)); got != "after" {
			t.Errorf("echo after the cancellation = %q", got)
		}
	})

	t.Run("resources", func(t *testing.T) {
		var uris []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI+" "+r.MIMEType)
		}
		if want := []string{"file:///hello.txt text/plain", "file:///logo.png image/png"}; !slices.Equal(uris, want) {
			t.Errorf("resources = %q", uris)
		}
		lt, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != "file:///users/{id}" {
			t.Errorf("templates = %s, %v", mustJSON(t, lt), err)
		}
		for uri, want := range map[string]string{
			"file:///hello.txt": `[{"uri":"file:///hello.txt","mimeType":"text/plain","text":"hello world"}]`,
			"file:///logo.png":  `[{"uri":"file:///logo.png","mimeType":"image/png","blob":"iVBORwABAgM="}]`,
			"file:///users/42":  `[{"uri":"file:///users/42","mimeType":"text/plain","text":"user 42"}]`,
		} {
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || mustJSON(t, rr.Contents) != want {
				t.Errorf("read %s = %s, %v\nwant %s", uri, mustJSON(t, rr), err, want)
			}
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///missing"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams && je.Code != mcp.CodeResourceNotFound {
			t.Errorf("missing resource: err = %v, want -32602 or -32002", err)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		lp, err := cs.ListPrompts(ctx, nil)
		if err != nil || len(lp.Prompts) != 1 || mustJSON(t, lp.Prompts[0].Arguments) != `[{"name":"name","required":true}]` {
			t.Fatalf("prompts = %s, %v", mustJSON(t, lp), err)
		}
		gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil || gp.Description != "a greeting" || mustJSON(t, gp.Messages) != `[{"role":"user","content":{"type":"text","text":"Hello, Ada!"}}]` {
			t.Errorf("greet = %s, %v", mustJSON(t, gp), err)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no-such-prompt"}); err == nil {
			t.Error("unknown prompt: want an error")
		}
	})

	t.Run("completion", func(t *testing.T) {
		for _, tc := range []struct {
			ref  mcp.CompleteReference
			arg  mcp.CompleteArgument
			want []string
		}{
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "greet"}, mcp.CompleteArgument{Name: "name", Value: "al"}, []string{"alice", "albert"}},
			{mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "file:///users/{id}"}, mcp.CompleteArgument{Name: "id", Value: "4"}, []string{"42"}},
		} {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: tc.arg})
			if err != nil || !slices.Equal(res.Completion.Values, tc.want) {
				t.Errorf("complete %s %s = %s, %v", tc.ref.Name+tc.ref.URI, tc.arg.Value, mustJSON(t, res), err)
			}
		}
	})

	t.Run("close", func(t *testing.T) {
		if err := cs.Close(); err != nil {
			t.Error(err)
		}
	})
}
