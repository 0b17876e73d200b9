package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// Tasks: mcp call --task (or a tool whose execution.taskSupport is
// "required") and mcp tasks. The session's revision picks the model: the
// 2025-11-25 core tasks (params.task, tasks/result) or the 2026-07-28
// extension (resultType "task", tasks/update); the SDK's ToolCall hides the
// difference except for how a call is followed, see followTask.

// taskCancelTimeout bounds the tasks/cancel sent when a call is interrupted.
const taskCancelTimeout = 5 * time.Second

// requiresTask reports whether tool must be called as a task.
func requiresTask(tool *mcp.Tool) bool {
	return tool != nil && tool.Execution != nil && tool.Execution.TaskSupport == mcp.TaskSupportRequired
}

// needsTasks reports whether err is a 2026-07-28 server's refusal of a
// call that did not declare the tasks extension, for a tool that runs only
// as a task (-32021 naming the extension). The tool did not run, so the
// call may be made again as a task; an ordinary call is not made a task
// up front because it would lose its progress notifications.
func needsTasks(err error) bool {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapability {
		return false
	}
	var d struct {
		Required struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if json.Unmarshal(je.Data, &d) != nil {
		return false
	}
	_, ok := d.Required.Extensions[tasks.ExtensionID]
	return ok
}

// callTask calls a tool letting the server make it a task, and follows the
// task to its result, printing its status on stderr as progress is. With
// --no-wait it prints the task instead and returns a nil result.
func (inv *invocation) callTask(ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	tc, err := tasks.CallTool(ctx, cs, p, nil)
	if err != nil {
		return nil, err
	}
	if tc.Task == nil {
		return tc.Result, nil
	}
	if inv.noWait {
		return nil, inv.printTask(tc.Task)
	}
	res, err := followTask(ctx, cs, tc, inv.taskStatus)
	if errors.Is(err, errTaskCancelSent) {
		inv.status(fmt.Sprintf("task %s: cancel requested", tc.Task.TaskID))
		err = ctx.Err()
	}
	return res, err
}

// errTaskCancelSent wraps ctx's error when followTask cancelled the task.
var errTaskCancelSent = errors.New("cancel sent")

// followTask waits for the result of the task tc is, reporting its first
// status and each new one. A 2026-07-28 task is polled with tasks/get, its
// questions answered as they appear. A 2025-11-25 task's result is awaited
// with tasks/result, which is also where such a server sends its questions
// (they reach the elicitation and sampling handlers), while tasks/get is
// polled beside it for the status. When ctx ends first (Ctrl-C,
// --timeout, a page gone) the task is cancelled, as it would run on
// unseen, and the error wraps errTaskCancelSent.
func followTask(ctx context.Context, cs *mcp.ClientSession, tc *tasks.ToolCall, report func(*tasks.TaskInfo)) (*mcp.CallToolResult, error) {
	report(tc.Task)
	res, err := waitTask(ctx, cs, tc, report)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelTimeout)
		defer cancel()
		if cerr := tc.Cancel(cctx); cerr == nil {
			err = fmt.Errorf("%w: %w", errTaskCancelSent, err)
		}
	}
	return res, err
}

