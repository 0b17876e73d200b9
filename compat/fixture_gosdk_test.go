package compat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSDKFixture is a server built with the official go-sdk, offering the same
// features as ourFixture, for this library's client to talk to.
type goSDKFixture struct {
	server *gosdk.Server

	initialized  chan struct{}
	blockStarted chan struct{}
	cancelled    chan error
	rootsChange  chan struct{}
	subscribed   chan string // URIs passed to subscribe and unsubscribe, prefixed "+" or "-"

	initOnce sync.Once
}

func newGoSDKFixture() *goSDKFixture {
	f := &goSDKFixture{
		initialized:  make(chan struct{}),
		blockStarted: make(chan struct{}, 1),
		cancelled:    make(chan error, 1),
		rootsChange:  make(chan struct{}, 8),
		subscribed:   make(chan string, 8),
	}
	s := gosdk.NewServer(&gosdk.Implementation{Name: "go-sdk-fixture", Version: "1.2.3"}, &gosdk.ServerOptions{
		PageSize: 3,
		InitializedHandler: func(context.Context, *gosdk.InitializedRequest) {
			f.initOnce.Do(func() { close(f.initialized) })
		},
		RootsListChangedHandler: func(context.Context, *gosdk.RootsListChangedRequest) {
			f.rootsChange <- struct{}{}
		},
		CompletionHandler: func(_ context.Context, req *gosdk.CompleteRequest) (*gosdk.CompleteResult, error) {
			var vals []string
			for _, v := range []string{"alice", "albert", "bob"} {
				if strings.HasPrefix(v, req.Params.Argument.Value) {
					vals = append(vals, v)
				}
			}
			return &gosdk.CompleteResult{Completion: gosdk.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
		},
		SubscribeHandler: func(_ context.Context, req *gosdk.SubscribeRequest) error {
			f.subscribed <- "+" + req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *gosdk.UnsubscribeRequest) error {
			f.subscribed <- "-" + req.Params.URI
			return nil
		},
	})
	f.server = s

	text := func(s string) *gosdk.CallToolResult {
		return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: s}}}
	}
	gosdk.AddTool(s, &gosdk.Tool{Name: "add", Description: "add two integers"},
		func(_ context.Context, _ *gosdk.CallToolRequest, in addIn) (*gosdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo", Description: "echo text"},
		func(_ context.Context, _ *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "fail", Description: "always fails"},
		func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
			return nil, nil, errors.New("boom")
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "progress", Description: "reports progress, then logs"},
		func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i, msg := range []string{"one", "two", "three"} {
				if err := req.Session.NotifyProgress(ctx, &gosdk.ProgressNotificationParams{
					ProgressToken: tok, Progress: float64(i + 1), Total: 3, Message: msg,
				}); err != nil {
					return nil, nil, err
				}
			}
			if err := req.Session.Log(ctx, &gosdk.LoggingMessageParams{Level: "info", Logger: "fixture", Data: "progress done"}); err != nil {
				return nil, nil, err
			}
			return text("done"), nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "log", Description: "logs at four levels"},
		func(ctx context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			for i, l := range []gosdk.LoggingLevel{"debug", "info", "warning", "error"} {
				if err := req.Session.Log(ctx, &gosdk.LoggingMessageParams{Level: l, Logger: "fixture",
					Data: map[string]any{"n": i, "level": string(l)}}); err != nil {
					return nil, nil, err
				}
			}
			return text("logged"), nil, nil
		})
	// The tools that ask the client for input are written in go-sdk's
	// multi-round-trip style (SEP-2322), which its documentation recommends:
	// they return InputRequests and read InputResponses on the retry. On a
	// 2026-07-28 session the client answers and retries; on an older one
	// go-sdk's own middleware sends real requests and calls the handler
	// again. (go-sdk refuses ServerSession.CreateMessage and friends while
	// serving a 2026-07-28 request.)
	gosdk.AddTool(s, &gosdk.Tool{Name: "sample", Description: "asks the client's model"},
		func(_ context.Context, req *gosdk.CallToolRequest, in echoIn) (*gosdk.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["sampling"]
			if !ok {
				return &gosdk.CallToolResult{InputRequests: gosdk.InputRequestMap{"sampling": &gosdk.CreateMessageParams{
					Messages:  []*gosdk.SamplingMessage{{Role: "user", Content: &gosdk.TextContent{Text: in.Text}}},
					MaxTokens: 50,
				}}}, nil, nil
			}
			var model string
			var content []gosdk.Content
			switch r := resp.(type) {
			case *gosdk.CreateMessageResult:
				model, content = r.Model, []gosdk.Content{r.Content}
			case *gosdk.CreateMessageWithToolsResult:
				model, content = r.Model, r.Content
			default:
				return nil, nil, fmt.Errorf("sampling answered with %T", resp)
			}
			if len(content) != 1 {
				return nil, nil, fmt.Errorf("sampling returned %d content blocks", len(content))
			}
			t, ok := content[0].(*gosdk.TextContent)
			if !ok {
				return nil, nil, fmt.Errorf("sampling returned %T", content[0])
			}
			return text(model + ": " + t.Text), nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "elicit", Description: "asks the user for a name"},
		func(_ context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["elicitation"]
			if !ok {
				return &gosdk.CallToolResult{InputRequests: gosdk.InputRequestMap{"elicitation": &gosdk.ElicitParams{
					Message:         "What is your name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				}}}, nil, nil
			}
			res, ok := resp.(*gosdk.ElicitResult)
			if !ok {
				return nil, nil, fmt.Errorf("elicitation answered with %T", resp)
			}
			return text(fmt.Sprintf("%s %v", res.Action, res.Content["name"])), nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "roots", Description: "lists the client's roots"},
		func(_ context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["roots"]
			if !ok {
				return &gosdk.CallToolResult{InputRequests: gosdk.InputRequestMap{"roots": &gosdk.ListRootsParams{}}}, nil, nil
			}
			res, ok := resp.(*gosdk.ListRootsResult)
			if !ok {
				return nil, nil, fmt.Errorf("roots answered with %T", resp)
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, ",")), nil, nil
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "block", Description: "waits until cancelled"},
		func(ctx context.Context, _ *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			f.blockStarted <- struct{}{}
			select {
			case <-ctx.Done():
				f.cancelled <- context.Cause(ctx)
				return nil, nil, ctx.Err()
			case <-time.After(testTimeout):
				f.cancelled <- errors.New("never cancelled")
				return text("not cancelled"), nil, nil
			}
		})
	gosdk.AddTool(s, &gosdk.Tool{Name: "image", Description: "returns an image and an embedded resource"},
		func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{
				&gosdk.ImageContent{Data: logoBytes, MIMEType: "image/png"},
				&gosdk.EmbeddedResource{Resource: &gosdk.ResourceContents{URI: helloURI, MIMEType: "text/plain", Text: helloText}},
			}}, nil, nil
		})

	gosdk.AddTool(s, &gosdk.Tool{Name: "whoami", Description: "describes the client behind the request"},
		func(_ context.Context, req *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			// Stateful sessions: what initialize said. 2026-07-28: what this
			// request's _meta says.
			var version string
			var caps *gosdk.ClientCapabilities
			if ip := req.Session.InitializeParams(); ip != nil {
				version, caps = ip.ProtocolVersion, ip.Capabilities
			} else {
				version, _ = req.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
				raw, _ := json.Marshal(req.Params.Meta["io.modelcontextprotocol/clientCapabilities"])
				if err := json.Unmarshal(raw, &caps); err != nil {
					return nil, nil, err
				}
			}
			if caps == nil {
				caps = &gosdk.ClientCapabilities{}
			}
			return text(fmt.Sprintf("version=%s sampling=%t elicitation=%t roots=%t", version,
				caps.Sampling != nil, caps.Elicitation != nil, caps.RootsV2 != nil)), nil, nil
		})

	s.AddResource(&gosdk.Resource{URI: helloURI, Name: "hello", MIMEType: "text/plain"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: helloText}}}, nil
		})
	s.AddResource(&gosdk.Resource{URI: logoURI, Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: logoBytes}}}, nil
		})
	s.AddResourceTemplate(&gosdk.ResourceTemplate{URITemplate: userTemplate, Name: "user"},
		func(_ context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			id := strings.TrimPrefix(req.Params.URI, "file:///users/")
			return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "user " + id}}}, nil
		})
	s.AddPrompt(&gosdk.Prompt{Name: fixturePrompt, Description: "greets someone",
		Arguments: []*gosdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
			return &gosdk.GetPromptResult{Description: "a greeting", Messages: []*gosdk.PromptMessage{
				{Role: "user", Content: &gosdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}},
			}}, nil
		})
	return f
}

