package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gomcp/sdk/jsonrpc"
	gomcp "github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// ourClientEvents collects what a client of this library receives.
type ourClientEvents struct {
	logs         chan *gomcp.LoggingMessageNotificationParams
	updated      chan string
	toolsChanged chan struct{}
}

func newOurTestClient(version string) (*gomcp.Client, *ourClientEvents) {
	ev := &ourClientEvents{
		logs:         make(chan *gomcp.LoggingMessageNotificationParams, 32),
		updated:      make(chan string, 8),
		toolsChanged: make(chan struct{}, 8),
	}
	c := gomcp.NewClient(&gomcp.Implementation{Name: "gomcp-client", Version: "1.0.0"}, &gomcp.ClientOptions{
		ProtocolVersion: version,
		CreateMessageHandler: func(_ context.Context, req *gomcp.CreateMessageRequest) (*gomcp.CreateMessageResult, error) {
			if len(req.Params.Messages) != 1 || len(req.Params.Messages[0].Content) != 1 {
				return nil, errors.New("want one message with one block")
			}
			text, ok := req.Params.Messages[0].Content[0].(*gomcp.TextContent)
			if !ok {
				return nil, errors.New("want text content")
			}
			return &gomcp.CreateMessageResult{Model: "test-model", Role: gomcp.RoleAssistant,
				Content: []gomcp.Content{&gomcp.TextContent{Text: "echo " + text.Text}}, StopReason: gomcp.StopReasonEndTurn}, nil
		},
		ElicitationHandler: func(_ context.Context, req *gomcp.ElicitRequest) (*gomcp.ElicitResult, error) {
			if req.Params.Message != "What is your name?" || req.Params.RequestedSchema == nil ||
				req.Params.RequestedSchema.Property("name") == nil {
				return nil, errors.New("unexpected elicitation request")
			}
			return &gomcp.ElicitResult{Action: gomcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		Roots: []*gomcp.Root{{URI: "file:///workspace", Name: "workspace"}},
		LoggingMessageHandler: func(_ context.Context, _ *gomcp.ClientSession, p *gomcp.LoggingMessageNotificationParams) {
			ev.logs <- p
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *gomcp.ClientSession, p *gomcp.ResourceUpdatedNotificationParams) {
			ev.updated <- p.URI
		},
		ToolListChangedHandler: func(context.Context, *gomcp.ClientSession) {
			ev.toolsChanged <- struct{}{}
		},
	})
	return c, ev
}

// connectOurClient connects c over stream.
func connectOurClient(t *testing.T, ctx context.Context, c *gomcp.Client, stream jsonrpc.Stream) *gomcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(ctx, stream)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// clientLineStream is the client's end of p, framed as stdio.
func clientLineStream(p pipes) jsonrpc.Stream {
	return transport.NewLineStream(p.s2cR, p.c2sW, closeAll{p.s2cR, p.c2sW}, nil)
}

// TestOurClientAgainstGoSDKServer drives a server built with the official
// go-sdk with this library's client over stdio framing, through every
// feature both sides implement, in both protocol eras: 2025-11-25 (pinned by
// the client) and 2026-07-28 (what the two negotiate by default).
func TestOurClientAgainstGoSDKServer(t *testing.T) {
	for _, kind := range []string{kindIOPipe, kindOSPipe} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(kind+"/"+era, func(t *testing.T) {
				f := newGoSDKFixture()
				p, _ := serveGoSDKFixture(t, f, kind)
				version := era
				if era == "2026-07-28" {
					version = "" // the default: probe with server/discover
				}
				walkOurClient(t, f, version, era, clientLineStream(p))
			})
		}
	}
}

// walkOurClient connects our client, asking for version ("" for the
// default: probe with server/discover), to f's server over stream, checks
// that the two negotiated want, and walks every scenario step but those
// named in omit.
func walkOurClient(t *testing.T, f peerServer, version, want string, stream jsonrpc.Stream, omit ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client, ev := newOurTestClient(version)
	cs := connectOurClient(t, ctx, client, stream)
	if got := cs.ProtocolVersion(); got != want {
		t.Fatalf("negotiated %q, want %q", got, want)
	}
	o := &ourClientScenario{cs: cs, client: client, ev: ev, f: f, modern: want == "2026-07-28"}
	if !o.modern {
		waitFor(t, f.initializedCh(), "notifications/initialized")
	}
	runSteps(t, o.steps(), omit...)
}

