package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
)

// Options configure a Manager. The zero value is usable.
type Options struct {
	// Store keeps the tasks. Default: NewMemoryStore(nil). Processes that
	// share a Store and the Server's shared.Notifier serve the same tasks.
	Store TaskStore
	// TTL is how long a task is kept after its creation, and the most a
	// 2025-11-25 client may ask for. Default: one hour.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients, and how
	// often a waiter re-reads the store when no notice arrives. Default:
	// 500ms.
	PollInterval time.Duration
	// Owner names who a request comes from; a task is visible only to
	// requests of its creator's owner. Default: the session's principal,
	// else the session's id, for a stateful session; "" (anyone who knows
	// the unguessable id) for a 2026-07-28 request. Derive it from the
	// authenticated caller, which ctx carries (the HTTP request's values).
	Owner func(ctx context.Context, session *mcp.ServerSession) string
	// Decide says whether a call of a tool whose task support is optional
	// runs as a task, when the client can take one. Default: always.
	Decide func(ctx context.Context, req *mcp.CallToolRequest, tool *mcp.Tool) bool
	// Logger receives the manager's own diagnostics. When nil, records of
	// level Error (a task handler's panic with its stack, an outcome that
	// could not be recorded) go to the process's stderr, as with
	// mcp.ServerOptions.Logger, and the rest is dropped;
	// slog.New(slog.DiscardHandler) turns even that off.
	Logger *slog.Logger
	// Lease is how long a task stays working after the process running its
	// handler last said it still does: that process renews the leases of
	// all its tasks every Lease/3 (one goroutine per Manager), and any
	// process reading a task whose lease lapsed (its process was killed)
	// records it as failed, with a status message saying so. Processes
	// sharing a store need clocks within a fraction of it. Default: 10
	// seconds; negative: no lease (such a task stays working until it
	// expires).
	Lease time.Duration
}

// errorsOnStderr is the manager's logger when Options.Logger is nil.
var errorsOnStderr = slog.New(slog.NewTextHandler(stderrNow{}, &slog.HandlerOptions{Level: slog.LevelError}))

// stderrNow writes to os.Stderr as it is at the time of the write.
type stderrNow struct{}

func (stderrNow) Write(p []byte) (int, error) { return os.Stderr.Write(p) }

// Manager runs tool calls as tasks for one mcp.Server: it installs the
// server's tool-call hook, advertises the tasks extension (2026-07-28) and
// the tasks capability (2025-11-25), and answers the tasks methods of both.
// Close it when the server is done, to stop the tasks still running.
type Manager struct {
	srv      *mcp.Server
	store    TaskStore
	opts     Options
	log      *slog.Logger
	notifier shared.Notifier
	unsub    func()

	mu       sync.Mutex
	runs     map[string]*run                       // tasks whose handler runs here
	waiters  map[string]map[chan struct{}]struct{} // woken by changes of a task
	deferred map[string]bool                       // tools whose handlers call Start
	results  map[string][]context.Context          // open 2025-11-25 tasks/result calls, by task
	renewing bool                                  // the lease renewer runs
	idle     chan struct{}                         // wakes the renewer when no handler runs
	closed   bool
	wg       sync.WaitGroup
}

