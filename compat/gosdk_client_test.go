package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	gosdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	gomcp "github.com/gomcp/sdk/mcp"
)

// goSDKClientEvents collects what a go-sdk client receives from the server.
type goSDKClientEvents struct {
	logs         chan *gosdk.LoggingMessageParams
	progress     chan *gosdk.ProgressNotificationParams
	updated      chan string
	toolsChanged chan struct{}
}

func newGoSDKTestClient() (*gosdk.Client, *goSDKClientEvents) {
	ev := &goSDKClientEvents{
		logs:         make(chan *gosdk.LoggingMessageParams, 32),
		progress:     make(chan *gosdk.ProgressNotificationParams, 32),
		updated:      make(chan string, 8),
		toolsChanged: make(chan struct{}, 8),
	}
	c := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-client", Version: "1.0.0"}, &gosdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *gosdk.CreateMessageRequest) (*gosdk.CreateMessageResult, error) {
			if len(req.Params.Messages) != 1 {
				return nil, errors.New("want one message")
			}
			text, ok := req.Params.Messages[0].Content.(*gosdk.TextContent)
			if !ok {
				return nil, errors.New("want text content")
			}
			return &gosdk.CreateMessageResult{Model: "test-model", Role: "assistant",
				Content: &gosdk.TextContent{Text: "echo " + text.Text}, StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, req *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
			if req.Params.Message != "What is your name?" {
				return nil, errors.New("unexpected elicitation message")
			}
			return &gosdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *gosdk.LoggingMessageRequest) {
			ev.logs <- req.Params
		},
		ProgressNotificationHandler: func(_ context.Context, req *gosdk.ProgressNotificationClientRequest) {
			ev.progress <- req.Params
		},
		ResourceUpdatedHandler: func(_ context.Context, req *gosdk.ResourceUpdatedNotificationRequest) {
			ev.updated <- req.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *gosdk.ToolListChangedRequest) {
			ev.toolsChanged <- struct{}{}
		},
	})
	c.AddRoots(&gosdk.Root{URI: "file:///workspace", Name: "workspace"})
	return c, ev
}

// TestGoSDKClientAgainstOurServer drives a server built from this library
// with the official go-sdk client over stdio framing (in-process io.Pipe and
// kernel os.Pipe), through every feature both sides implement, in both
// protocol eras: 2025-11-25 (initialize handshake, pinned by the client) and
// 2026-07-28 (stateless, what the two negotiate by default).
func TestGoSDKClientAgainstOurServer(t *testing.T) {
	for _, kind := range []string{kindIOPipe, kindOSPipe} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(kind+"/"+era, func(t *testing.T) {
				f := newOurFixture(nil)
				p := serveOurFixture(t, f, kind)
				version := era
				if era == "2026-07-28" {
					version = "" // the default: probe with server/discover
				}
				walkGoSDKClient(t, f, version, era, &gosdk.IOTransport{Reader: p.s2cR, Writer: p.c2sW})
			})
		}
	}
}

// walkGoSDKClient connects the go-sdk client, asking for version ("" for
// its default), to f's server over tr, checks that the two negotiated want,
// and walks every scenario step but those named in omit.
func walkGoSDKClient(t *testing.T, f *ourFixture, version, want string, tr gosdk.Transport, omit ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client, ev := newGoSDKTestClient()
	var opts *gosdk.ClientSessionOptions
	if version != "" {
		opts = &gosdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("negotiated %q, want %q", got, want)
	}
	g := &goSDKScenario{cs: cs, client: client, ev: ev, f: f, modern: want == "2026-07-28"}
	if !g.modern {
		waitFor(t, f.initialized, "notifications/initialized")
	}
	if ss := f.server.Sessions(); len(ss) == 1 {
		g.ss = ss[0]
	} else if !g.modern { // over HTTP, 2026-07-28 requests are served on transient sessions
		t.Fatalf("server has %d sessions, want 1", len(ss))
	}
	runSteps(t, g.steps(), omit...)
}

