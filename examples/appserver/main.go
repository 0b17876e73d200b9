// Command appserver is a small MCP Apps server: a counter whose tool
// results a host renders in view.html, an HTML page with no build step
// that speaks the app bridge (JSON-RPC over postMessage) by hand.
//
// The tool "counter" shows the count in the view, and answers hosts that
// render no views with text alone; the view's button calls "increment", a
// tool for the view only, which hosts that render no views never see.
//
// It serves MCP over stdio, or over Streamable HTTP on a loopback address
// with -http:
//
//	appserver
//	appserver -http 127.0.0.1:8080   # endpoint /mcp
//	mcp inspect go run ./examples/appserver
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

//go:embed view.html
var web embed.FS

// ViewURI is the view's resource URI.
const ViewURI = "ui://counter/view.html"

// Count is the counter's state, as the view receives it in
// structuredContent.
type Count struct {
	Count int64 `json:"count"`
}

// By is the input of the counter tool: how much to add. The server
// checks the bounds against the schema before the handler runs.
type By struct {
	By int64 `json:"by,omitempty" description:"how much to add (0 shows the count)" jsonschema:"minimum=-1000,maximum=1000"`
}

// newServer returns the counter's server; count is its state.
func newServer(count *atomic.Int64) (*mcp.Server, error) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "appserver", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		return nil, err
	}
	border := true
	err = a.AddFile(&apps.View{
		URI: ViewURI, Name: "counter-view", Title: "Counter",
		Description: "Shows the count, with buttons that use the app bridge",
		UI:          apps.ResourceMeta{PrefersBorder: &border},
	}, web, "view.html")
	if err != nil {
		return nil, err
	}
	add := func(req *mcp.CallToolRequest, in By) (*mcp.ToolResult[Count], error) {
		c := Count{Count: count.Add(in.By)}
		text := fmt.Sprintf("The count is %d.", c.Count)
		if apps.HostRenders(req) {
			text += " The view shows it."
		}
		return &mcp.ToolResult[Count]{Structured: c, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	err = apps.AddTool(a, &mcp.Tool{Name: "counter", Title: "Counter", Description: "Adds to the counter and shows it"},
		apps.ToolMeta{ResourceURI: ViewURI},
		func(_ context.Context, req *mcp.CallToolRequest, in By) (*mcp.ToolResult[Count], error) {
			return add(req, in)
		})
	if err != nil {
		return nil, err
	}
	err = apps.AddTool(a, &mcp.Tool{Name: "increment", Description: "Adds one to the counter (the view's button)"},
		apps.ToolMeta{ResourceURI: ViewURI, Visibility: []apps.Visibility{apps.VisibilityApp}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.ToolResult[Count], error) {
			return add(req, By{By: 1})
		})
	if err != nil {
		return nil, err
	}
	return ms, nil
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at this loopback address (endpoint /mcp) instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var count atomic.Int64
	s, err := newServer(&count)
	if err != nil {
		log.Fatal(err)
	}
	if *addr == "" {
		if err := s.Run(ctx, transport.Stdio()); err != nil && ctx.Err() == nil {
			log.Fatal(err)
		}
		return
	}
	l, err := listen(*addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("appserver: http://%s/mcp", l.Addr())
	if err := serveHTTP(ctx, s, l); err != nil {
		log.Fatal(err)
	}
}

// listen listens at addr, which must be a loopback address: the example
// has no authentication.
func listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("-http %s: not a loopback address", addr)
	}
	return net.Listen("tcp", addr)
}

// serveHTTP serves s on l at /mcp until ctx ends.
func serveHTTP(ctx context.Context, s *mcp.Server, l net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcphttp.NewHandler(s, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(l); err != http.ErrServerClosed {
		return err
	}
	<-stopped // Shutdown has drained the connections
	return nil
}
