package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// TestTaskPassesThrough: a tool the upstream runs as a task, called as a
// task downstream, is a task at the gateway too and reaches its result,
// whatever era either side speaks.
func TestTaskPassesThrough(t *testing.T) {
	for _, era := range eras {
		t.Run(era[0]+"_up/"+era[1]+"_down", func(t *testing.T) {
			up := newUpstreamServer("alpha", nil)
			m, err := tasks.New(up, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Close() })
			err = m.AddTool(&mcp.Tool{Name: "long"}, mcp.TaskSupportOptional,
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if _, ok := tasks.ID(ctx); !ok {
						return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("not a task")}}, nil
					}
					time.Sleep(50 * time.Millisecond)
					return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("long done")}}, nil
				}, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: era[0]},
				map[string]*mcp.Server{"alpha": up, "beta": newUpstreamServer("beta", nil)})
			cs := connectDown(t, g, era[1], nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tc, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "alpha_long"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.Task == nil {
				t.Errorf("the call is no task downstream (result %+v)", tc.Result)
			}
			res, err := tc.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != "long done" {
				t.Errorf("result %q", got)
			}
			res, err = call(ctx, cs, "alpha_echo", "plain") // other tools stay plain calls
			if err != nil || text(t, res) != "alpha:plain" {
				t.Errorf("alpha_echo: %v", err)
			}
		})
	}
}