// New attaches a Manager to srv. opts may be nil.
func New(srv *mcp.Server, opts *Options) (*Manager, error) {
	m := &Manager{srv: srv, runs: make(map[string]*run), waiters: make(map[string]map[chan struct{}]struct{}),
		deferred: make(map[string]bool), results: make(map[string][]context.Context), idle: make(chan struct{}, 1)}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Store == nil {
		m.opts.Store = NewMemoryStore(nil)
	}
	if m.opts.TTL <= 0 {
		m.opts.TTL = time.Hour
	}
	switch {
	case m.opts.Lease == 0:
		m.opts.Lease = 10 * time.Second
	case m.opts.Lease < 0:
		m.opts.Lease = 0
	}
	if m.opts.PollInterval <= 0 {
		m.opts.PollInterval = 500 * time.Millisecond
	}
	m.store = m.opts.Store
	m.log = m.opts.Logger
	if m.log == nil {
		m.log = errorsOnStderr
	}
	if err := srv.AddExtension(&mcp.Extension{ID: ExtensionID, Methods: []mcp.Method{
		{Name: MethodGet, Handler: m.handleGet, Revisions: []string{mcp.Version20251125, mcp.Version20260728}},
		{Name: MethodCancel, Handler: m.handleCancel, Revisions: []string{mcp.Version20251125, mcp.Version20260728}},
		{Name: MethodUpdate, Handler: m.handleUpdate, Lifecycle: mcp.StatelessOnly},
	}, Revisions: []string{mcp.Version20260728}}); err != nil {
		return nil, err
	}
	for _, meth := range []mcp.Method{
		{Name: MethodResult, Handler: m.handleResult, Lifecycle: mcp.StatefulOnly, Revisions: []string{mcp.Version20251125}},
		{Name: MethodList, Handler: m.handleList, Lifecycle: mcp.StatefulOnly, Revisions: []string{mcp.Version20251125}},
	} {
		if err := srv.AddMethod(meth); err != nil {
			return nil, err
		}
	}
	srv.ExtendCapabilities(func(c *mcp.ServerCapabilities) {
		c.Tasks = serverCapability
	})
	srv.AddListenHook(m.listenHook)
	m.notifier = srv.Notifier()
	m.unsub = m.notifier.Subscribe(m.onNotice)
	srv.SetToolCallHook(m.hook)
	return m, nil
}

// Close cancels the tasks running in this process, waits for their
// handlers to return, and detaches from the server's notifier. Their
// records stay in the store, marked failed.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	for _, r := range m.runs {
		r.cancel()
	}
	m.mu.Unlock()
	m.wg.Wait()
	m.unsub()
	return nil
}

// AddTool registers a tool whose calls may run as tasks: support says
// whether they may (optional) or must (required). It sets
// t.Execution.TaskSupport, which 2025-11-25 clients read. The handler is an
// ordinary tool handler; see Report, Start and ID for what it can do as a
// task. With opts.StartInHandler, the call is not a task until the handler
// calls Start: the questions it asks before that are input rounds of the
// tools/call itself, answered before the task exists.
//
// Any tool whose Execution.TaskSupport is optional or required runs as a
// task, however it was added: a typed tool (mcp.AddTool) with Execution
// set works too, starting its task on its first line.
func (m *Manager) AddTool(t *mcp.Tool, support mcp.TaskSupport, h mcp.ToolHandler, opts *ToolOptions) error {
	if t == nil {
		return errors.New("tasks: nil tool")
	}
	t.Execution = &mcp.ToolExecution{TaskSupport: support}
	if err := m.srv.AddTool(t, h); err != nil {
		return err
	}
	m.mu.Lock()
	m.deferred[t.Name] = opts != nil && opts.StartInHandler
	m.mu.Unlock()
	return nil
}

// ToolOptions configure one tool of AddTool.
type ToolOptions struct {
	// StartInHandler: the handler calls Start when the call should become
	// a task; until then it runs as a plain call (a 2026-07-28 client gets
	// its input-required rounds synchronously).
	StartInHandler bool
}

// support returns a tool's task support.
func support(t *mcp.Tool) mcp.TaskSupport {
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return mcp.TaskSupportForbidden
	}
	return t.Execution.TaskSupport
}

// coreTasks reports whether revision v has the 2025-11-25 task model.
func coreTasks(v string) bool {
	rev, ok := mcp.LookupRevision(v)
	return ok && rev.CoreTasks
}

// declares reports whether the client capabilities declare the extension.
func declares(c *mcp.ClientCapabilities) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[ExtensionID]
	return ok
}

// requiredCapability is the -32021 error naming the extension.
func requiredCapability() *jsonrpc.Error {
	return mcp.MissingCapabilityError(&mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{ExtensionID: json.RawMessage("{}")}})
}

func (m *Manager) owner(ctx context.Context, ss *mcp.ServerSession) string {
	if m.opts.Owner != nil {
		return m.opts.Owner(ctx, ss)
	}
	if ss == nil {
		return ""
	}
	if p := ss.State().Principal; p != "" {
		return p
	}
	if id := ss.ID(); id != "" {
		return id
	}
	// A connection without a session id (stdio, a pipe): the session
	// itself, while it lives.
	return fmt.Sprintf("connection@%p", ss)
}

