package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

func main() {
	url := os.Args[len(os.Args)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := mcp.NewClient(&mcp.Implementation{Name: "tmp", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	cs, err := c.Connect(ctx, mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Logger: log}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "list:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "tools:", len(tools.Tools), "version", cs.ProtocolVersion())
	if name := os.Getenv("TOOL"); name != "" {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: []byte(os.Getenv("ARGS"))})
		if err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
			os.Exit(1)
		}
		b, _ := json.Marshal(res)
		fmt.Fprintf(os.Stderr, "%s -> %s\n", name, b)
		return
	}
	for _, t := range tools.Tools {
		args := []byte(`{}`)
		if t.Name == "add_numbers" {
			args = []byte(`{"a":2,"b":3}`)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: args})
		if err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "%s -> %+v\n", t.Name, res.Content)
	}
}
