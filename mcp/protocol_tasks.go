package mcp

// Tasks as specified by 2025-11-25 (SEP-1686). 2026-07-28 moved tasks into an
// extension that is not wire-compatible with these types.

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

// Task is the state of a task-augmented request.
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

// TaskMetadata is the task parameter of a task-augmented request.
type TaskMetadata struct {
	// TTL is the requested retention in milliseconds.
	TTL int64 `json:"ttl,omitempty"`
}

// RelatedTaskMetadata is the value of the _meta key
// io.modelcontextprotocol/related-task.
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// CreateTaskResult answers a task-augmented request: the task that will
// produce the result.
type CreateTaskResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	Task Task  `json:"task"`
}

// GetTaskParams are the params of tasks/get.
type GetTaskParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	TaskID string `json:"taskId"`
}

// GetTaskResult is the result of tasks/get: the task itself.
type GetTaskResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	Task
}

// GetTaskPayloadParams are the params of tasks/result, which blocks until
// the task is terminal and then returns the original request's result (for
// example a CallToolResult) or error.
type GetTaskPayloadParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	TaskID string `json:"taskId"`
}

// ListTasksParams are the params of tasks/list.
type ListTasksParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListTasksResult is the result of tasks/list.
type ListTasksResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Tasks is written as [] when nil.
	Tasks      []*Task `json:"tasks"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil Tasks as [].
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	type wire ListTasksResult
	r.Tasks = nonNilSlice(r.Tasks)
	return marshalJSONNoEscape(wire(r))
}

// CancelTaskParams are the params of tasks/cancel.
type CancelTaskParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	TaskID string `json:"taskId"`
}

// CancelTaskResult is the result of tasks/cancel: the task after
// cancellation.
type CancelTaskResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	Task
}

// TaskStatusNotificationParams are the params of notifications/tasks/status:
// the task's new state.
type TaskStatusNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	Task
}