// newID returns an unguessable task id: 128 random bits.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hook is the server's ToolCallHook.
func (m *Manager) hook(ctx context.Context, req *mcp.CallToolRequest, tool *mcp.Tool, next func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) (mcp.Result, error) {
	sup := support(tool)
	var legacy bool // the 2025-11-25 model
	var ttl time.Duration
	switch {
	case req.Stateless():
		if !declares(req.ClientCapabilities()) {
			if sup == mcp.TaskSupportRequired {
				return nil, requiredCapability()
			}
			return next(ctx, req)
		}
		if sup == mcp.TaskSupportForbidden || (sup == mcp.TaskSupportOptional && m.opts.Decide != nil && !m.opts.Decide(ctx, req, tool)) {
			return next(ctx, req)
		}
	case coreTasks(req.ProtocolVersion()):
		if req.Params.Task == nil {
			if sup == mcp.TaskSupportRequired {
				return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "tool %q must be called as a task", tool.Name)
			}
			return next(ctx, req)
		}
		if sup == mcp.TaskSupportForbidden {
			return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "tool %q cannot be called as a task", tool.Name)
		}
		legacy = true
		if req.Params.Task.TTL > 0 {
			ttl = time.Duration(req.Params.Task.TTL) * time.Millisecond
		}
	default:
		return next(ctx, req)
	}
	if ttl <= 0 || ttl > m.opts.TTL {
		ttl = m.opts.TTL
	}
	m.mu.Lock()
	deferred := m.deferred[tool.Name] && !legacy
	m.mu.Unlock()

	ss, _ := req.Session() // nil for a 2026-07-28 request
	r := &run{m: m, legacy: legacy, ss: ss, started: make(chan struct{})}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	rec := &Record{ID: newID(), Owner: m.owner(ctx, ss), Status: TaskStatusWorking, TTL: ttl, PollInterval: m.opts.PollInterval}
	if legacy {
		rec.Session = ss.ID()
	}
	r.id = rec.ID
	if !deferred {
		if err := m.create(ctx, rec); err != nil {
			cancel()
			return nil, err
		}
		close(r.started)
		r.begun = true
		m.launch(r, rctx, req, next)
		return m.handle(rec, legacy), nil
	}
	// The handler runs as a plain call until it calls Start: the
	// request's cancellation reaches it until then.
	r.rec = rec
	stop := context.AfterFunc(ctx, cancel)
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "server shutting down")
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		res, err := r.call(context.WithValue(rctx, runKey{}, r), req, next)
		if !r.begun {
			cancel()
			done <- outcome{res, err}
			return
		}
		r.finish(res, err)
	}()
	select {
	case o := <-done:
		stop()
		if o.err != nil {
			return nil, o.err
		}
		return o.res, nil
	case <-r.started:
		stop()
		if r.startErr != nil {
			return nil, r.startErr
		}
		return m.handle(rec, legacy), nil
	}
}

// create stores a new record, stamped now.
func (m *Manager) create(ctx context.Context, rec *Record) error {
	now := time.Now().UTC()
	rec.CreatedAt, rec.UpdatedAt = now, now
	rec.ExpiresAt = now.Add(rec.TTL)
	rec.LeaseUntil = m.leaseUntil(now)
	if err := m.store.Create(ctx, rec); err != nil {
		if errors.Is(err, ErrFull) {
			return jsonrpc.NewError(jsonrpc.CodeInternalError, "too many tasks; try again later")
		}
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "storing the task: %v", err)
	}
	return nil
}

// launch runs the handler of a task that exists.
func (m *Manager) launch(r *run, ctx context.Context, req *mcp.CallToolRequest, next func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		r.cancel()
		r.finish(nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "server shutting down"))
		return
	}
	m.addRunLocked(r)
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		res, err := r.call(context.WithValue(ctx, runKey{}, r), req, next)
		r.finish(res, err)
	}()
}

