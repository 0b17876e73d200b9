package compat

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	gomcp "github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestMCPGoClientAgainstOurServer drives this library's server (ourFixture)
// with the client of github.com/mark3labs/mcp-go v1.2.1 through every
// feature both implement: over stdio framing (mcp-go's IO transport on
// kernel pipes) and over Streamable HTTP (its StreamableHTTP transport
// against mcphttp.Handler), at the revision the two negotiate by default
// (2026-07-28, after server/discover) and pinned to 2025-11-25.
func TestMCPGoClientAgainstOurServer(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		version := era
		if era == "2026-07-28" {
			version = "" // the default: probe with server/discover
		}
		t.Run("stdio/"+era, func(t *testing.T) {
			f := newOurFixture(nil)
			p := serveOurFixture(t, f, kindOSPipe)
			walkMCPGoClient(t, f, version, era, mcpgotransport.NewIO(p.s2cR, p.c2sW, nil))
		})
		t.Run("streamable-http/"+era, func(t *testing.T) {
			f := newOurFixture(nil)
			h := mcphttp.NewHandler(f.server, nil)
			url := httpServe(t, h)
			t.Cleanup(func() { h.Close() })
			// mcp-go's client opens no standalone GET stream unless told
			// to, and without one nothing the server sends outside a
			// request at 2025-11-25 (a ping, resources/updated,
			// tools/list_changed) can reach it: the transport rules leave
			// the GET to the client (it MAY open one), so this is the
			// configuration an mcp-go user needs for a 2025 session. (With
			// it, mcp-go never tries 2026-07-28, where listen streams carry
			// those notifications instead.)
			var opts []mcpgotransport.StreamableHTTPCOption
			if era == "2025-11-25" {
				opts = append(opts, mcpgotransport.WithContinuousListening())
			}
			tr, err := mcpgotransport.NewStreamableHTTP(url, opts...)
			if err != nil {
				t.Fatal(err)
			}
			walkMCPGoClient(t, f, version, era, tr)
		})
	}
}

// mcpGoScenario is one connected mcp-go client and our fixture server.
type mcpGoScenario struct {
	modern bool
	c      *mcpgoclient.Client
	f      *ourFixture
	roots  *mcpGoRoots

	mu           sync.Mutex
	logs         []mcpgo.JSONRPCNotification
	progress     []mcpgo.JSONRPCNotification
	updated      chan string
	toolsChanged chan struct{}
}

// mcpGoRoots answers roots/list with a list the test can change.
type mcpGoRoots struct {
	mu   sync.Mutex
	uris []string
}

func (r *mcpGoRoots) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &mcpgo.ListRootsResult{}
	for _, u := range r.uris {
		res.Roots = append(res.Roots, mcpgo.Root{URI: u, Name: strings.TrimPrefix(u, "file:///")})
	}
	return res, nil
}

type mcpGoSampler struct{}

func (mcpGoSampler) CreateMessage(_ context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	if len(req.CreateMessageParams.Messages) != 1 {
		return nil, errors.New("want one message")
	}
	// A peer quirk: at 2026-07-28 mcp-go hands the handler of an input
	// request (SEP-2322) the message content undecoded, as a map; at
	// 2025-11-25 as a TextContent.
	content := req.CreateMessageParams.Messages[0].Content
	if m, ok := content.(map[string]any); ok {
		c, err := mcpgo.ParseContent(m)
		if err != nil {
			return nil, err
		}
		content = c
	}
	text, ok := content.(mcpgo.TextContent)
	if !ok {
		return nil, fmt.Errorf("want text content, got %T", content)
	}
	return &mcpgo.CreateMessageResult{Model: "test-model", StopReason: "endTurn",
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("echo " + text.Text)}}, nil
}

type mcpGoElicitor struct{}

