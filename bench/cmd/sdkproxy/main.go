// Command sdkproxy is the least a typed proxy built on this SDK does: it
// runs its arguments as a child server, lists its tools, and serves them
// over stdio, each call forwarded with ClientSession.CallTool and its
// result returned as it came. No namespacing, visibility, timeouts,
// progress or routing of questions: run.sh puts it beside mcp gateway, so
// that what the gateway package adds reads against what a server and a
// client of the SDK cost by themselves.
//
//	sdkproxy COMMAND [ARG...]
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sdkproxy COMMAND [ARG...]")
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkproxy:", err)
		os.Exit(1)
	}
}

func run(argv []string) error {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "sdkproxy", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &transport.CommandTransport{Cmd: exec.Command(argv[0], argv[1:]...)})
	if err != nil {
		return err
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkproxy", Version: "1.0.0"}, nil)
	for _, t := range tools.Tools {
		name := t.Name
		h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments})
		}
		if err := s.AddTool(t, h); err != nil {
			return err
		}
	}
	return s.Run(ctx, transport.Stdio())
}
