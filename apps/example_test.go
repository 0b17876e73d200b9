package apps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// A server links a tool to a view and answers hosts without views in
// text; a host that renders views finds the view through the tool, reads
// it and its CSP, and calls the tool.
func Example() {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	a, err := apps.New(s)
	if err != nil {
		log.Fatal(err)
	}
	err = a.AddHTML(&apps.View{
		URI:  "ui://weather/view.html",
		Name: "weather-view",
		UI:   apps.ResourceMeta{CSP: &apps.CSP{ConnectDomains: []string{"https://api.example.com"}}},
	}, "<!doctype html><title>Weather</title>...")
	if err != nil {
		log.Fatal(err)
	}
	type In struct {
		City string `json:"city"`
	}
	err = apps.AddTool(a, &mcp.Tool{Name: "forecast", Description: "Shows the forecast"},
		apps.ToolMeta{ResourceURI: "ui://weather/view.html"},
		func(_ context.Context, req *mcp.CallToolRequest, in In) (string, error) {
			if apps.HostRenders(req) {
				return "The forecast for " + in.City + " is in the view.", nil
			}
			return in.City + ": sunny, 21°C.", nil // the whole answer, in text
		})
	if err != nil {
		log.Fatal(err)
	}

	// The host's side.
	ctx := context.Background()
	c, srv := transport.Pipe()
	s.Connect(srv, nil)
	caps := &mcp.ClientCapabilities{}
	apps.DeclareClient(caps)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, c)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	ui, err := apps.ToolUI(tools.Tools[0])
	if err != nil {
		log.Fatal(err)
	}
	view, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ui.ResourceURI})
	if err != nil {
		log.Fatal(err)
	}
	meta, err := apps.ContentsUI(view.Contents[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ui.ResourceURI, view.Contents[0].(*mcp.TextResourceContents).MIMEType, meta.CSP.ConnectDomains)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"city":"Oslo"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// ui://weather/view.html text/html;profile=mcp-app [https://api.example.com]
	// The forecast for Oslo is in the view.
}
