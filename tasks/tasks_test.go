package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/tasks"
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
	{"http", func(t *testing.T, s *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
		h := mcphttp.NewHandler(s, nil)
		ts := httptest.NewServer(h)
		if opts == nil {
			opts = &mcp.ClientOptions{}
		}
		o := *opts
		o.ProtocolVersion = version
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &o).Connect(context.Background(), mcphttp.NewClientStream(ts.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.Close()
			h.Close()
			ts.Close()
		})
		return cs
	}},
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

		// A call that completes.
		call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":50}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if call.Task == nil || call.Task.TaskID == "" || call.Result != nil {
			t.Fatalf("CallToolTask = %+v, want a task", call)
		}
		if d, err := cs.GetTask(ctx, call.Task.TaskID); err != nil || d.TaskID != call.Task.TaskID {
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
		call, err = cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
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

		// A task must be asked for.
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
		var je *jsonrpc.Error
		want := int64(mcp.CodeMissingRequiredClientCapability)
		if version == "2025-11-25" {
			want = jsonrpc.CodeMethodNotFound
		}
		if !errors.As(err, &je) || int64(je.Code) != want {
			t.Fatalf("CallTool of a task-only tool = %v, want code %d", err, want)
		}

		// Protocol errors and panics fail the task.
		for _, name := range []string{"broken", "panics"} {
			call, err = cs.CallToolTask(ctx, &mcp.CallToolParams{Name: name}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = call.Wait(ctx)
			if !errors.As(err, &je) {
				t.Fatalf("%s: Wait = %v, want a JSON-RPC error", name, err)
			}
		}

		// Cancellation reaches the handler through its context.
		call, err = cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := call.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := call.Wait(ctx); !errors.Is(err, mcp.ErrTaskCancelled) {
			t.Fatalf("Wait after Cancel = %v", err)
		}
		d, err := cs.GetTask(ctx, call.Task.TaskID)
		if err != nil || d.Status != mcp.TaskStatusCancelled {
			t.Fatalf("GetTask after Cancel = %+v, %v", d, err)
		}

		// Unknown tasks.
		if _, err := cs.GetTask(ctx, "no-such-task"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("GetTask of an unknown task = %v", err)
		}
	})
}

func TestUpdatesIterator(t *testing.T) {
	s, _ := newServer(t, nil)
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28", Client: answerer()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen []mcp.TaskStatus
	var last *mcp.DetailedTask
	for d, err := range call.Updates(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, d.Status)
		last = d
	}
	if last == nil || last.Status != mcp.TaskStatusCompleted {
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
		call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)}, &mcp.TaskOptions{TTL: time.Hour})
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
		if _, err := cs.GetTask(ctx, call.Task.TaskID); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("GetTask after expiry = %v", err)
		}
	})
}

func TestBound(t *testing.T) {
	s, _ := newServer(t, &tasks.Options{Store: tasks.NewMemoryStore(&tasks.MemoryStoreOptions{MaxTasks: 1})})
	cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28"})
	ctx := context.Background()
	call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":1}`)}, nil); err == nil {
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
	call, err := a.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":60000}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var je *jsonrpc.Error
	if _, err := b.GetTask(ctx, call.Task.TaskID); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("another session's GetTask = %v", err)
	}
	if err := b.CancelTask(ctx, call.Task.TaskID); err == nil {
		t.Fatal("another session cancelled the task")
	}
	list, err := a.ListTasks(ctx, "")
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskID != call.Task.TaskID {
		t.Fatalf("ListTasks = %+v, %v", list, err)
	}
	if list, err := b.ListTasks(ctx, ""); err != nil || len(list.Tasks) != 0 {
		t.Fatalf("another session's ListTasks = %+v, %v", list, err)
	}
	if err := call.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
}

// A 2025-11-25 client hears notifications/tasks/status.
func TestStatusNotifications(t *testing.T) {
	s, _ := newServer(t, nil)
	got := make(chan mcp.TaskStatus, 100)
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	if err := c.AddMethod(mcp.NotificationTasksStatus, func(_ context.Context, r *mcp.Request) (any, error) {
		var p mcp.TaskStatusNotificationParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, err
		}
		got <- p.Status
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	ctx := context.Background()
	cs, err := c.Connect(ctx, mcphttp.NewClientStream(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: json.RawMessage(`{"ms":10}`)}, nil)
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
			if st == mcp.TaskStatusCompleted {
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
	got := make(chan *mcp.DetailedTask, 100)
	c := answerer()
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, c)
	if err := cl.AddMethod(mcp.NotificationTasks, func(_ context.Context, r *mcp.Request) (any, error) {
		var d mcp.DetailedTask
		if err := json.Unmarshal(r.Params, &d); err != nil {
			return nil, err
		}
		got <- &d
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := mcphttp.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, mcphttp.NewClientStream(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call, err := cs.CallToolTask(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
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
		var d *mcp.DetailedTask
		select {
		case d = <-got:
		case <-tick.C:
			if d, err = cs.GetTask(ctx, call.Task.TaskID); err != nil {
				t.Fatal(err)
			}
			if d.Status == mcp.TaskStatusCompleted {
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
			case mcp.TaskStatusInputRequired:
				answers := map[string]*mcp.InputResponse{}
				for k, q := range d.InputRequests {
					if !answered[k] {
						answered[k] = true
						answers[k] = &mcp.InputResponse{Elicit: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": strings.TrimSuffix(q.Elicit.Message, "?") + "!"}}}
					}
				}
				if len(answers) > 0 {
					if err := cs.UpdateTask(ctx, call.Task.TaskID, answers); err != nil {
						t.Fatal(err)
					}
				}
			case mcp.TaskStatusCompleted:
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
