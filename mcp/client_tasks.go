package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// Calling tools as tasks, in either task model: the client code is the same.
//
//   - On a 2026-07-28 session CallToolTask declares the tasks extension on
//     the one request; the server decides whether the call becomes a task.
//     Questions asked before the task exists are input rounds answered by
//     the client's handlers, as for CallTool; questions a task asks later
//     appear in tasks/get and are answered with tasks/update.
//   - On a 2025-11-25 session CallToolTask asks with params.task; the server
//     makes the call a task when the tool allows it. Questions arrive as
//     ordinary requests, answered by the client's handlers; Wait reads the
//     result with tasks/result, which blocks.

// ErrNotTask is returned by the task methods of a ToolCall the server
// answered at once, and by the task methods of a session whose revision has
// no tasks.
var ErrNotTask = errors.New("mcp: not a task")

// ToolCall is a tools/call made with CallToolTask: answered at once
// (Result), or running as a task (TaskID) that Wait, Updates and Cancel
// follow.
type ToolCall struct {
	cs *ClientSession
	// Result is the tool's result when the server answered at once.
	Result *CallToolResult
	// Task is the task's state when the call became a task, as the server
	// first reported it; nil otherwise.
	Task *TaskInfo
}

// TaskOptions configure CallToolTask.
type TaskOptions struct {
	// TTL is the retention a 2025-11-25 client asks for; 0 leaves it to the
	// server. (A 2026-07-28 server chooses alone.)
	TTL time.Duration
}

