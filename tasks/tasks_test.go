package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// newServer returns a server whose tools run as tasks, and its manager.
func newServer(t *testing.T, opts *tasks.Options) (*mcp.Server, *tasks.Manager) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "1.0.0"}, nil)
	if opts == nil {
		opts = &tasks.Options{}
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	m, err := tasks.New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// sleep sleeps for its argument's milliseconds, reporting its status.
	must(m.AddTool(&mcp.Tool{Name: "sleep"}, mcp.TaskSupportOptional,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ MS int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			_ = tasks.Report(ctx, "sleeping")
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			id, _ := tasks.ID(ctx)
			// After the request was answered: harmless (dropped on a
			// 2026-07-28 task, sent on a 2025-11-25 session).
			_ = req.Log(ctx, mcp.LevelInfo, "sleep", "woke up")
			_ = req.NotifyProgress(ctx, 1, 1, "done")
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("slept in " + fmt.Sprint(id != ""))}}, nil
		}, nil))
	// ask asks twice, once in two questions at once, inside the task.
	must(m.AddTool(&mcp.Tool{Name: "ask"}, mcp.TaskSupportRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := req.Input(ctx, map[string]*mcp.InputRequest{
				"color": {Elicit: &mcp.ElicitParams{Message: "color?"}},
				"size":  {Elicit: &mcp.ElicitParams{Message: "size?"}},
			})
			if err != nil {
				return nil, err
			}
			again, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "sure?"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("%v %v %v",
				a["color"].Elicit.Content["answer"], a["size"].Elicit.Content["answer"], again.Content["answer"]))}}, nil
		}, nil))
	// intro asks a name before the task exists (StartInHandler), then
	// asks again inside it.
	must(m.AddTool(&mcp.Tool{Name: "intro"}, mcp.TaskSupportRequired,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_, before := tasks.ID(ctx)
			name, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
			if err != nil {
				return nil, err
			}
			if ctx, err = tasks.Start(ctx); err != nil {
				return nil, err
			}
			_, after := tasks.ID(ctx)
			again, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "again?"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("%v %v %v %v",
				name.Content["answer"], again.Content["answer"], before, after))}}, nil
		}, &tasks.ToolOptions{StartInHandler: true}))
	// broken fails with a protocol error.
	must(m.AddTool(&mcp.Tool{Name: "broken"}, mcp.TaskSupportOptional,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(-32001, "broken on purpose")
		}, nil))
	// panics panics.
	must(m.AddTool(&mcp.Tool{Name: "panics"}, mcp.TaskSupportOptional,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}, nil))
	return s, m
}

// connectHTTP serves s over Streamable HTTP and connects c to it; all
// of it ends with the test.
func connectHTTP(t *testing.T, s *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	cs, err := c.Connect(context.Background(), mcphttp.NewClientStream(ts.URL, nil))
	if err != nil {
		h.Close()
		ts.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		h.Close()
		ts.Close()
	})
	return cs
}

// answerer answers elicitations with "<message> answered".
func answerer() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": strings.TrimSuffix(req.Params.Message, "?")}}, nil
	}}
}

type connector struct {
	name    string
	connect func(t *testing.T, s *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession
}

var connectors = []connector{
	{"pipe", func(t *testing.T, s *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
		return mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: version, Client: opts})
	}},
	{"stdio", func(t *testing.T, s *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
		// The stdio framing (newline-delimited JSON) over OS pipes.
		c2sR, c2sW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		s2cR, s2cW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		serverEnd := transport.NewLineStream(c2sR, s2cW, closers{c2sR, s2cW}, nil)
		clientEnd := transport.NewLineStream(s2cR, c2sW, closers{s2cR, c2sW}, nil)
		ss := s.Connect(serverEnd, nil)
		if opts == nil {
			opts = &mcp.ClientOptions{}
		}
		o := *opts
		o.ProtocolVersion = version
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &o).Connect(context.Background(), clientEnd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			_ = ss.Wait()
		})
		return cs
	}},
	{"http", func(t *testing.T, s *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
		if opts == nil {
			opts = &mcp.ClientOptions{}
		}
		o := *opts
		o.ProtocolVersion = version
		return connectHTTP(t, s, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &o))
	}},
}

// closers closes each of its files.
type closers []*os.File

