package compat

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
)

// mcpGoFixture is a server built with github.com/mark3labs/mcp-go v1.2.1,
// offering the same features as goSDKFixture, written the way mcp-go's
// documentation and examples show, for this library's client to walk.
type mcpGoFixture struct {
	server *mcpgoserver.MCPServer

	initialized  chan struct{}
	blockStarted chan struct{}
	cancelled    chan error
	rootsChange  chan struct{}
	subscribed   chan string

	initOnce sync.Once

	mu       sync.Mutex
	client   mcpgo.InitializeParams     // what initialize said
	watchers map[string]map[string]bool // URI -> the ids of the sessions subscribed to it
}

func newMCPGoFixture() *mcpGoFixture {
	f := &mcpGoFixture{
		initialized:  make(chan struct{}),
		blockStarted: make(chan struct{}, 1),
		cancelled:    make(chan error, 1),
		rootsChange:  make(chan struct{}, 8),
		subscribed:   make(chan string, 8),
		watchers:     map[string]map[string]bool{},
	}
	hooks := &mcpgoserver.Hooks{}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
		f.mu.Lock()
		f.client = req.Params
		f.mu.Unlock()
	})
	// mcp-go acknowledges resources/subscribe and leaves the bookkeeping to
	// the server's hooks (server.go, handleSubscribe).
	hooks.AddBeforeSubscribe(func(ctx context.Context, _ any, req *mcpgo.SubscribeRequest) {
		f.watch(ctx, req.Params.URI, true)
		f.subscribed <- "+" + req.Params.URI
	})
	hooks.AddBeforeUnsubscribe(func(ctx context.Context, _ any, req *mcpgo.UnsubscribeRequest) {
		f.watch(ctx, req.Params.URI, false)
		f.subscribed <- "-" + req.Params.URI
	})
	s := mcpgoserver.NewMCPServer("mcp-go-fixture", "1.2.3",
		mcpgoserver.WithToolCapabilities(true),
		mcpgoserver.WithResourceCapabilities(true, true),
		mcpgoserver.WithPromptCapabilities(true),
		mcpgoserver.WithLogging(),
		mcpgoserver.WithCompletions(),
		mcpgoserver.WithPromptCompletionProvider(f),
		mcpgoserver.WithPaginationLimit(3),
		mcpgoserver.WithInputSchemaValidation(),
		mcpgoserver.WithHooks(hooks),
	)
	f.server = s
	s.AddNotificationHandler("notifications/initialized", func(context.Context, mcpgo.JSONRPCNotification) {
		f.initOnce.Do(func() { close(f.initialized) })
	})
	s.AddNotificationHandler("notifications/roots/list_changed", func(context.Context, mcpgo.JSONRPCNotification) {
		f.rootsChange <- struct{}{}
	})

	text := mcpgo.NewToolResultText
	s.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("add two integers"),
		mcpgo.WithInputSchema[addIn](), mcpgo.WithOutputSchema[addOut]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("echo text"), mcpgo.WithString("text", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return text(req.GetString("text", "")), nil
		})
	s.AddTool(mcpgo.NewTool("fail", mcpgo.WithDescription("always fails")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultError("boom"), nil
		})
	s.AddTool(mcpgo.NewTool("progress", mcpgo.WithDescription("reports progress, then logs")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				for i, msg := range []string{"one", "two", "three"} {
					if err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": req.Params.Meta.ProgressToken, "progress": i + 1, "total": 3, "message": msg,
					}); err != nil {
						return nil, err
					}
				}
			}
			if err := s.SendLogMessageToClient(ctx, mcpgo.NewLoggingMessageNotification(mcpgo.LoggingLevelInfo, "fixture", "progress done")); err != nil {
				return nil, err
			}
			return text("done"), nil
		})
	s.AddTool(mcpgo.NewTool("log", mcpgo.WithDescription("logs at four levels")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			for i, l := range []mcpgo.LoggingLevel{mcpgo.LoggingLevelDebug, mcpgo.LoggingLevelInfo, mcpgo.LoggingLevelWarning, mcpgo.LoggingLevelError} {
				if err := s.SendLogMessageToClient(ctx, mcpgo.NewLoggingMessageNotification(l, "fixture", map[string]any{"n": i, "level": string(l)})); err != nil {
					return nil, err
				}
			}
			return text("logged"), nil
		})
	// The tools that need the client's input are written in mcp-go's
	// multi-round-trip style (server/mrtr.go), which serves both eras: at
	// 2026-07-28 the client retries with the answers; on a 2025 session
	// mcp-go sends the requests itself and calls the handler again.
	s.AddTool(mcpgo.NewTool("sample", mcpgo.WithDescription("asks the client's model"), mcpgo.WithString("text", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res := mcpgoserver.SamplingResponse(req.Params.InputResponses, "sampling")
			if res == nil {
				return mcpgoserver.NewInputRequestBuilder("").Sample("sampling", mcpgo.CreateMessageParams{
					Messages:  []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(req.GetString("text", ""))}},
					MaxTokens: 50,
				}).ToolResult(), nil
			}
			// At 2026-07-28 mcp-go leaves the content of a sampling input
			// response undecoded (a map), at 2025-11-25 it decodes it.
			content := res.Content
			if m, ok := content.(map[string]any); ok {
				c, err := mcpgo.ParseContent(m)
				if err != nil {
					return nil, err
				}
				content = c
			}
			t, ok := content.(mcpgo.TextContent)
			if !ok {
				return nil, fmt.Errorf("sampling returned %T", content)
			}
			return text(res.Model + ": " + t.Text), nil
		})
	s.AddTool(mcpgo.NewTool("elicit", mcpgo.WithDescription("asks the user for a name")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res := mcpgoserver.ElicitationResponse(req.Params.InputResponses, "elicitation")
			if res == nil {
				return mcpgoserver.NewInputRequestBuilder("").Elicit("elicitation", mcpgo.ElicitationParams{
					Mode:    mcpgo.ElicitationModeForm,
					Message: "What is your name?",
					RequestedSchema: map[string]any{
						"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"},
					},
				}).ToolResult(), nil
			}
			content, _ := res.Content.(map[string]any)
			return text(fmt.Sprintf("%s %v", res.Action, content["name"])), nil
		})
	s.AddTool(mcpgo.NewTool("roots", mcpgo.WithDescription("lists the client's roots")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			res := mcpgoserver.RootsResponse(req.Params.InputResponses, "roots")
			if res == nil {
				return mcpgoserver.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, ",")), nil
		})
	s.AddTool(mcpgo.NewTool("block", mcpgo.WithDescription("waits until cancelled")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			f.blockStarted <- struct{}{}
			select {
			case <-ctx.Done():
				f.cancelled <- context.Cause(ctx)
				return nil, ctx.Err()
			case <-time.After(testTimeout):
				f.cancelled <- errors.New("never cancelled")
				return text("not cancelled"), nil
			}
		})
	s.AddTool(mcpgo.NewTool("image", mcpgo.WithDescription("returns an image and an embedded resource")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{
				mcpgo.NewImageContent(base64.StdEncoding.EncodeToString(logoBytes), "image/png"),
				mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: helloURI, MIMEType: "text/plain", Text: helloText}),
			}}, nil
		})
	s.AddTool(mcpgo.NewTool("whoami", mcpgo.WithDescription("describes the client behind the request")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			// 2026-07-28: this request's _meta; stateful sessions: initialize.
			var caps mcpgo.ClientCapabilities
			if info := mcpgoserver.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
				caps = *info.ClientCapabilities
			} else if cs, ok := mcpgoserver.ClientSessionFromContext(ctx).(mcpgoserver.SessionWithClientInfo); ok {
				caps = cs.GetClientCapabilities()
			}
			return text(fmt.Sprintf("version=%s sampling=%t elicitation=%t roots=%t", mcpgoserver.RequestProtocolVersion(ctx),
				caps.Sampling != nil, caps.Elicitation != nil, caps.Roots != nil)), nil
		})

	s.AddResource(mcpgo.NewResource(helloURI, "hello", mcpgo.WithMIMEType("text/plain")),
		func(_ context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: helloText}}, nil
		})
	s.AddResource(mcpgo.NewResource(logoURI, "logo", mcpgo.WithMIMEType("image/png")),
		func(_ context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.BlobResourceContents{URI: req.Params.URI, MIMEType: "image/png",
				Blob: base64.StdEncoding.EncodeToString(logoBytes)}}, nil
		})
	s.AddResourceTemplate(mcpgo.NewResourceTemplate(userTemplate, "user"),
		func(_ context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			id := strings.TrimPrefix(req.Params.URI, "file:///users/")
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "user " + id}}, nil
		})
	s.AddPrompt(mcpgo.NewPrompt(fixturePrompt, mcpgo.WithPromptDescription("greets someone"),
		mcpgo.WithArgument("name", mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("a greeting", []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Hello, "+req.Params.Arguments["name"]+"!")),
			}), nil
		})
	return f
}