// waitTask is followTask without the cancellation.
func waitTask(ctx context.Context, cs *mcp.ClientSession, tc *tasks.ToolCall, report func(*tasks.TaskInfo)) (*mcp.CallToolResult, error) {
	if cs.Stateless() {
		last := *tc.Task
		for d, err := range tc.Updates(ctx) {
			if err != nil {
				return nil, err
			}
			if d.Status != last.Status || d.StatusMessage != last.StatusMessage {
				report(&d.TaskInfo)
				last = d.TaskInfo
			}
			switch d.Status {
			case tasks.TaskStatusCompleted:
				return d.ToolResult()
			case tasks.TaskStatusFailed:
				if d.Error != nil {
					return nil, d.Error
				}
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the task failed: "+d.StatusMessage)
			case tasks.TaskStatusCancelled:
				return nil, tasks.ErrCancelled
			}
		}
		return nil, ctx.Err()
	}
	pollCtx, stop := context.WithCancel(ctx)
	var (
		wg   sync.WaitGroup
		last tasks.TaskInfo
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		last = pollStatus(pollCtx, cs, tc.Task, report)
	}()
	res, err := tc.Wait(ctx)
	stop()
	wg.Wait()
	if !last.Status.Terminal() && ctx.Err() == nil {
		// The final status, which the poll did not see.
		if d, gerr := tasks.Get(ctx, cs, tc.Task.TaskID); gerr == nil && d.Status != last.Status {
			report(&d.TaskInfo)
		}
	}
	return res, err
}

// pollStatus reports the task's status each time it changes, until ctx
// ends or the task does, and returns the last status it reported.
func pollStatus(ctx context.Context, cs *mcp.ClientSession, t *tasks.TaskInfo, report func(*tasks.TaskInfo)) (last tasks.TaskInfo) {
	last = *t
	for !last.Status.Terminal() {
		timer := time.NewTimer(pollInterval(last.PollIntervalMs))
		select {
		case <-ctx.Done():
			timer.Stop()
			return last
		case <-timer.C:
		}
		d, err := tasks.Get(ctx, cs, t.TaskID)
		if err != nil {
			return last
		}
		if d.Status != last.Status || d.StatusMessage != last.StatusMessage {
			report(&d.TaskInfo)
			last = d.TaskInfo
		}
	}
	return last
}

// pollInterval is the pause between polls the server suggests, within
// bounds: at least 50ms, at most 10s, 1s when it says nothing.
func pollInterval(ms int64) time.Duration {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d <= 0:
		return time.Second
	case d < 50*time.Millisecond:
		return 50 * time.Millisecond
	case d > 10*time.Second:
		return 10 * time.Second
	}
	return d
}

// taskStatus prints a task's status on stderr, as progress is printed.
// Repeats are the caller's to avoid.
func (inv *invocation) taskStatus(t *tasks.TaskInfo) {
	line := fmt.Sprintf("task %s: %s", t.TaskID, t.Status)
	if t.StatusMessage != "" {
		line += " - " + t.StatusMessage
	}
	inv.status(line)
}

// printTask prints a task's state on stdout: JSON under --json, lines
// otherwise.
func (inv *invocation) printTask(t *tasks.TaskInfo) error {
	if inv.json {
		return inv.printJSON(t)
	}
	rows := [][]string{{"task:", t.TaskID}, {"status:", string(t.Status)}}
	if t.StatusMessage != "" {
		rows = append(rows, []string{"message:", t.StatusMessage})
	}
	rows = append(rows, []string{"created:", t.CreatedAt}, []string{"updated:", t.LastUpdatedAt})
	if t.TTLMs != nil {
		rows = append(rows, []string{"ttl:", (time.Duration(*t.TTLMs) * time.Millisecond).String()})
	}
	return inv.pairs(rows)
}

// tasksVerbs are the forms of mcp tasks, with how many positional
// arguments each takes (the verb included).
var tasksVerbs = map[string]int{"list": 1, "get": 2, "result": 2, "cancel": 2}

// runTasks runs mcp tasks [list | get ID | result ID | cancel ID].
func runTasks(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	verb := "list"
	if len(inv.pos) > 0 {
		verb = inv.pos[0]
	}
	if !cs.Stateless() && cs.ServerCapabilities().Tasks == nil {
		return fmt.Errorf("tasks: the server has no tasks capability")
	}
	err := inv.tasksVerb(ctx, cs, verb)
	var je *jsonrpc.Error
	if err != nil && verb != "list" && !inv.inShell && !cs.Stateless() && errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams {
		// The likely reason a task the user saw is unknown.
		hinted := *je
		hinted.Message += fmt.Sprintf(" (hint: a %s task belongs to the session that created it, and each mcp command opens a new session: "+
			"follow it in the mcp shell that started it, or leave out --no-wait)", cs.ProtocolVersion())
		err = &hinted
	}
	return err
}