// peerServer is the foreign server ourClientScenario walks: a fixture of
// another SDK offering the same tools, resources and prompts as ourFixture,
// and reporting what it observed.
type peerServer interface {
	// serverName is the name in its serverInfo.
	serverName() string
	// initializedCh is closed once notifications/initialized arrived.
	initializedCh() <-chan struct{}
	// clientSeen is the client's name and capabilities as the server's
	// stateful session recorded them from initialize.
	clientSeen(t *testing.T) (name string, sampling, elicitation, roots bool)
	// pingClient pings the client from the server; errNoServerPing if the
	// SDK cannot.
	pingClient(t *testing.T, ctx context.Context) error
	rootsChangedCh() <-chan struct{}
	blockStartedCh() <-chan struct{}
	// cancelledCh reports why the block tool's context ended.
	cancelledCh() <-chan error
	// subscribedCh reports the URIs passed to subscribe and unsubscribe,
	// prefixed "+" or "-".
	subscribedCh() <-chan string
	// resourceUpdated sends notifications/resources/updated for uri to the
	// clients subscribed to it.
	resourceUpdated(ctx context.Context, uri string) error
	// addLateTool adds the tool "late", which answers "late".
	addLateTool()
	// notifiesLate reports that the server may write a request's
	// notifications after its response (a peer bug; see mcpGoFixture).
	notifiesLate() bool
}

// errNoServerPing is what peerServer.pingClient returns when the peer's SDK
// has no way for a server to ping its client.
var errNoServerPing = errors.New("the SDK has no server-to-client ping")

// initializedSession returns the one session of f's server that went
// through initialize. (A stateful HTTP server may also hold a session
// created by the client's server/discover probe, which never initializes.)
func (f *goSDKFixture) initializedSession(t *testing.T) *gosdk.ServerSession {
	t.Helper()
	var found []*gosdk.ServerSession
	for ss := range f.server.Sessions() {
		if ss.InitializeParams() != nil {
			found = append(found, ss)
		}
	}
	if len(found) != 1 {
		t.Fatalf("go-sdk server has %d initialized sessions, want 1", len(found))
	}
	return found[0]
}

// TestOurClientVersions connects our client to the go-sdk server asking for
// each protocol revision both implement.
func TestOurClientVersions(t *testing.T) {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			f := newGoSDKFixture()
			p, ss := serveGoSDKFixture(t, f, kindIOPipe)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			client, _ := newOurTestClient(v)
			cs := connectOurClient(t, ctx, client, clientLineStream(p))
			if got := cs.ProtocolVersion(); got != v {
				t.Fatalf("negotiated %q, want %q", got, v)
			}
			if got := ss.InitializeParams().ProtocolVersion; got != v {
				t.Errorf("go-sdk server saw %q, want %q", got, v)
			}
			res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":20,"b":22}`)})
			if err != nil {
				t.Fatal(err)
			}
			if text, _ := res.Content[0].(*gomcp.TextContent); res.IsError || text == nil || text.Text != `{"sum":42}` {
				t.Errorf("add: %+v", res)
			}
		})
	}
}

// ourClientScenario is one connected client of this library and the go-sdk
// fixture server.
type ourClientScenario struct {
	modern bool // the session speaks 2026-07-28
	// toolOrder is the order of the server's tools/list; nil means by
	// name, as go-sdk lists them.
	toolOrder []string
	cs        *gomcp.ClientSession
	client    *gomcp.Client
	ev        *ourClientEvents
	f         peerServer
}

func (o *ourClientScenario) steps() []scenarioStep {
	return []scenarioStep{
		{"initialize", o.initialize},
		{"ping", o.ping},
		{"tools", o.tools},
		{"progress", o.progress},
		{"logging", o.logging},
		{"sampling", o.sampling},
		{"elicitation", o.elicitation},
		{"roots", o.roots},
		{"cancellation", o.cancellation},
		{"resources", o.resources},
		{"subscriptions", o.subscriptions},
		{"prompts", o.prompts},
		{"completion", o.completion},
		{"listChanged", o.listChanged},
	}
}

