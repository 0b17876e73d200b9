// Command gomcp is the benchmark's gomcp server: the echo and add tools over
// stdio, or over Streamable HTTP with -http ADDR, with the SDK's defaults.
package main

import (
	"context"
	"flag"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
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
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-gomcp", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (string, error) { return in.Text, nil })
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds two integers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	defer startProfile()()
	if *addr == "" {
		// The driver ends the server by closing its standard input: Run
		// returns, and a CPU profile can be written. Like the other servers,
		// this one handles no signal.
		if err := s.Run(context.Background(), transport.Stdio()); err != nil {
			log.Fatal(err)
		}
		return
	}
	// Defaults, but for the per-client session bound (100): every session
	// of the benchmark comes from one address, and the idle-session figure
	// opens thousands. The other servers have no such bound.
	h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{MaxSessionsPerClient: -1})
	go func() { log.Fatal(http.ListenAndServe(*addr, h)) }()
	// The driver ends the server by closing its standard input, which lets
	// a CPU profile be written.
	_, _ = io.Copy(io.Discard, os.Stdin)
}
