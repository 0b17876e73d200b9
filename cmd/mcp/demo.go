package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// The demo server shows one of each feature: typed tools with inferred
// schemas, a tool that reports progress and logs, a static resource, a
// resource template, a prompt with arguments, and argument completion.

type greetIn struct {
	Name  string `json:"name" description:"who to greet"`
	Style string `json:"style,omitempty" description:"how to greet" jsonschema:"enum=plain|loud,default=plain"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

type countIn struct {
	To int `json:"to" description:"count from 1 to this number" jsonschema:"minimum=1,maximum=100"`
}

var languages = []string{"go", "python", "rust", "typescript", "zig"}

// newDemoServer returns the demo server, or the first feature it could not
// register.
func newDemoServer(logger *slog.Logger) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "gomcp-demo", Title: "gomcp demo server", Version: "0.1.0"}, &mcp.ServerOptions{
		Instructions:      "A demo of every MCP server feature. Try the greet and count tools, the demo://readme resource and the review prompt.",
		Logger:            logger,
		CompletionHandler: complete,
	})

	err := mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (greetOut, error) {
			g := "Hello, " + in.Name
			if in.Style == "loud" {
				g = strings.ToUpper(g) + "!"
			}
			return greetOut{Greeting: g}, nil
		})
	if err != nil {
		return nil, err
	}

	err = mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "Count slowly, reporting progress and logging each step."},
		func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (string, error) {
			for i := 1; i <= in.To; i++ {
				select {
				case <-ctx.Done():
					return "", ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
				_ = req.NotifyProgress(ctx, float64(i), float64(in.To), fmt.Sprintf("counted %d", i))
				_ = req.Log(ctx, mcp.LevelInfo, "count", map[string]int{"n": i})
			}
			return fmt.Sprintf("counted to %d", in.To), nil
		})
	if err != nil {
		return nil, err
	}

	err = s.AddResource(&mcp.Resource{URI: "demo://readme", Name: "readme", MIMEType: "text/markdown", Description: "What this server is."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/markdown",
				Text: "# gomcp demo\n\nA server built with github.com/gomcp/sdk.",
			}}}, nil
		})
	if err != nil {
		return nil, err
	}

	err = s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "demo://lang/{name}", Name: "language", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/plain", Text: "All about " + vars["name"] + ".",
			}}}, nil
		})
	if err != nil {
		return nil, err
	}

	err = s.AddPrompt(&mcp.Prompt{Name: "review", Description: "Ask for a code review.",
		Arguments: []*mcp.PromptArgument{{Name: "language", Description: "programming language", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.NewTextContent("Please review this " + req.Params.Arguments["language"] + " code."),
			}}}, nil
		})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// complete offers language names for the review prompt and the language
// template.
func complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var vals []string
	for _, l := range languages {
		if strings.HasPrefix(l, req.Params.Argument.Value) {
			vals = append(vals, l)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: vals, Total: len(vals)}}, nil
}
