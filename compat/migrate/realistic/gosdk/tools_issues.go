package gosdkserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// createdWith is the footer an issue gets when the client said who it is:
// the request carries it (2026-07-28) or the session's handshake did.
func createdWith(req *mcp.CallToolRequest) string {
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		return "\n\n_Created with " + ci.Name + "_"
	}
	return ""
}

func issueNumberSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "number", Description: "Issue number", Minimum: ptr(1.0)}
}

// withIssue runs f on one issue under the backend's lock.
func withIssue(b *Backend, args map[string]any, f func(*repoData, *Issue) error) error {
	owner, repo, err := ownerRepo(args)
	if err != nil {
		return err
	}
	n, err := RequiredInt(args, "issue_number")
	if err != nil {
		return err
	}
	return b.do(owner, repo, func(r *repoData) error {
		i, err := r.issue(n)
		if err != nil {
			return err
		}
		return f(r, i)
	})
}

// GetIssue describes the get_issue tool.
func GetIssue(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["issue_number"] = issueNumberSchema()
	return mcp.Tool{
			Name:        "get_issue",
			Description: "Get the details of an issue, with its comments.",
			Annotations: &mcp.ToolAnnotations{Title: "Get issue", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "issue_number"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			var out Issue
			if err := withIssue(b, args, func(_ *repoData, i *Issue) error { out = *i; return nil }); err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// ListIssues describes the list_issues tool.
func ListIssues(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["state"] = &jsonschema.Schema{
		Type:        "string",
		Description: "Filter by state",
		Enum:        []any{"open", "closed", "all"},
		Default:     json.RawMessage(`"open"`),
	}
	props["labels"] = &jsonschema.Schema{Type: "array", Description: "Filter by labels", Items: &jsonschema.Schema{Type: "string"}}
	return mcp.Tool{
			Name:        "list_issues",
			Description: "List the issues of a repository, newest first.",
			Annotations: &mcp.ToolAnnotations{Title: "List issues", ReadOnlyHint: true},
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
			labels, err := OptionalStringArray(args, "labels")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var out []Issue
			err = b.do(owner, repo, func(r *repoData) error {
				for _, i := range slices.Backward(r.issues) {
					if matchIssue(i, state, labels) {
						out = append(out, *i)
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

func matchIssue(i *Issue, state string, labels []string) bool {
	if state != "" && state != "all" && i.State != state {
		return false
	}
	for _, l := range labels {
		if !slices.Contains(i.Labels, l) {
			return false
		}
	}
	return true
}

// SearchIssues describes the search_issues tool.
func SearchIssues(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["query"] = &jsonschema.Schema{Type: "string", Description: "Words to find in titles and bodies"}
	return mcp.Tool{
			Name:        "search_issues",
			Description: "Search the issues of a repository by text.",
			Annotations: &mcp.ToolAnnotations{Title: "Search issues", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "query"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			q, err := RequiredParam[string](args, "query")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var hits []int
			err = b.do(owner, repo, func(r *repoData) error {
				for _, i := range r.issues {
					if strings.Contains(i.Title, q) || strings.Contains(i.Body, q) {
						hits = append(hits, i.Number)
					}
				}
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(map[string]any{"total_count": len(hits), "numbers": hits})
		}
}

// ListLabels describes the list_labels tool.
func ListLabels(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "list_labels",
			Description: "List the labels defined in a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "List labels", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: ownerRepoSchema(), Required: []string{"owner", "repo"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var labels []string
			if err := b.do(owner, repo, func(r *repoData) error { labels = slices.Clone(r.labels); return nil }); err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(labels)
		}
}

// CreateIssue describes the create_issue tool.
func CreateIssue(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["title"] = &jsonschema.Schema{Type: "string", Description: "Issue title", MinLength: ptr(1), MaxLength: ptr(256)}
	props["body"] = &jsonschema.Schema{Type: "string", Description: "Issue body content"}
	props["labels"] = &jsonschema.Schema{Type: "array", Description: "Labels to apply to this issue", Items: &jsonschema.Schema{Type: "string"}}
	props["assignees"] = &jsonschema.Schema{
		Type:        "array",
		Description: "Usernames to assign to this issue",
		Items:       &jsonschema.Schema{Type: "string"},
		UniqueItems: true,
	}
	props["milestone"] = &jsonschema.Schema{Type: "number", Description: "Milestone number"}
	return mcp.Tool{
			Name:        "create_issue",
			Description: "Create a new issue in a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "Open new issue", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "title"}},
		},
		func(_ context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			issue := Issue{State: "open"}
			if issue.Title, err = RequiredParam[string](args, "title"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if issue.Body, err = OptionalParam[string](args, "body"); err != nil {
				return textError(err.Error()), nil, nil
			}
			issue.Body += createdWith(req)
			if issue.Labels, err = OptionalStringArray(args, "labels"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if issue.Assignees, err = OptionalStringArray(args, "assignees"); err != nil {
				return textError(err.Error()), nil, nil
			}
			if issue.Milestone, err = OptionalIntWithDefault(args, "milestone", 0); err != nil {
				return textError(err.Error()), nil, nil
			}
			err = b.do(owner, repo, func(r *repoData) error {
				issue.Number = r.nextNumber()
				r.issues = append(r.issues, &issue)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			b.Notify(fmt.Sprintf("%s/%s#%d opened", owner, repo, issue.Number))
			return jsonResult(issue)
		}
}

// UpdateIssue describes the update_issue tool.
func UpdateIssue(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["issue_number"] = issueNumberSchema()
	props["title"] = &jsonschema.Schema{Type: "string", Description: "New title"}
	props["body"] = &jsonschema.Schema{Type: "string", Description: "New description"}
	props["state"] = &jsonschema.Schema{Type: "string", Description: "New state", Enum: []any{"open", "closed"}}
	return mcp.Tool{
			Name:        "update_issue",
			Description: "Update an existing issue's title, body or state.",
			Annotations: &mcp.ToolAnnotations{Title: "Edit issue", DestructiveHint: ptr(false), IdempotentHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "issue_number"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			var out Issue
			err := withIssue(b, args, func(_ *repoData, i *Issue) error {
				for name, dst := range map[string]*string{"title": &i.Title, "body": &i.Body, "state": &i.State} {
					v, err := OptionalParam[string](args, name)
					if err != nil {
						return err
					}
					if v != "" {
						*dst = v
					}
				}
				out = *i
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// AddIssueComment describes the add_issue_comment tool.
func AddIssueComment(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["issue_number"] = issueNumberSchema()
	props["body"] = &jsonschema.Schema{Type: "string", Description: "Comment content"}
	return mcp.Tool{
			Name:        "add_issue_comment",
			Description: "Add a comment to an issue.",
			Annotations: &mcp.ToolAnnotations{Title: "Add comment to issue", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "issue_number", "body"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			body, err := RequiredParam[string](args, "body")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var count int
			err = withIssue(b, args, func(_ *repoData, i *Issue) error {
				i.Comments = append(i.Comments, body)
				count = len(i.Comments)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult(fmt.Sprintf("comment %d added", count)), nil, nil
		}
}

// AddIssueLabels describes the add_issue_labels tool.
func AddIssueLabels(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["issue_number"] = issueNumberSchema()
	props["labels"] = &jsonschema.Schema{
		Type:        "array",
		Description: "Labels to add; each must exist in the repository",
		Items:       &jsonschema.Schema{Type: "string"},
		MinItems:    ptr(1),
	}
	return mcp.Tool{
			Name:        "add_issue_labels",
			Description: "Add labels to an issue.",
			Annotations: &mcp.ToolAnnotations{Title: "Label issue", IdempotentHint: true, DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "issue_number", "labels"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			labels, err := OptionalStringArray(args, "labels")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var out []string
			err = withIssue(b, args, func(r *repoData, i *Issue) error {
				for _, l := range labels {
					if !slices.Contains(r.labels, l) {
						return fmt.Errorf("label %q does not exist", l)
					}
					if !slices.Contains(i.Labels, l) {
						i.Labels = append(i.Labels, l)
					}
				}
				out = slices.Clone(i.Labels)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// AssignIssue describes the assign_issue tool.
func AssignIssue(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["issue_number"] = issueNumberSchema()
	props["assignee"] = &jsonschema.Schema{Type: "string", Description: "Username; the authenticated user when omitted"}
	return mcp.Tool{
			Name:        "assign_issue",
			Description: "Assign a user to an issue.",
			Annotations: &mcp.ToolAnnotations{Title: "Assign issue", IdempotentHint: true, DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "issue_number"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			who, err := OptionalParam[string](args, "assignee")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			if who == "" {
				who = b.Me()
			}
			err = withIssue(b, args, func(_ *repoData, i *Issue) error {
				if !slices.Contains(i.Assignees, who) {
					i.Assignees = append(i.Assignees, who)
				}
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult("assigned " + who), nil, nil
		}
}
