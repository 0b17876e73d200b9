package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// run is a task whose handler runs in this process.
type run struct {
	m      *Manager
	id     string
	legacy bool               // the 2025-11-25 model
	ss     *mcp.ServerSession // the session of a 2025-11-25 task
	cancel context.CancelFunc

	// Deferred start (ToolOptions.StartInHandler): the record to create,
	// and started closed when it exists (or failed to: startErr). begun is
	// written before started is closed, on the handler's goroutine.
	rec      *Record
	started  chan struct{}
	startErr error
	begun    bool
	once     sync.Once
}

type runKey struct{}

func runFrom(ctx context.Context) *run {
	r, _ := ctx.Value(runKey{}).(*run)
	return r
}

// call runs the handler, with questions routed through the task once it
// exists, and a panic turned into an error.
func (r *run) call(ctx context.Context, req *mcp.CallToolRequest, next func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, recovered(r.m.log, r.id, v)
		}
	}()
	if r.begun {
		ctx = mcp.Detached(mcp.WithInputFunc(ctx, r.inputFunc(req)))
	}
	return next(ctx, req)
}

// Start makes the call running on ctx a task, if the server decided it may
// be one and its tool was registered with ToolOptions.StartInHandler: the
// client receives the task's handle now, and the handler goes on in the
// background. It returns the context for the rest of the handler, on which
// questions go through the task. Elsewhere it returns ctx and does
// nothing, so a handler may always call it. Call it on the handler's own
// goroutine.
func Start(ctx context.Context) (context.Context, error) {
	r := runFrom(ctx)
	if r == nil || r.rec == nil {
		return ctx, nil
	}
	var err error
	r.once.Do(func() {
		if err = r.m.create(ctx, r.rec); err != nil {
			r.startErr = err
			close(r.started)
			return
		}
		r.m.mu.Lock()
		r.m.addRunLocked(r)
		r.m.mu.Unlock()
		r.begun = true
		close(r.started)
	})
	if err != nil {
		return ctx, err
	}
	return mcp.Detached(mcp.WithInputFunc(ctx, r.inputFunc(nil))), nil
}

// ID returns the id of the task the handler running on ctx serves, if it
// runs as a task.
func ID(ctx context.Context) (string, bool) {
	r := runFrom(ctx)
	if r == nil || !r.begun {
		return "", false
	}
	return r.id, true
}

// Report sets the status message of the task the handler running on ctx
// serves (tasks/get shows it); it does nothing when the handler does not run
// as a task.
func Report(ctx context.Context, message string) error {
	r := runFrom(ctx)
	if r == nil || !r.begun {
		return nil
	}
	_, err := r.update(ctx, func(rec *Record) error {
		rec.StatusMessage = message
		return nil
	})
	return err
}

// errTerminal stops an update of a task that already ended.
var errTerminal = errors.New("tasks: the task has ended")