// tasksVerb runs one verb of mcp tasks.
func (inv *invocation) tasksVerb(ctx context.Context, cs *mcp.ClientSession, verb string) error {
	switch verb {
	case "list":
		return inv.listTasks(ctx, cs)
	case "get":
		d, err := tasks.Get(ctx, cs, inv.pos[1])
		if err != nil {
			return err
		}
		if inv.json {
			return inv.printJSON(d)
		}
		return inv.printTask(&d.TaskInfo)
	case "cancel":
		if err := tasks.Cancel(ctx, cs, inv.pos[1]); err != nil {
			return err
		}
		if inv.json {
			return inv.printJSON(map[string]any{"taskId": inv.pos[1], "cancelRequested": true})
		}
		_, err := fmt.Fprintf(inv.stdout, "cancel requested for task %s\n", inv.pos[1])
		return err
	}
	res, err := inv.taskResult(ctx, cs, inv.pos[1])
	if err != nil {
		return err
	}
	return inv.printResult(res, "task "+inv.pos[1])
}

// listTasks prints every page of tasks/list (2025-11-25; the 2026-07-28
// extension has no list).
func (inv *invocation) listTasks(ctx context.Context, cs *mcp.ClientSession) error {
	if cs.Stateless() {
		return fmt.Errorf("tasks list: a %s server does not list tasks (get, result and cancel work by id)", cs.ProtocolVersion())
	}
	all := []*tasks.Task{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxTaskPages {
			return fmt.Errorf("tasks list: more than %d pages", maxTaskPages)
		}
		res, err := tasks.List(ctx, cs, cursor)
		if err != nil {
			return err
		}
		all = append(all, res.Tasks...)
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if inv.json {
		return inv.printJSON(map[string]any{"tasks": all})
	}
	var rows [][]string
	for _, t := range all {
		rows = append(rows, []string{t.TaskID, string(t.Status), t.LastUpdatedAt, oneLine(t.StatusMessage)})
	}
	return inv.table([]string{"TASK", "STATUS", "UPDATED", "MESSAGE"}, rows)
}

// maxTaskPages bounds the pages of tasks/list read, against a server whose
// cursors never end.
const maxTaskPages = 1000

// taskResult waits for a task's result: with tasks/result on a 2025-11-25
// session, by polling tasks/get on a 2026-07-28 one (a question the task
// asks meanwhile is left to mcp call, which answers it).
func (inv *invocation) taskResult(ctx context.Context, cs *mcp.ClientSession, id string) (*mcp.CallToolResult, error) {
	if !cs.Stateless() {
		res, err := tasks.Result(ctx, cs, id)
		if err != nil {
			if d, gerr := tasks.Get(ctx, cs, id); gerr == nil && d.Status == tasks.TaskStatusCancelled {
				return nil, tasks.ErrCancelled
			}
		}
		return res, err
	}
	var last tasks.TaskStatus
	for {
		d, err := tasks.Get(ctx, cs, id)
		if err != nil {
			return nil, err
		}
		if d.Status != last {
			inv.taskStatus(&d.TaskInfo)
			last = d.Status
		}
		switch d.Status {
		case tasks.TaskStatusCompleted:
			return d.ToolResult()
		case tasks.TaskStatusFailed:
			if d.Error != nil {
				return nil, d.Error
			}
			return nil, errors.New("the task failed: " + d.StatusMessage)
		case tasks.TaskStatusCancelled:
			return nil, tasks.ErrCancelled
		case tasks.TaskStatusInputRequired:
			return nil, fmt.Errorf("task %s waits for input, which only the call that started it answers", id)
		}
		timer := time.NewTimer(pollInterval(d.PollIntervalMs))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}
