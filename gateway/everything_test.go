package gateway_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// TestEverythingThrough: the conformance suite's everything server as the
// one upstream (no prefix), driven through the gateway at every pair of
// eras: plain, logging, progress, sampling, elicitation (two questions at
// once) and task tools.
func TestEverythingThrough(t *testing.T) {
	for _, era := range eras {
		t.Run(era[0]+"_up/"+era[1]+"_down", func(t *testing.T) {
			up, err := everything.NewServer(&everything.Options{Step: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			g := startGateway(t, config("everything"), &gateway.Options{ProtocolVersion: era[0]},
				map[string]*mcp.Server{"everything": up})
			var logs atomic.Int32
			var asked atomic.Int32
			cs := connectDown(t, g, era[1], &mcp.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.NewTextContent("model says hi")}}, nil
				},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					n := asked.Add(1)
					content := map[string]any{}
					for _, p := range req.Params.RequestedSchema.Properties {
						content[p.Name] = "v" + string(rune('0'+n))
						if p.Schema.Type == mcp.SchemaBoolean {
							content[p.Name] = true
						}
					}
					return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}, nil
				},
				LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) { logs.Add(1) },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			all := func(res *mcp.CallToolResult) string {
				var b strings.Builder
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						b.WriteString(tc.Text)
					}
				}
				return b.String()
			}
			if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
				t.Fatal(err)
			}
			for name, args := range map[string]string{"test_simple_text": `{}`, "test_tool_with_logging": `{}`,
				"test_sampling": `{"prompt":"hello"}`, "test_elicitation": `{"message":"who?"}`, "multi_input": `{}`} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: []byte(args)})
				if err != nil || res.IsError {
					if err == nil {
						err = errors.New(all(res))
					}
					t.Errorf("%s: %v", name, err)
					continue
				}
				t.Logf("%s: %s", name, all(res))
			}
			asked.Store(0)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "multi_input"})
			if err != nil {
				t.Fatal(err)
			}
			// Each question gets its own answer (asked in any order).
			if a := all(res); !strings.Contains(a, `"v1"`) || !strings.Contains(a, `"v2"`) {
				t.Errorf("multi_input: %s", a)
			}
			if logs.Load() == 0 {
				t.Error("no log message from test_tool_with_logging")
			}
			progress := make(chan float64, 8)
			pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) { progress <- p.Progress })
			if _, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "test_tool_with_progress"}); err != nil {
				t.Fatal(err)
			}
			if len(progress) != 3 {
				t.Errorf("%d progress notifications, want 3", len(progress))
			}
			tc, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "slow_compute", Arguments: []byte(`{"seconds":0}`)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res, err := tc.Wait(ctx); err != nil || res.IsError {
				t.Errorf("slow_compute as a task: %v %+v", err, res)
			}
		})
	}
}
