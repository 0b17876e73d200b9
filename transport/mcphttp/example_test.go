package mcphttp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// A server on Streamable HTTP. One endpoint serves every protocol revision:
// stateful sessions (initialize, Mcp-Session-Id) and stateless 2026-07-28
// requests alike. A deployment of several processes shares a SessionStore,
// an EventStore and the server's Notifier; the defaults serve one process.
func ExampleNewHandler() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	if err := s.AddTool(&mcp.Tool{Name: "hello"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("hello")}}, nil
		}); err != nil {
		log.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{
		Addr:              "127.0.0.1:8080",
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second, // see the Handler doc for the timeouts to set
	}
	if err := srv.ListenAndServe(); err != nil {
		log.Fatal(err)
	}
}

// A client over Streamable HTTP: it finds out by itself which revision the
// server speaks.
func ExampleNewClientStream() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	if err := s.AddTool(&mcp.Tool{Name: "hello"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("hello over HTTP")}}, nil
		}); err != nil {
		log.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	defer h.Close()
	ts := httptest.NewServer(h) // in a real program: the server's URL
	defer ts.Close()

	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, mcphttp.NewClientStream(ts.URL, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cs.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output: 2026-07-28 hello over HTTP
}

// A stateless deployment with a server per request, as github-mcp-server
// builds one per user: the tools depend on who asks (here a header; in a
// real program, what authentication established). A 2026-07-28 client is
// served by a new server at every request; a 2025-11-25 client gets a
// session served by the server made for its initialize. Replicas behind a
// load balancer share a SessionStore, an EventStore and a Notifier (here
// the in-memory ones: one process), so any of them serves any request.
func ExampleNewHandlerFor() {
	notifier := shared.NewMemoryNotifier()             // redisstore's, across processes
	key := []byte("the deployment's requestState key") // redisstore.SharedKey
	serverFor := func(r *http.Request) *mcp.Server {
		user := r.Header.Get("X-User")
		if user == "" {
			return nil // 400
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "per-user", Version: "1.0.0"}, &mcp.ServerOptions{Notifier: notifier, RequestStateKey: key})
		if err := s.AddTool(&mcp.Tool{Name: "whoami"},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("you are " + user)}}, nil
			}); err != nil {
			return nil
		}
		return s
	}
	h := mcphttp.NewHandlerFor(serverFor, &mcphttp.HandlerOptions{
		SessionStore: shared.NewMemorySessionStore(nil),
		EventStore:   mcphttp.NewMemoryEventStore(nil),
		Notifier:     notifier,
	})
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	for _, version := range []string{mcp.Version20260728, mcp.Version20251125} {
		c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{ProtocolVersion: version})
		stream := mcphttp.NewClientStream(ts.URL, &mcphttp.ClientOptions{Header: http.Header{"X-User": {"ada"}}})
		cs, err := c.Connect(ctx, stream)
		if err != nil {
			log.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(cs.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
		if err := cs.Close(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// 2026-07-28 you are ada
	// 2025-11-25 you are ada
}
