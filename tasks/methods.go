package tasks

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The tasks methods. tasks/get and tasks/cancel exist in both models and
// answer in the shape of the request's: a 2026-07-28 request (the
// extension, gated on the request's declaration) or a 2025-11-25 session.

var errUnknownTask = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: unknown taskId")

// caller checks a tasks request: a 2026-07-28 one must declare the
// extension. It returns the caller's owner name and session.
func (m *Manager) caller(ctx context.Context, r *mcp.Request) (string, *mcp.ServerSession, error) {
	if r.Stateless() {
		meta, err := r.Meta()
		if err != nil {
			return "", nil, err
		}
		if meta == nil || !declares(meta.ClientCapabilities) {
			return "", nil, requiredCapability()
		}
		return m.owner(ctx, nil), nil, nil
	}
	ss, _ := r.Session.(*mcp.ServerSession)
	return m.owner(ctx, ss), ss, nil
}

// lookup reads the task named by params for its owner; any other owner is
// told it does not exist.
func (m *Manager) lookup(ctx context.Context, r *mcp.Request, p any, id func() string) (*Record, *mcp.ServerSession, error) {
	owner, ss, err := m.caller(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	if len(r.Params) > 0 {
		if err := json.Unmarshal(r.Params, p); err != nil {
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)
		}
	}
	if id() == "" {
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: missing taskId")
	}
	rec, err := m.get(ctx, id())
	if errors.Is(err, ErrNotFound) || (err == nil && rec.Owner != owner) {
		return nil, nil, errUnknownTask
	}
	if err != nil {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "reading the task: %v", err)
	}
	return rec, ss, nil
}

func (m *Manager) handleGet(ctx context.Context, r *mcp.Request) (any, error) {
	var p GetTaskParams
	rec, _, err := m.lookup(ctx, r, &p, func() string { return p.TaskID })
	if err != nil {
		return nil, err
	}
	if r.Stateless() {
		return detailed(rec), nil
	}
	return &GetTaskResult{Task: *legacyTask(rec)}, nil
}

func (m *Manager) handleCancel(ctx context.Context, r *mcp.Request) (any, error) {
	var p CancelTaskParams
	rec, _, err := m.lookup(ctx, r, &p, func() string { return p.TaskID })
	if err != nil {
		return nil, err
	}
	if rec.Status.Terminal() {
		if r.Stateless() {
			return &mcp.EmptyResult{}, nil // idempotent
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: task %s is already %s", rec.ID, rec.Status)
	}
	rec, err = m.store.Update(ctx, rec.ID, func(rec *Record) error {
		if !rec.Status.Terminal() {
			rec.CancelRequested = true
		}
		return nil
	})
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "cancelling the task: %v", err)
	}
	m.mu.Lock()
	run := m.runs[rec.ID]
	m.mu.Unlock()
	if run != nil {
		run.checkCancel()
	}
	m.changed(rec)
	if r.Stateless() {
		return &mcp.EmptyResult{}, nil
	}
	// The 2025-11-25 answer is the task after cancellation: wait a
	// moment for the handler to stop, so that it usually says cancelled.
	if run != nil {
		ch, stop := m.watch(rec.ID)
		defer stop()
		for i := 0; i < 10; i++ {
			if cur, err := m.get(ctx, rec.ID); err == nil {
				rec = cur
				if cur.Status.Terminal() {
					break
				}
			}
			if m.wait(ctx, rec.ID, ch) != nil {
				break
			}
		}
	}
	t := legacyTask(rec)
	if !t.Status.Terminal() {
		t.Status = TaskStatusCancelled
	}
	return &CancelTaskResult{Task: *t}, nil
}

// handleUpdate takes answers to the task's questions (2026-07-28). Keys the
// task is not waiting for are ignored; an answer of the wrong kind is an
// error.
func (m *Manager) handleUpdate(ctx context.Context, r *mcp.Request) (any, error) {
	var p UpdateTaskParams
	rec, _, err := m.lookup(ctx, r, &p, func() string { return p.TaskID })
	if err != nil {
		return nil, err
	}
	answers := make(map[string]*mcp.InputResponse)
	for k, raw := range p.InputResponses {
		q := rec.InputRequests[k]
		if q == nil {
			continue
		}
		var a mcp.InputResponse
		if err := a.UnmarshalJSON(raw); err != nil || !answersKind(&a, q) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: inputResponses[%q] does not answer a %s request", k, q.Method())
		}
		answers[k] = &a
	}
	if len(answers) > 0 {
		rec, err = m.store.Update(ctx, rec.ID, func(rec *Record) error {
			if rec.Status.Terminal() {
				return errTerminal
			}
			for k, a := range answers {
				if rec.InputRequests[k] == nil {
					continue // answered meanwhile
				}
				delete(rec.InputRequests, k)
				if rec.InputResponses == nil {
					rec.InputResponses = make(map[string]*mcp.InputResponse)
				}
				rec.InputResponses[k] = a
			}
			if len(rec.InputRequests) == 0 {
				rec.Status = TaskStatusWorking
			}
			return nil
		})
		switch {
		case errors.Is(err, errTerminal):
		case err != nil:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "updating the task: %v", err)
		default:
			m.changed(rec)
		}
	}
	return &mcp.EmptyResult{}, nil
}

func answersKind(a *mcp.InputResponse, q *mcp.InputRequest) bool {
	switch {
	case q.Elicit != nil:
		return a.Elicit != nil
	case q.CreateMessage != nil:
		return a.CreateMessage != nil
	case q.ListRoots != nil:
		return a.ListRoots != nil
	}
	return false
}

// handleResult blocks until the task ends, then answers with the original
// request's result or error (2025-11-25). While it waits, the task's
// requests to the client travel on its stream.
func (m *Manager) handleResult(ctx context.Context, r *mcp.Request) (any, error) {
	var p GetTaskPayloadParams
	rec, _, err := m.lookup(ctx, r, &p, func() string { return p.TaskID })
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.results[rec.ID] = append(m.results[rec.ID], ctx)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		list := m.results[rec.ID]
		for i, c := range list {
			if c == ctx {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(m.results, rec.ID)
		} else {
			m.results[rec.ID] = list
		}
		m.mu.Unlock()
	}()
	ch, stop := m.watch(rec.ID)
	defer stop()
	for !rec.Status.Terminal() {
		if err := m.wait(ctx, rec.ID, ch); err != nil {
			return nil, err
		}
		if rec, err = m.get(ctx, rec.ID); err != nil {
			return nil, errUnknownTask
		}
	}
	related := &mcp.Meta{RelatedTask: &mcp.RelatedTaskMetadata{TaskID: rec.ID}}
	switch {
	case rec.Status == TaskStatusCancelled:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "task %s was cancelled", rec.ID)
	case rec.Error != nil:
		return nil, rec.Error
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(rec.Result, &res); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "stored result: %v", err)
	}
	res.Meta = withRelated(res.Meta, related.RelatedTask)
	return &res, nil
}

// handleList lists the caller's tasks (2025-11-25).
func (m *Manager) handleList(ctx context.Context, r *mcp.Request) (any, error) {
	var p ListTasksParams
	owner, _, err := m.caller(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(orEmpty(r.Params), &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)
	}
	recs, next, err := m.store.List(ctx, owner, p.Cursor, 100)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)
	}
	res := &ListTasksResult{NextCursor: next}
	for _, rec := range recs {
		res.Tasks = append(res.Tasks, legacyTask(m.settle(ctx, rec)))
	}
	return res, nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}