func (mcpGoElicitor) Elicit(_ context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	if req.Params.Message != "What is your name?" {
		return nil, fmt.Errorf("unexpected elicitation %q", req.Params.Message)
	}
	return &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{
		Action: mcpgo.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada"}}}, nil
}

// walkMCPGoClient connects an mcp-go client, asking for version ("" for its
// default), to f's server over tr, checks that the two negotiated want, and
// walks every step.
func walkMCPGoClient(t *testing.T, f *ourFixture, version, want string, tr mcpgotransport.Interface) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	m := &mcpGoScenario{f: f, modern: want == "2026-07-28", roots: &mcpGoRoots{uris: []string{"file:///workspace"}},
		updated: make(chan string, 8), toolsChanged: make(chan struct{}, 8)}
	opts := []mcpgoclient.ClientOption{
		mcpgoclient.WithSamplingHandler(mcpGoSampler{}),
		mcpgoclient.WithElicitationHandler(mcpGoElicitor{}),
		mcpgoclient.WithRootsHandler(m.roots),
	}
	if version != "" {
		opts = append(opts, mcpgoclient.WithProtocolVersion(version))
	}
	m.c = mcpgoclient.NewClient(tr, opts...)
	m.c.OnNotification(m.notice)
	if err := m.c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.c.Close() })
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-client", Version: "1.0.0"}
	res, err := m.c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != want || m.c.ProtocolVersion() != want {
		t.Fatalf("negotiated %q (client says %q), want %q", res.ProtocolVersion, m.c.ProtocolVersion(), want)
	}
	if res.ServerInfo.Name != "gomcp-fixture" || res.ServerInfo.Version != "1.2.3" {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	if c := res.Capabilities; c.Tools == nil || !c.Tools.ListChanged || c.Resources == nil || !c.Resources.Subscribe ||
		c.Prompts == nil || c.Logging == nil || c.Completions == nil {
		t.Errorf("capabilities %+v", c)
	}
	if !m.modern {
		waitFor(t, f.initialized, "notifications/initialized")
	}
	runSteps(t, []scenarioStep{
		{"initialize", m.initialize},
		{"tools", m.tools},
		{"progress", m.progressStep},
		{"logging", m.logging},
		{"sampling", m.sampling},
		{"elicitation", m.elicitation},
		{"roots", m.rootsStep},
		{"cancellation", m.cancellation},
		{"resources", m.resources},
		{"subscriptions", m.subscriptions},
		{"prompts", m.prompts},
		{"completion", m.completion},
		{"listChanged", m.listChanged},
	})
}

// notice records the notifications the client receives.
func (m *mcpGoScenario) notice(n mcpgo.JSONRPCNotification) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch n.Method {
	case "notifications/message":
		m.logs = append(m.logs, n)
	case "notifications/progress":
		m.progress = append(m.progress, n)
	case "notifications/resources/updated":
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		m.updated <- uri
	case "notifications/tools/list_changed":
		m.toolsChanged <- struct{}{}
	}
}

// take returns the log and progress notifications received so far, as
// "level data" and "progress/total message", and forgets them.
func (m *mcpGoScenario) take(t *testing.T) (logs, progress []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range m.logs {
		data, _ := json.Marshal(n.Params.AdditionalFields["data"])
		logs = append(logs, fmt.Sprintf("%v %s", n.Params.AdditionalFields["level"], data))
	}
	for _, n := range m.progress {
		p := n.Params.AdditionalFields
		progress = append(progress, fmt.Sprintf("%v/%v %v", p["progress"], p["total"], p["message"]))
	}
	m.logs, m.progress = nil, nil
	return logs, progress
}

func (m *mcpGoScenario) call(t *testing.T, ctx context.Context, name string, args map[string]any, meta *mcpgo.Meta) *mcpgo.CallToolResult {
	t.Helper()
	var req mcpgo.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	req.Params.Meta = meta
	res, err := m.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// text returns the single text block of a result that is no error.
func (m *mcpGoScenario) text(t *testing.T, ctx context.Context, name string, args map[string]any) string {
	t.Helper()
	res := m.call(t, ctx, name, args, nil)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", name, res)
	}
	text, ok := res.Content[0].(mcpgo.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	return text.Text
}

func (m *mcpGoScenario) initialize(t *testing.T, ctx context.Context) {
	if err := m.c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
	// What the server learnt about the client: from initialize on a
	// stateful session, from each request's _meta at 2026-07-28.
	want := fmt.Sprintf("version=%s sampling=true elicitation=true roots=true", m.c.ProtocolVersion())
	if got := m.text(t, ctx, "whoami", nil); got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}
	if m.modern {
		return
	}
	ss := m.f.server.Sessions()
	if len(ss) != 1 {
		t.Fatalf("server has %d sessions, want 1", len(ss))
	}
	if info := ss[0].ClientInfo(); info == nil || info.Name != "mcp-go-client" {
		t.Errorf("server saw client info %+v", info)
	}
	// Over HTTP the client opens its GET stream, the only way a server
	// request can reach it, in the background after initialize.
	var err error
	if !eventually(ctx, func() bool {
		err = ss[0].Ping(ctx)
		if err != nil {
			time.Sleep(5 * time.Millisecond)
		}
		return err == nil
	}) {
		t.Errorf("server ping: %v", err)
	}
}

