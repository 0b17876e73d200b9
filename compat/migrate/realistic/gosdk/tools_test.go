package gosdkserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolSnaps(t *testing.T) {
	tools := allTools(NewBackend("octo"))
	if len(tools) < 25 {
		t.Fatalf("only %d tools", len(tools))
	}
	names := map[string]bool{}
	for _, st := range tools {
		testToolSnap(t, st.Tool.Name, st.Tool)
		names[st.Tool.Name+".snap"] = true
	}
	files, err := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[f.Name()] {
			t.Errorf("stale snapshot %s", f.Name())
		}
	}
}

func Test_GetRepository(t *testing.T) {
	b := newTestBackend(t)
	tool, handler := GetRepository(b)
	if tool.Name != "get_repository" || !tool.Annotations.ReadOnlyHint {
		t.Errorf("tool = %s, read-only %v", tool.Name, tool.Annotations.ReadOnlyHint)
	}
	schema, ok := tool.InputSchema.(*jsonschema.Schema)
	if !ok {
		t.Fatalf("input schema is %T", tool.InputSchema)
	}
	if !slices.Equal(schema.Required, []string{"owner", "repo"}) {
		t.Errorf("required = %v", schema.Required)
	}

	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		want    string
	}{
		{"found", map[string]any{"owner": "acme", "repo": "rocket"}, "", `"stars":42`},
		{"missing repo", map[string]any{"owner": "acme"}, "missing required parameter: repo", ""},
		{"unknown", map[string]any{"owner": "acme", "repo": "nope"}, "not found", ""},
		{"wrong type", map[string]any{"owner": 7, "repo": "rocket"}, "is not of type string", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			request := createMCPRequest(tc.args)
			result, _, err := handler(context.Background(), &request, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if msg := getErrorResult(t, result); !strings.Contains(msg, tc.wantErr) {
					t.Errorf("error %q, want %q", msg, tc.wantErr)
				}
				return
			}
			if text := getTextResult(t, result).Text; !strings.Contains(text, tc.want) {
				t.Errorf("text %s, want %s", text, tc.want)
			}
		})
	}
}

func Test_CreateIssueThenList(t *testing.T) {
	b := newTestBackend(t)
	_, create := CreateIssue(b)
	args := map[string]any{
		"owner": "acme", "repo": "rocket", "title": "Fuel leak",
		"labels": []any{"bug"}, "assignees": []any{"octo"}, "milestone": float64(2),
	}
	request := createMCPRequest(args)
	result, _, err := create(context.Background(), &request, args)
	if err != nil {
		t.Fatal(err)
	}
	var issue Issue
	if err := json.Unmarshal([]byte(getTextResult(t, result).Text), &issue); err != nil {
		t.Fatal(err)
	}
	// A request built by hand names no client: no footer.
	if issue.Number != 4 || issue.State != "open" || issue.Milestone != 2 || issue.Body != "" || !slices.Equal(issue.Labels, []string{"bug"}) {
		t.Errorf("issue = %+v", issue)
	}
	if n := b.Notifications(false); len(n) != 1 || n[0] != "acme/rocket#4 opened" {
		t.Errorf("notifications = %v", n)
	}

	_, list := ListIssues(b)
	listArgs := map[string]any{"owner": "acme", "repo": "rocket", "state": "open", "labels": []any{"bug"}}
	request = createMCPRequest(listArgs)
	result, _, err = list(context.Background(), &request, listArgs)
	if err != nil {
		t.Fatal(err)
	}
	var issues []Issue
	if err := json.Unmarshal([]byte(getTextResult(t, result).Text), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 2 || issues[0].Number != 4 || issues[1].Number != 1 {
		t.Errorf("issues = %+v", issues)
	}
}

func Test_UpdateIssueAndComment(t *testing.T) {
	b := newTestBackend(t)
	_, update := UpdateIssue(b)
	args := map[string]any{"owner": "acme", "repo": "rocket", "issue_number": float64(1), "state": "closed"}
	request := createMCPRequest(args)
	result, _, err := update(context.Background(), &request, args)
	if err != nil {
		t.Fatal(err)
	}
	if text := getTextResult(t, result).Text; !strings.Contains(text, `"state":"closed"`) {
		t.Errorf("update = %s", text)
	}

	_, comment := AddIssueComment(b)
	args = map[string]any{"owner": "acme", "repo": "rocket", "issue_number": float64(9), "body": "hi"}
	request = createMCPRequest(args)
	result, _, err = comment(context.Background(), &request, args)
	if err != nil {
		t.Fatal(err)
	}
	if msg := getErrorResult(t, result); msg != "issue #9: not found" {
		t.Errorf("error = %q", msg)
	}
}

func Test_AddIssueLabels(t *testing.T) {
	b := newTestBackend(t)
	_, handler := AddIssueLabels(b)
	for _, tc := range []struct {
		labels  []any
		want    string
		wantErr string
	}{
		{[]any{"enhancement", "bug"}, `["bug","enhancement"]`, ""},
		{[]any{"wontfix"}, "", `label "wontfix" does not exist`},
		{[]any{3}, "", "element is float64"},
	} {
		args := map[string]any{"owner": "acme", "repo": "rocket", "issue_number": float64(1), "labels": tc.labels}
		if tc.labels[0] == 3 {
			args["labels"] = []any{float64(3)}
		}
		request := createMCPRequest(args)
		result, _, err := handler(context.Background(), &request, args)
		if err != nil {
			t.Fatal(err)
		}
		if tc.wantErr != "" {
			if msg := getErrorResult(t, result); !strings.Contains(msg, tc.wantErr) {
				t.Errorf("error %q, want %q", msg, tc.wantErr)
			}
			continue
		}
		if text := getTextResult(t, result).Text; text != tc.want {
			t.Errorf("labels %s, want %s", text, tc.want)
		}
	}
}

func Test_BranchFilePullRequestMerge(t *testing.T) {
	b := newTestBackend(t)
	ctx := context.Background()
	call := func(h func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error), args map[string]any) (*mcp.CallToolResult, any) {
		t.Helper()
		request := createMCPRequest(args)
		result, out, err := h(ctx, &request, args)
		if err != nil {
			t.Fatal(err)
		}
		return result, out
	}
	_, createBranch := CreateBranch(b)
	result, out := call(createBranch, map[string]any{"owner": "acme", "repo": "rocket", "branch": "fix"})
	if result != nil || out.(map[string]any)["ref"] != "refs/heads/fix" {
		t.Fatalf("create_branch = %+v, %v", result, out)
	}
	_, write := CreateOrUpdateFile(b)
	getTextResult(t, first(call(write, map[string]any{
		"owner": "acme", "repo": "rocket", "path": "fix.go", "content": "package rocket // fixed\n",
		"message": "fix", "branch": "fix",
	})))
	_, openPR := CreatePullRequest(b)
	getTextResult(t, first(call(openPR, map[string]any{
		"owner": "acme", "repo": "rocket", "title": "Fix", "head": "fix", "base": "main",
	})))
	_, files := GetPullRequestFiles(b)
	text := getTextResult(t, first(call(files, map[string]any{"owner": "acme", "repo": "rocket", "pullNumber": float64(4)}))).Text
	if text != `[{"path":"fix.go","status":"added"}]` {
		t.Errorf("files = %s", text)
	}
	_, merge := MergePullRequest(b)
	if text := getTextResult(t, first(call(merge, map[string]any{"owner": "acme", "repo": "rocket", "pullNumber": float64(4), "merge_method": "squash"}))).Text; text != "merged with squash" {
		t.Errorf("merge = %s", text)
	}
	if msg := getErrorResult(t, first(call(merge, map[string]any{"owner": "acme", "repo": "rocket", "pullNumber": float64(4)}))); msg != "pull request #4 is not mergeable" {
		t.Errorf("second merge = %s", msg)
	}
	_, get := GetFileContents(b)
	if text := getTextResult(t, first(call(get, map[string]any{"owner": "acme", "repo": "rocket", "path": "fix.go"}))).Text; text != "package rocket // fixed\n" {
		t.Errorf("merged file = %q", text)
	}
	_, del := DeleteFile(b)
	if msg := getErrorResult(t, first(call(del, map[string]any{"owner": "acme", "repo": "rocket", "path": "nope", "branch": "main"}))); !strings.Contains(msg, "not found") {
		t.Errorf("delete = %s", msg)
	}
}