// serveGoSDKFixture connects f's server to one end of a fresh pair of byte
// pipes and returns the pipes and the session.
func serveGoSDKFixture(t *testing.T, f *goSDKFixture, kind string) (pipes, *gosdk.ServerSession) {
	t.Helper()
	p := newPipes(t, kind)
	ss, err := f.server.Connect(context.Background(), &gosdk.IOTransport{Reader: p.c2sR, Writer: p.s2cW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	return p, ss
}

// The peerServer methods.

func (f *goSDKFixture) serverName() string              { return "go-sdk-fixture" }
func (f *goSDKFixture) initializedCh() <-chan struct{}  { return f.initialized }
func (f *goSDKFixture) rootsChangedCh() <-chan struct{} { return f.rootsChange }
func (f *goSDKFixture) blockStartedCh() <-chan struct{} { return f.blockStarted }
func (f *goSDKFixture) cancelledCh() <-chan error       { return f.cancelled }
func (f *goSDKFixture) subscribedCh() <-chan string     { return f.subscribed }

func (f *goSDKFixture) clientSeen(t *testing.T) (name string, sampling, elicitation, roots bool) {
	ip := f.initializedSession(t).InitializeParams()
	if ip.ClientInfo != nil {
		name = ip.ClientInfo.Name
	}
	if c := ip.Capabilities; c != nil {
		sampling, elicitation, roots = c.Sampling != nil, c.Elicitation != nil, c.RootsV2 != nil
	}
	return name, sampling, elicitation, roots
}

func (f *goSDKFixture) pingClient(t *testing.T, ctx context.Context) error {
	return f.initializedSession(t).Ping(ctx, nil)
}

func (f *goSDKFixture) resourceUpdated(ctx context.Context, uri string) error {
	return f.server.ResourceUpdated(ctx, &gosdk.ResourceUpdatedNotificationParams{URI: uri})
}

func (f *goSDKFixture) addLateTool() {
	gosdk.AddTool(f.server, &gosdk.Tool{Name: "late", Description: "added after connect"},
		func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "late"}}}, nil, nil
		})
}

// notifiesLate: go-sdk writes a request's notifications before its response.
func (f *goSDKFixture) notifiesLate() bool { return false }