// TestGoSDKClientVersions connects the go-sdk client to our server asking for
// each protocol revision both implement, and checks the negotiated revision
// and a tool call on each.
func TestGoSDKClientVersions(t *testing.T) {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			f := newOurFixture(nil)
			p := serveOurFixture(t, f, kindIOPipe)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			client, _ := newGoSDKTestClient()
			cs, err := client.Connect(ctx, &gosdk.IOTransport{Reader: p.s2cR, Writer: p.c2sW},
				&gosdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %q, want %q", got, v)
			}
			if got := f.server.Sessions()[0].ProtocolVersion(); got != v {
				t.Errorf("server session says %q, want %q", got, v)
			}
			res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 20, "b": 22}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("unexpected result %+v", res)
			}
			if text, _ := res.Content[0].(*gosdk.TextContent); text == nil || text.Text != `{"sum":42}` {
				t.Errorf("content = %+v, want text {\"sum\":42}", res.Content[0])
			}
		})
	}
}

// goSDKScenario is one connected go-sdk client and our fixture server.
type goSDKScenario struct {
	modern bool // the session speaks 2026-07-28
	cs     *gosdk.ClientSession
	client *gosdk.Client
	ev     *goSDKClientEvents
	f      *ourFixture
	ss     *gomcp.ServerSession
}

// scenarioStep is one named part of an interop scenario.
type scenarioStep struct {
	name string
	run  func(t *testing.T, ctx context.Context)
}

// runSteps runs each step as a subtest with its own timeout, leaving out
// the steps named in omit (each of which must exist).
func runSteps(t *testing.T, steps []scenarioStep, omit ...string) {
	t.Helper()
	for _, name := range omit {
		if !slices.ContainsFunc(steps, func(s scenarioStep) bool { return s.name == name }) {
			t.Fatalf("no step %q to leave out", name)
		}
	}
	for _, step := range steps {
		if slices.Contains(omit, step.name) {
			continue
		}
		t.Run(step.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			step.run(t, ctx)
		})
	}
}

func (g *goSDKScenario) steps() []scenarioStep {
	return []scenarioStep{
		{"initialize", g.initialize},
		{"ping", g.ping},
		{"tools", g.tools},
		{"progress", g.progress},
		{"logging", g.logging},
		{"sampling", g.sampling},
		{"elicitation", g.elicitation},
		{"roots", g.roots},
		{"cancellation", g.cancellation},
		{"resources", g.resources},
		{"subscriptions", g.subscriptions},
		{"prompts", g.prompts},
		{"completion", g.completion},
		{"listChanged", g.listChanged},
	}
}

func (g *goSDKScenario) initialize(t *testing.T, ctx context.Context) {
	init := g.cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "gomcp-fixture" || init.ServerInfo.Version != "1.2.3" {
		t.Errorf("server info %+v", init.ServerInfo)
	}
	caps := init.Capabilities
	if caps == nil || caps.Tools == nil || !caps.Tools.ListChanged || caps.Prompts == nil || caps.Resources == nil ||
		!caps.Resources.Subscribe || caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities %+v", caps)
	}
	// What the server learnt about the client: from initialize on a
	// stateful session, from each request's _meta in 2026-07-28.
	want := "version=2025-11-25 sampling=true elicitation=true roots=true"
	if g.modern {
		want = "version=2026-07-28 sampling=true elicitation=true roots=true"
	}
	res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); text == nil || text.Text != want {
		t.Errorf("whoami = %+v, want %q", res.Content[0], want)
	}
	if g.modern {
		return
	}
	info := g.ss.ClientInfo()
	if info == nil || info.Name != "go-sdk-client" {
		t.Errorf("server saw client info %+v", info)
	}
	ccaps := g.ss.ClientCapabilities()
	if ccaps.Sampling == nil || ccaps.Elicitation == nil || ccaps.Roots == nil {
		t.Errorf("server saw client capabilities %+v", ccaps)
	}
}

func (g *goSDKScenario) ping(t *testing.T, ctx context.Context) {
	if err := g.cs.Ping(ctx, nil); err != nil {
		t.Errorf("client ping: %v", err)
	}
	if g.modern {
		return // a 2026-07-28 server sends no requests
	}
	if err := g.ss.Ping(ctx); err != nil {
		t.Errorf("server ping: %v", err)
	}
}

