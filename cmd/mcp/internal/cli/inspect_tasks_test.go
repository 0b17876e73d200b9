package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// TestInspectorTasksAndRoots: the page's calls run as tasks when it asks
// (and always on 2026-07-28), their status reaches the feed and a task can
// be cancelled; the page's roots reach the server.
func TestInspectorTasksAndRoots(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			ctx := context.Background()
			in := &inspector{inv: &invocation{stderr: io.Discard, version: version}, token: "t", asks: map[int]chan json.RawMessage{}, roots: &rootSet{roots: []*mcp.Root{}}}
			if err := in.connect(ctx, []string{everythingURL(t)}, &targetFlags{}); err != nil {
				t.Fatal(err)
			}
			defer in.close()
			if in.state()["tasks"] != true { // the page offers "run as a task"
				t.Errorf("state: tasks %v", in.state()["tasks"])
			}
			_, feed := in.hub.subscribe()
			defer in.hub.unsubscribe(feed)
			type taskEvent struct {
				Tool string         `json:"tool"`
				Task tasks.TaskInfo `json:"task"`
			}
			// next returns the next task event.
			next := func() taskEvent {
				t.Helper()
				for {
					select {
					case e := <-feed:
						if e.Kind == "task" {
							var d taskEvent
							if err := json.Unmarshal(e.Data, &d); err != nil {
								t.Fatal(err)
							}
							return d
						}
					case <-time.After(10 * time.Second):
						t.Fatal("no task event")
					}
				}
			}

			res, err := in.do(ctx, "call", []byte(`{"name":"slow_compute","arguments":{"seconds":0.3,"label":"p"},"task":true}`))
			if err != nil {
				t.Fatal(err)
			}
			if text := res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; text != "computed p after 0.3s" {
				t.Errorf("result %q", text)
			}
			if e := next(); e.Tool != "slow_compute" || e.Task.Status != tasks.TaskStatusWorking {
				t.Errorf("first task event %+v", e)
			}
			for e := next(); e.Task.Status != tasks.TaskStatusCompleted; e = next() {
			}

			// Cancelled from the page while it runs.
			done := make(chan error, 1)
			go func() {
				_, err := in.do(ctx, "call", []byte(`{"name":"slow_compute","arguments":{"seconds":60},"task":true}`))
				done <- err
			}()
			id := next().Task.TaskID
			if _, err := in.do(ctx, "task-cancel", []byte(`{"taskId":"`+id+`"}`)); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil {
					t.Error("a cancelled task's call succeeded")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled task's call did not end")
			}

			// Roots added on the page reach the server.
			dir := t.TempDir()
			roots, err := in.do(ctx, "roots-add", []byte(`{"dir":`+jsonQuote(dir)+`}`))
			if err != nil || len(roots.([]*mcp.Root)) != 1 {
				t.Fatalf("roots-add: %v, %v", roots, err)
			}
			res, err = in.do(ctx, "call", []byte(`{"name":"test_input_required_result_list_roots"}`))
			if err != nil {
				t.Fatal(err)
			}
			if text := res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; text != "Roots: "+fileURI(dir) {
				t.Errorf("result %q", text)
			}
			if _, err := in.do(ctx, "roots-add", []byte(`{"dir":"/no/such/dir"}`)); err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
				t.Errorf("roots-add of a missing directory: %v", err)
			}
			if roots, err := in.do(ctx, "roots-remove", []byte(`{"dir":`+jsonQuote(fileURI(dir))+`}`)); err != nil || len(roots.([]*mcp.Root)) != 0 {
				t.Errorf("roots-remove: %v, %v", roots, err)
			}
		})
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestInspectorComplete: the page's prompt and template forms get the
// server's completions for the field being typed, with the other fields
// as context.
func TestInspectorComplete(t *testing.T) {
	ctx := context.Background()
	in := &inspector{inv: &invocation{stderr: io.Discard}, token: "t", asks: map[int]chan json.RawMessage{}, roots: &rootSet{roots: []*mcp.Root{}}}
	if err := in.connect(ctx, []string{everythingURL(t)}, &targetFlags{}); err != nil {
		t.Fatal(err)
	}
	defer in.close()
	for body, want := range map[string]string{
		`{"name":"test_prompt_with_arguments","argument":"arg1","value":"ab","context":{"arg2":"x"}}`: `["ab-completed"]`,
		`{"uri":"test://template/{id}/data","argument":"id","value":""}`:                              `["1","2","3"]`,
	} {
		got, err := in.do(ctx, "complete", []byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("%s: %s, want %s", body, b, want)
		}
	}
}
