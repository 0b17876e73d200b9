// Command appview is the MCP Apps server of the bridge tests: one view
// whose buttons try every request a view may make of its host, and a few
// it must be refused, writing each outcome into the page for the test to
// read. It speaks stdio.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

//go:embed view.html
var viewHTML string

const viewURI = "ui://appview/view.html"

// In is the input of show.
type In struct {
	X int `json:"x"`
}

// Out is the structured output of show and bump.
type Out struct {
	X int64 `json:"x"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(ctx, transport.Stdio()); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}

func newServer() (*mcp.Server, error) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "appview", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		return nil, err
	}
	border := false
	ui := apps.ResourceMeta{
		PrefersBorder: &border,
		// One origin the view may reach, and two entries no host may pass on.
		CSP: &apps.CSP{ConnectDomains: []string{"http://127.0.0.1:2", "'unsafe-eval'", "*"}},
	}
	if err := a.AddHTML(&apps.View{URI: viewURI, Name: "appview", UI: ui}, viewHTML); err != nil {
		return nil, err
	}
	var n atomic.Int64
	view := apps.ToolMeta{ResourceURI: viewURI}
	tools := []func() error{
		func() error {
			return apps.AddTool(a, &mcp.Tool{Name: "show", Description: "Shows x in the view"}, view,
				func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.ToolResult[Out], error) {
					return &mcp.ToolResult[Out]{Structured: Out{X: int64(in.X)}, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("shown %d", in.X)}}}, nil
				})
		},
		func() error {
			return apps.AddTool(a, &mcp.Tool{Name: "fail", Description: "Fails with a protocol error"}, view,
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[Out], error) {
					return nil, jsonrpc.NewError(-32000, "fail always fails")
				})
		},
		func() error {
			return apps.AddTool(a, &mcp.Tool{Name: "bump", Description: "Adds one (the view's button)"},
				apps.ToolMeta{ResourceURI: viewURI, Visibility: []apps.Visibility{apps.VisibilityApp}},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[Out], error) {
					x := n.Add(1)
					return &mcp.ToolResult[Out]{Structured: Out{X: x}, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("bumped to %d", x)}}}, nil
				})
		},
		func() error {
			return apps.AddTool(a, &mcp.Tool{Name: "model_only", Description: "For the model, not for views"},
				apps.ToolMeta{ResourceURI: viewURI, Visibility: []apps.Visibility{apps.VisibilityModel}},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[Out], error) {
					return &mcp.ToolResult[Out]{Content: []mcp.Content{&mcp.TextContent{Text: "the model called me"}}}, nil
				})
		},
	}
	for _, add := range tools {
		if err := add(); err != nil {
			return nil, err
		}
	}
	return ms, nil
}