func (m *mcpGoScenario) tools(t *testing.T, ctx context.Context) {
	first, err := m.c.ListToolsByPage(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 3 || first.NextCursor == "" {
		t.Errorf("first page: %d tools, cursor %q; want 3 and a cursor", len(first.Tools), first.NextCursor)
	}
	all, err := m.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tools := map[string]mcpgo.Tool{}
	for _, tool := range all.Tools {
		names = append(names, tool.Name)
		tools[tool.Name] = tool
	}
	if !slices.Equal(names, fixtureToolNames) {
		t.Errorf("tools = %v, want %v", names, fixtureToolNames)
	}
	if add := tools["add"]; add.InputSchema.Properties["a"] == nil || add.OutputSchema.Type != "object" {
		t.Errorf("add schemas: %+v / %+v", add.InputSchema, add.OutputSchema)
	}

	res := m.call(t, ctx, "add", map[string]any{"a": 2, "b": 40}, nil)
	if sc, _ := res.StructuredContent.(map[string]any); res.IsError || sc["sum"] != float64(42) {
		t.Errorf("add: %+v", res)
	}
	if got := m.text(t, ctx, "echo", map[string]any{"text": "héllo <&> \"q\"\n"}); got != "héllo <&> \"q\"\n" {
		t.Errorf("echo = %q", got)
	}
	res = m.call(t, ctx, "fail", nil, nil)
	if text, _ := res.Content[0].(mcpgo.TextContent); !res.IsError || !strings.Contains(text.Text, "boom") {
		t.Errorf("fail: %+v", res)
	}
	// Arguments that break the inferred schema: a tool error.
	if res := m.call(t, ctx, "add", map[string]any{"a": "two", "b": 40}, nil); !res.IsError {
		t.Errorf("add with a string argument: want isError, got %+v", res)
	}
	var req mcpgo.CallToolRequest
	req.Params.Name = "no-such-tool"
	if _, err := m.c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "no-such-tool") {
		t.Errorf("unknown tool: err = %v, want a protocol error naming the tool", err)
	}
	res = m.call(t, ctx, "image", nil, nil)
	if len(res.Content) != 2 {
		t.Fatalf("image: %+v", res)
	}
	if img, _ := res.Content[0].(mcpgo.ImageContent); img.MIMEType != "image/png" || img.Data != base64.StdEncoding.EncodeToString(logoBytes) {
		t.Errorf("image block %+v", res.Content[0])
	}
	er, _ := res.Content[1].(mcpgo.EmbeddedResource)
	if trc, _ := er.Resource.(mcpgo.TextResourceContents); trc.URI != helloURI || trc.Text != helloText {
		t.Errorf("embedded resource block %+v", res.Content[1])
	}
}

// setLevel sets the client's log level: logging/setLevel at 2025-11-25; at
// 2026-07-28 mcp-go sends the level in every request's _meta.
func (m *mcpGoScenario) setLevel(t *testing.T, ctx context.Context, level mcpgo.LoggingLevel) {
	t.Helper()
	var req mcpgo.SetLevelRequest
	req.Params.Level = level
	if err := m.c.SetLevel(ctx, req); err != nil {
		t.Fatal(err)
	}
}

func (m *mcpGoScenario) progressStep(t *testing.T, ctx context.Context) {
	m.setLevel(t, ctx, mcpgo.LoggingLevelInfo)
	m.take(t)
	res := m.call(t, ctx, "progress", nil, &mcpgo.Meta{ProgressToken: "tok-1"})
	if text, _ := res.Content[0].(mcpgo.TextContent); res.IsError || text.Text != "done" {
		t.Errorf("progress: %+v", res)
	}
	// Everything our server sent before the result was written before it:
	// no waiting.
	logs, progress := m.take(t)
	if want := []string{"1/3 one", "2/3 two", "3/3 three"}; !slices.Equal(progress, want) {
		t.Errorf("progress = %q, want %q", progress, want)
	}
	if want := []string{`info "progress done"`}; !slices.Equal(logs, want) {
		t.Errorf("logs = %q, want %q", logs, want)
	}
}

