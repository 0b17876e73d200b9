package everything

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// Fixtures of the tasks scenarios (the io.modelcontextprotocol/tasks
// extension of 2026-07-28; the same tools serve 2025-11-25 task calls).

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func addTasks(s *mcp.Server, store tasks.TaskStore, add func(error)) {
	m, err := tasks.New(s, &tasks.Options{PollInterval: 200 * time.Millisecond, Store: store})
	if err != nil {
		add(err)
		return
	}
	add(s.AddTool(&mcp.Tool{Name: "greet", Description: "Greets by name; never a task",
		InputSchema: schema(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text("Hello, " + in.Name + "!"), nil
		}))
	add(m.AddTool(&mcp.Tool{Name: "slow_compute", Description: "Sleeps for seconds, then answers; may run as a task",
		InputSchema: schema(`{"type":"object","properties":{"seconds":{"type":"number"},"label":{"type":"string"}}}`)},
		mcp.TaskSupportOptional,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Seconds float64
				Label   string
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			_ = tasks.Report(ctx, "computing "+in.Label)
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds)), nil
		}, nil))
	add(m.AddTool(&mcp.Tool{Name: "failing_job", Description: "A task that ends in a tool error"},
		mcp.TaskSupportRequired,
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("the job failed")
		}, nil))
	add(m.AddTool(&mcp.Tool{Name: "protocol_error_job", Description: "A task that ends in a protocol error"},
		mcp.TaskSupportOptional,
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return nil, err
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error in protocol_error_job")
		}, nil))
	add(m.AddTool(&mcp.Tool{Name: "confirm_delete", Description: "Asks before deleting a file",
		InputSchema: schema(`{"type":"object","properties":{"filename":{"type":"string"}}}`)},
		mcp.TaskSupportOptional,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Filename string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{
				"confirm": elicitText("Delete "+in.Filename+"?", "confirm", mcp.SchemaBoolean),
			})
			if err != nil {
				return nil, err
			}
			return text("confirm_delete " + in.Filename + ": " + describe(a["confirm"])), nil
		}, nil))
	add(m.AddTool(&mcp.Tool{Name: "multi_input", Description: "Asks two questions at once"},
		mcp.TaskSupportOptional,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{
				"first":  elicitText("First answer?", "name", mcp.SchemaString),
				"second": elicitText("Second answer?", "name", mcp.SchemaString),
			})
			if err != nil {
				return nil, err
			}
			return text("first: " + describe(a["first"]) + "; second: " + describe(a["second"])), nil
		}, nil))
	add(m.AddTool(&mcp.Tool{Name: "test_tool_with_task", Description: "Asks a name, then runs as a task"},
		mcp.TaskSupportRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{
				"user_name": elicitText("What is your name?", "name", mcp.SchemaString),
			})
			if err != nil {
				return nil, err
			}
			if ctx, err = tasks.Start(ctx); err != nil {
				return nil, err
			}
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return nil, err
			}
			name, _ := a["user_name"].Elicit.Content["name"].(string)
			return text("Hello, " + name + ", from a task"), nil
		}, &tasks.ToolOptions{StartInHandler: true}))
}
