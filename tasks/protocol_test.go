package tasks_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

func task(status tasks.TaskStatus) tasks.Task {
	return tasks.Task{
		TaskID:        "task-1",
		Status:        status,
		StatusMessage: "msg <&>",
		CreatedAt:     "2025-11-25T10:30:00Z",
		LastUpdatedAt: "2025-11-25T10:31:00Z",
		TTL:           new(int64(60000)),
		PollInterval:  500,
	}
}

// wireSample is one value of the 2025-11-25 task model in the message that
// carries it: a request or notification (method, params) or the result of
// a request to method (result).
type wireSample struct {
	name, method string
	result       bool
	value        any
}

func wireSamples() []wireSample {
	done := task(tasks.TaskStatusCompleted)
	done.TTL, done.PollInterval, done.StatusMessage = nil, 0, ""
	failed := task(tasks.TaskStatusFailed)
	related := &mcp.Meta{RelatedTask: &mcp.RelatedTaskMetadata{TaskID: "task-1"}}
	return []wireSample{
		{"tools/call task created", mcp.MethodToolsCall, true, &tasks.CreateTaskResult{
			Meta: &mcp.Meta{ModelImmediateResponse: "working on it"}, Task: task(tasks.TaskStatusWorking)}},
		{"tasks/get", tasks.MethodGet, false, &tasks.GetTaskParams{TaskID: "task-1"}},
		{"tasks/get", tasks.MethodGet, true, &tasks.GetTaskResult{Meta: related, Task: task(tasks.TaskStatusInputRequired)}},
		{"tasks/get unlimited ttl", tasks.MethodGet, true, &tasks.GetTaskResult{Task: done}},
		{"tasks/result", tasks.MethodResult, false, &tasks.GetTaskPayloadParams{TaskID: "task-1"}},
		{"tasks/list", tasks.MethodList, false, &tasks.ListTasksParams{Cursor: "c"}},
		{"tasks/list", tasks.MethodList, true, &tasks.ListTasksResult{Tasks: []*tasks.Task{new(task(tasks.TaskStatusWorking)), &failed}, NextCursor: "d"}},
		{"tasks/list empty", tasks.MethodList, true, &tasks.ListTasksResult{Tasks: []*tasks.Task{}}},
		{"tasks/cancel", tasks.MethodCancel, false, &tasks.CancelTaskParams{TaskID: "task-1"}},
		{"tasks/cancel", tasks.MethodCancel, true, &tasks.CancelTaskResult{Task: task(tasks.TaskStatusCancelled)}},
		{"tasks/status", tasks.NotificationStatus, false, &tasks.TaskStatusNotificationParams{Task: task(tasks.TaskStatusWorking)}},
		{"tasks/status meta", tasks.NotificationStatus, false, &tasks.TaskStatusNotificationParams{Meta: related, Task: task(tasks.TaskStatusCompleted)}},
	}
}

// marshal encodes v without HTML escaping, as the connection does.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestWireValidate puts every value of the 2025-11-25 task model in a
// JSON-RPC message and validates it against that revision's schema.
func TestWireValidate(t *testing.T) {
	for _, s := range wireSamples() {
		t.Run(s.name, func(t *testing.T) {
			raw := marshal(t, s.value)
			var msg []byte
			method := ""
			switch {
			case s.result:
				msg, method = jsonrpc.NewResponse(jsonrpc.Int64ID(1), raw).AppendJSON(nil), s.method
			case s.method == tasks.NotificationStatus:
				msg = jsonrpc.NewNotification(s.method, raw).AppendJSON(nil)
			default:
				msg = jsonrpc.NewRequest(jsonrpc.StringID("req-1"), s.method, raw).AppendJSON(nil)
			}
			if err := specschema.ValidateMessage(mcp.Version20251125, msg, method); err != nil {
				t.Fatalf("%s\n%v", msg, err)
			}
		})
	}
}

// TestWireRoundTrip decodes every encoded value into a fresh value of its
// type, checks it is equal, and that it encodes to the same bytes again.
func TestWireRoundTrip(t *testing.T) {
	for _, s := range wireSamples() {
		t.Run(s.name, func(t *testing.T) {
			b := marshal(t, s.value)
			got := reflect.New(reflect.TypeOf(s.value).Elem()).Interface()
			if err := json.Unmarshal(b, got); err != nil {
				t.Fatalf("unmarshal %s: %v", b, err)
			}
			if !reflect.DeepEqual(got, s.value) {
				t.Errorf("round trip changed the value\n got: %#v\nwant: %#v\njson: %s", got, s.value, b)
			}
			if b2 := marshal(t, got); !bytes.Equal(b, b2) {
				t.Errorf("re-encoding differs\n first: %s\nsecond: %s", b, b2)
			}
		})
	}
}

func TestWireNilAndNull(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{tasks.ListTasksResult{}, `{"tasks":[]}`},
		{tasks.ListTasksResult{Tasks: []*tasks.Task{{TaskID: "a&b"}}}, `{"tasks":[{"taskId":"a&b","status":"","createdAt":"","lastUpdatedAt":"","ttl":null}]}`},
		{tasks.Task{TaskID: "t", Status: tasks.TaskStatusWorking}, `{"taskId":"t","status":"working","createdAt":"","lastUpdatedAt":"","ttl":null}`},
	} {
		if b := marshal(t, tt.v); string(b) != tt.want {
			t.Errorf("%T = %s, want %s", tt.v, b, tt.want)
		}
	}
}

func TestTaskTTL(t *testing.T) {
	var r tasks.GetTaskResult
	in := `{"taskId":"t","status":"completed","createdAt":"a","lastUpdatedAt":"b","ttl":null,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.TTL != nil || r.TaskID != "t" || r.Meta.RelatedTask.TaskID != "t" || !r.Status.Terminal() {
		t.Errorf("decoded %#v", r)
	}
	r.TTL = new(int64(5))
	if b := marshal(t, &r); !bytes.Contains(b, []byte(`"ttl":5`)) {
		t.Errorf("encoded %s", b)
	}
	for s, terminal := range map[tasks.TaskStatus]bool{
		tasks.TaskStatusWorking: false, tasks.TaskStatusInputRequired: false,
		tasks.TaskStatusCompleted: true, tasks.TaskStatusFailed: true, tasks.TaskStatusCancelled: true,
	} {
		if s.Terminal() != terminal {
			t.Errorf("%s.Terminal() = %v", s, !terminal)
		}
	}
}

// TestNamesAgree: mcp, which cannot import this package, spells the task
// methods itself, to refuse them to AddMethod and to send their Mcp-Name
// header; the spellings must be these.
func TestNamesAgree(t *testing.T) {
	for _, m := range []string{tasks.MethodGet, tasks.MethodResult, tasks.MethodList, tasks.MethodCancel,
		tasks.MethodUpdate, tasks.NotificationStatus, tasks.NotificationTask} {
		if !mcp.SpecMethod(m) {
			t.Errorf("mcp.SpecMethod(%q) = false", m)
		}
	}
	for m, named := range map[string]bool{tasks.MethodGet: true, tasks.MethodUpdate: true, tasks.MethodCancel: true,
		tasks.MethodResult: false, tasks.MethodList: false} {
		if mcpheader.NamedByTaskID(m) != named {
			t.Errorf("mcpheader.NamedByTaskID(%q) = %v", m, !named)
		}
	}
}
