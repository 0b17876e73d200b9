package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// The feature seams: a tool-call hook that answers with a result of its
// own or runs the handler with its questions answered elsewhere
// (WithInputFunc), extra capabilities, and a listen hook.
func TestFeatureSeams(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			if err := s.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				a, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(a.Content["name"].(string))}}, nil
			}); err != nil {
				t.Fatal(err)
			}
			var hookSaw string
			s.SetToolCallHook(func(ctx context.Context, req *mcp.CallToolRequest, tool *mcp.Tool, next func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) (mcp.Result, error) {
				hookSaw = tool.Name
				if string(req.Params.Arguments) == `{"handle":true}` {
					return &tasks.TaskHandle{ResultType: mcp.ResultTypeTask, TaskInfo: tasks.TaskInfo{TaskID: "t1", Status: tasks.TaskStatusWorking}}, nil
				}
				ctx = mcp.WithInputFunc(ctx, func(_ context.Context, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
					out := map[string]*mcp.InputResponse{}
					for k := range reqs {
						out[k] = &mcp.InputResponse{Elicit: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "from the hook"}}}
					}
					return out, nil
				})
				return next(ctx, req)
			})
			s.ExtendCapabilities(func(c *mcp.ServerCapabilities) {
				c.Tasks = json.RawMessage(`{"list":{}}`)
			})
			refused := jsonrpc.NewError(-32099, "no listening here")
			s.AddListenHook(func(context.Context, *mcp.Request, *mcp.SubscriptionFilter, *mcp.SubscriptionFilter) error {
				return refused
			})

			e := connect(t, rev, s, nil) // the client has no elicitation handler
			ctx := testCtx(t)
			res, err := e.callTool(ctx, "ask", "")
			if err != nil || text(t, res) != "from the hook" || hookSaw != "ask" {
				t.Fatalf("call through the hook = %v, %v (hook saw %q)", res, err, hookSaw)
			}
			if rev != "2026-07-28" {
				if caps := e.cs.ServerCapabilities(); string(caps.Tasks) != `{"list":{}}` {
					t.Fatalf("ExtendCapabilities: capabilities %+v lack tasks", caps)
				}
				return
			}
			var raw json.RawMessage
			if err := e.cs.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "ask", Arguments: json.RawMessage(`{"handle":true}`)}, &raw); err != nil {
				t.Fatal(err)
			}
			var h tasks.TaskHandle
			if err := json.Unmarshal(raw, &h); err != nil || h.TaskID != "t1" {
				t.Fatalf("hook's own result = %s, %v", raw, err)
			}
			if h.ResultType != mcp.ResultTypeTask {
				t.Fatalf("resultType %q, want task", h.ResultType)
			}
			err = e.cs.Listen(ctx, &mcp.SubscriptionFilter{ToolsListChanged: true})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != refused.Code {
				t.Fatalf("Listen past a refusing hook = %v", err)
			}
		})
	}
}