func first[A, B any](a A, _ B) A { return a }

func Test_ReviewRequiresBody(t *testing.T) {
	b := newTestBackend(t)
	_, review := CreatePullRequestReview(b)
	args := map[string]any{"owner": "acme", "repo": "rocket", "pullNumber": float64(3), "event": "REQUEST_CHANGES"}
	request := createMCPRequest(args)
	result, _, err := review(context.Background(), &request, args)
	if err != nil {
		t.Fatal(err)
	}
	if msg := getErrorResult(t, result); msg != "a review that requests changes needs a body" {
		t.Errorf("error = %q", msg)
	}
}

func Test_WorkflowRuns(t *testing.T) {
	b := newTestBackend(t)
	_, rerun := RerunWorkflowRun(b)
	for _, tc := range []struct {
		id      float64
		wantErr string
	}{{2, "run 2 is in_progress"}, {7, "run 7: not found"}, {1, ""}} {
		args := map[string]any{"owner": "acme", "repo": "rocket", "run_id": tc.id}
		request := createMCPRequest(args)
		result, _, err := rerun(context.Background(), &request, args)
		if err != nil {
			t.Fatal(err)
		}
		if tc.wantErr != "" {
			if msg := getErrorResult(t, result); msg != tc.wantErr {
				t.Errorf("run %v: %q, want %q", tc.id, msg, tc.wantErr)
			}
			continue
		}
		getTextResult(t, result)
	}
	_, list := ListWorkflowRuns(b)
	args := map[string]any{"owner": "acme", "repo": "rocket", "status": "queued", "perPage": float64(10)}
	request := createMCPRequest(args)
	result, _, err := list(context.Background(), &request, args)
	if err != nil {
		t.Fatal(err)
	}
	if text := getTextResult(t, result).Text; !strings.Contains(text, `"total_count":1`) || !strings.Contains(text, `"id":3`) {
		t.Errorf("runs = %s", text)
	}
}

func Test_DeleteFileDestructive(t *testing.T) {
	tool, _ := DeleteFile(NewBackend("octo"))
	if tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint {
		t.Errorf("delete_file is not marked destructive")
	}
	if tool.Annotations.ReadOnlyHint {
		t.Errorf("delete_file is read-only")
	}
}