// handle is the result that answers a call that became a task.
func (m *Manager) handle(rec *Record, legacy bool) mcp.Result {
	if legacy {
		return &CreateTaskResult{Task: *legacyTask(rec)}
	}
	return &TaskHandle{ResultType: mcp.ResultTypeTask, TaskInfo: info(rec)}
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func info(rec *Record) TaskInfo {
	i := TaskInfo{TaskID: rec.ID, Status: rec.Status, StatusMessage: rec.StatusMessage,
		CreatedAt: timestamp(rec.CreatedAt), LastUpdatedAt: timestamp(rec.UpdatedAt),
		PollIntervalMs: rec.PollInterval.Milliseconds()}
	if rec.TTL > 0 {
		ms := rec.TTL.Milliseconds()
		i.TTLMs = &ms
	}
	return i
}

func legacyTask(rec *Record) *Task {
	i := info(rec)
	return &Task{TaskID: i.TaskID, Status: i.Status, StatusMessage: i.StatusMessage, CreatedAt: i.CreatedAt,
		LastUpdatedAt: i.LastUpdatedAt, TTL: i.TTLMs, PollInterval: i.PollIntervalMs}
}

// detailed is the 2026-07-28 tasks/get result of rec.
func detailed(rec *Record) *DetailedTask {
	d := &DetailedTask{ResultType: mcp.ResultTypeComplete, TaskInfo: info(rec)}
	switch rec.Status {
	case TaskStatusInputRequired:
		d.InputRequests = rec.InputRequests
	case TaskStatusCompleted:
		d.Result = rec.Result
	case TaskStatusFailed:
		d.Error = rec.Error
		if d.Error == nil {
			d.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "task failed")
		}
	}
	return d
}

// changed tells every process that the task changed, and the listen
// streams of this one.
func (m *Manager) changed(rec *Record) {
	if err := m.notifier.Publish(context.Background(), &shared.Notice{Method: NoticeTaskChanged, Data: rec.ID, Origin: m.srv.InstanceID()}); err != nil {
		m.log.Warn("tasks: publishing a change", "task", rec.ID, "err", err)
	}
	m.notifyListeners(rec)
}

// notifyListeners sends notifications/tasks, the full task, to the listen
// streams of this process that asked for the task (2026-07-28).
func (m *Manager) notifyListeners(rec *Record) {
	m.srv.NotifyListeners(NotificationTask,
		func(f *mcp.SubscriptionFilter) bool { return slices.Contains(f.TaskIDs, rec.ID) },
		func(meta *mcp.Meta) any {
			d := detailed(rec)
			d.ResultType = ""
			d.Meta = meta
			return d
		})
}

// listenHook accepts the taskIds of a subscriptions/listen filter: only
// from a request that declares the extension, and only the caller's tasks.
func (m *Manager) listenHook(ctx context.Context, r *mcp.Request, requested, ack *mcp.SubscriptionFilter) error {
	if len(requested.TaskIDs) == 0 {
		return nil
	}
	owner, _, err := m.caller(ctx, r)
	if err != nil {
		return err
	}
	for _, id := range requested.TaskIDs {
		if rec, err := m.store.Get(ctx, id); err == nil && rec.Owner == owner {
			ack.TaskIDs = append(ack.TaskIDs, id)
		}
	}
	return nil
}

// onNotice wakes the waiters of a task and cancels a local run whose task
// was cancelled elsewhere.
func (m *Manager) onNotice(n *shared.Notice) {
	if n.Method != NoticeTaskChanged {
		return
	}
	m.mu.Lock()
	for ch := range m.waiters[n.Data] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	r := m.runs[n.Data]
	if n.Origin == m.srv.InstanceID() || m.closed {
		m.mu.Unlock()
		return
	}
	// A change made in another process: re-read the task for the listen
	// streams held here, and cancel the handler if that was the change.
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		if r != nil {
			r.checkCancel()
		}
		if rec, err := m.store.Get(context.Background(), n.Data); err == nil {
			m.notifyListeners(rec)
		}
	}()
}

// wait blocks until the task changes, the poll interval passes, or ctx ends.
func (m *Manager) wait(ctx context.Context, id string, ch chan struct{}) error {
	t := time.NewTimer(m.opts.PollInterval)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// watch registers a waiter for id; call the returned function when done.
func (m *Manager) watch(id string) (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	if m.waiters[id] == nil {
		m.waiters[id] = make(map[chan struct{}]struct{})
	}
	m.waiters[id][ch] = struct{}{}
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		delete(m.waiters[id], ch)
		if len(m.waiters[id]) == 0 {
			delete(m.waiters, id)
		}
		m.mu.Unlock()
	}
}

// recovered turns a handler's panic into an internal error.
func recovered(log *slog.Logger, id string, v any) error {
	log.Error("tasks: handler panicked", "task", id, "panic", v, "stack", string(debug.Stack()))
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: %v", v)
}
