package gosdkserver

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func pullNumberSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "number", Description: "Pull request number", Minimum: ptr(1.0)}
}

func withPull(b *Backend, args map[string]any, f func(*repoData, *PullRequest) error) error {
	owner, repo, err := ownerRepo(args)
	if err != nil {
		return err
	}
	n, err := RequiredInt(args, "pullNumber")
	if err != nil {
		return err
	}
	return b.do(owner, repo, func(r *repoData) error {
		p, err := r.pull(n)
		if err != nil {
			return err
		}
		return f(r, p)
	})
}

// GetPullRequest describes the get_pull_request tool.
func GetPullRequest(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["pullNumber"] = pullNumberSchema()
	return mcp.Tool{
			Name:        "get_pull_request",
			Description: "Get the details of a pull request, with its reviews.",
			Annotations: &mcp.ToolAnnotations{Title: "Get pull request", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "pullNumber"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			var out PullRequest
			if err := withPull(b, args, func(_ *repoData, p *PullRequest) error { out = *p; return nil }); err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// ListPullRequests describes the list_pull_requests tool.
func ListPullRequests(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["state"] = &jsonschema.Schema{Type: "string", Description: "Filter by state", Enum: []any{"open", "closed", "all"}}
	props["base"] = &jsonschema.Schema{Type: "string", Description: "Filter by base branch"}
	return mcp.Tool{
			Name:        "list_pull_requests",
			Description: "List the pull requests of a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "List pull requests", ReadOnlyHint: true},
			InputSchema: withPagination(&jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo"}}),
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			state, err := OptionalParam[string](args, "state")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			base, err := OptionalParam[string](args, "base")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var out []PullRequest
			err = b.do(owner, repo, func(r *repoData) error {
				for _, p := range r.pulls {
					if (state == "" || state == "all" || p.State == state) && (base == "" || p.Base == base) {
						out = append(out, *p)
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
			return jsonResult(page)
		}
}

// GetPullRequestFiles describes the get_pull_request_files tool.
func GetPullRequestFiles(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["pullNumber"] = pullNumberSchema()
	return mcp.Tool{
			Name:        "get_pull_request_files",
			Description: "List the files a pull request adds, changes or removes.",
			Annotations: &mcp.ToolAnnotations{Title: "Get pull request files", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "pullNumber"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			type change struct {
				Path   string `json:"path"`
				Status string `json:"status"`
			}
			var out []change
			err := withPull(b, args, func(r *repoData, p *PullRequest) error {
				head, base := r.branches[p.Head], r.branches[p.Base]
				for path, text := range head {
					if old, ok := base[path]; !ok {
						out = append(out, change{path, "added"})
					} else if old != text {
						out = append(out, change{path, "modified"})
					}
				}
				for path := range base {
					if _, ok := head[path]; !ok {
						out = append(out, change{path, "removed"})
					}
				}
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
			return jsonResult(out)
		}
}

// CreatePullRequest describes the create_pull_request tool.
func CreatePullRequest(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["title"] = &jsonschema.Schema{Type: "string", Description: "PR title"}
	props["body"] = &jsonschema.Schema{Type: "string", Description: "PR description"}
	props["head"] = &jsonschema.Schema{Type: "string", Description: "Branch containing changes"}
	props["base"] = &jsonschema.Schema{Type: "string", Description: "Branch to merge into"}
	props["draft"] = &jsonschema.Schema{Type: "boolean", Description: "Create as draft PR"}
	return mcp.Tool{
			Name:        "create_pull_request",
			Description: "Open a new pull request.",
			Annotations: &mcp.ToolAnnotations{Title: "Open new pull request", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "title", "head", "base"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			pr := PullRequest{State: "open"}
			for name, dst := range map[string]*string{"title": &pr.Title, "head": &pr.Head, "base": &pr.Base} {
				if *dst, err = RequiredParam[string](args, name); err != nil {
					return textError(err.Error()), nil, nil
				}
			}
			if pr.Body, err = OptionalParam[string](args, "body"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if pr.Draft, err = OptionalParam[bool](args, "draft"); err != nil {
				return textError(err.Error()), nil, nil
			}
			err = b.do(owner, repo, func(r *repoData) error {
				for _, br := range []string{pr.Head, pr.Base} {
					if _, err := r.branch(br); err != nil {
						return err
					}
				}
				pr.Number = r.nextNumber()
				r.pulls = append(r.pulls, &pr)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(pr)
		}
}

// MergePullRequest describes the merge_pull_request tool.
func MergePullRequest(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["pullNumber"] = pullNumberSchema()
	props["merge_method"] = &jsonschema.Schema{Type: "string", Description: "Merge method", Enum: []any{"merge", "squash", "rebase"}}
	props["commit_title"] = &jsonschema.Schema{Type: "string", Description: "Title for merge commit"}
	return mcp.Tool{
			Name:        "merge_pull_request",
			Description: "Merge a pull request into its base branch.",
			Annotations: &mcp.ToolAnnotations{Title: "Merge pull request", DestructiveHint: ptr(true)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "pullNumber"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			method, err := OptionalParam[string](args, "merge_method")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			if method == "" {
				method = "merge"
			}
			err = withPull(b, args, func(r *repoData, p *PullRequest) error {
				if p.State != "open" || p.Draft {
					return fmt.Errorf("pull request #%d is not mergeable", p.Number)
				}
				base := r.branches[p.Base]
				for path, text := range r.branches[p.Head] {
					base[path] = text
				}
				p.State, p.Merged = "closed", true
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult("merged with " + method), nil, nil
		}
}

// CreatePullRequestReview describes the create_pull_request_review tool.
func CreatePullRequestReview(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["pullNumber"] = pullNumberSchema()
	props["event"] = &jsonschema.Schema{Type: "string", Description: "Review action", Enum: []any{"APPROVE", "REQUEST_CHANGES", "COMMENT"}}
	props["body"] = &jsonschema.Schema{Type: "string", Description: "Review comment text"}
	return mcp.Tool{
			Name:        "create_pull_request_review",
			Description: "Review a pull request: approve it, request changes, or comment.",
			Annotations: &mcp.ToolAnnotations{Title: "Review pull request", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "pullNumber", "event"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			rv := Review{User: b.Me()}
			var err error
			if rv.Event, err = RequiredParam[string](args, "event"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if rv.Body, err = OptionalParam[string](args, "body"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if rv.Event == "REQUEST_CHANGES" && rv.Body == "" {
				return textError("a review that requests changes needs a body"), nil, nil
			}
			err = withPull(b, args, func(_ *repoData, p *PullRequest) error {
				p.Reviews = append(p.Reviews, rv)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult("review submitted"), nil, nil
		}
}