func (g *goSDKScenario) tools(t *testing.T, ctx context.Context) {
	cs := g.cs
	first, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 3 || first.NextCursor == "" {
		t.Errorf("first page: %d tools, cursor %q; want 3 and a cursor", len(first.Tools), first.NextCursor)
	}
	var names []string
	tools := map[string]*gosdk.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		tools[tool.Name] = tool
	}
	if !slices.Equal(names, fixtureToolNames) {
		t.Errorf("tools = %v, want %v", names, fixtureToolNames)
	}
	add := tools["add"]
	if add == nil || add.InputSchema == nil || add.OutputSchema == nil {
		t.Fatalf("add tool %+v: want input and output schemas", add)
	}
	in, _ := json.Marshal(add.InputSchema)
	if !bytes.Contains(in, []byte(`"a"`)) || !bytes.Contains(in, []byte(`"integer"`)) {
		t.Errorf("add input schema %s", in)
	}
	if echo := tools["echo"]; echo == nil || echo.OutputSchema != nil {
		t.Errorf("echo tool %+v: want no output schema", echo)
	}

	res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 40}})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := res.StructuredContent.(map[string]any); res.IsError || m["sum"] != float64(42) {
		t.Errorf("add: %+v", res)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); text == nil || text.Text != `{"sum":42}` {
		t.Errorf("add content %+v", res.Content)
	}

	res, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo <&> \"q\"\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); text == nil || text.Text != "héllo <&> \"q\"\n" || res.StructuredContent != nil {
		t.Errorf("echo: %+v", res)
	}

	res, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); !res.IsError || text == nil || !strings.Contains(text.Text, "boom") {
		t.Errorf("fail: %+v", res)
	}

	// Arguments that break the inferred schema are a tool error the model
	// can see, not a protocol error.
	res, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": "two", "b": 40}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("add with a string argument: want isError, got %+v", res)
	}

	_, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "no-such-tool", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "no-such-tool") {
		t.Errorf("unknown tool: err = %v, want a protocol error naming the tool", err)
	}

	res, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "image", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("image: %d content blocks, want 2", len(res.Content))
	}
	if img, _ := res.Content[0].(*gosdk.ImageContent); img == nil || !bytes.Equal(img.Data, logoBytes) || img.MIMEType != "image/png" {
		t.Errorf("image block %+v", res.Content[0])
	}
	if er, _ := res.Content[1].(*gosdk.EmbeddedResource); er == nil || er.Resource == nil || er.Resource.URI != helloURI || er.Resource.Text != helloText {
		t.Errorf("embedded resource block %+v", res.Content[1])
	}
}

func (g *goSDKScenario) progress(t *testing.T, ctx context.Context) {
	params := &gosdk.CallToolParams{Name: "progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := g.cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); res.IsError || text == nil || text.Text != "done" {
		t.Errorf("progress: %+v", res)
	}
	for i, msg := range []string{"one", "two", "three"} {
		p := waitFor(t, g.ev.progress, "progress "+msg)
		if p.ProgressToken != "tok-1" || p.Progress != float64(i+1) || p.Total != 3 || p.Message != msg {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if g.modern {
		// A 2026-07-28 request that named no log level gets no logs.
		if err := g.roundTrip(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case l := <-g.ev.logs:
			t.Errorf("log without a level in _meta: %+v", l)
		case <-time.After(50 * time.Millisecond):
		}
		return
	}
	// A stateful client that never set a level gets every message.
	l := waitFor(t, g.ev.logs, "log message")
	if l.Level != "info" || l.Logger != "fixture" || l.Data != "progress done" {
		t.Errorf("log: %+v", l)
	}
}

func (g *goSDKScenario) logging(t *testing.T, ctx context.Context) {
	params := &gosdk.CallToolParams{Name: "log", Arguments: map[string]any{}}
	err := g.cs.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "warning"})
	if g.modern {
		// 2026-07-28 has no logging/setLevel: the level travels in each
		// request's _meta. go-sdk v1.8.0 still sends the method, without
		// _meta, and our server refuses it.
		if err == nil {
			t.Error("logging/setLevel on a 2026-07-28 session: want an error")
		}
		params.Meta = gosdk.Meta{gosdk.MetaKeyLogLevel: "warning"}
	} else if err != nil {
		t.Fatal(err)
	}
	if _, err := g.cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	var levels []string
	for range 2 {
		l := waitFor(t, g.ev.logs, "log message")
		levels = append(levels, string(l.Level))
		m, _ := l.Data.(map[string]any)
		if m["level"] != string(l.Level) {
			t.Errorf("log data %+v does not match level %q", l.Data, l.Level)
		}
	}
	if !slices.Equal(sortedCopy(levels), []string{"error", "warning"}) {
		t.Errorf("levels = %v, want warning and error only", levels)
	}
	select {
	case l := <-g.ev.logs:
		t.Errorf("unexpected log below the level set: %+v", l)
	case <-time.After(50 * time.Millisecond):
	}
}

