package tasks

import (
	"bytes"
	"encoding/json"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The wire types of both task models. Package mcp keeps only what core
// types carry (CallToolParams.Task, Tool.Execution, the tasks capabilities,
// Meta.RelatedTask); everything a task request or result is lives here.
//
// Tasks as specified by 2025-11-25 (SEP-1686) come first; the
// io.modelcontextprotocol/tasks extension of 2026-07-28 (SEP-2663) is not
// wire-compatible with them: the task is flat in the result, durations are
// named ...Ms, and the client answers questions with tasks/update instead of
// receiving requests.

// ExtensionID is the id of the tasks extension of 2026-07-28.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Methods and notifications of both task models. tasks/get and tasks/cancel
// are in both; tasks/result, tasks/list and notifications/tasks/status are
// 2025-11-25's; tasks/update and notifications/tasks the extension's.
const (
	MethodGet          = "tasks/get"
	MethodResult       = "tasks/result"
	MethodList         = "tasks/list"
	MethodCancel       = "tasks/cancel"
	MethodUpdate       = "tasks/update"
	NotificationStatus = "notifications/tasks/status"
	NotificationTask   = "notifications/tasks"
)

// TaskStatus is the state of a task.
type TaskStatus string

// Task states. Completed, failed and cancelled are terminal.
const (
	TaskStatusWorking       TaskStatus = "working"
	TaskStatusInputRequired TaskStatus = "input_required"
	TaskStatusCompleted     TaskStatus = "completed"
	TaskStatusFailed        TaskStatus = "failed"
	TaskStatusCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is a final state.
func (s TaskStatus) Terminal() bool {
	return s == TaskStatusCompleted || s == TaskStatusFailed || s == TaskStatusCancelled
}

// Task is the state of a 2025-11-25 task-augmented request.
type Task struct {
	TaskID string     `json:"taskId"`
	Status TaskStatus `json:"status"`
	// StatusMessage describes the state, e.g. why the task failed.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is how long, in milliseconds from creation, the task is kept; nil
	// (written as null) means unlimited.
	TTL *int64 `json:"ttl"`
	// PollInterval suggests how often, in milliseconds, to poll tasks/get.
	PollInterval int64 `json:"pollInterval,omitempty"`
}

// CreateTaskResult answers a 2025-11-25 task-augmented request: the task
// that will produce the result.
type CreateTaskResult struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	Task Task      `json:"task"`
}

// GetTaskParams are the params of tasks/get.
type GetTaskParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	TaskID string    `json:"taskId"`
}

// GetTaskResult is the result of a 2025-11-25 tasks/get: the task itself.
type GetTaskResult struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	Task
}

// GetTaskPayloadParams are the params of tasks/result, which blocks until
// the task is terminal and then returns the original request's result (for
// example a CallToolResult) or error.
type GetTaskPayloadParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	TaskID string    `json:"taskId"`
}

// ListTasksParams are the params of tasks/list.
type ListTasksParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	Cursor string    `json:"cursor,omitempty"`
}

// ListTasksResult is the result of tasks/list.
type ListTasksResult struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	// Tasks is written as [] when nil.
	Tasks      []*Task `json:"tasks"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil Tasks as [].
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	type wire ListTasksResult
	if r.Tasks == nil {
		r.Tasks = []*Task{}
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // as the connection writes everything else
	if err := e.Encode(wire(r)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// CancelTaskParams are the params of tasks/cancel.
type CancelTaskParams struct {
	Meta   *mcp.Meta `json:"_meta,omitempty"`
	TaskID string    `json:"taskId"`
}

// CancelTaskResult is the result of a 2025-11-25 tasks/cancel: the task
// after cancellation.
type CancelTaskResult struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	Task
}

// TaskStatusNotificationParams are the params of notifications/tasks/status:
// the task's new state.
type TaskStatusNotificationParams struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	Task
}

// TaskInfo is the Task of the extension: the state every task result and
// notification carries.
type TaskInfo struct {
	TaskID string     `json:"taskId"`
	Status TaskStatus `json:"status"`
	// StatusMessage describes the state for people.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is how long, in milliseconds from creation, the task is kept;
	// nil (written as null) means unlimited.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs suggests how often to poll tasks/get.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
}

// TaskHandle is the extension's CreateTaskResult: a tools/call answered with
// a task instead of its result (resultType "task").
type TaskHandle struct {
	Meta       *mcp.Meta      `json:"_meta,omitempty"`
	ResultType mcp.ResultType `json:"resultType,omitempty"`
	TaskInfo
}

// DetailedTask is the result of the extension's tasks/get and the params of
// notifications/tasks: the task with what its status calls for, the
// outstanding questions (input_required), the request's result (completed)
// or its JSON-RPC error (failed).
type DetailedTask struct {
	Meta       *mcp.Meta      `json:"_meta,omitempty"`
	ResultType mcp.ResultType `json:"resultType,omitempty"`
	TaskInfo
	InputRequests map[string]*mcp.InputRequest `json:"inputRequests,omitempty"`
	// Result is the result of the original request, raw (for tools/call a
	// CallToolResult; decode it with ToolResult).
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
}

// ToolResult decodes Result as the CallToolResult of a completed tool task.
func (t *DetailedTask) ToolResult() (*mcp.CallToolResult, error) {
	var r mcp.CallToolResult
	if err := json.Unmarshal(t.Result, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateTaskParams are the params of tasks/update: answers to the task's
// inputRequests, by key. Raw, so that a server can ignore the keys it does
// not know without decoding them.
type UpdateTaskParams struct {
	Meta           *mcp.Meta                  `json:"_meta,omitempty"`
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// GetMeta implements mcp.Result: a tool-call hook returns the handle.
func (x *CreateTaskResult) GetMeta() *mcp.Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}

// GetMeta implements mcp.Result.
func (x *TaskHandle) GetMeta() *mcp.Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}

// SetMeta lets a 2026-07-28 server put its identity in the handle's _meta.
func (x *TaskHandle) SetMeta(m *mcp.Meta) { x.Meta = m }

// GetMeta implements mcp.Result.
func (x *DetailedTask) GetMeta() *mcp.Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}

// SetMeta lets a 2026-07-28 server put its identity in the task's _meta.
func (x *DetailedTask) SetMeta(m *mcp.Meta) { x.Meta = m }

var (
	_ mcp.Result = (*CreateTaskResult)(nil)
	_ mcp.Result = (*TaskHandle)(nil)
	_ mcp.Result = (*DetailedTask)(nil)
)
