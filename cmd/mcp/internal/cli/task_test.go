package cli

import (
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// taskWays are the everything server reached every way the task tests
// use: both task models (the 2026-07-28 extension, negotiated by default,
// and the 2025-11-25 core tasks), over stdio, Streamable HTTP and both
// kinds of mcp proxy.
func taskWays(t *testing.T) []struct {
	name   string
	target []string
} {
	url := everythingURL(t)
	return []struct {
		name   string
		target []string
	}{
		{"stdio", []string{everythingBin}},
		{"stdio 2025-11-25", []string{"--protocol-version", "2025-11-25", everythingBin}},
		{"http", []string{url}},
		{"http 2025-11-25", []string{"--protocol-version", "2025-11-25", url}},
		{"proxy --http", []string{startHTTPProxy(t, everythingBin)}},
		{"proxy --http 2025-11-25", []string{"--protocol-version", "2025-11-25", startHTTPProxy(t, everythingBin)}},
		{"proxy --stdio", []string{"env", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url}},
	}
}

// TestCallTask: a tool that must run as a task is called as one without
// being asked, --task makes an optional one a task, the task's status is
// printed on stderr while it runs, and its questions are answered from
// stdin as elicitation is.
func TestCallTask(t *testing.T) {
	for _, w := range taskWays(t) {
		t.Run(w.name, func(t *testing.T) {
			run := func(input string, args ...string) (int, string, string) {
				t.Helper()
				return mcpRunInput(t, context.Background(), input, append(args, w.target...)...)
			}
			// Long enough for a status poll to see it working on a loaded
			// machine (at 0.3 s one run saw only "completed").
			code, out, errs := run("", "call", "--task", "slow_compute", "seconds=1.5", "label=x")
			if code != ExitOK || out != "computed x after 1.5s\n" {
				t.Errorf("slow_compute --task: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if !regexp.MustCompile(`(?m)^task \S+: working - computing x\n(.*\n)*task \S+: completed`).MatchString(errs) {
				t.Errorf("slow_compute --task: no status lines on stderr:\n%s", errs)
			}
			// Required: a task without --task; it ends in a tool error.
			code, out, errs = run("", "call", "failing_job")
			if code != ExitToolError || !strings.Contains(out, "the job failed") {
				t.Errorf("failing_job: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			// Required, and asks a question first.
			code, out, errs = run("bob\ny\n", "call", "--no-input=false", "test_tool_with_task")
			if code != ExitOK || out != "Hello, bob, from a task\n" {
				t.Errorf("test_tool_with_task: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			// A question the task asks while it runs.
			code, out, errs = run("y\ny\n", "call", "--task", "--no-input=false", "confirm_delete", "filename=f")
			if code != ExitOK || !strings.Contains(out, `confirm_delete f: accept {"confirm":true}`) || !strings.Contains(errs, "task ") {
				t.Errorf("confirm_delete --task: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			// A task that fails with a protocol error.
			code, _, errs = run("", "call", "--task", "protocol_error_job")
			if code != ExitProtocol || !strings.Contains(errs, "internal error in protocol_error_job") {
				t.Errorf("protocol_error_job: exit %d, stderr %q", code, errs)
			}
		})
	}
}

// TestTasksCommands: call --no-wait prints the task, and tasks get, result
// and cancel follow it by id, from another process (a 2026-07-28 server
// keeps tasks across requests), directly over HTTP and through mcp proxy
// on stdio.
func TestTasksCommands(t *testing.T) {
	url := everythingURL(t)
	for _, w := range []struct {
		name   string
		target []string
	}{
		{"http", []string{url}},
		{"proxy --stdio", []string{"env", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url}},
	} {
		t.Run(w.name, func(t *testing.T) {
			run := func(args ...string) map[string]any {
				t.Helper()
				return runJSON(t, append(args, w.target...)...)
			}
			mcp := func(args ...string) (int, string, string) {
				t.Helper()
				return mcpRun(t, context.Background(), append(args, w.target...)...)
			}
			v := run("call", "--task", "--no-wait", "--json", "slow_compute", "seconds=0.3", "label=y")
			id, _ := v["taskId"].(string)
			if id == "" || v["status"] != "working" {
				t.Fatalf("call --no-wait: %v", v)
			}
			wantField(t, run("tasks", "result", id, "--json"), "computed y after 0.3s", "content", 0, "text")
			wantField(t, run("tasks", "get", "--json", id), "completed", "status")
			code, out, errs := mcp("tasks", "get", id)
			if code != ExitOK || !regexp.MustCompile(`(?m)^task: +`+regexp.QuoteMeta(id)+`\nstatus: +completed\n`).MatchString(out) {
				t.Errorf("tasks get: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			code, _, errs = mcp("tasks")
			if code != ExitProtocol || !strings.Contains(errs, "does not list tasks") {
				t.Errorf("tasks list on 2026-07-28: exit %d, stderr %q", code, errs)
			}

			// cancel: a long task, cancelled by id.
			v = run("call", "--task", "--no-wait", "--json", "slow_compute", "seconds=60")
			id = v["taskId"].(string)
			wantField(t, run("tasks", "cancel", "--json", id), true, "cancelRequested")
			code, _, errs = mcp("tasks", "result", id)
			if code != ExitProtocol || !strings.Contains(errs, "task cancelled") {
				t.Errorf("tasks result of a cancelled task: exit %d, stderr %q", code, errs)
			}
		})
	}
	if code, _, errs := mcpRun(t, context.Background(), "tasks", "get", url); code != ExitUsage {
		t.Errorf("tasks get without an id: exit %d, stderr %q", code, errs)
	}
}

// TestInterruptCancelsTheTask: Ctrl-C during a task's call cancels the
// task, not only the wait for it.
func TestInterruptCancelsTheTask(t *testing.T) {
	url := everythingURL(t)
	seen := make(chan struct{})
	stderr := &lockedBuffer{want: "computing", seen: seen}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"call", "slow_compute", "--task", "seconds=60", "label=long", url}, strings.NewReader(""), io.Discard, stderr)
	}()
	<-seen
	cancel()
	if code := <-done; code != ExitCancelled {
		t.Errorf("exit %d, want %d", code, ExitCancelled)
	}
	errs := stderr.String()
	m := regexp.MustCompile(`task (\S+): cancel requested`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("stderr %q", errs)
	}
	wantField(t, runJSON(t, "tasks", "get", "--json", m[1], url), "cancelled", "status")
}

// TestShellTasks: in mcp shell on a 2025-11-25 session, a task started
// with --no-wait is listed, read and its result awaited.
func TestShellTasks(t *testing.T) {
	stdin, input := io.Pipe()
	seen := make(chan struct{})
	stdout := &lockedBuffer{want: `"taskId": "`, seen: seen}
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"shell", "--protocol-version", "2025-11-25", everythingBin}, stdin, stdout, stderr)
	}()
	if _, err := io.WriteString(input, "call --task --no-wait --json slow_compute seconds=0.3 label=z\n"); err != nil {
		t.Fatal(err)
	}
	<-seen
	m := regexp.MustCompile(`"taskId": "([^"]+)"`).FindStringSubmatch(stdout.String())
	script := "tasks list\ntasks result " + m[1] + "\ntasks get " + m[1] + "\ntasks cancel " + m[1] + "\n"
	if _, err := io.WriteString(input, script); err != nil {
		t.Fatal(err)
	}
	input.Close()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out, errs := stdout.String(), stderr.String()
	for _, re := range []string{
		`(?m)^TASK +STATUS +UPDATED +MESSAGE\n` + regexp.QuoteMeta(m[1]) + ` +working`,
		`(?m)^computed z after 0.3s$`,
		`(?m)^status: +completed$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout does not match %s:\n%s\nstderr:\n%s", re, out, errs)
		}
	}
	if !strings.Contains(errs, "server error") { // a completed task cannot be cancelled
		t.Errorf("tasks cancel of a completed task: stderr %q", errs)
	}
}

// TestTasksOfAnotherSession: a 2025-11-25 task started by one mcp command
// is unknown to the next, which opens a session of its own: tasks get
// says why, with a hint (issue 31, bug 6).
func TestTasksOfAnotherSession(t *testing.T) {
	url := everythingURL(t)
	v := runJSON(t, "call", "--task", "--no-wait", "--json", "--protocol-version", "2025-11-25", "slow_compute", "seconds=0.1", url)
	id, _ := v["taskId"].(string)
	if id == "" {
		t.Fatalf("call --no-wait: %v", v)
	}
	for _, verb := range []string{"get", "result", "cancel"} {
		code, _, errs := mcpRun(t, context.Background(), "tasks", verb, id, "--protocol-version", "2025-11-25", url)
		if code != ExitProtocol || !strings.Contains(errs, "hint: a 2025-11-25 task belongs to the session that created it") {
			t.Errorf("tasks %s: exit %d, stderr %q", verb, code, errs)
		}
	}
}
