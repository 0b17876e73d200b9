package tasks_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport"
)

// A tool whose calls run as tasks: the handler reports progress, asks the
// user mid-task and stops when the client cancels. The client calls it with
// CallToolTask and waits; Wait polls and answers the question with the
// client's elicitation handler.
func Example() {
	s := mcp.NewServer(&mcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	m, err := tasks.New(s, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	err = m.AddTool(&mcp.Tool{Name: "build_report"}, mcp.TaskSupportOptional,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = tasks.Report(ctx, "collecting data")
			select {
			case <-time.After(10 * time.Millisecond): // the long part
			case <-ctx.Done(): // tasks/cancel
				return nil, ctx.Err()
			}
			ok, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Publish the report?"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("report " + string(ok.Action))}}, nil
		}, nil)
	if err != nil {
		log.Fatal(err)
	}

	clientEnd, serverEnd := transport.Pipe() // in a real program: stdio, HTTP
	ss := s.Connect(serverEnd, nil)
	defer ss.Wait()
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	cs, err := c.Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "build_report"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := call.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.Task != nil, res.Content[0].(*mcp.TextContent).Text)
	// Output: true report accept
}
