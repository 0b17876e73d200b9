package mcp

// What core types carry of the tasks of 2025-11-25 (SEP-1686). The task
// requests and results themselves, of both task models, are package
// tasks's: 2026-07-28 moved tasks into an extension that is not
// wire-compatible with these types.

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
