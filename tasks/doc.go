// Package tasks runs tool calls as tasks, in both task models of MCP: the
// io.modelcontextprotocol/tasks extension of 2026-07-28 (SEP-2663), where the
// server decides per request and the client polls tasks/get and answers
// questions with tasks/update, and the core tasks of 2025-11-25 (SEP-1686) on
// stateful sessions, where the client asks with params.task and reads
// tasks/get, tasks/result and tasks/list. One handler serves both: it is an
// ordinary mcp.ToolHandler, which reports status with Report, asks for
// input with the request's Input/Elicit methods, and sees cancellation
// through its context.
//
// Tasks live in a TaskStore (NewMemoryStore by default); processes sharing a
// store and the server's shared.Notifier serve the same tasks.
package tasks