// callText calls a tool and returns its single text block.
func (o *ourClientScenario) callText(t *testing.T, ctx context.Context, name, args string) string {
	t.Helper()
	res, err := o.cs.CallTool(ctx, &gomcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", name, res)
	}
	text, ok := res.Content[0].(*gomcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	return text.Text
}

func (o *ourClientScenario) initialize(t *testing.T, ctx context.Context) {
	init := o.cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != o.f.serverName() || init.ServerInfo.Version != "1.2.3" {
		t.Errorf("server info %+v", init.ServerInfo)
	}
	caps := o.cs.ServerCapabilities()
	if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || !caps.Resources.Subscribe ||
		caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities %+v", caps)
	}
	// What go-sdk learnt about our client: from initialize on a stateful
	// session, from each request's _meta in 2026-07-28.
	want := fmt.Sprintf("version=%s sampling=true elicitation=true roots=true", o.cs.ProtocolVersion())
	if got := o.callText(t, ctx, "whoami", `{}`); got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}
	if o.modern {
		return
	}
	name, sampling, elicitation, roots := o.f.clientSeen(t)
	if name != "gomcp-client" || !sampling || !elicitation || !roots {
		t.Errorf("the server saw client %q, sampling %t, elicitation %t, roots %t", name, sampling, elicitation, roots)
	}
}

func (o *ourClientScenario) ping(t *testing.T, ctx context.Context) {
	if err := o.cs.Ping(ctx); err != nil {
		t.Errorf("client ping: %v", err)
	}
	if o.modern {
		return // a 2026-07-28 server sends no requests
	}
	if err := o.f.pingClient(t, ctx); err != nil && !errors.Is(err, errNoServerPing) {
		t.Errorf("server ping: %v", err)
	}
}

func (o *ourClientScenario) tools(t *testing.T, ctx context.Context) {
	cs := o.cs
	first, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 3 || first.NextCursor == "" {
		t.Errorf("first page: %d tools, cursor %q; want 3 and a cursor", len(first.Tools), first.NextCursor)
	}
	var names []string
	tools := map[string]*gomcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		tools[tool.Name] = tool
	}
	want := o.toolOrder
	if want == nil {
		want = sortedCopy(fixtureToolNames)
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	add := tools["add"]
	if add == nil {
		t.Fatal("no add tool")
	}
	if in, _ := add.InputSchema.(json.RawMessage); !bytes.Contains(in, []byte(`"integer"`)) || add.OutputSchema == nil {
		t.Fatalf("add tool %+v: want inferred input and output schemas", add)
	}

	// The tools were listed, so our client validates structured content
	// against the output schema go-sdk declared.
	res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":40}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out addOut
	if res.IsError || json.Unmarshal(res.StructuredContent, &out) != nil || out.Sum != 42 {
		t.Errorf("add: %+v", res)
	}
	if text, _ := res.Content[0].(*gomcp.TextContent); text == nil || text.Text != `{"sum":42}` {
		t.Errorf("add content %+v", res.Content)
	}

	if got := o.callText(t, ctx, "echo", `{"text":"héllo <&> \"q\"\n"}`); got != "héllo <&> \"q\"\n" {
		t.Errorf("echo = %q", got)
	}

	res, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "fail", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(*gomcp.TextContent); !res.IsError || text == nil || !strings.Contains(text.Text, "boom") {
		t.Errorf("fail: %+v", res)
	}

	// go-sdk validates arguments against the schema too.
	res, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":"two","b":40}`)})
	if err == nil && !res.IsError {
		t.Errorf("add with a string argument: want an error, got %+v", res)
	}

	_, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "no-such-tool", Arguments: json.RawMessage(`{}`)})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Errorf("unknown tool: err = %v, want a JSON-RPC error", err)
	}

	res, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "image", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("image: %d content blocks, want 2", len(res.Content))
	}
	img, _ := res.Content[0].(*gomcp.ImageContent)
	if img == nil || img.MIMEType != "image/png" {
		t.Fatalf("image block %+v", res.Content[0])
	}
	if data, err := img.DecodeData(); err != nil || !bytes.Equal(data, logoBytes) {
		t.Errorf("image data %v, %v", data, err)
	}
	er, _ := res.Content[1].(*gomcp.EmbeddedResource)
	if er == nil {
		t.Fatalf("embedded resource block %+v", res.Content[1])
	}
	if trc, _ := er.Resource.(*gomcp.TextResourceContents); trc == nil || trc.URI != helloURI || trc.Text != helloText {
		t.Errorf("embedded resource %+v", er.Resource)
	}
}