func (c closers) Close() error {
	var errs []error
	for _, f := range c {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

var versions = []string{"2025-11-25", "2026-07-28"}

func each(t *testing.T, f func(t *testing.T, conn connector, version string)) {
	for _, c := range connectors {
		for _, v := range versions {
			t.Run(c.name+"/"+v, func(t *testing.T) { f(t, c, v) })
		}
	}
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) == 0 {
		t.Fatalf("no content in %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	return tc.Text
}

func TestTaskLifecycle(t *testing.T) {
	each(t, func(t *testing.T, conn connector, version string) {
		s, _ := newServer(t, nil)
		cs := conn.connect(t, s, version, answerer())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if cs.ProtocolVersion() != version {
			t.Fatalf("version %s, want %s", cs.ProtocolVersion(), version)
		}
		if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
			t.Fatal(err)
		}

		// A call that completes.
		call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":50}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if call.Task == nil || call.Task.TaskID == "" || call.Result != nil {
			t.Fatalf("CallToolTask = %+v, want a task", call)
		}
		if d, err := tasks.Get(ctx, cs, call.Task.TaskID); err != nil || d.TaskID != call.Task.TaskID {
			t.Fatalf("GetTask right after creation = %+v, %v", d, err)
		}
		res, err := call.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "slept in true" {
			t.Fatalf("result %q", got)
		}

		// A plain call of the same tool is not a task.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)})
		if err != nil || text(t, res) != "slept in false" {
			t.Fatalf("CallTool = %v, %v", res, err)
		}

		// Questions asked inside the task reach the client's handler.
		call, err = tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "ask"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err = call.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "color size sure" {
			t.Fatalf("ask result %q", got)
		}

		// Questions before Start are the call's own input rounds (2026),
		// answered before the task exists; a 2025-11-25 call is a task
		// from the start.
		call, err = tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "intro"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err = call.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := "name again false true"
		if version == "2025-11-25" {
			want = "name again true true"
		}
		if got := text(t, res); got != want {
			t.Fatalf("intro result %q, want %q", got, want)
		}

		// A task must be asked for.
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
		var je *jsonrpc.Error
		wantCode := int64(mcp.CodeMissingRequiredClientCapability)
		if version == "2025-11-25" {
			wantCode = jsonrpc.CodeMethodNotFound
		}
		if !errors.As(err, &je) || int64(je.Code) != wantCode {
			t.Fatalf("CallTool of a task-only tool = %v, want code %d", err, wantCode)
		}

		// Protocol errors and panics fail the task.
		for _, name := range []string{"broken", "panics"} {
			call, err = tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: name}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = call.Wait(ctx)
			if !errors.As(err, &je) {
				t.Fatalf("%s: Wait = %v, want a JSON-RPC error", name, err)
			}
		}

		// Cancellation reaches the handler through its context.
		call, err = tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := call.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := call.Wait(ctx); !errors.Is(err, tasks.ErrCancelled) {
			t.Fatalf("Wait after Cancel = %v", err)
		}
		d, err := tasks.Get(ctx, cs, call.Task.TaskID)
		if err != nil || d.Status != tasks.TaskStatusCancelled {
			t.Fatalf("GetTask after Cancel = %+v, %v", d, err)
		}

		// Unknown tasks.
		if _, err := tasks.Get(ctx, cs, "no-such-task"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("GetTask of an unknown task = %v", err)
		}
	})
}

// Updates follows a task by polling alone; questions reach the client's
// handlers (2026: from tasks/get; 2025-11-25: as requests on the session,
// with no tasks/result open).
func TestUpdatesIterator(t *testing.T) {
	each(t, testUpdates)
}

func testUpdates(t *testing.T, conn connector, version string) {
	s, _ := newServer(t, nil)
	cs := conn.connect(t, s, version, answerer())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen []tasks.TaskStatus
	var last *tasks.DetailedTask
	for d, err := range call.Updates(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, d.Status)
		last = d
	}
	if last == nil || last.Status != tasks.TaskStatusCompleted {
		t.Fatalf("last state %+v (seen %v)", last, seen)
	}
	res, err := last.ToolResult()
	if err != nil || text(t, res) != "color size sure" {
		t.Fatalf("result %v, %v", res, err)
	}
}

func TestExpiry(t *testing.T) {
	each(t, func(t *testing.T, conn connector, version string) {
		s, _ := newServer(t, &tasks.Options{TTL: 300 * time.Millisecond})
		cs := conn.connect(t, s, version, nil)
		ctx := context.Background()
		call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)}, &tasks.CallOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if call.Task.TTLMs == nil || *call.Task.TTLMs != 300 {
			t.Fatalf("ttl %v, want the server's bound 300", call.Task.TTLMs)
		}
		if _, err := call.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		var je *jsonrpc.Error
		if _, err := tasks.Get(ctx, cs, call.Task.TaskID); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("GetTask after expiry = %v", err)
		}
	})
}

func TestBound(t *testing.T) {
	s, _ := newServer(t, &tasks.Options{Store: tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: 1})})
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28"})
	ctx := context.Background()
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)}, nil); err == nil {
		t.Fatal("a task beyond the store's bound was created")
	}
	if err := call.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
}

