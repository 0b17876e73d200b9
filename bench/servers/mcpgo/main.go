// Command mcpgo is the benchmark's server built on
// github.com/mark3labs/mcp-go with its defaults: the echo and add tools over
// stdio, or over Streamable HTTP with -http ADDR.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type echoIn struct {
	Text string `json:"text"`
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()
	s := server.NewMCPServer("bench-mcpgo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("echoes text"), mcp.WithInputSchema[echoIn]()),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in echoIn
			if err := req.BindArguments(&in); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(in.Text), nil
		})
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("adds two integers"), mcp.WithInputSchema[addIn](), mcp.WithOutputSchema[addOut]()),
		mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		}))
	if *addr == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	log.Fatal(http.ListenAndServe(*addr, server.NewStreamableHTTPServer(s)))
}
