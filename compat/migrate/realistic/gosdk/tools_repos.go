package gosdkserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

func ptr[T any](v T) *T { return &v }

// ownerRepoSchema is the start of almost every input schema. Each call
// returns a fresh schema, so tools can add to it.
func ownerRepoSchema() map[string]*jsonschema.Schema {
	return map[string]*jsonschema.Schema{
		"owner": {Type: "string", Description: "Repository owner"},
		"repo":  {Type: "string", Description: "Repository name"},
	}
}

// withPagination adds the page and perPage parameters to a list tool's schema.
func withPagination(s *jsonschema.Schema) *jsonschema.Schema {
	s.Properties["page"] = &jsonschema.Schema{
		Type:        "number",
		Description: "Page number for pagination (min 1)",
		Minimum:     ptr(1.0),
	}
	s.Properties["perPage"] = &jsonschema.Schema{
		Type:        "number",
		Description: "Results per page for pagination (min 1, max 100)",
		Minimum:     ptr(1.0),
		Maximum:     ptr(100.0),
	}
	return s
}

func paginate[T any](items []T, args map[string]any) ([]T, error) {
	page, err := OptionalIntWithDefault(args, "page", 1)
	if err != nil {
		return nil, err
	}
	per, err := OptionalIntWithDefault(args, "perPage", 30)
	if err != nil {
		return nil, err
	}
	start := (page - 1) * per
	if start >= len(items) {
		return []T{}, nil
	}
	return items[start:min(start+per, len(items))], nil
}

// GetRepository describes the get_repository tool.
func GetRepository(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "get_repository",
			Description: "Get details of a repository: description, visibility, default branch, topics and stars.",
			Annotations: &mcp.ToolAnnotations{Title: "Get repository", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{
				Type:       "object",
				Properties: ownerRepoSchema(),
				Required:   []string{"owner", "repo"},
			},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var out Repo
			if err := b.do(owner, repo, func(r *repoData) error { out = r.Repo; return nil }); err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(out)
		}
}

// SearchRepositories describes the search_repositories tool.
func SearchRepositories(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "search_repositories",
			Description: "Find repositories by name or description.",
			Annotations: &mcp.ToolAnnotations{Title: "Search repositories", ReadOnlyHint: true},
			InputSchema: withPagination(&jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"query": {Type: "string", Description: "Text to look for", MinLength: ptr(1)},
				},
				Required: []string{"query"},
			}),
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			q, err := RequiredParam[string](args, "query")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			page, err := paginate(b.SearchRepos(q), args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(map[string]any{"total_count": len(page), "items": page})
		}
}

