package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// connectInMemory connects client c to server s over an in-memory pipe, as
// the examples do; a real program uses stdio, a subprocess or HTTP.
func connectInMemory(s *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	a, b := transport.Pipe()
	s.Connect(b, nil)
	cs, err := c.Connect(context.Background(), a)
	if err != nil {
		log.Fatal(err)
	}
	return cs
}

// A server on stdio: the way a host such as an IDE or a desktop assistant
// starts a local MCP server.
func ExampleServer_Run() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := s.AddTool(&mcp.Tool{Name: "hello", Description: "say hello"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("hello")}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background(), transport.Stdio()); err != nil {
		log.Fatal(err)
	}
}

// A typed tool: the input schema is inferred from the arguments' type, the
// arguments are validated before the function runs, and the output becomes
// structuredContent.
func ExampleAddTool() {
	type in struct {
		A int `json:"a" description:"first addend"`
		B int `json:"b" description:"second addend"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two integers"},
		func(ctx context.Context, req *mcp.CallToolRequest, args in) (out, error) {
			return out{Sum: args.A + args.B}, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	cs := connectInMemory(s, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil))
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(res.StructuredContent))
	// Output: {"sum":5}
}

// A client: it connects (negotiating the protocol revision by itself),
// lists the server's tools page by page, and calls one.
func ExampleClient_Connect() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	err := s.AddTool(&mcp.Tool{Name: "hello", Description: "say hello"},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("hello, " + req.ClientInfo().Name)}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "demo-client", Version: "1.0.0"}, nil)
	cs := connectInMemory(s, c)
	defer cs.Close()
	ctx := context.Background()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("tool:", tool.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println("revision:", cs.ProtocolVersion())
	// Output:
	// tool: hello
	// hello, demo-client
	// revision: 2026-07-28
}

// A prompt with an argument.
func ExampleServer_AddPrompt() {
	s := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, nil)
	err := s.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "code", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.NewTextContent("Please review:\n" + req.Params.Arguments["code"]),
			}}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	cs := connectInMemory(s, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil))
	defer cs.Close()
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x := 1"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Messages[0].Content.(*mcp.TextContent).Text)
	// Output:
	// Please review:
	// x := 1
}

// Elicitation: a tool asks the user a question through the client. The same
// handler serves every revision: on a stateful session (here, 2025-11-25)
// the server sends elicitation/create and waits for the answer.
func ExampleServerRequest_Elicit() {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1.0.0"}, nil)
	if err := s.AddTool(&mcp.Tool{Name: "greet"}, greetTool); err != nil {
		log.Fatal(err)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: mcp.Version20251125,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	cs := connectInMemory(s, c)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: What is your name?
	// hello, Ada
}

// greetTool asks for the user's name with req.Elicit, whatever the revision.
func greetTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ans, err := req.Elicit(ctx, &mcp.ElicitParams{
		Message: "What is your name?",
		RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString}}},
			Required:   []string{"name"},
		},
	})
	if err != nil {
		return nil, err // on a 2026-07-28 request: ErrInputRequired, returned as it is
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprint("hello, ", ans.Content["name"]))}}, nil
}

// Input-required results (2026-07-28): the server never sends requests to
// the client. The first run of the handler returns ErrInputRequired from
// req.Elicit; the client receives an input-required result, answers it with
// its ElicitationHandler and retries, and the handler runs again, this time
// with the answer. Client and server do this by themselves: the code is the
// same as on a stateful session.
func ExampleErrInputRequired() {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1.0.0"}, nil)
	if err := s.AddTool(&mcp.Tool{Name: "greet"}, greetTool); err != nil {
		log.Fatal(err)
	}

	rounds := 0
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			rounds++
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Grace"}}, nil
		},
	})
	cs := connectInMemory(s, c)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cs.ProtocolVersion(), rounds, res.Content[0].(*mcp.TextContent).Text)
	// Output: 2026-07-28 1 hello, Grace
}

// A resource template: the handler receives the variables matched in the
// URI the client reads.
func ExampleServer_AddResourceTemplate() {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///{dir}/{name}", Name: "file"},
		func(ctx context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/plain", Text: vars["name"] + " in " + vars["dir"],
			}}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}

	cs := connectInMemory(s, mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil))
	defer cs.Close()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///docs/readme.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Contents[0].(*mcp.TextResourceContents).Text)
	// Output: readme.txt in docs
}
