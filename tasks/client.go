package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The client side: calling tools as tasks, in either task model, with the
// same code. Requests go through mcp.ClientSession.Call, which adds the
// 2026-07-28 client context, the standard headers and the input rounds as
// for the typed methods.
//
//   - On a 2026-07-28 session CallTool declares the tasks extension on the
//     one request; the server decides whether the call becomes a task.
//     Questions asked before the task exists are input rounds answered by
//     the client's handlers, as for mcp's CallTool; questions a task asks
//     later appear in tasks/get and are answered with tasks/update.
//   - On a 2025-11-25 session CallTool asks with params.task; the server
//     makes the call a task when the tool allows it. Questions arrive as
//     ordinary requests, answered by the client's handlers; Wait reads the
//     result with tasks/result, which blocks.

// ErrNotTask is returned by the task methods of a ToolCall the server
// answered at once, and by the task functions on a session whose revision
// has no tasks.
var ErrNotTask = errors.New("tasks: not a task")

// ErrCancelled is returned by Wait for a task that was cancelled.
var ErrCancelled = errors.New("tasks: task cancelled")

// ToolCall is a tools/call made with CallTool: answered at once (Result),
// or running as a task (Task) that Wait, Updates and Cancel follow.
type ToolCall struct {
	cs *mcp.ClientSession
	// Result is the tool's result when the server answered at once.
	Result *mcp.CallToolResult
	// Task is the task's state when the call became a task, as the server
	// first reported it; nil otherwise.
	Task *TaskInfo
}

// CallOptions configure CallTool.
type CallOptions struct {
	// TTL is the retention a 2025-11-25 client asks for; 0 leaves it to the
	// server. (A 2026-07-28 server chooses alone.)
	TTL time.Duration
}