// ListBranches describes the list_branches tool.
func ListBranches(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "list_branches",
			Description: "List the branches of a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "List branches", ReadOnlyHint: true},
			InputSchema: withPagination(&jsonschema.Schema{
				Type:       "object",
				Properties: ownerRepoSchema(),
				Required:   []string{"owner", "repo"},
			}),
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var names []string
			err = b.do(owner, repo, func(r *repoData) error {
				for n := range r.branches {
					names = append(names, n)
				}
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			sort.Strings(names)
			page, err := paginate(names, args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(page)
		}
}

// GetFileContents describes the get_file_contents tool.
func GetFileContents(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["path"] = &jsonschema.Schema{Type: "string", Description: "Path to the file", Default: json.RawMessage(`"README.md"`)}
	props["ref"] = &jsonschema.Schema{Type: "string", Description: "Branch name; the default branch when omitted"}
	return mcp.Tool{
			Name:        "get_file_contents",
			Description: "Get the contents of a file in a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "Get file contents", ReadOnlyHint: true},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			path, err := OptionalParam[string](args, "path")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			if path == "" {
				path = "README.md"
			}
			ref, err := OptionalParam[string](args, "ref")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var text string
			err = b.do(owner, repo, func(r *repoData) error {
				files, err := r.branch(ref)
				if err != nil {
					return err
				}
				t, ok := files[path]
				if !ok {
					return fmt.Errorf("file %q: %w", path, ErrNotFound)
				}
				text = t
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult(text), nil, nil
		}
}

// CreateRepository describes the create_repository tool.
func CreateRepository(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	return mcp.Tool{
			Name:        "create_repository",
			Description: "Create a new repository owned by the authenticated user.",
			Annotations: &mcp.ToolAnnotations{Title: "Create repository", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"name":        {Type: "string", Description: "Repository name", Pattern: "^[A-Za-z0-9_.-]+$"},
					"description": {Type: "string", Description: "Repository description"},
					"private":     {Type: "boolean", Description: "Whether the repository is private", Default: json.RawMessage("false")},
					"topics": {
						Type:        "array",
						Description: "Topics to tag the repository with",
						Items:       &jsonschema.Schema{Type: "string"},
						MaxItems:    ptr(20),
					},
				},
				Required: []string{"name"},
			},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			name, err := RequiredParam[string](args, "name")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			desc, err := OptionalParam[string](args, "description")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			private, err := OptionalParam[bool](args, "private")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			topics, err := OptionalStringArray(args, "topics")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			r, err := b.CreateRepo(Repo{Name: name, Description: desc, Private: private, Topics: topics})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return jsonResult(r)
		}
}

// CreateBranch describes the create_branch tool.
func CreateBranch(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["branch"] = &jsonschema.Schema{Type: "string", Description: "Name for new branch"}
	props["from_branch"] = &jsonschema.Schema{Type: "string", Description: "Source branch (defaults to repo default)"}
	return mcp.Tool{
			Name:        "create_branch",
			Description: "Create a new branch in a repository",
			Annotations: &mcp.ToolAnnotations{Title: "Create branch", DestructiveHint: ptr(false)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "branch"}},
			OutputSchema: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"ref": {Type: "string", Description: "Fully qualified reference, such as refs/heads/main."},
					"sha": {Type: "string"},
				},
				Required:             []string{"ref", "sha"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			branch, err := RequiredParam[string](args, "branch")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			from, err := OptionalParam[string](args, "from_branch")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			err = b.do(owner, repo, func(r *repoData) error {
				files, err := r.branch(from)
				if err != nil {
					return err
				}
				if _, ok := r.branches[branch]; ok {
					return fmt.Errorf("branch %q already exists", branch)
				}
				r.branches[branch] = cloneMap(files)
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			out := map[string]any{"ref": "refs/heads/" + branch, "sha": fmt.Sprintf("%040x", len(branch))}
			return nil, out, nil
		}
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// CreateOrUpdateFile describes the create_or_update_file tool.
func CreateOrUpdateFile(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["path"] = &jsonschema.Schema{Type: "string", Description: "Path where to create/update the file"}
	props["content"] = &jsonschema.Schema{Type: "string", Description: "Content of the file"}
	props["message"] = &jsonschema.Schema{Type: "string", Description: "Commit message"}
	props["branch"] = &jsonschema.Schema{Type: "string", Description: "Branch to create/update the file in"}
	return mcp.Tool{
			Name:        "create_or_update_file",
			Description: "Create or update a single file in a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "Create or update file", DestructiveHint: ptr(true), IdempotentHint: true},
			InputSchema: &jsonschema.Schema{
				Type:       "object",
				Properties: props,
				Required:   []string{"owner", "repo", "path", "content", "message", "branch"},
			},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			var path, content, branch string
			for name, dst := range map[string]*string{"path": &path, "content": &content, "branch": &branch} {
				if *dst, err = RequiredParam[string](args, name); err != nil {
					return textError(err.Error()), nil, nil
				}
			}
			if _, err := RequiredParam[string](args, "message"); err != nil {
				return textError(err.Error()), nil, nil
			}
			err = b.do(owner, repo, func(r *repoData) error {
				files, err := r.branch(branch)
				if err != nil {
					return err
				}
				files[path] = content
				return nil
			})
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			return textResult(fmt.Sprintf("wrote %s on %s", path, branch)), nil, nil
		}
}

// DeleteFile describes the delete_file tool.
func DeleteFile(b *Backend) (mcp.Tool, mcp.ToolHandlerFor[map[string]any, any]) {
	props := ownerRepoSchema()
	props["path"] = &jsonschema.Schema{Type: "string", Description: "Path to the file to delete"}
	props["branch"] = &jsonschema.Schema{Type: "string", Description: "Branch to delete the file from"}
	return mcp.Tool{
			Name:        "delete_file",
			Description: "Delete a file from a repository.",
			Annotations: &mcp.ToolAnnotations{Title: "Delete file", DestructiveHint: ptr(true)},
			InputSchema: &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"owner", "repo", "path", "branch"}},
		},
		func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
			owner, repo, err := ownerRepo(args)
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			path, err := RequiredParam[string](args, "path")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			branch, err := RequiredParam[string](args, "branch")
			if err != nil {
				return textError(err.Error()), nil, nil
			}
			err = b.do(owner, repo, func(r *repoData) error {
				files, err := r.branch(branch)
				if err != nil {
					return err
				}
				if _, ok := files[path]; !ok {
					return fmt.Errorf("file %q: %w", path, ErrNotFound)
				}
				delete(files, path)
				return nil
			})
			if errors.Is(err, ErrNotFound) {
				return textError(err.Error()), nil, nil
			}
			if err != nil {
				return nil, nil, fmt.Errorf("failed to delete file: %w", err)
			}
			return textResult("deleted " + path), nil, nil
		}
}