func (o *ourClientScenario) progress(t *testing.T, ctx context.Context) {
	// go-sdk sends no log messages until the client sets a level (in
	// 2026-07-28 our client sends the level in every request's _meta).
	if err := o.cs.SetLoggingLevel(ctx, gomcp.LevelInfo); err != nil {
		t.Fatal(err)
	}
	var got []*gomcp.ProgressNotificationParams
	pctx := gomcp.WithProgress(ctx, func(p *gomcp.ProgressNotificationParams) { got = append(got, p) })
	if text := o.callText(t, pctx, "progress", `{}`); text != "done" {
		t.Errorf("progress = %q", text)
	}
	// Progress notifications are handled in order on the notification lane
	// and may still be in flight when the response arrives; the log
	// message the tool sends after them marks their end.
	late := o.f != nil && o.f.notifiesLate()
	if l := o.nextLog(t, late); l != nil && (l.Level != gomcp.LevelInfo || l.Logger != "fixture" || string(l.Data) != `"progress done"`) {
		t.Errorf("log: %+v (data %s)", l, l.Data)
	}
	want := []string{"one", "two", "three"}
	if late {
		// The progress notifications written after the response name a
		// request that is over, and the client drops them, as it must;
		// those the server put on the GET stream have no order relative
		// to the others (fixture_mcpgo_test.go, notifiesLate).
		if len(got) < 3 {
			t.Logf("the server wrote %d of its 3 progress notifications after the response", 3-len(got))
		}
		for _, p := range got {
			if p.Progress < 1 || p.Progress > 3 || p.Total != 3 || p.Message != want[int(p.Progress)-1] {
				t.Errorf("progress %+v", p)
			}
		}
		return
	}
	if len(got) != 3 {
		t.Fatalf("%d progress notifications, want 3", len(got))
	}
	for i, msg := range want {
		p := got[i]
		if p.Progress != float64(i+1) || p.Total != 3 || p.Message != msg {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
}

func (o *ourClientScenario) logging(t *testing.T, ctx context.Context) {
	if err := o.cs.SetLoggingLevel(ctx, gomcp.LevelWarning); err != nil {
		t.Fatal(err)
	}
	if text := o.callText(t, ctx, "log", `{}`); text != "logged" {
		t.Errorf("log = %q", text)
	}
	late := o.f != nil && o.f.notifiesLate()
	var levels []string
	for range 2 {
		l := o.nextLog(t, late)
		if l == nil {
			continue
		}
		levels = append(levels, l.Level.String())
		var data map[string]any
		if err := json.Unmarshal(l.Data, &data); err != nil || data["level"] != l.Level.String() {
			t.Errorf("log data %s does not match level %v", l.Data, l.Level)
		}
	}
	for _, l := range levels {
		if l != "warning" && l != "error" {
			t.Errorf("levels = %v, want warning and error only", levels)
		}
	}
	if !late {
		if !slices.Equal(sortedCopy(levels), []string{"error", "warning"}) {
			t.Errorf("levels = %v, want warning and error", levels)
		}
	}
	select {
	case l := <-o.ev.logs:
		t.Errorf("unexpected log below the level set: %+v", l)
	case <-time.After(50 * time.Millisecond):
	}
}

// nextLog returns the next log message. From a server whose notifications
// may come late, and be lost (peerServer.notifiesLate), it waits a second
// and returns nil if none came.
func (o *ourClientScenario) nextLog(t *testing.T, late bool) *gomcp.LoggingMessageNotificationParams {
	t.Helper()
	if !late {
		return waitFor(t, o.ev.logs, "log message")
	}
	select {
	case l := <-o.ev.logs:
		return l
	case <-time.After(time.Second):
		t.Log("a log message did not arrive (see notifiesLate)")
		return nil
	}
}

func (o *ourClientScenario) sampling(t *testing.T, ctx context.Context) {
	if got := o.callText(t, ctx, "sample", `{"text":"hi"}`); got != "test-model: echo hi" {
		t.Errorf("sample = %q", got)
	}
}

func (o *ourClientScenario) elicitation(t *testing.T, ctx context.Context) {
	if got := o.callText(t, ctx, "elicit", `{}`); got != "accept Ada" {
		t.Errorf("elicit = %q", got)
	}
}

func (o *ourClientScenario) roots(t *testing.T, ctx context.Context) {
	if got := o.callText(t, ctx, "roots", `{}`); got != "file:///workspace" {
		t.Errorf("roots = %q", got)
	}
	o.client.SetRoots(&gomcp.Root{URI: "file:///workspace", Name: "workspace"}, &gomcp.Root{URI: "file:///other"})
	if !o.modern { // 2026-07-28 has no roots/list_changed: every request asks afresh
		waitFor(t, o.f.rootsChangedCh(), "notifications/roots/list_changed")
	}
	if got := o.callText(t, ctx, "roots", `{}`); got != "file:///workspace,file:///other" {
		t.Errorf("roots after SetRoots = %q", got)
	}
}

func (o *ourClientScenario) cancellation(t *testing.T, ctx context.Context) {
	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := o.cs.CallTool(callCtx, &gomcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
		errc <- err
	}()
	waitFor(t, o.f.blockStartedCh(), "the block tool to start")
	cancel()
	if err := waitFor(t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool error = %v, want context.Canceled", err)
	}
	if cause := waitFor(t, o.f.cancelledCh(), "the handler's context to end"); cause == nil || cause.Error() == "never cancelled" {
		t.Errorf("handler context cause = %v, want cancellation by the peer", cause)
	}
	if err := o.cs.Ping(ctx); err != nil {
		t.Errorf("ping after cancellation: %v", err)
	}
}

func (o *ourClientScenario) resources(t *testing.T, ctx context.Context) {
	cs := o.cs
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
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
	read := func(uri string) gomcp.ResourceContents {
		t.Helper()
		rr, err := cs.ReadResource(ctx, &gomcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(rr.Contents) != 1 {
			t.Fatalf("read %s: %d contents", uri, len(rr.Contents))
		}
		return rr.Contents[0]
	}
	if c, _ := read(helloURI).(*gomcp.TextResourceContents); c == nil || c.Text != helloText || c.MIMEType != "text/plain" {
		t.Errorf("hello = %+v", c)
	}
	b, _ := read(logoURI).(*gomcp.BlobResourceContents)
	if b == nil {
		t.Fatal("logo is not a blob")
	}
	if data, err := b.DecodeData(); err != nil || !bytes.Equal(data, logoBytes) {
		t.Errorf("logo = %v, %v", data, err)
	}
	if c, _ := read("file:///users/42").(*gomcp.TextResourceContents); c == nil || c.Text != "user 42" {
		t.Errorf("user 42 = %+v", c)
	}
	// go-sdk answers -32602 (SEP-2164) in every revision; -32002 is the
	// older code, which clients must still accept.
	_, err = cs.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "file:///missing"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams && je.Code != gomcp.CodeResourceNotFound {
		t.Errorf("missing resource: err = %v, want code -32602 or -32002", err)
	}
}

func (o *ourClientScenario) subscriptions(t *testing.T, ctx context.Context) {
	if o.modern {
		o.listen(t, ctx, &gomcp.SubscriptionFilter{ResourceSubscriptions: []string{helloURI}}, func() bool {
			if err := o.f.resourceUpdated(ctx, helloURI); err != nil {
				t.Fatal(err)
			}
			return updatedSoon(t, o.ev.updated)
		})
		return
	}
	if err := o.cs.Subscribe(ctx, &gomcp.SubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	if got := waitFor(t, o.f.subscribedCh(), "subscribe"); got != "+"+helloURI {
		t.Errorf("subscribe handler saw %q", got)
	}
	if err := o.f.resourceUpdated(ctx, helloURI); err != nil {
		t.Fatal(err)
	}
	if uri := waitFor(t, o.ev.updated, "notifications/resources/updated"); uri != helloURI {
		t.Errorf("updated %q", uri)
	}
	if err := o.cs.Unsubscribe(ctx, &gomcp.UnsubscribeParams{URI: helloURI}); err != nil {
		t.Fatal(err)
	}
	if got := waitFor(t, o.f.subscribedCh(), "unsubscribe"); got != "-"+helloURI {
		t.Errorf("unsubscribe handler saw %q", got)
	}
	if err := o.f.resourceUpdated(ctx, helloURI); err != nil {
		t.Fatal(err)
	}
	if err := o.cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-o.ev.updated:
		t.Errorf("update for %q after unsubscribing", uri)
	case <-time.After(50 * time.Millisecond):
	}
}

// listen opens a subscriptions/listen stream with filter (2026-07-28) and
// calls trigger until it reports that the expected notification arrived,
// then closes the stream and checks that Listen returns cleanly. trigger is
// repeated because nothing tells the client when the server has started
// honouring the filter.
func (o *ourClientScenario) listen(t *testing.T, ctx context.Context, filter *gomcp.SubscriptionFilter, trigger func() bool) {
	t.Helper()
	lctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- o.cs.Listen(lctx, filter) }()
	if !eventually(ctx, trigger) {
		t.Error("the expected notification never arrived on the listen stream")
	}
	stop()
	if err := waitFor(t, done, "Listen to return"); err != nil {
		t.Errorf("Listen: %v", err)
	}
}

func (o *ourClientScenario) prompts(t *testing.T, ctx context.Context) {
	lp, err := o.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lp.Prompts) != 1 || lp.Prompts[0].Name != fixturePrompt || len(lp.Prompts[0].Arguments) != 1 ||
		!lp.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts = %+v", lp.Prompts)
	}
	gp, err := o.cs.GetPrompt(ctx, &gomcp.GetPromptParams{Name: fixturePrompt, Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gp.Messages) != 1 || gp.Messages[0].Role != gomcp.RoleUser || gp.Description != "a greeting" {
		t.Fatalf("prompt = %+v", gp)
	}
	if text, _ := gp.Messages[0].Content.(*gomcp.TextContent); text == nil || text.Text != "Hello, Ada!" {
		t.Errorf("prompt message %+v", gp.Messages[0].Content)
	}
	if _, err := o.cs.GetPrompt(ctx, &gomcp.GetPromptParams{Name: "no-such-prompt"}); err == nil {
		t.Error("unknown prompt: want an error")
	}
}

func (o *ourClientScenario) completion(t *testing.T, ctx context.Context) {
	res, err := o.cs.Complete(ctx, &gomcp.CompleteParams{
		Ref:      gomcp.CompleteReference{Type: gomcp.RefTypePrompt, Name: fixturePrompt},
		Argument: gomcp.CompleteArgument{Name: "name", Value: "al"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Completion.Values, []string{"alice", "albert"}) || res.Completion.Total != 2 {
		t.Errorf("completion = %+v", res.Completion)
	}
}

func (o *ourClientScenario) listChanged(t *testing.T, ctx context.Context) {
	addLate := o.f.addLateTool
	if o.modern {
		o.listen(t, ctx, &gomcp.SubscriptionFilter{ToolsListChanged: true}, func() bool {
			addLate()
			_, ok := soon(o.ev.toolsChanged)
			return ok
		})
	} else {
		addLate()
		waitFor(t, o.ev.toolsChanged, "notifications/tools/list_changed")
	}
	n := 0
	for _, err := range o.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(fixtureToolNames)+1 {
		t.Errorf("%d tools after AddTool, want %d", n, len(fixtureToolNames)+1)
	}
	if got := o.callText(t, ctx, "late", `{}`); got != "late" {
		t.Errorf("late = %q", got)
	}
}
