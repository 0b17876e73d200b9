package mcp

import (
	"encoding/json"

	"github.com/gomcp/sdk/jsonrpc"
)

// Tasks as the io.modelcontextprotocol/tasks extension of 2026-07-28
// (SEP-2663) has them. They are not wire-compatible with the 2025-11-25
// types of protocol_tasks.go: the task is flat in the result, durations are
// named ...Ms, and the client answers questions with tasks/update instead of
// receiving requests. The server side lives in package tasks; the client
// side is ClientSession.CallToolTask.

// ExtensionTasks is the id of the tasks extension.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// Methods of the tasks extension (tasks/get and tasks/cancel share their
// names with the 2025-11-25 methods, MethodTasksGet and MethodTasksCancel).
const (
	MethodTasksUpdate = "tasks/update"
	NotificationTasks = "notifications/tasks"
)

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
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	TaskInfo
}

// DetailedTask is the result of the extension's tasks/get and the params of
// notifications/tasks: the task with what its status calls for, the
// outstanding questions (input_required), the request's result (completed)
// or its JSON-RPC error (failed).
type DetailedTask struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	TaskInfo
	InputRequests map[string]*InputRequest `json:"inputRequests,omitempty"`
	// Result is the result of the original request, raw (for tools/call a
	// CallToolResult; decode it with ToolResult).
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
}

// ToolResult decodes Result as the CallToolResult of a completed tool task.
func (t *DetailedTask) ToolResult() (*CallToolResult, error) {
	var r CallToolResult
	if err := json.Unmarshal(t.Result, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateTaskParams are the params of tasks/update: answers to the task's
// inputRequests, by key. Raw, so that a server can ignore the keys it does
// not know without decoding them.
type UpdateTaskParams struct {
	Meta           *Meta                      `json:"_meta,omitempty"`
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

func (x *TaskHandle) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *TaskHandle) setMeta(m *Meta)              { x.Meta = m }
func (x *TaskHandle) resultTypeField() *ResultType { return &x.ResultType }

func (x *DetailedTask) GetMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *DetailedTask) setMeta(m *Meta)              { x.Meta = m }
func (x *DetailedTask) resultTypeField() *ResultType { return &x.ResultType }

var (
	_ Result = (*TaskHandle)(nil)
	_ Result = (*DetailedTask)(nil)
)

func (x *UpdateTaskParams) getMeta() *Meta {
	if x == nil {
		return nil
	}
	return x.Meta
}
func (x *UpdateTaskParams) withMeta(m *Meta) metaParams {
	var cp UpdateTaskParams
	if x != nil {
		cp = *x
	}
	cp.Meta = m
	return &cp
}

var _ metaParams = (*UpdateTaskParams)(nil)