func (m *mcpGoScenario) logging(t *testing.T, ctx context.Context) {
	m.setLevel(t, ctx, mcpgo.LoggingLevelWarning)
	if got := m.text(t, ctx, "log", nil); got != "logged" {
		t.Errorf("log = %q", got)
	}
	logs, _ := m.take(t)
	if want := []string{`warning {"level":"warning","n":2}`, `error {"level":"error","n":3}`}; !slices.Equal(logs, want) {
		t.Errorf("logs = %q, want %q", logs, want)
	}
}

func (m *mcpGoScenario) sampling(t *testing.T, ctx context.Context) {
	if got := m.text(t, ctx, "sample", map[string]any{"text": "hi"}); got != "test-model: echo hi" {
		t.Errorf("sample = %q", got)
	}
}

func (m *mcpGoScenario) elicitation(t *testing.T, ctx context.Context) {
	if got := m.text(t, ctx, "elicit", nil); got != "accept Ada" {
		t.Errorf("elicit = %q", got)
	}
}

func (m *mcpGoScenario) rootsStep(t *testing.T, ctx context.Context) {
	if got := m.text(t, ctx, "roots", nil); got != "file:///workspace" {
		t.Errorf("roots = %q", got)
	}
	m.roots.mu.Lock()
	m.roots.uris = append(m.roots.uris, "file:///other")
	m.roots.mu.Unlock()
	if !m.modern { // 2026-07-28 has no roots/list_changed: every request asks afresh
		if err := m.c.RootListChanges(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, m.f.rootsChange, "notifications/roots/list_changed")
	}
	if got := m.text(t, ctx, "roots", nil); got != "file:///workspace,file:///other" {
		t.Errorf("roots after the change = %q", got)
	}
}

func (m *mcpGoScenario) cancellation(t *testing.T, ctx context.Context) {
	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		var req mcpgo.CallToolRequest
		req.Params.Name = "block"
		_, err := m.c.CallTool(callCtx, req)
		errc <- err
	}()
	waitFor(t, m.f.blockStarted, "the block tool to start")
	cancel()
	if err := waitFor(t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool error = %v, want context.Canceled", err)
	}
	if cause := waitFor(t, m.f.cancelled, "the handler's context to end"); cause == nil || cause.Error() == "never cancelled" {
		t.Errorf("handler context cause = %v, want cancellation by the peer", cause)
	}
	if got := m.text(t, ctx, "echo", map[string]any{"text": "after"}); got != "after" {
		t.Errorf("echo after the cancellation = %q", got)
	}
}

func (m *mcpGoScenario) resources(t *testing.T, ctx context.Context) {
	lr, err := m.c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI+" "+r.MIMEType)
	}
	if want := []string{helloURI + " text/plain", logoURI + " image/png"}; !slices.Equal(uris, want) {
		t.Errorf("resources = %q", uris)
	}
	lt, err := m.c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	if err != nil || len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate.Raw() != userTemplate {
		t.Errorf("templates = %+v, %v", lt, err)
	}
	read := func(uri string) mcpgo.ResourceContents {
		t.Helper()
		var req mcpgo.ReadResourceRequest
		req.Params.URI = uri
		rr, err := m.c.ReadResource(ctx, req)
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("read %s: %+v, %v", uri, rr, err)
		}
		return rr.Contents[0]
	}
	if c, _ := read(helloURI).(mcpgo.TextResourceContents); c.Text != helloText || c.MIMEType != "text/plain" {
		t.Errorf("hello = %+v", c)
	}
	if c, _ := read(logoURI).(mcpgo.BlobResourceContents); c.Blob != base64.StdEncoding.EncodeToString(logoBytes) || c.MIMEType != "image/png" {
		t.Errorf("logo = %+v", c)
	}
	if c, _ := read("file:///users/42").(mcpgo.TextResourceContents); c.Text != "user 42" {
		t.Errorf("user 42 = %+v", c)
	}
	var req mcpgo.ReadResourceRequest
	req.Params.URI = "file:///missing"
	// -32002 before 2026-07-28; -32602 since (SEP-2164).
	want := mcpgo.ErrResourceNotFound
	if m.modern {
		want = mcpgo.ErrInvalidParams
	}
	if _, err := m.c.ReadResource(ctx, req); !errors.Is(err, want) {
		t.Errorf("missing resource: err = %v, want %v", err, want)
	}
}