// CompletePromptArgument completes the greet prompt's name.
func (f *mcpGoFixture) CompletePromptArgument(_ context.Context, _ string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	var vals []string
	for _, v := range []string{"alice", "albert", "bob"} {
		if strings.HasPrefix(v, arg.Value) {
			vals = append(vals, v)
		}
	}
	return &mcpgo.Completion{Values: vals, Total: len(vals)}, nil
}

// watch records that the session behind ctx subscribed to uri, or no longer.
func (f *mcpGoFixture) watch(ctx context.Context, uri string, on bool) {
	cs := mcpgoserver.ClientSessionFromContext(ctx)
	if cs == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watchers[uri] == nil {
		f.watchers[uri] = map[string]bool{}
	}
	if on {
		f.watchers[uri][cs.SessionID()] = true
	} else {
		delete(f.watchers[uri], cs.SessionID())
	}
}

// serveMCPGoFixture serves f over one end of a fresh pair of pipes with
// mcp-go's stdio server until the test ends, and returns the pipes.
func serveMCPGoFixture(t *testing.T, f *mcpGoFixture, kind string) pipes {
	t.Helper()
	p := newPipes(t, kind)
	ctx, cancel := context.WithCancel(context.Background())
	stdio := mcpgoserver.NewStdioServer(f.server)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, p.c2sR, p.s2cW) }()
	t.Cleanup(func() {
		cancel()
		p.c2sR.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("mcp-go stdio server did not stop")
		}
		p.s2cW.Close()
	})
	return p
}