// Tasks belong to their owner: another session cannot see them (2025-11-25)
// and another principal cannot (2026-07-28, Options.Owner).
func TestOwnership(t *testing.T) {
	s, _ := newServer(t, nil)
	ctx := context.Background()
	a := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2025-11-25"})
	b := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2025-11-25"})
	call, err := tasks.CallTool(ctx, a, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var je *jsonrpc.Error
	if _, err := tasks.Get(ctx, b, call.Task.TaskID); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("another session's GetTask = %v", err)
	}
	if err := tasks.Cancel(ctx, b, call.Task.TaskID); err == nil {
		t.Fatal("another session cancelled the task")
	}
	list, err := tasks.List(ctx, a, "")
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskID != call.Task.TaskID {
		t.Fatalf("ListTasks = %+v, %v", list, err)
	}
	if list, err := tasks.List(ctx, b, ""); err != nil || len(list.Tasks) != 0 {
		t.Fatalf("another session's ListTasks = %+v, %v", list, err)
	}
	if err := call.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
}

// A 2025-11-25 client hears notifications/tasks/status.
func TestStatusNotifications(t *testing.T) {
	s, _ := newServer(t, nil)
	got := make(chan tasks.TaskStatus, 100)
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	if err := c.AddMethod(tasks.NotificationStatus, func(_ context.Context, r *mcp.Request) (any, error) {
		var p tasks.TaskStatusNotificationParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		got <- p.Status
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := connectHTTP(t, s, c)
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":10}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case st := <-got:
			if st == tasks.TaskStatusCompleted {
				return
			}
		case <-timeout:
			t.Fatal("no completed status notification")
		}
	}
}

// A 2026-07-28 client hears notifications/tasks on a listen stream that
// names the task, and a listen stream that names tasks without declaring
// the extension is refused.
func TestListenNotifications(t *testing.T) {
	s, _ := newServer(t, nil)
	got := make(chan *tasks.DetailedTask, 100)
	c := answerer()
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, c)
	if err := cl.AddMethod(tasks.NotificationTask, func(_ context.Context, r *mcp.Request) (any, error) {
		var d tasks.DetailedTask
		if err := json.Unmarshal(r.Params, &d); err != nil {
			return nil, err
		}
		got <- &d
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := connectHTTP(t, s, cl)
	call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lctx, stop := context.WithCancel(ctx)
	listened := make(chan error, 1)
	go func() { listened <- cs.Listen(lctx, &mcp.SubscriptionFilter{TaskIDs: []string{call.Task.TaskID}}) }()
	// Answer the questions as they appear (in notifications, or in a
	// poll, which catches a change made before the stream was open), then
	// see the end in a notification.
	answered := map[string]bool{}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		var d *tasks.DetailedTask
		select {
		case d = <-got:
		case <-tick.C:
			if d, err = tasks.Get(ctx, cs, call.Task.TaskID); err != nil {
				t.Fatal(err)
			}
			if d.Status == tasks.TaskStatusCompleted {
				continue // wait for the notification
			}
		case <-ctx.Done():
			t.Fatal("no completed notification")
		}
		if d.TaskID != call.Task.TaskID {
			t.Fatalf("notification for task %q", d.TaskID)
		}
		{
			switch d.Status {
			case tasks.TaskStatusInputRequired:
				answers := map[string]*mcp.InputResponse{}
				for k, q := range d.InputRequests {
					if !answered[k] {
						answered[k] = true
						answers[k] = &mcp.InputResponse{Elicit: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": strings.TrimSuffix(q.Elicit.Message, "?") + "!"}}}
					}
				}
				if len(answers) > 0 {
					if err := tasks.Update(ctx, cs, call.Task.TaskID, answers); err != nil {
						t.Fatal(err)
					}
				}
			case tasks.TaskStatusCompleted:
				res, err := d.ToolResult()
				if err != nil || text(t, res) != "color! size! sure!" {
					t.Fatalf("result %v, %v", res, err)
				}
				done = true
			}
		}
	}
	stop()
	if err := <-listened; err != nil {
		t.Fatalf("Listen: %v", err)
	}

	// Without the extension declared, taskIds are refused with -32021.
	var je *jsonrpc.Error
	err = cs.Call(ctx, mcp.MethodSubscriptionsListen, &mcp.ListenParams{Notifications: mcp.SubscriptionFilter{TaskIDs: []string{call.Task.TaskID}}}, nil)
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("listen for tasks without the extension = %v", err)
	}
}

