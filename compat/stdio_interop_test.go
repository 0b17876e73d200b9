package compat

//lint:file-ignore SA1019 sampling, logging and their types are deprecated only from 2026-07-28; this file tests 2025-11-25.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gosdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/internal/racetest"
)

// This file runs the official go-sdk client against gomcp's everything-server
// (conformance/everything-server) as a real subprocess over stdio, through
// every feature the server offers; http_interop_test.go runs the same walk
// over Streamable HTTP. Its identifiers all start with "stdio" so that they
// stay out of the way of the rest of the package.

// stdioEverythingTools are the everything-server's tools, in listing order.
var stdioEverythingTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress",
	"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
	"json_schema_2020_12_tool",
}

// stdioContainsInOrder reports whether want is a subsequence of got: the
// fixture server may grow, but the tools tested here stay, in their order.
func stdioContainsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// stdioBuildEverythingServer builds the everything-server into a temporary
// directory and returns the binary's path.
func stdioBuildEverythingServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	args := []string{"build", "-o", bin}
	if racetest.Enabled {
		args = append(args, "-race")
	}
	// Built in the root module, whose go.mod has everything the server
	// imports (authorization, skills), not in this one.
	args = append(args, "./conformance/everything-server")
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	return bin
}

// stdioEvents collects what the server sends the go-sdk client on its own.
type stdioEvents struct {
	mu          sync.Mutex
	logs        []*gosdk.LoggingMessageParams
	progress    []*gosdk.ProgressNotificationParams
	samples     []*gosdk.CreateMessageParams
	elicits     []*gosdk.ElicitParams
	elicitReply func(*gosdk.ElicitParams) *gosdk.ElicitResult
}

func (ev *stdioEvents) reset() {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.logs, ev.progress, ev.samples, ev.elicits = nil, nil, nil, nil
}

func (ev *stdioEvents) setElicitReply(f func(*gosdk.ElicitParams) *gosdk.ElicitResult) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.elicitReply = f
	ev.elicits = nil
}

// stdioWait polls cond until it holds or testTimeout passes.
func stdioWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stdioServerCommand returns the command that runs bin with args. A binary
// built with -race would sleep a second on exit, waiting for late race
// reports; the test waits for it to exit, so it is told not to.
func stdioServerCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	return cmd
}

// stdioDial returns a fresh go-sdk transport to an everything-server: a
// subprocess on stdio, or one serving Streamable HTTP. It may register
// cleanups; they run after the session it carries is closed.
type stdioDial func(t *testing.T) gosdk.Transport