// update changes the task unless it ended, stamps it, and announces it.
func (r *run) update(ctx context.Context, fn func(*Record) error) (*Record, error) {
	rec, err := r.m.store.Update(context.WithoutCancel(ctx), r.id, func(rec *Record) error {
		if rec.Status.Terminal() {
			return errTerminal
		}
		if err := fn(rec); err != nil {
			return err
		}
		now := time.Now()
		rec.UpdatedAt = now.UTC()
		if l := r.m.leaseUntil(now); !l.IsZero() {
			rec.LeaseUntil = l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.m.changed(rec)
	if r.legacy && r.ss != nil {
		_ = r.ss.Notify(context.WithoutCancel(ctx), NotificationStatus, &TaskStatusNotificationParams{Task: *legacyTask(rec)})
	}
	return rec, nil
}

// finish records the handler's outcome.
func (r *run) finish(res *mcp.CallToolResult, err error) {
	defer r.cancel()
	r.m.mu.Lock()
	closing := r.m.closed
	r.m.mu.Unlock()
	defer func() {
		// Still renewing the lease while the outcome is recorded.
		r.m.mu.Lock()
		r.m.removeRunLocked(r.id)
		r.m.mu.Unlock()
	}()
	var raw json.RawMessage
	if err == nil && res != nil {
		raw, err = json.Marshal(res)
	}
	uerr := r.record(func(rec *Record) error {
		rec.InputRequests, rec.InputResponses = nil, nil
		var je *jsonrpc.Error
		switch {
		case rec.CancelRequested:
			rec.Status = TaskStatusCancelled
			rec.StatusMessage = "cancelled"
		case closing:
			rec.Status = TaskStatusFailed
			rec.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "the server shut down while the task ran")
		case err == nil && r.legacy && res.IsError:
			rec.Status = TaskStatusFailed
			rec.Result = raw
		case err == nil:
			rec.Status = TaskStatusCompleted
			rec.Result = raw
		case errors.As(err, &je):
			rec.Status = TaskStatusFailed
			rec.Error = je
		default:
			rec.Status = TaskStatusFailed
			rec.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())
		}
		return nil
	})
	if uerr != nil && !errors.Is(uerr, errTerminal) && !errors.Is(uerr, ErrNotFound) {
		r.m.log.Error("tasks: recording the outcome", "task", r.id, "err", uerr)
	}
}

// record makes the update that records the outcome, again while the
// store fails (a Redis failover takes seconds), for up to the lease: past
// it, other processes record the task as failed.
func (r *run) record(fn func(*Record) error) error {
	deadline := time.Now().Add(max(r.m.opts.Lease, time.Second))
	backoff := 50 * time.Millisecond
	for {
		_, err := r.update(context.Background(), fn)
		if err == nil || errors.Is(err, errTerminal) || errors.Is(err, ErrNotFound) || time.Now().Add(backoff).After(deadline) {
			return err
		}
		r.m.log.Warn("tasks: recording the outcome: retrying", "task", r.id, "err", err, "in", backoff)
		time.Sleep(backoff)
		backoff = min(2*backoff, time.Second)
	}
}

// checkCancel cancels the handler if the task's record asks for it.
func (r *run) checkCancel() {
	rec, err := r.m.store.Get(context.Background(), r.id)
	if err == nil && rec.CancelRequested {
		r.cancel()
	}
}

// inputFunc routes the handler's questions through the task.
func (r *run) inputFunc(req *mcp.CallToolRequest) mcp.InputFunc {
	if r.legacy {
		return func(ctx context.Context, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
			return r.inputSession(ctx, req, reqs)
		}
	}
	return r.inputStore
}

// wireKey returns a key for k never used before in the task.
func wireKey(k string, used []string) string {
	taken := make(map[string]bool, len(used))
	for _, u := range used {
		taken[u] = true
	}
	if !taken[k] {
		return k
	}
	for n := 2; ; n++ {
		if c := k + "-" + strconv.Itoa(n); !taken[c] {
			return c
		}
	}
}

// inputStore asks through the record (2026-07-28): the questions become the
// task's inputRequests, and tasks/update brings the answers.
func (r *run) inputStore(ctx context.Context, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
	if len(reqs) == 0 {
		return map[string]*mcp.InputResponse{}, nil
	}
	for _, q := range reqs {
		if q == nil || q.Method() == "" {
			return nil, errors.New("tasks: an input request needs exactly one question")
		}
	}
	var names map[string]string // wire key → handler key
	_, err := r.update(ctx, func(rec *Record) error {
		names = make(map[string]string, len(reqs))
		if rec.InputRequests == nil {
			rec.InputRequests = make(map[string]*mcp.InputRequest)
		}
		for _, k := range sortedKeys(reqs) {
			wk := wireKey(k, rec.Keys)
			rec.Keys = append(rec.Keys, wk)
			rec.InputRequests[wk] = reqs[k]
			names[wk] = k
		}
		rec.Status = TaskStatusInputRequired
		return nil
	})
	if err != nil {
		return nil, err
	}
	ch, stop := r.m.watch(r.id)
	defer stop()
	for {
		rec, err := r.m.store.Get(context.WithoutCancel(ctx), r.id)
		if err != nil {
			return nil, err
		}
		if rec.CancelRequested {
			r.cancel()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ready := true
		for wk := range names {
			if rec.InputResponses[wk] == nil {
				ready = false
				break
			}
		}
		if ready {
			out := make(map[string]*mcp.InputResponse, len(names))
			_, err := r.update(ctx, func(rec *Record) error {
				for wk, k := range names {
					if a := rec.InputResponses[wk]; a != nil {
						out[k] = a
					}
					delete(rec.InputResponses, wk)
				}
				if len(rec.InputRequests) == 0 {
					rec.Status = TaskStatusWorking
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			return out, nil
		}
		if err := r.m.wait(ctx, r.id, ch); err != nil {
			return nil, err
		}
	}
}

// inputSession asks through the session (2025-11-25): the task shows
// input_required while the client answers real requests tagged with the
// task, sent on a tasks/result call of the task when one is open.
func (r *run) inputSession(ctx context.Context, req *mcp.CallToolRequest, reqs map[string]*mcp.InputRequest) (map[string]*mcp.InputResponse, error) {
	if req == nil {
		return nil, errors.New("tasks: no request to ask through")
	}
	if _, err := r.update(ctx, func(rec *Record) error {
		rec.Status = TaskStatusInputRequired
		return nil
	}); err != nil {
		return nil, err
	}
	// The questions go out as real requests on the session, through the
	// request's handle: WithInputFunc(nil) so that they do not come back
	// here, on an open tasks/result call's context when there is one.
	send := mcp.WithInputFunc(r.m.resultContext(r.id, ctx), nil)
	related := &mcp.RelatedTaskMetadata{TaskID: r.id}
	tagged := make(map[string]*mcp.InputRequest, len(reqs))
	for k, q := range reqs {
		c := *q
		switch {
		case q.Elicit != nil:
			p := *q.Elicit
			p.Meta = withRelated(p.Meta, related)
			c.Elicit = &p
		case q.CreateMessage != nil:
			p := *q.CreateMessage
			p.Meta = withRelated(p.Meta, related)
			c.CreateMessage = &p
		case q.ListRoots != nil:
			p := *q.ListRoots
			p.Meta = withRelated(p.Meta, related)
			c.ListRoots = &p
		default:
			return nil, errors.New("tasks: an input request needs exactly one question")
		}
		tagged[k] = &c
	}
	out, err := req.Input(send, tagged)
	if err != nil {
		return nil, err
	}
	if _, err := r.update(ctx, func(rec *Record) error {
		rec.Status = TaskStatusWorking
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

func withRelated(m *mcp.Meta, rt *mcp.RelatedTaskMetadata) *mcp.Meta {
	c := &mcp.Meta{}
	if m != nil {
		*c = *m
	}
	c.RelatedTask = rt
	return c
}

// resultContext returns the context of an open tasks/result call of the
// task, whose stream carries the task's requests to the client, bound to
// the run's cancellation; or ctx when none is open.
func (m *Manager) resultContext(id string, ctx context.Context) context.Context {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.results[id] {
		if c.Err() == nil {
			return mergeCancel(c, ctx)
		}
	}
	return ctx
}

// mergeCancel returns values's values, cancelled when either ends.
func mergeCancel(values, other context.Context) context.Context {
	c, cancel := context.WithCancel(values)
	context.AfterFunc(other, cancel)
	return c
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