// CallTool calls a tool on cs and lets the server run it as a task. opts
// may be nil. On a session whose revision has no tasks it is cs.CallTool.
func CallTool(ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams, opts *CallOptions) (*ToolCall, error) {
	params := *p
	switch {
	case cs.Stateless():
		m := &mcp.Meta{}
		if p.Meta != nil {
			*m = *p.Meta
		}
		m.ClientCapabilities = extensionCaps()
		params.Meta = m
	case coreTasks(cs.ProtocolVersion()) && serverTakesToolTasks(cs.ServerCapabilities()):
		params.Task = &mcp.TaskMetadata{}
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
	var raw json.RawMessage
	if err := cs.Call(ctx, mcp.MethodToolsCall, &params, &raw); err != nil {
		return nil, err
	}
	return decodeToolCall(cs, raw)
}

// decodeToolCall reads the answer to a tools/call that may be a task.
func decodeToolCall(cs *mcp.ClientSession, raw json.RawMessage) (*ToolCall, error) {
	var probe struct {
		ResultType mcp.ResultType  `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("tasks: decoding tools/call result: %w", err)
	}
	switch {
	case cs.Stateless() && probe.ResultType == mcp.ResultTypeTask:
		var h TaskHandle
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("tasks: decoding the task: %w", err)
		}
		if h.TaskID == "" {
			return nil, errors.New("tasks: the server's task has no taskId")
		}
		return &ToolCall{cs: cs, Task: &h.TaskInfo}, nil
	case !cs.Stateless() && len(probe.Task) > 0 && string(probe.Task) != "null":
		var t Task
		if err := json.Unmarshal(probe.Task, &t); err != nil {
			return nil, fmt.Errorf("tasks: decoding the task: %w", err)
		}
		if t.TaskID == "" {
			return nil, errors.New("tasks: the server's task has no taskId")
		}
		return &ToolCall{cs: cs, Task: taskInfo(&t)}, nil
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("tasks: decoding tools/call result: %w", err)
	}
	return &ToolCall{cs: cs, Result: &res}, nil
}

// serverTakesToolTasks reports whether a 2025-11-25 server declared
// tasks.requests.tools.call, without which a client must not ask for a task.
func serverTakesToolTasks(c *mcp.ServerCapabilities) bool {
	tc, err := ServerCapabilitiesOf(c)
	return err == nil && tc != nil && tc.Requests != nil && tc.Requests.Tools != nil && tc.Requests.Tools.Call != nil
}

func taskInfo(t *Task) *TaskInfo {
	return &TaskInfo{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTL, PollIntervalMs: t.PollInterval}
}

// extensionCaps declares the tasks extension on one request.
func extensionCaps() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{ExtensionID: json.RawMessage("{}")}}
}

// extensionMeta is the _meta of a request of the extension.
func extensionMeta() *mcp.Meta { return &mcp.Meta{ClientCapabilities: extensionCaps()} }

// Get reads a task's state. On a 2025-11-25 session the result has only
// the Task's fields (the result comes from Result).
func Get(ctx context.Context, cs *mcp.ClientSession, taskID string) (*DetailedTask, error) {
	p := &GetTaskParams{TaskID: taskID}
	if cs.Stateless() {
		p.Meta = extensionMeta()
		var d DetailedTask
		if err := cs.Call(ctx, MethodGet, p, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}
	if !coreTasks(cs.ProtocolVersion()) {
		return nil, ErrNotTask
	}
	var t GetTaskResult
	if err := cs.Call(ctx, MethodGet, p, &t); err != nil {
		return nil, err
	}
	return &DetailedTask{TaskInfo: *taskInfo(&t.Task)}, nil
}

// Update answers questions of a 2026-07-28 task, by their keys.
func Update(ctx context.Context, cs *mcp.ClientSession, taskID string, answers map[string]*mcp.InputResponse) error {
	if !cs.Stateless() {
		return ErrNotTask
	}
	p := &UpdateTaskParams{Meta: extensionMeta(), TaskID: taskID, InputResponses: make(map[string]json.RawMessage, len(answers))}
	for k, a := range answers {
		raw, err := a.MarshalJSON()
		if err != nil {
			return fmt.Errorf("tasks: answer %q: %w", k, err)
		}
		p.InputResponses[k] = raw
	}
	return cs.Call(ctx, MethodUpdate, p, nil)
}

// Cancel asks the server to cancel a task. Cancellation is cooperative:
// the task ends as cancelled when its handler stops.
func Cancel(ctx context.Context, cs *mcp.ClientSession, taskID string) error {
	p := &CancelTaskParams{TaskID: taskID}
	switch {
	case cs.Stateless():
		p.Meta = extensionMeta()
	case !coreTasks(cs.ProtocolVersion()):
		return ErrNotTask
	}
	return cs.Call(ctx, MethodCancel, p, nil)
}

// Result waits for a 2025-11-25 task to end and returns its result
// (tasks/result). While it waits, the task's questions reach the client's
// handlers.
func Result(ctx context.Context, cs *mcp.ClientSession, taskID string) (*mcp.CallToolResult, error) {
	if cs.Stateless() || !coreTasks(cs.ProtocolVersion()) {
		return nil, ErrNotTask
	}
	var res mcp.CallToolResult
	if err := cs.Call(ctx, MethodResult, &GetTaskPayloadParams{TaskID: taskID}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// List lists the caller's 2025-11-25 tasks, one page per call.
func List(ctx context.Context, cs *mcp.ClientSession, cursor string) (*ListTasksResult, error) {
	if cs.Stateless() || !coreTasks(cs.ProtocolVersion()) {
		return nil, ErrNotTask
	}
	var res ListTasksResult
	if err := cs.Call(ctx, MethodList, &ListTasksParams{Cursor: cursor}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Cancel cancels the call's task.
func (tc *ToolCall) Cancel(ctx context.Context) error {
	if tc.Task == nil {
		return ErrNotTask
	}
	return Cancel(ctx, tc.cs, tc.Task.TaskID)
}

// interval is the pause between polls: the server's, within bounds.
func interval(ms int64) time.Duration {
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
		poll := interval(tc.Task.PollIntervalMs)
		answered := make(map[string]bool)
		var last string
		for {
			d, err := tc.poll(ctx, id)
			if err != nil {
				yield(nil, err)
				return
			}
			if d.PollIntervalMs > 0 {
				poll = interval(d.PollIntervalMs)
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
			n, err := tc.answer(ctx, id, d, answered)
			if err != nil {
				yield(nil, err)
				return
			}
			if n > 0 {
				continue
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

// poll reads the task's state once; a terminal 2025-11-25 task's outcome
// comes from tasks/result.
func (tc *ToolCall) poll(ctx context.Context, id string) (*DetailedTask, error) {
	d, err := Get(ctx, tc.cs, id)
	if err != nil || !d.Status.Terminal() || tc.cs.Stateless() || d.Status == TaskStatusCancelled {
		return d, err
	}
	res, err := Result(ctx, tc.cs, id)
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		d.Error = je
	case err != nil:
		return nil, err
	default:
		if d.Result, err = json.Marshal(res); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// answer answers, with the client's handlers, the questions of d not
// answered yet, and reports how many it sent.
func (tc *ToolCall) answer(ctx context.Context, id string, d *DetailedTask, answered map[string]bool) (int, error) {
	if d.Status != TaskStatusInputRequired || len(d.InputRequests) == 0 {
		return 0, nil
	}
	answers := make(map[string]*mcp.InputResponse)
	for k, q := range d.InputRequests {
		if answered[k] {
			continue
		}
		a, err := tc.cs.Answer(ctx, q)
		if err != nil {
			return 0, fmt.Errorf("tasks: answering the task's question %q: %w", k, err)
		}
		answers[k] = a
	}
	if len(answers) == 0 {
		return 0, nil
	}
	if err := Update(ctx, tc.cs, id, answers); err != nil {
		return 0, err
	}
	for k := range answers {
		answered[k] = true
	}
	return len(answers), nil
}

// Wait returns the call's result: at once when the server answered at
// once; otherwise when the task ends. A 2026-07-28 task is polled (see
// Updates); a 2025-11-25 task is awaited with tasks/result. A task that
// failed returns its JSON-RPC error (*jsonrpc.Error); a cancelled one
// ErrCancelled.
func (tc *ToolCall) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	if tc.Result != nil {
		return tc.Result, nil
	}
	if tc.Task == nil {
		return nil, ErrNotTask
	}
	if !tc.cs.Stateless() {
		res, err := Result(ctx, tc.cs, tc.Task.TaskID)
		if err != nil {
			if d, gerr := Get(ctx, tc.cs, tc.Task.TaskID); gerr == nil && d.Status == TaskStatusCancelled {
				return nil, ErrCancelled
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
			return nil, ErrCancelled
		}
	}
	return nil, ctx.Err()
}