// Two servers sharing a store and a notifier serve the same tasks: the
// handler runs on the server that created the task, and the other answers
// tasks/get, takes the answers of tasks/update and cancels it.
func TestSharedStore(t *testing.T) {
	store := tasks.NewMemoryStore(nil)
	notifier := shared.NewMemoryNotifier()
	servers := make([]*mcp.Server, 2)
	for i := range servers {
		servers[i] = mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{Notifier: notifier})
		m, err := tasks.New(servers[i], &tasks.Options{Store: store, PollInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Close() })
		err = m.AddTool(&mcp.Tool{Name: "ask"}, mcp.TaskSupportOptional,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				a, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprint(a.Content["name"]))}}, nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a := mcptest.Connect(t, servers[0], &mcptest.Options{ProtocolVersion: "2026-07-28"})
	b := mcptest.Connect(t, servers[1], &mcptest.Options{ProtocolVersion: "2026-07-28"})

	call, err := tasks.CallTool(ctx, a, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := call.Task.TaskID
	var d *tasks.DetailedTask
	for d == nil || d.Status != tasks.TaskStatusInputRequired {
		if d, err = tasks.Get(ctx, b, id); err != nil {
			t.Fatal(err)
		}
	}
	for k := range d.InputRequests {
		if err := tasks.Update(ctx, b, id, map[string]*mcp.InputResponse{k: {Elicit: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := call.Wait(ctx)
	if err != nil || text(t, res) != "Ada" {
		t.Fatalf("Wait = %v, %v", res, err)
	}

	// Cancelled from the other replica while it waits for input.
	call, err = tasks.CallTool(ctx, a, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tasks.Cancel(ctx, b, call.Task.TaskID); err != nil {
		t.Fatal(err)
	}
	for {
		d, err := tasks.Get(ctx, b, call.Task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == tasks.TaskStatusCancelled {
			break
		}
		if d.Status.Terminal() {
			t.Fatalf("status %s after cancel", d.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The 2025-11-25 results match the official schema.
func TestLegacyWireShapes(t *testing.T) {
	s, _ := newServer(t, nil)
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2025-11-25"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var created json.RawMessage
	if err := cs.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{"ttl": 60000}}, &created); err != nil {
		t.Fatal(err)
	}
	check := func(def string, raw json.RawMessage) {
		t.Helper()
		if err := specschema.ValidateDef("2025-11-25", def, raw); err != nil {
			t.Errorf("%s %s: %v", def, raw, err)
		}
	}
	check("CreateTaskResult", created)
	var c tasks.CreateTaskResult
	if err := json.Unmarshal(created, &c); err != nil || c.Task.TaskID == "" || c.Task.TTL == nil || *c.Task.TTL != 60000 {
		t.Fatalf("CreateTaskResult %s: %v", created, err)
	}
	id := map[string]string{"taskId": c.Task.TaskID}
	for _, step := range []struct{ method, def string }{
		{tasks.MethodGet, "GetTaskResult"},
		{tasks.MethodList, "ListTasksResult"},
		{tasks.MethodCancel, "CancelTaskResult"},
	} {
		var raw json.RawMessage
		if err := cs.Call(ctx, step.method, id, &raw); err != nil {
			t.Fatalf("%s: %v", step.method, err)
		}
		check(step.def, raw)
	}
	// tasks/tools/list shows the tools' task support.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Execution == nil || tool.Execution.TaskSupport == "" {
			t.Errorf("tool %s has no execution.taskSupport", tool.Name)
		}
	}
	if tc, err := tasks.ServerCapabilitiesOf(cs.ServerCapabilities()); err != nil || tc == nil || tc.Requests == nil || tc.Requests.Tools == nil || tc.Requests.Tools.Call == nil {
		t.Errorf("capabilities %s lack tasks.requests.tools.call (%v)", cs.ServerCapabilities().Tasks, err)
	}
	// A cancelled task cannot be cancelled again.
	var je *jsonrpc.Error
	if err := cs.Call(ctx, tasks.MethodCancel, id, nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("second tasks/cancel = %v", err)
	}
}

// A typed tool whose Execution allows tasks runs as one too.
func TestTypedTool(t *testing.T) {
	s, _ := newServer(t, nil)
	type in struct {
		N int `json:"n"`
	}
	err := mcp.AddTool(s, &mcp.Tool{Name: "double", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, _ *mcp.CallToolRequest, a in) (string, error) {
			_, ok := tasks.ID(ctx)
			return fmt.Sprint(a.N*2, " ", ok), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: v})
		ctx := context.Background()
		call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "double", Arguments: json.RawMessage(`{"n":21}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Wait(ctx)
		if err != nil || call.Task == nil || text(t, res) != "42 true" {
			t.Fatalf("%s: %+v, %v, %v", v, call, res, err)
		}
	}
}
