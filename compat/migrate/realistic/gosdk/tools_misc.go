package gosdkserver

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func withRun(b *Backend, args map[string]any, f func(*repoData, *Run) error) error {
	owner, repo, err := ownerRepo(args)
	if err != nil {
		return err
	}
	id, err := RequiredInt(args, "run_id")
	if err != nil {
		return err
	}
	return b.do(owner, repo, func(r *repoData) error {
		for _, run := range r.runs {
			if run.ID == id {
				return f(r, run)
			}
		}
		return fmt.Errorf("run %d: %w", id, ErrNotFound)
	})
}

// ListWorkflowRuns describes the list_workflow_runs tool.
func ListWorkflowRuns(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["branch"] = &jsonschema.Schema{Type: "string", Description: "Only runs on this branch"}
	props["status"] = &jsonschema.Schema{
		Type:        "string",
		Description: "Only runs in this status",
		Enum:        []any{"queued", "in_progress", "completed"},
	}
	return mcp.Tool{
			Name:        "list_workflow_runs",
			Description: "List the CI workflow runs of a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "List workflow runs", ReadOnlyHint: true},
			InputSchema: withPagination(&jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo"}}),
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			branch, err := OptionalParam[string](args, "branch")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			status, err := OptionalParam[string](args, "status")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var out []Run
			err = b.do(owner, repo, func(r *repoData) error {
				for _, run := range r.runs {
					if (branch == "" || run.Branch == branch) && (status == "" || run.Status == status) {
						out = append(out, *run)
					}
				}
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			page, err := paginate(out, args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(map[string]any{"total_count": len(out), "workflow_runs": page})
		}
}

// GetWorkflowRun describes the get_workflow_run tool.
func GetWorkflowRun(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["run_id"] = &jsonschema.Schema{Type: "number", Description: "The unique identifier of the workflow run"}
	return mcp.Tool{
			Name:        "get_workflow_run",
			Description: "Get one workflow run.",
			Annotations: &mcp.ToolAnnotations{Title: "Get workflow run", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "run_id"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			var out Run
			if err := withRun(b, args, func(_ *repoData, run *Run) error { out = *run; return nil }); err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// RerunWorkflowRun describes the rerun_workflow_run tool.
func RerunWorkflowRun(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["run_id"] = &jsonschema.Schema{Type: "number", Description: "The unique identifier of the workflow run"}
	props["failed_only"] = &jsonschema.Schema{Type: "boolean", Description: "Re-run only the failed jobs"}
	return mcp.Tool{
			Name:        "rerun_workflow_run",
			Description: "Re-run a completed workflow run.",
			Annotations: &mcp.ToolAnnotations{Title: "Re-run workflow run", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "run_id"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			err := withRun(b, args, func(r *repoData, run *Run) error {
				if run.Status != "completed" {
					return fmt.Errorf("run %d is %s", run.ID, run.Status)
				}
				r.runs = append(r.runs, &Run{ID: len(r.runs) + 1, Workflow: run.Workflow, Branch: run.Branch, Status: "queued"})
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult("re-run queued"), nil, nil
		}
}

// GetMe describes the get_me tool, which has an output schema.
func GetMe(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "get_me",
			Description: "Get details of the authenticated user.",
			Annotations: &mcp.ToolAnnotations{Title: "Get my user profile", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
			OutputSchema: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"login": {Type: "string", Description: "The user's login"},
				},
				Required:             []string{"login"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, map[string]any{"login": b.Me()}, nil
		}
}

// ListNotifications describes the list_notifications tool.
func ListNotifications(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "list_notifications",
			Description: "List the authenticated user's unread notifications.",
			Annotations: &mcp.ToolAnnotations{Title: "List notifications", ReadOnlyHint: true},
			InputSchema: withPagination(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}),
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			page, err := paginate(b.Notifications(false), args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(page)
		}
}

// DismissNotifications describes the dismiss_notifications tool.
func DismissNotifications(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "dismiss_notifications",
			Description: "Mark all of the authenticated user's notifications as read.",
			Annotations: &mcp.ToolAnnotations{Title: "Dismiss notifications", DestructiveHint: ptr(true), IdempotentHint: true},
			InputSchema: &jsonschema.Schema{Type: "object"},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			n := len(b.Notifications(true))
			return textResult(fmt.Sprintf("dismissed %d notifications", n)), nil, nil
		}
}
