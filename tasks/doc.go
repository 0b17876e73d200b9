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
//
// # How it is built
//
// A tasks.Manager attached to a Server serves both task models with the same
// handler code: the io.modelcontextprotocol/tasks extension of 2026-07-28
// (SEP-2663; registered with AddExtension, so the server decides per request,
// for requests that declare the extension, and clients poll tasks/get and
// answer with tasks/update) and the core tasks of 2025-11-25 (SEP-1686;
// params.task, execution.taskSupport, tasks/get, tasks/result, tasks/list,
// tasks/cancel, notifications/tasks/status, the tasks capability, related-task
// _meta). Its tool-call hook creates the task record, which is durable in the
// TaskStore before the handle is returned, and runs the ordinary
// mcp.ToolHandler on a context detached from the request and cancelled by
// tasks/cancel. A tool registered with StartInHandler runs as a plain call
// until the handler calls tasks.Start, so its input rounds before the task are
// answered synchronously (MRTR).
//
// The TaskStore is the source of truth: records are plain JSON data, Update is
// an atomic read-modify-write (a Redis store: WATCH/MULTI/EXEC), List pages
// per owner, expiry is the record's ExpiresAt. Every change is announced on
// the server's shared.Notifier (tasks/changed, the task id), so a handler waiting
// for answers, a blocking tasks/result or a run whose task was cancelled in
// another process re-reads the store; waiters also poll at PollInterval in
// case a notice is lost. In-task questions become the record's inputRequests
// (2026; keys made unique over the task's life) or real requests tagged with
// the task, sent on an open tasks/result stream when there is one
// (2025-11-25). Every task request is checked against the task's owner
// (Options.Owner: by default the session's principal or id); ids are 128
// random bits. A 2026-07-28 client that names tasks in a subscriptions/listen
// filter (taskIds, only with the extension declared on that request, only its
// own tasks) receives notifications/tasks, the full task, at every change;
// each process delivers to the streams it holds.
//
// A task whose process dies does not stay working: each record carries a
// lease (Record.LeaseUntil, Options.Lease), which one goroutine per Manager
// renews for all the handlers running there (in one call when the store is
// a LeaseRenewer), and any process reading a task whose lease lapsed records
// it as failed, saying why (see lease.go for why it is not run again). A
// handler's outcome is written again while the store fails, for up to the
// lease.
//
// The client side is CallTool, whose ToolCall waits (Wait), iterates over
// states (Updates, answering questions with the client's handlers through
// mcp.ClientSession.Answer) or cancels; Get, Update, Cancel, Result and List
// are the task requests one by one. They send through
// mcp.ClientSession.Call, which adds the 2026-07-28 client context and
// standard headers as the typed methods do. The wire types of both task
// models (Task, DetailedTask, CreateTaskResult, ...) are this package's;
// package mcp keeps only what its core types carry (CallToolParams.Task,
// Tool.Execution, the tasks capabilities, Meta.RelatedTask).
package tasks
