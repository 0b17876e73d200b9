package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

func main() {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil)
	st, err := transport.Command(exec.Command(os.Getenv("SERVER_EVERYTHING"), "stdio"), nil)
	if err != nil {
		panic(err)
	}
	cs, err := c.Connect(ctx, st)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	lost := 0
	for i := 0; i < 20; i++ {
		var n atomic.Int32
		pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { n.Add(1) })
		_, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: json.RawMessage(`{"duration":0.02,"steps":2}`)})
		if err != nil {
			panic(err)
		}
		if n.Load() != 2 {
			lost++
		}
	}
	fmt.Println("calls with lost progress:", lost, "of 20")
}