// stdioCommand dials a fresh everything-server subprocess (bin) over stdio.
// The session's Close waits for the server to exit; then its stderr must be
// empty.
func stdioCommand(bin string) stdioDial {
	return func(t *testing.T) gosdk.Transport {
		var stderr bytes.Buffer
		cmd := stdioServerCommand(bin)
		cmd.Stderr = &stderr
		t.Cleanup(func() {
			if s := stderr.String(); s != "" {
				t.Errorf("everything-server wrote to stderr:\n%s", s)
			}
		})
		return &gosdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
}

// stdioConnect connects a go-sdk client to an everything-server over the
// transport dial returns.
func stdioConnect(t *testing.T, ctx context.Context, dial stdioDial, opts *gosdk.ClientSessionOptions) (*gosdk.ClientSession, *stdioEvents) {
	t.Helper()
	ev := &stdioEvents{}
	client := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-stdio-client", Version: "1.0.0"}, &gosdk.ClientOptions{
		//lint:ignore SA1019 sampling is deprecated only from 2026-07-28; this test runs 2025-11-25.
		CreateMessageHandler: func(_ context.Context, req *gosdk.CreateMessageRequest) (*gosdk.CreateMessageResult, error) {
			ev.mu.Lock()
			ev.samples = append(ev.samples, req.Params)
			ev.mu.Unlock()
			return &gosdk.CreateMessageResult{Model: "go-sdk-model", Role: "assistant",
				Content: &gosdk.TextContent{Text: "This is a test response from the go-sdk client"}, StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, req *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			ev.elicits = append(ev.elicits, req.Params)
			if ev.elicitReply == nil {
				return &gosdk.ElicitResult{Action: "cancel"}, nil
			}
			return ev.elicitReply(req.Params), nil
		},
		//lint:ignore SA1019 logging is deprecated only from 2026-07-28; this test runs 2025-11-25.
		LoggingMessageHandler: func(_ context.Context, req *gosdk.LoggingMessageRequest) {
			ev.mu.Lock()
			ev.logs = append(ev.logs, req.Params)
			ev.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *gosdk.ProgressNotificationClientRequest) {
			ev.mu.Lock()
			ev.progress = append(ev.progress, req.Params)
			ev.mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, dial(t), opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return cs, ev
}

// stdioCall calls a tool and fails the test on a protocol error.
func stdioCall(t *testing.T, ctx context.Context, cs *gosdk.ClientSession, name string, args map[string]any) *gosdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// stdioText returns the text of a result that must be one text block.
func stdioText(t *testing.T, res *gosdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d: %s", len(res.Content), stdioJSON(t, res))
	}
	tc, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

func stdioJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return string(b)
}

// stdioSameJSON reports whether got, encoded, is the JSON value want.
func stdioSameJSON(t *testing.T, got any, want string) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("decoding %q: %v", want, err)
	}
	var g any
	if err := json.Unmarshal([]byte(stdioJSON(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	return stdioJSON(t, g) == stdioJSON(t, w)
}

// stdioErrCode returns the JSON-RPC error code in err, or 0.
func stdioErrCode(err error) int64 {
	var we *gosdkjsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

var stdioPNGMagic = []byte("\x89PNG\r\n\x1a\n")

func stdioAssertPNG(t *testing.T, c gosdk.Content) {
	t.Helper()
	img, ok := c.(*gosdk.ImageContent)
	if !ok {
		t.Fatalf("want image content, got %T", c)
	}
	if img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, stdioPNGMagic) {
		t.Errorf("image: mimeType %q, data %q...", img.MIMEType, img.Data[:min(8, len(img.Data))])
	}
}

// TestGoSDKClientStdioEverythingServer drives gomcp's everything-server, run
// as a subprocess, with the official go-sdk client over stdio.
func TestGoSDKClientStdioEverythingServer(t *testing.T) {
	stdioEverything(t, stdioCommand(stdioBuildEverythingServer(t)))
}

// stdioEverything connects the go-sdk client to an everything-server over
// what dial returns: once with no version asked for, once at 2025-11-25
// through every feature.
func stdioEverything(t *testing.T, dial stdioDial) {
	// With no version asked for, the go-sdk client first probes with
	// server/discover (2026-07-28) and falls back to initialize; the
	// everything-server answers the probe on every transport.
	t.Run("default negotiation", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		cs, _ := stdioConnect(t, ctx, dial, nil)
		v := cs.InitializeResult().ProtocolVersion
		if v != "2026-07-28" {
			t.Fatalf("negotiated %q, want 2026-07-28", v)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list at %s: %v", v, err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if !stdioContainsInOrder(names, stdioEverythingTools) {
			t.Errorf("tools/list at %s: %q", v, names)
		}
		if got := stdioText(t, stdioCall(t, ctx, cs, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text at %s = %q", v, got)
		}
	})

	t.Run("2025-11-25", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
		defer cancel()
		cs, ev := stdioConnect(t, ctx, dial, &gosdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		stdioScenario(t, ctx, cs, ev)
	})
}

// stdioScenario runs every feature of the everything-server, in order.
func stdioScenario(t *testing.T, ctx context.Context, cs *gosdk.ClientSession, ev *stdioEvents) {
	t.Run("initialize", func(t *testing.T) {
		init := cs.InitializeResult()
		if init.ProtocolVersion != "2025-11-25" {
			t.Errorf("protocol version %q", init.ProtocolVersion)
		}
		if init.ServerInfo == nil || init.ServerInfo.Name != "gomcp-everything-server" || init.ServerInfo.Version != "1.0.0" {
			t.Errorf("serverInfo %s", stdioJSON(t, init.ServerInfo))
		}
		if init.Instructions != "The gomcp conformance fixture server." {
			t.Errorf("instructions %q", init.Instructions)
		}
		// Extensions are negotiated in initialize at every revision.
		want := `{"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}},"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`
		if !stdioSameJSON(t, init.Capabilities, want) {
			t.Errorf("capabilities %s, want %s", stdioJSON(t, init.Capabilities), want)
		}
	})

	t.Run("ping", func(t *testing.T) {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		var names []string
		var schema any
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			if tool.Name == "json_schema_2020_12_tool" {
				schema = tool.InputSchema
			}
			if tool.Description == "" {
				t.Errorf("%s has no description", tool.Name)
			}
		}
		if !stdioContainsInOrder(names, stdioEverythingTools) {
			t.Errorf("tools %q\ndo not hold, in this order, %q", names, stdioEverythingTools)
		}
		if !stdioSameJSON(t, schema, everything.JSONSchema202012) {
			t.Errorf("json_schema_2020_12_tool inputSchema = %s\nwant %s", stdioJSON(t, schema), everything.JSONSchema202012)
		}
		_, err := cs.ListTools(ctx, &gosdk.ListToolsParams{Cursor: "bogus"})
		if code := stdioErrCode(err); code != gosdkjsonrpc.CodeInvalidParams {
			t.Errorf("invalid cursor: err %v, want -32602", err)
		}
	})

	t.Run("content tools", func(t *testing.T) {
		if got := stdioText(t, stdioCall(t, ctx, cs, "test_simple_text", nil)); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text = %q", got)
		}

		res := stdioCall(t, ctx, cs, "test_image_content", map[string]any{})
		if len(res.Content) != 1 {
			t.Fatalf("test_image_content: %s", stdioJSON(t, res))
		}
		stdioAssertPNG(t, res.Content[0])

		res = stdioCall(t, ctx, cs, "test_audio_content", nil)
		audio, ok := res.Content[0].(*gosdk.AudioContent)
		if !ok || len(res.Content) != 1 || audio.MIMEType != "audio/wav" ||
			!bytes.HasPrefix(audio.Data, []byte("RIFF")) || !bytes.Contains(audio.Data, []byte("WAVE")) {
			t.Errorf("test_audio_content: %s", stdioJSON(t, res))
		}

		res = stdioCall(t, ctx, cs, "test_embedded_resource", nil)
		want := `[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]`
		if !stdioSameJSON(t, res.Content, want) {
			t.Errorf("test_embedded_resource = %s", stdioJSON(t, res.Content))
		}

		res = stdioCall(t, ctx, cs, "test_multiple_content_types", nil)
		if len(res.Content) != 3 {
			t.Fatalf("test_multiple_content_types: %s", stdioJSON(t, res))
		}
		if tc, ok := res.Content[0].(*gosdk.TextContent); !ok || tc.Text != "Multiple content types test:" {
			t.Errorf("block 0 = %s", stdioJSON(t, res.Content[0]))
		}
		stdioAssertPNG(t, res.Content[1])
		er, ok := res.Content[2].(*gosdk.EmbeddedResource)
		if !ok || er.Resource.URI != "test://mixed-content-resource" || er.Resource.MIMEType != "application/json" ||
			!stdioSameJSON(t, json.RawMessage(er.Resource.Text), `{"test":"data","value":123}`) {
			t.Errorf("block 2 = %s", stdioJSON(t, res.Content[2]))
		}

		res = stdioCall(t, ctx, cs, "test_error_handling", nil)
		if !res.IsError || stdioText(t, res) != "This tool intentionally returns an error for testing" {
			t.Errorf("test_error_handling = %s", stdioJSON(t, res))
		}

		_, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "no_such_tool"})
		if code := stdioErrCode(err); code != gosdkjsonrpc.CodeInvalidParams {
			t.Errorf("unknown tool: err %v, want -32602", err)
		}
	})

	t.Run("json_schema_2020_12_tool", func(t *testing.T) {
		args := map[string]any{"name": "Ann", "address": map[string]any{"city": "Springfield"}, "contactMethod": "phone", "phone": "555-0100"}
		got := stdioText(t, stdioCall(t, ctx, cs, "json_schema_2020_12_tool", args))
		if !strings.HasPrefix(got, "Received: ") || !stdioSameJSON(t, json.RawMessage(strings.TrimPrefix(got, "Received: ")), stdioJSON(t, args)) {
			t.Errorf("result = %q", got)
		}
		// contactMethod phone requires phone (if/then).
		res := stdioCall(t, ctx, cs, "json_schema_2020_12_tool", map[string]any{"contactMethod": "phone", "email": "a@b.c"})
		if !res.IsError {
			t.Errorf("schema violation accepted: %s", stdioJSON(t, res))
		}
	})

	t.Run("logging", func(t *testing.T) {
		logged := func() [][3]string {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			var out [][3]string
			for _, l := range ev.logs {
				s, _ := l.Data.(string)
				out = append(out, [3]string{string(l.Level), l.Logger, s})
			}
			return out
		}
		if err := cs.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		ev.reset()
		if got := stdioText(t, stdioCall(t, ctx, cs, "test_tool_with_logging", nil)); got != "Logging test completed" {
			t.Errorf("result = %q", got)
		}
		want := [][3]string{
			{"info", "everything", "Tool execution started"},
			{"info", "everything", "Tool processing data"},
			{"info", "everything", "Tool execution completed"},
		}
		stdioWait(t, "three log messages", func() bool { return len(logged()) >= len(want) })
		if got := logged(); !slices.Equal(got, want) {
			t.Errorf("logs = %q", got)
		}

		// Above info, the tool's messages are filtered out.
		if err := cs.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "error"}); err != nil {
			t.Fatal(err)
		}
		ev.reset()
		stdioCall(t, ctx, cs, "test_tool_with_logging", nil)
		if err := cs.Ping(ctx, nil); err != nil { // the go-sdk handles notifications in order
			t.Fatal(err)
		}
		if got := logged(); len(got) != 0 {
			t.Errorf("logs at level error = %q", got)
		}
		if err := cs.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
	})

	progressOf := func(token any) [][3]any {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		var out [][3]any
		for _, p := range ev.progress {
			if p.ProgressToken == token {
				out = append(out, [3]any{p.Progress, p.Total, p.Message})
			}
		}
		return out
	}

	t.Run("progress", func(t *testing.T) {
		ev.reset()
		p := &gosdk.CallToolParams{Name: "test_tool_with_progress"}
		p.SetProgressToken("progress-1")
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := stdioText(t, res); got != "Progress test completed" {
			t.Errorf("result = %q", got)
		}
		want := [][3]any{{0.0, 100.0, "progress 0%"}, {50.0, 100.0, "progress 50%"}, {100.0, 100.0, "progress 100%"}}
		stdioWait(t, "three progress notifications", func() bool { return len(progressOf("progress-1")) >= len(want) })
		if got := progressOf("progress-1"); !slices.Equal(got, want) {
			t.Errorf("progress = %v, want %v", got, want)
		}
	})

	t.Run("cancellation", func(t *testing.T) {
		// The tool pauses 50ms between progress notifications; the call is
		// cancelled when the first arrives, and the go-sdk client then sends
		// notifications/cancelled. The server must stop: no more progress.
		ev.reset()
		cctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() {
			for len(progressOf("cancel-1")) == 0 && cctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			stop()
		}()
		p := &gosdk.CallToolParams{Name: "test_tool_with_progress"}
		p.SetProgressToken("cancel-1")
		_, err := cs.CallTool(cctx, p)
		if err == nil {
			t.Fatal("the cancelled call succeeded")
		}
		time.Sleep(300 * time.Millisecond)
		if got := progressOf("cancel-1"); len(got) != 1 {
			t.Errorf("progress for the cancelled call = %v, want only the first", got)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		ev.reset()
		got := stdioText(t, stdioCall(t, ctx, cs, "test_sampling", map[string]any{"prompt": "Test prompt for sampling"}))
		if got != "LLM response: This is a test response from the go-sdk client" {
			t.Errorf("result = %q", got)
		}
		ev.mu.Lock()
		defer ev.mu.Unlock()
		want := `{"messages":[{"role":"user","content":{"type":"text","text":"Test prompt for sampling"}}],"maxTokens":100}`
		if len(ev.samples) != 1 || !stdioSameJSON(t, ev.samples[0], want) {
			t.Errorf("sampling requests = %s, want [%s]", stdioJSON(t, ev.samples), want)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		lastSchema := func() string {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			if len(ev.elicits) != 1 {
				t.Fatalf("%d elicitation requests", len(ev.elicits))
			}
			return stdioJSON(t, ev.elicits[0].RequestedSchema)
		}

		ev.setElicitReply(func(*gosdk.ElicitParams) *gosdk.ElicitResult {
			return &gosdk.ElicitResult{Action: "accept", Content: map[string]any{"username": "testuser", "email": "test@example.com"}}
		})
		got := stdioText(t, stdioCall(t, ctx, cs, "test_elicitation", map[string]any{"message": "Please provide your information"}))
		if got != `User response: <action: accept, content: {"email":"test@example.com","username":"testuser"}>` {
			t.Errorf("test_elicitation = %q", got)
		}
		want := `{"type":"object","properties":{"username":{"type":"string","description":"User's response"},` +
			`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`
		if s := lastSchema(); !stdioSameJSON(t, json.RawMessage(s), want) {
			t.Errorf("requestedSchema = %s", s)
		}

		ev.setElicitReply(func(*gosdk.ElicitParams) *gosdk.ElicitResult { return &gosdk.ElicitResult{Action: "decline"} })
		if got := stdioText(t, stdioCall(t, ctx, cs, "test_elicitation", map[string]any{"message": "again"})); got != "User response: <action: decline, content: null>" {
			t.Errorf("declined = %q", got)
		}

		// SEP-1034: the client fills the schema's defaults into an empty form.
		ev.setElicitReply(func(*gosdk.ElicitParams) *gosdk.ElicitResult {
			return &gosdk.ElicitResult{Action: "accept", Content: map[string]any{}}
		})
		got = stdioText(t, stdioCall(t, ctx, cs, "test_elicitation_sep1034_defaults", nil))
		if got != `Elicitation completed: action=accept, content={"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}` {
			t.Errorf("sep1034 = %q", got)
		}
		want = `{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},` +
			`"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},` +
			`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
			`"verified":{"type":"boolean","description":"Verified","default":true}}}`
		if s := lastSchema(); !stdioSameJSON(t, json.RawMessage(s), want) {
			t.Errorf("sep1034 requestedSchema = %s", s)
		}

		// SEP-1330: every enum form.
		ev.setElicitReply(func(*gosdk.ElicitParams) *gosdk.ElicitResult {
			return &gosdk.ElicitResult{Action: "accept", Content: map[string]any{
				"untitledSingle": "option2", "titledSingle": "value3", "legacyEnum": "opt1",
				"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value2", "value3"},
			}}
		})
		got = stdioText(t, stdioCall(t, ctx, cs, "test_elicitation_sep1330_enums", nil))
		if got != `Elicitation completed: action=accept, content={"legacyEnum":"opt1","titledMulti":["value2","value3"],"titledSingle":"value3","untitledMulti":["option1","option2"],"untitledSingle":"option2"}` {
			t.Errorf("sep1330 = %q", got)
		}
		want = `{"type":"object","properties":{` +
			`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
			`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
			`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
			`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
			`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`
		if s := lastSchema(); !stdioSameJSON(t, json.RawMessage(s), want) {
			t.Errorf("sep1330 requestedSchema = %s", s)
		}
	})

	t.Run("resources", func(t *testing.T) {
		var listed []*gosdk.Resource
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, r)
		}
		want := `[{"uri":"test://static-text","name":"static-text","description":"A static text resource","mimeType":"text/plain"},` +
			`{"uri":"test://static-binary","name":"static-binary","description":"A static binary resource (a PNG image)","mimeType":"image/png"},` +
			`{"uri":"test://watched-resource","name":"watched-resource","description":"A resource clients can subscribe to","mimeType":"text/plain"},` +
			`{"uri":"skill://pdf-processing/SKILL.md","name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","mimeType":"text/markdown","size":259}]`
		if !stdioSameJSON(t, listed, want) {
			t.Errorf("resources = %s", stdioJSON(t, listed))
		}
		var templates []*gosdk.ResourceTemplate
		for rt, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, rt)
		}
		want = `[{"uriTemplate":"test://template/{id}/data","name":"template-data","description":"A resource template with an id","mimeType":"application/json"},` +
			`{"uriTemplate":"skill://{+path}","name":"skill-file","description":"A file of a skill; skills/list names them all."}]`
		if !stdioSameJSON(t, templates, want) {
			t.Errorf("templates = %s", stdioJSON(t, templates))
		}

		read := func(uri string) *gosdk.ResourceContents {
			t.Helper()
			res, err := cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("read %s: %v", uri, err)
			}
			if len(res.Contents) != 1 {
				t.Fatalf("read %s: %s", uri, stdioJSON(t, res))
			}
			return res.Contents[0]
		}
		if c := read("test://static-text"); c.URI != "test://static-text" || c.MIMEType != "text/plain" ||
			c.Text != "This is the content of the static text resource." {
			t.Errorf("static-text = %s", stdioJSON(t, c))
		}
		if c := read("test://static-binary"); c.URI != "test://static-binary" || c.MIMEType != "image/png" || !bytes.HasPrefix(c.Blob, stdioPNGMagic) {
			t.Errorf("static-binary = %s", stdioJSON(t, c))
		}
		if c := read("test://template/123/data"); c.MIMEType != "application/json" ||
			!stdioSameJSON(t, json.RawMessage(c.Text), `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`) {
			t.Errorf("template = %s", stdioJSON(t, c))
		}
		_, err := cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: "test://no-such-resource"})
		// -32002 up to 2025-11-25 (the go-sdk's own constant follows 2026-07-28).
		if code := stdioErrCode(err); code != -32002 {
			t.Errorf("unknown resource: err %v (code %d), want -32002", err, code)
		}

		if err := cs.Subscribe(ctx, &gosdk.SubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Errorf("subscribe: %v", err)
		}
		if err := cs.Unsubscribe(ctx, &gosdk.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Errorf("unsubscribe: %v", err)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		prompts := map[string]*gosdk.Prompt{}
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			prompts[p.Name] = p
		}
		for name, want := range map[string]string{
			"test_simple_prompt": `{"name":"test_simple_prompt","description":"A simple prompt without arguments"}`,
			"test_prompt_with_arguments": `{"name":"test_prompt_with_arguments","description":"A prompt with two required arguments","arguments":[` +
				`{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]}`,
			"test_prompt_with_embedded_resource": `{"name":"test_prompt_with_embedded_resource","description":"A prompt that embeds a resource","arguments":[` +
				`{"name":"resourceUri","description":"URI of the resource to embed","required":true}]}`,
			"test_prompt_with_image": `{"name":"test_prompt_with_image","description":"A prompt with an image"}`,
		} {
			if p := prompts[name]; p == nil || !stdioSameJSON(t, p, want) {
				t.Errorf("prompt %s = %s, want %s", name, stdioJSON(t, p), want)
			}
		}

		for _, tc := range []struct {
			name string
			args map[string]string
			want string
		}{
			{"test_simple_prompt", nil, `[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]`},
			{"test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"},
				`[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='hello', arg2='world'"}}]`},
			{"test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"},
				`[{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},` +
					`{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]`},
		} {
			res, err := cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: tc.name, Arguments: tc.args})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !stdioSameJSON(t, res.Messages, tc.want) {
				t.Errorf("%s = %s\nwant %s", tc.name, stdioJSON(t, res.Messages), tc.want)
			}
		}

		res, err := cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: "test_prompt_with_image"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != 2 || res.Messages[0].Role != "user" {
			t.Fatalf("test_prompt_with_image = %s", stdioJSON(t, res))
		}
		stdioAssertPNG(t, res.Messages[0].Content)
		if tc, ok := res.Messages[1].Content.(*gosdk.TextContent); !ok || tc.Text != "Please analyze the image above." {
			t.Errorf("message 1 = %s", stdioJSON(t, res.Messages[1]))
		}

		_, err = cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: "test_prompt_with_arguments"})
		if code := stdioErrCode(err); code != gosdkjsonrpc.CodeInvalidParams {
			t.Errorf("missing arguments: err %v, want -32602", err)
		}
	})

	t.Run("completion", func(t *testing.T) {
		for _, tc := range []struct {
			ref   gosdk.CompleteReference
			arg   gosdk.CompleteParamsArgument
			want  []string
			total int
		}{
			{gosdk.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, gosdk.CompleteParamsArgument{Name: "arg1", Value: "par"}, []string{"par-completed"}, 1},
			{gosdk.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"}, gosdk.CompleteParamsArgument{Name: "id", Value: ""}, []string{"1", "2", "3"}, 3},
			{gosdk.CompleteReference{Type: "ref/prompt", Name: "test_simple_prompt"}, gosdk.CompleteParamsArgument{Name: "none", Value: "x"}, []string{}, 0},
		} {
			res, err := cs.Complete(ctx, &gosdk.CompleteParams{Ref: &tc.ref, Argument: tc.arg})
			if err != nil {
				t.Fatalf("complete %s: %v", stdioJSON(t, tc.ref), err)
			}
			if !slices.Equal(res.Completion.Values, tc.want) || res.Completion.Total != tc.total || res.Completion.HasMore {
				t.Errorf("complete %s %s = %s", stdioJSON(t, tc.ref), stdioJSON(t, tc.arg), stdioJSON(t, res.Completion))
			}
		}
	})
}