func (m *mcpGoScenario) subscriptions(t *testing.T, ctx context.Context) {
	if m.modern {
		m.listen(t, ctx, mcpgo.SubscriptionFilter{ResourceSubscriptions: []string{helloURI}}, func() bool {
			m.f.server.ResourceUpdated(ctx, helloURI)
			return updatedSoon(t, m.updated)
		})
		return
	}
	var sub mcpgo.SubscribeRequest
	sub.Params.URI = helloURI
	if err := m.c.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	m.f.server.ResourceUpdated(ctx, helloURI)
	if uri := waitFor(t, m.updated, "notifications/resources/updated"); uri != helloURI {
		t.Errorf("updated %q", uri)
	}
	var unsub mcpgo.UnsubscribeRequest
	unsub.Params.URI = helloURI
	if err := m.c.Unsubscribe(ctx, unsub); err != nil {
		t.Fatal(err)
	}
	m.f.server.ResourceUpdated(ctx, helloURI)
	if err := m.c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-m.updated:
		t.Errorf("update for %q after unsubscribing", uri)
	case <-time.After(50 * time.Millisecond):
	}
}

// listen opens a subscriptions/listen stream with filter and calls trigger
// until the expected notification arrived, then closes the stream.
func (m *mcpGoScenario) listen(t *testing.T, ctx context.Context, filter mcpgo.SubscriptionFilter, trigger func() bool) {
	t.Helper()
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.c.Listen(lctx, filter) }()
	if !eventually(ctx, trigger) {
		t.Error("the expected notification never arrived on the listen stream")
	}
	stop()
	if err := waitFor(t, done, "Listen to return"); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Listen: %v", err)
	}
}

func (m *mcpGoScenario) prompts(t *testing.T, ctx context.Context) {
	lp, err := m.c.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	if err != nil || len(lp.Prompts) != 1 || lp.Prompts[0].Name != fixturePrompt || len(lp.Prompts[0].Arguments) != 1 || !lp.Prompts[0].Arguments[0].Required {
		t.Fatalf("prompts = %+v, %v", lp, err)
	}
	var req mcpgo.GetPromptRequest
	req.Params.Name = fixturePrompt
	req.Params.Arguments = map[string]string{"name": "Ada"}
	gp, err := m.c.GetPrompt(ctx, req)
	if err != nil || gp.Description != "a greeting" || len(gp.Messages) != 1 || gp.Messages[0].Role != mcpgo.RoleUser {
		t.Fatalf("prompt = %+v, %v", gp, err)
	}
	if text, _ := gp.Messages[0].Content.(mcpgo.TextContent); text.Text != "Hello, Ada!" {
		t.Errorf("prompt message %+v", gp.Messages[0].Content)
	}
	req.Params.Name = "no-such-prompt"
	if _, err := m.c.GetPrompt(ctx, req); err == nil {
		t.Error("unknown prompt: want an error")
	}
}

func (m *mcpGoScenario) completion(t *testing.T, ctx context.Context) {
	var req mcpgo.CompleteRequest
	req.Params.Ref = mcpgo.PromptReference{Type: "ref/prompt", Name: fixturePrompt}
	req.Params.Argument = mcpgo.CompleteArgument{Name: "name", Value: "al"}
	res, err := m.c.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Completion.Values, []string{"alice", "albert"}) || res.Completion.Total != 2 {
		t.Errorf("completion = %+v", res.Completion)
	}
}

func (m *mcpGoScenario) listChanged(t *testing.T, ctx context.Context) {
	addLate := func() {
		m.f.server.AddTool(&gomcp.Tool{Name: "late", Description: "added after connect"},
			func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
				return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "late"}}}, nil
			})
	}
	if m.modern {
		m.listen(t, ctx, mcpgo.SubscriptionFilter{ToolsListChanged: true}, func() bool {
			addLate()
			_, ok := soon(m.toolsChanged)
			return ok
		})
	} else {
		addLate()
		waitFor(t, m.toolsChanged, "notifications/tools/list_changed")
	}
	all, err := m.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil || len(all.Tools) != len(fixtureToolNames)+1 {
		t.Errorf("tools after AddTool: %d, %v; want %d", len(all.Tools), err, len(fixtureToolNames)+1)
	}
	if got := m.text(t, ctx, "late", nil); got != "late" {
		t.Errorf("late = %q", got)
	}
}