func (g *goSDKScenario) sampling(t *testing.T, ctx context.Context) {
	res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "sample", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); res.IsError || text == nil || text.Text != "test-model: echo hi" {
		t.Errorf("sample: %+v", res.Content[0])
	}
}

func (g *goSDKScenario) elicitation(t *testing.T, ctx context.Context) {
	res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "elicit", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); res.IsError || text == nil || text.Text != "accept Ada" {
		t.Errorf("elicit: %+v", res.Content[0])
	}
}

func (g *goSDKScenario) roots(t *testing.T, ctx context.Context) {
	call := func() string {
		res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "roots", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := res.Content[0].(*gosdk.TextContent)
		if res.IsError || text == nil {
			t.Fatalf("roots: %+v", res)
		}
		return text.Text
	}
	if got := call(); got != "file:///workspace" {
		t.Errorf("roots = %q", got)
	}
	g.client.AddRoots(&gosdk.Root{URI: "file:///other", Name: "other"})
	if !g.modern { // 2026-07-28 has no roots/list_changed: every request asks afresh
		waitFor(t, g.f.rootsChange, "notifications/roots/list_changed")
	}
	if got := call(); got != "file:///other,file:///workspace" && got != "file:///workspace,file:///other" {
		t.Errorf("roots after AddRoots = %q", got)
	}
}

func (g *goSDKScenario) cancellation(t *testing.T, ctx context.Context) {
	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := g.cs.CallTool(callCtx, &gosdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		errc <- err
	}()
	waitFor(t, g.f.blockStarted, "the block tool to start")
	cancel()
	if err := waitFor(t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool error = %v, want context.Canceled", err)
	}
	if cause := waitFor(t, g.f.cancelled, "the handler's context to end"); cause == nil || cause.Error() == "never cancelled" {
		t.Errorf("handler context cause = %v, want cancellation by the peer", cause)
	}
	// The session is still usable.
	if err := g.roundTrip(ctx); err != nil {
		t.Errorf("request after cancellation: %v", err)
	}
}

// roundTrip makes a request and waits for its answer, after which the
// client has handled everything the server sent before it: a ping in the
// stateful revisions. 2026-07-28 has no ping, and go-sdk v1.8.0's client
// sends it without the _meta every 2026-07-28 request needs: our server
// answers it on stdio, where a bare ping may open a legacy session, but
// refuses it (-32602) over HTTP, as go-sdk's own stateless handler does. So
// there it is a tool call.
func (g *goSDKScenario) roundTrip(ctx context.Context) error {
	if !g.modern {
		return g.cs.Ping(ctx, nil)
	}
	_, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "sync"}})
	return err
}

func (g *goSDKScenario) resources(t *testing.T, ctx context.Context) {
	cs := g.cs
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Equal(uris, []string{helloURI, logoURI}) {
		t.Errorf("resources = %v", uris)
	}
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != userTemplate {
		t.Errorf("templates = %+v", lt.ResourceTemplates)
	}
	rr, err := cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: helloURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != helloText || rr.Contents[0].MIMEType != "text/plain" {
		t.Errorf("hello = %+v", rr.Contents)
	}
	rr, err = cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: logoURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || !bytes.Equal(rr.Contents[0].Blob, logoBytes) {
		t.Errorf("logo = %+v", rr.Contents)
	}
	rr, err = cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: "file:///users/42"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != "user 42" {
		t.Errorf("user 42 = %+v", rr.Contents)
	}
	// Resource not found is -32602 in 2026-07-28 (SEP-2164), which servers
	// of earlier revisions may use too; -32002 before.
	_, err = cs.ReadResource(ctx, &gosdk.ReadResourceParams{URI: "file:///missing"})
	var werr *gosdkjsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("missing resource: err = %v, want a JSON-RPC error", err)
	}
	if werr.Code != -32602 && (g.modern || werr.Code != -32002) {
		t.Errorf("missing resource: code %d, want -32602 (or -32002 before 2026-07-28)", werr.Code)
	}
	if !bytes.Contains(werr.Data, []byte(`"file:///missing"`)) {
		t.Errorf("missing resource: data %s does not name the uri", werr.Data)
	}
}