// The peerServer methods.

func (f *mcpGoFixture) serverName() string              { return "mcp-go-fixture" }
func (f *mcpGoFixture) initializedCh() <-chan struct{}  { return f.initialized }
func (f *mcpGoFixture) rootsChangedCh() <-chan struct{} { return f.rootsChange }
func (f *mcpGoFixture) blockStartedCh() <-chan struct{} { return f.blockStarted }
func (f *mcpGoFixture) cancelledCh() <-chan error       { return f.cancelled }
func (f *mcpGoFixture) subscribedCh() <-chan string     { return f.subscribed }

func (f *mcpGoFixture) clientSeen(*testing.T) (name string, sampling, elicitation, roots bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.client.Capabilities
	return f.client.ClientInfo.Name, c.Sampling != nil, c.Elicitation != nil, c.Roots != nil
}

// pingClient: mcp-go v1.2.1's MCPServer has no request method for ping.
func (f *mcpGoFixture) pingClient(*testing.T, context.Context) error { return errNoServerPing }

func (f *mcpGoFixture) resourceUpdated(_ context.Context, uri string) error {
	f.mu.Lock()
	var ids []string
	for id := range f.watchers[uri] {
		ids = append(ids, id)
	}
	f.mu.Unlock()
	for _, id := range ids {
		if err := f.server.SendNotificationToSpecificClient(id, "notifications/resources/updated", map[string]any{"uri": uri}); err != nil {
			return err
		}
	}
	return nil
}

func (f *mcpGoFixture) addLateTool() {
	f.server.AddTool(mcpgo.NewTool("late", mcpgo.WithDescription("added after connect")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("late"), nil
		})
}

// notifiesLate: a peer bug. mcp-go v1.2.1 can deliver a notification that
// a handler sent before returning after the handler's response. Over stdio
// its StdioServer writes notifications from a goroutine of their own
// (stdio.go, handleNotifications) and responses directly. Over Streamable
// HTTP it answers with JSON, or switches to SSE when the handler notifies,
// and puts some of the request's notifications on the standalone GET stream
// instead (seen: progress "one" on the GET stream, "two" and "three" on the
// POST's; a log message lost), where the transport rules say messages
// SHOULD be unrelated to any running request, and so unordered with its
// response. The spec says a progress notification references a request in
// progress: the client drops the ones that arrive after the response.
func (f *mcpGoFixture) notifiesLate() bool { return true }