// CallToolTask calls a tool and lets the server run it as a task. opts may
// be nil. On a session whose revision has no tasks it is CallTool.
func (cs *ClientSession) CallToolTask(ctx context.Context, p *CallToolParams, opts *TaskOptions) (*ToolCall, error) {
	params := *p
	var raw json.RawMessage
	switch {
	case cs.stateless:
		m := &Meta{}
		if p.Meta != nil {
			*m = *p.Meta
		}
		m.ClientCapabilities = &ClientCapabilities{Extensions: map[string]json.RawMessage{ExtensionTasks: json.RawMessage("{}")}}
		params.Meta = m
	case features(cs.version).tasks && serverTakesToolTasks(cs.ServerCapabilities()):
		params.Task = &TaskMetadata{}
		if opts != nil && opts.TTL > 0 {
			params.Task.TTL = opts.TTL.Milliseconds()
		}
	default:
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			return nil, err
		}
		return &ToolCall{cs: cs, Result: res}, nil
	}
	if err := cs.call(ctx, MethodToolsCall, &params, &raw); err != nil {
		return nil, err
	}
	var probe struct {
		ResultType ResultType      `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("mcp: decoding tools/call result: %w", err)
	}
	switch {
	case cs.stateless && probe.ResultType == ResultTypeTask:
		var h TaskHandle
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("mcp: decoding the task: %w", err)
		}
		if h.TaskID == "" {
			return nil, errors.New("mcp: the server's task has no taskId")
		}
		return &ToolCall{cs: cs, Task: &h.TaskInfo}, nil
	case !cs.stateless && len(probe.Task) > 0 && string(probe.Task) != "null":
		var t Task
		if err := json.Unmarshal(probe.Task, &t); err != nil {
			return nil, fmt.Errorf("mcp: decoding the task: %w", err)
		}
		if t.TaskID == "" {
			return nil, errors.New("mcp: the server's task has no taskId")
		}
		return &ToolCall{cs: cs, Task: taskInfo(&t)}, nil
	}
	var res CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("mcp: decoding tools/call result: %w", err)
	}
	return &ToolCall{cs: cs, Result: &res}, nil
}

// serverTakesToolTasks reports whether a 2025-11-25 server declared
// tasks.requests.tools.call, without which a client must not ask for a task.
func serverTakesToolTasks(c *ServerCapabilities) bool {
	return c != nil && c.Tasks != nil && c.Tasks.Requests != nil && c.Tasks.Requests.Tools != nil && c.Tasks.Requests.Tools.Call != nil
}

func taskInfo(t *Task) *TaskInfo {
	return &TaskInfo{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTL, PollIntervalMs: t.PollInterval}
}

// GetTask reads a task's state. On a 2025-11-25 session the result has
// only the Task's fields (the result comes from TaskResult).
func (cs *ClientSession) GetTask(ctx context.Context, taskID string) (*DetailedTask, error) {
	p := &GetTaskParams{TaskID: taskID}
	if cs.stateless {
		p.Meta = tasksMeta()
		var d DetailedTask
		if err := cs.call(ctx, MethodTasksGet, p, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}
	if !features(cs.version).tasks {
		return nil, ErrNotTask
	}
	var t GetTaskResult
	if err := cs.call(ctx, MethodTasksGet, p, &t); err != nil {
		return nil, err
	}
	return &DetailedTask{TaskInfo: *taskInfo(&t.Task)}, nil
}

// tasksMeta declares the tasks extension on one request.
func tasksMeta() *Meta {
	return &Meta{ClientCapabilities: &ClientCapabilities{Extensions: map[string]json.RawMessage{ExtensionTasks: json.RawMessage("{}")}}}
}

// UpdateTask answers questions of a 2026-07-28 task, by their keys.
func (cs *ClientSession) UpdateTask(ctx context.Context, taskID string, answers map[string]*InputResponse) error {
	if !cs.stateless {
		return ErrNotTask
	}
	p := &UpdateTaskParams{Meta: tasksMeta(), TaskID: taskID, InputResponses: make(map[string]json.RawMessage, len(answers))}
	for k, a := range answers {
		raw, err := a.MarshalJSON()
		if err != nil {
			return fmt.Errorf("mcp: answer %q: %w", k, err)
		}
		p.InputResponses[k] = raw
	}
	return cs.call(ctx, MethodTasksUpdate, p, nil)
}

// CancelTask asks the server to cancel a task. Cancellation is
// cooperative: the task ends as cancelled when its handler stops.
func (cs *ClientSession) CancelTask(ctx context.Context, taskID string) error {
	p := &CancelTaskParams{TaskID: taskID}
	switch {
	case cs.stateless:
		p.Meta = tasksMeta()
	case !features(cs.version).tasks:
		return ErrNotTask
	}
	return cs.call(ctx, MethodTasksCancel, p, nil)
}

// TaskResult waits for a 2025-11-25 task to end and returns its result
// (tasks/result). While it waits, the task's questions reach the client's
// handlers.
func (cs *ClientSession) TaskResult(ctx context.Context, taskID string) (*CallToolResult, error) {
	if cs.stateless || !features(cs.version).tasks {
		return nil, ErrNotTask
	}
	var res CallToolResult
	if err := cs.call(ctx, MethodTasksResult, &GetTaskPayloadParams{TaskID: taskID}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListTasks lists the caller's 2025-11-25 tasks, one page per call.
func (cs *ClientSession) ListTasks(ctx context.Context, cursor string) (*ListTasksResult, error) {
	if cs.stateless || !features(cs.version).tasks {
		return nil, ErrNotTask
	}
	var res ListTasksResult
	if err := cs.call(ctx, MethodTasksList, &ListTasksParams{Cursor: cursor}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Cancel cancels the call's task.
func (tc *ToolCall) Cancel(ctx context.Context) error {
	if tc.Task == nil {
		return ErrNotTask
	}
	return tc.cs.CancelTask(ctx, tc.Task.TaskID)
}

// interval is the pause between polls: the server's, within bounds.
func (tc *ToolCall) interval(ms int64) time.Duration {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d <= 0:
		return time.Second
	case d < 50*time.Millisecond:
		return 50 * time.Millisecond
	case d > time.Minute:
		return time.Minute
	}
	return d
}

// Updates polls the task, at the interval the server suggests, and yields
// each state it sees that differs from the last, until the task ends (the
// last state yielded is terminal, with its Result or Error), ctx ends or a
// poll fails (yielded as the error). On a 2026-07-28 session it answers the
// task's questions with the client's handlers as they appear; on a
// 2025-11-25 session they arrive as requests, answered by the same
// handlers, and the outcome is read with tasks/result.
func (tc *ToolCall) Updates(ctx context.Context) iter.Seq2[*DetailedTask, error] {
	return func(yield func(*DetailedTask, error) bool) {
		if tc.Task == nil {
			yield(nil, ErrNotTask)
			return
		}
		id := tc.Task.TaskID
		poll := tc.interval(tc.Task.PollIntervalMs)
		answered := make(map[string]bool)
		var last string
		for {
			d, err := tc.cs.GetTask(ctx, id)
			if err != nil {
				yield(nil, err)
				return
			}
			if d.PollIntervalMs > 0 {
				poll = tc.interval(d.PollIntervalMs)
			}
			if d.Status.Terminal() && !tc.cs.stateless && d.Status != TaskStatusCancelled {
				// 2025-11-25: the outcome comes from tasks/result.
				res, err := tc.cs.TaskResult(ctx, id)
				var je *jsonrpc.Error
				switch {
				case errors.As(err, &je):
					d.Error = je
				case err != nil:
					yield(nil, err)
					return
				default:
					if d.Result, err = json.Marshal(res); err != nil {
						yield(nil, err)
						return
					}
				}
			}
			if key := string(d.Status) + "\x00" + d.StatusMessage + "\x00" + d.LastUpdatedAt; key != last {
				last = key
				if !yield(d, nil) {
					return
				}
			}
			if d.Status.Terminal() {
				return
			}
			if d.Status == TaskStatusInputRequired && len(d.InputRequests) > 0 {
				answers := make(map[string]*InputResponse)
				for k, q := range d.InputRequests {
					if answered[k] {
						continue
					}
					a, err := tc.cs.answer(ctx, q)
					if err != nil {
						yield(nil, fmt.Errorf("mcp: answering the task's question %q: %w", k, err))
						return
					}
					answers[k] = a
				}
				if len(answers) > 0 {
					if err := tc.cs.UpdateTask(ctx, id, answers); err != nil {
						yield(nil, err)
						return
					}
					for k := range answers {
						answered[k] = true
					}
					continue
				}
			}
			t := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				t.Stop()
				yield(nil, ctx.Err())
				return
			case <-t.C:
			}
		}
	}
}

// Wait returns the call's result: at once when the server answered at
// once; otherwise when the task ends. A 2026-07-28 task is polled (see
// Updates); a 2025-11-25 task is awaited with tasks/result. A task that
// failed returns its JSON-RPC error (*jsonrpc.Error); a cancelled one
// ErrTaskCancelled.
func (tc *ToolCall) Wait(ctx context.Context) (*CallToolResult, error) {
	if tc.Result != nil {
		return tc.Result, nil
	}
	if tc.Task == nil {
		return nil, ErrNotTask
	}
	if !tc.cs.stateless {
		res, err := tc.cs.TaskResult(ctx, tc.Task.TaskID)
		if err != nil {
			if d, gerr := tc.cs.GetTask(ctx, tc.Task.TaskID); gerr == nil && d.Status == TaskStatusCancelled {
				return nil, ErrTaskCancelled
			}
		}
		return res, err
	}
	for d, err := range tc.Updates(ctx) {
		if err != nil {
			return nil, err
		}
		switch d.Status {
		case TaskStatusCompleted:
			return d.ToolResult()
		case TaskStatusFailed:
			if d.Error != nil {
				return nil, d.Error
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "task failed")
		case TaskStatusCancelled:
			return nil, ErrTaskCancelled
		}
	}
	return nil, ctx.Err()
}

// ErrTaskCancelled is returned by Wait for a task that was cancelled.
var ErrTaskCancelled = errors.New("mcp: task cancelled")