func (g *goSDKScenario) subscriptions(t *testing.T, ctx context.Context) {
	if g.modern {
		g.subscriptionsModern(t, ctx)
		return
	}
	if err := g.cs.Subscribe(ctx, &gosdk.SubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	g.f.server.ResourceUpdated(ctx, helloURI)
	if uri := waitFor(t, g.ev.updated, "notifications/resources/updated"); uri != helloURI {
		t.Errorf("updated %q", uri)
	}
	g.f.server.ResourceUpdated(ctx, logoURI) // not subscribed
	if err := g.cs.Unsubscribe(ctx, &gosdk.UnsubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	g.f.server.ResourceUpdated(ctx, helloURI)
	// A ping is answered after anything the server sent before it.
	if err := g.cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-g.ev.updated:
		t.Errorf("update for %q after unsubscribing or without a subscription", uri)
	case <-time.After(50 * time.Millisecond):
	}
}

// subscriptionsModern: in 2026-07-28 go-sdk's Subscribe opens a
// subscriptions/listen stream in the background and returns without waiting
// for the acknowledgement, and Unsubscribe cancels it the same way, so the
// server's updates are repeated until the client sees the effect.
func (g *goSDKScenario) subscriptionsModern(t *testing.T, ctx context.Context) {
	if err := g.cs.Subscribe(ctx, &gosdk.SubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	if !eventually(ctx, func() bool {
		g.f.server.ResourceUpdated(ctx, helloURI)
		return updatedSoon(t, g.ev.updated)
	}) {
		t.Fatal("no notifications/resources/updated on the listen stream")
	}
	if err := g.cs.Unsubscribe(ctx, &gosdk.UnsubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	if !eventually(ctx, func() bool {
		g.f.server.ResourceUpdated(ctx, helloURI)
		select {
		case <-g.ev.updated:
			return false
		case <-time.After(50 * time.Millisecond):
			return true
		}
	}) {
		t.Error("updates keep coming after Unsubscribe")
	}
}

// eventually calls cond until it reports true or ctx ends, and reports
// whether it did.
func eventually(ctx context.Context, cond func() bool) bool {
	for ctx.Err() == nil {
		if cond() {
			return true
		}
	}
	return false
}

func (g *goSDKScenario) prompts(t *testing.T, ctx context.Context) {
	lp, err := g.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lp.Prompts) != 1 || lp.Prompts[0].Name != fixturePrompt || len(lp.Prompts[0].Arguments) != 1 ||
		!lp.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts = %+v", lp.Prompts)
	}
	gp, err := g.cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: fixturePrompt, Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gp.Messages) != 1 || gp.Messages[0].Role != "user" || gp.Description != "a greeting" {
		t.Fatalf("prompt = %+v", gp)
	}
	if text, _ := gp.Messages[0].Content.(*gosdk.TextContent); text == nil || text.Text != "Hello, Ada!" {
		t.Errorf("prompt message %+v", gp.Messages[0].Content)
	}
	if _, err := g.cs.GetPrompt(ctx, &gosdk.GetPromptParams{Name: "no-such-prompt"}); err == nil {
		t.Error("unknown prompt: want an error")
	}
}

func (g *goSDKScenario) completion(t *testing.T, ctx context.Context) {
	res, err := g.cs.Complete(ctx, &gosdk.CompleteParams{
		Ref:      &gosdk.CompleteReference{Type: "ref/prompt", Name: fixturePrompt},
		Argument: gosdk.CompleteParamsArgument{Name: "name", Value: "al"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Completion.Values, []string{"alice", "albert"}) || res.Completion.Total != 2 {
		t.Errorf("completion = %+v", res.Completion)
	}
}

func (g *goSDKScenario) listChanged(t *testing.T, ctx context.Context) {
	g.f.server.AddTool(&gomcp.Tool{Name: "late", Description: "added after connect"},
		func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
			return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "late"}}}, nil
		})
	waitFor(t, g.ev.toolsChanged, "notifications/tools/list_changed")
	n := 0
	for _, err := range g.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(fixtureToolNames)+1 {
		t.Errorf("%d tools after AddTool, want %d", n, len(fixtureToolNames)+1)
	}
	res, err := g.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "late", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gosdk.TextContent); text == nil || text.Text != "late" {
		t.Errorf("late: %+v", res)
	}
}
