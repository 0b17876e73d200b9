package compat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gomcp "github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// testTimeout bounds every interop scenario, so that a protocol mismatch
// fails the test instead of hanging it.
const testTimeout = 20 * time.Second

// ourFixture is a server built from this repository's library that
// exercises every server feature a foreign client can reach. Its channels
// report what the server observed, for the tests to check.
type ourFixture struct {
	server *gomcp.Server

	initialized  chan struct{} // closed by the InitializedHandler
	blockStarted chan struct{} // the "block" tool has started
	cancelled    chan error    // the "block" tool reports why its context ended
	rootsChange  chan struct{} // notifications/roots/list_changed

	initOnce sync.Once
}

// Contents of the fixture's resources and prompts.
const (
	helloURI      = "file:///hello.txt"
	helloText     = "hello world"
	logoURI       = "file:///logo.png"
	userTemplate  = "file:///users/{id}"
	fixturePrompt = "greet"
)

var logoBytes = []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 3}

type echoIn struct {
	Text string `json:"text"`
}

// fixtureToolNames lists the tools of both fixtures in the order they are
// registered, which is the order this library lists them in.
var fixtureToolNames = []string{"add", "echo", "fail", "progress", "log", "sample", "elicit", "roots", "block", "image", "whoami"}

func newOurFixture(opts *gomcp.ServerOptions) *ourFixture {
	f := &ourFixture{
		initialized:  make(chan struct{}),
		blockStarted: make(chan struct{}, 1),
		cancelled:    make(chan error, 1),
		rootsChange:  make(chan struct{}, 8),
	}
	if opts == nil {
		opts = &gomcp.ServerOptions{}
	}
	opts.PageSize = 3 // ten tools: every client has to page
	opts.InitializedHandler = func(context.Context, *gomcp.ServerSession) {
		f.initOnce.Do(func() { close(f.initialized) })
	}
	opts.RootsListChangedHandler = func(context.Context, *gomcp.ServerSession) {
		f.rootsChange <- struct{}{}
	}
	opts.CompletionHandler = func(_ context.Context, req *gomcp.CompleteRequest) (*gomcp.CompleteResult, error) {
		var vals []string
		for _, v := range []string{"alice", "albert", "bob"} {
			if strings.HasPrefix(v, req.Params.Argument.Value) {
				vals = append(vals, v)
			}
		}
		return &gomcp.CompleteResult{Completion: gomcp.Completion{Values: vals, Total: len(vals)}}, nil
	}
	s := gomcp.NewServer(&gomcp.Implementation{Name: "gomcp-fixture", Version: "1.2.3"}, opts)
	f.server = s

	gomcp.AddTool(s, &gomcp.Tool{Name: "add", Description: "add two integers"},
		func(_ context.Context, _ *gomcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "echo", Description: "echo text"},
		func(_ context.Context, _ *gomcp.CallToolRequest, in echoIn) (string, error) {
			return in.Text, nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "fail", Description: "always fails"},
		func(context.Context, *gomcp.CallToolRequest, struct{}) (string, error) {
			return "", errors.New("boom")
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "progress", Description: "reports progress, then logs"},
		func(ctx context.Context, req *gomcp.CallToolRequest, _ struct{}) (string, error) {
			for i, msg := range []string{"one", "two", "three"} {
				if err := req.NotifyProgress(ctx, float64(i+1), 3, msg); err != nil {
					return "", err
				}
			}
			if err := req.Log(ctx, gomcp.LevelInfo, "fixture", "progress done"); err != nil {
				return "", err
			}
			return "done", nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "log", Description: "logs at four levels"},
		func(ctx context.Context, req *gomcp.CallToolRequest, _ struct{}) (string, error) {
			for i, l := range []gomcp.LoggingLevel{gomcp.LevelDebug, gomcp.LevelInfo, gomcp.LevelWarning, gomcp.LevelError} {
				if err := req.Log(ctx, l, "fixture", map[string]any{"n": i, "level": l.String()}); err != nil {
					return "", err
				}
			}
			return "logged", nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "sample", Description: "asks the client's model"},
		func(ctx context.Context, req *gomcp.CallToolRequest, in echoIn) (string, error) {
			res, err := req.CreateMessage(ctx, &gomcp.CreateMessageParams{
				Messages:  []*gomcp.SamplingMessage{{Role: gomcp.RoleUser, Content: []gomcp.Content{&gomcp.TextContent{Text: in.Text}}}},
				MaxTokens: 50,
			})
			if err != nil {
				return "", err
			}
			if len(res.Content) != 1 {
				return "", fmt.Errorf("sampling returned %d content blocks", len(res.Content))
			}
			text, ok := res.Content[0].(*gomcp.TextContent)
			if !ok {
				return "", fmt.Errorf("sampling returned %T", res.Content[0])
			}
			return res.Model + ": " + text.Text, nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "elicit", Description: "asks the user for a name"},
		func(ctx context.Context, req *gomcp.CallToolRequest, _ struct{}) (string, error) {
			res, err := req.Elicit(ctx, &gomcp.ElicitParams{
				Message: "What is your name?",
				RequestedSchema: &gomcp.ElicitSchema{
					Properties: []gomcp.ElicitProperty{{Name: "name", Schema: &gomcp.PrimitiveSchema{Type: "string"}}},
					Required:   []string{"name"},
				},
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s %v", res.Action, res.Content["name"]), nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "roots", Description: "lists the client's roots"},
		func(ctx context.Context, req *gomcp.CallToolRequest, _ struct{}) (string, error) {
			res, err := req.ListRoots(ctx)
			if err != nil {
				return "", err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return strings.Join(uris, ","), nil
		})
	gomcp.AddTool(s, &gomcp.Tool{Name: "block", Description: "waits until cancelled"},
		func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (string, error) {
			f.blockStarted <- struct{}{}
			select {
			case <-ctx.Done():
				f.cancelled <- context.Cause(ctx)
				return "", ctx.Err()
			case <-time.After(testTimeout):
				f.cancelled <- errors.New("never cancelled")
				return "not cancelled", nil
			}
		})
	s.AddTool(&gomcp.Tool{Name: "image", Description: "returns an image and an embedded resource"},
		func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
			return &gomcp.CallToolResult{Content: []gomcp.Content{
				gomcp.NewImageContent(logoBytes, "image/png"),
				gomcp.NewEmbeddedResource(&gomcp.TextResourceContents{URI: helloURI, MIMEType: "text/plain", Text: helloText}),
			}}, nil
		})

	gomcp.AddTool(s, &gomcp.Tool{Name: "whoami", Description: "describes the client behind the request"},
		func(_ context.Context, req *gomcp.CallToolRequest, _ struct{}) (string, error) {
			caps := req.ClientCapabilities()
			return fmt.Sprintf("version=%s sampling=%t elicitation=%t roots=%t", req.ProtocolVersion(),
				caps.Sampling != nil, caps.Elicitation != nil, caps.Roots != nil), nil
		})

	s.AddResource(&gomcp.Resource{URI: helloURI, Name: "hello", MIMEType: "text/plain"},
		func(_ context.Context, req *gomcp.ReadResourceRequest) (*gomcp.ReadResourceResult, error) {
			return &gomcp.ReadResourceResult{Contents: []gomcp.ResourceContents{
				&gomcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: helloText},
			}}, nil
		})
	s.AddResource(&gomcp.Resource{URI: logoURI, Name: "logo", MIMEType: "image/png"},
		func(_ context.Context, req *gomcp.ReadResourceRequest) (*gomcp.ReadResourceResult, error) {
			return &gomcp.ReadResourceResult{Contents: []gomcp.ResourceContents{
				gomcp.NewBlobResourceContents(req.Params.URI, "image/png", logoBytes),
			}}, nil
		})
	if err := s.AddResourceTemplate(&gomcp.ResourceTemplate{URITemplate: userTemplate, Name: "user"},
		func(_ context.Context, req *gomcp.ReadResourceRequest, args map[string]string) (*gomcp.ReadResourceResult, error) {
			return &gomcp.ReadResourceResult{Contents: []gomcp.ResourceContents{
				&gomcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "user " + args["id"]},
			}}, nil
		}); err != nil {
		panic(err)
	}
	s.AddPrompt(&gomcp.Prompt{Name: fixturePrompt, Description: "greets someone",
		Arguments: []*gomcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *gomcp.GetPromptRequest) (*gomcp.GetPromptResult, error) {
			return &gomcp.GetPromptResult{Description: "a greeting", Messages: []*gomcp.PromptMessage{
				{Role: gomcp.RoleUser, Content: &gomcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}},
			}}, nil
		})
	return f
}

// serveOurFixture connects f's server to one end of a fresh pair of byte
// pipes, framed as stdio, and returns the client's ends. The session is
// closed and waited for when the test ends.
func serveOurFixture(t *testing.T, f *ourFixture, kind string) pipes {
	t.Helper()
	p := newPipes(t, kind)
	ss := f.server.Connect(transport.NewLineStream(p.c2sR, p.s2cW, closeAll{p.c2sR, p.s2cW}, nil), nil)
	t.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	return p
}

// waitFor receives one value from ch or fails the test after testTimeout.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// soon reports whether ch yields a value within 20 ms: one try of a
// condition that eventually or a listen loop repeats.
func soon[T any](ch <-chan T) (T, bool) {
	select {
	case v := <-ch:
		return v, true
	case <-time.After(20 * time.Millisecond):
		var zero T
		return zero, false
	}
}

// updatedSoon reports whether ch yields a resource update within 20 ms,
// failing t if it is not of helloURI.
func updatedSoon(t *testing.T, ch <-chan string) bool {
	t.Helper()
	uri, ok := soon(ch)
	if ok && uri != helloURI {
		t.Errorf("updated %q", uri)
	}
	return ok
}

// sortedCopy returns a sorted copy of s.
func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
