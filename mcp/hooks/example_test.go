package hooks_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
)

// Middleware added to a server after it was made, which reads each tool
// call's typed params and result (go-sdk's AddReceivingMiddleware; mcp-go's
// BeforeAny, OnSuccess and OnError hooks become one such middleware).
func ExampleAddReceivingMiddleware() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	if err := s.AddTool(&mcp.Tool{Name: "hello"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("hello")}}, nil
	}); err != nil {
		log.Fatal(err)
	}
	hooks.AddReceivingMiddleware(s, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			res, err := next(ctx, r)
			p, _ := hooks.Params(r) // decoded once: the handler gets the same value
			if call, ok := p.(*mcp.CallToolParams); ok {
				out, _ := res.(*mcp.CallToolResult)
				fmt.Printf("tools/call %s: isError=%v err=%v\n", call.Name, out != nil && out.IsError, err)
			}
			return res, err
		}
	})
	hooks.OnRegisterSession(s, func(ctx context.Context, ss *mcp.ServerSession) { fmt.Println("session registered") })
	hooks.OnUnregisterSession(s, func(ctx context.Context, ss *mcp.ServerSession) { fmt.Println("session unregistered") })

	ctx := context.Background()
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
	cs, err := c.Connect(ctx, a)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello"}); err != nil {
		log.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		log.Fatal(err)
	}
	_ = ss.Wait()
	// Output:
	// session registered
	// tools/call hello: isError=false err=<nil>
	// session unregistered
}

// A tool middleware (mcp-go's WithToolHandlerMiddleware) that names the
// tool in its handler's errors.
func ExampleAddToolMiddleware() {
	s := mcp.NewServer(nil, nil)
	hooks.AddToolMiddleware(s, func(next mcp.ToolHandler) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("%s failed: %w", req.Params.Name, err)
			}
			return res, nil
		}
	})
	if err := s.AddTool(&mcp.Tool{Name: "broken"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("disk full")
	}); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := mcp.NewClient(nil, nil).Connect(ctx, a)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "broken"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	if err := cs.Close(); err != nil {
		log.Fatal(err)
	}
	_ = ss.Wait()
	// Output: true broken failed: disk full
}

// A client that sees every notification, whatever its method (mcp-go's
// client.OnNotification).
func ExampleOnNotification() {
	s := mcp.NewServer(nil, nil)
	if err := s.AddTool(&mcp.Tool{Name: "announce"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, req.Notify(ctx, "example/announcement", map[string]string{"text": "hi"})
	}); err != nil {
		log.Fatal(err)
	}
	c := mcp.NewClient(nil, nil)
	hooks.OnNotification(c, func(ctx context.Context, cs *mcp.ClientSession, r *mcp.Request) {
		fmt.Println(r.Method, string(r.Params))
	})
	ctx := context.Background()
	a, b := transport.Pipe()
	ss := s.Connect(b, nil)
	cs, err := c.Connect(ctx, a)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "announce"}); err != nil {
		log.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		log.Fatal(err)
	}
	_ = ss.Wait()
	// Output: example/announcement {"text":"hi"}
}
