package gosdkserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addResources(s *mcp.Server, b *Backend) {
	s.AddResource(&mcp.Resource{
		URI:         "forge://me",
		Name:        "me",
		Description: "The authenticated user's login",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/plain", Text: b.Me()},
		}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "repo://{owner}/{repo}/contents/{path}",
		Name:        "repository_content",
		Description: "A file on the repository's default branch",
		MIMEType:    "text/plain",
	}, repoContent(b))
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "repo://{owner}/{repo}/refs/heads/{branch}/contents/{path}",
		Name:        "repository_content_branch",
		Description: "A file on a branch",
		MIMEType:    "text/plain",
	}, repoContent(b))
}

// repoContent reads repo://OWNER/REPO/contents/PATH and
// repo://OWNER/REPO/refs/heads/BRANCH/contents/PATH.
func repoContent(b *Backend) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		rest, ok := strings.CutPrefix(uri, "repo://")
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) < 3 {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		owner, repo, tail := parts[0], parts[1], parts[2]
		branch := ""
		if t, ok := strings.CutPrefix(tail, "refs/heads/"); ok {
			var found bool
			branch, tail, found = strings.Cut(t, "/")
			if !found {
				return nil, mcp.ResourceNotFoundError(uri)
			}
		}
		path, ok := strings.CutPrefix(tail, "contents/")
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		var text string
		err := b.do(owner, repo, func(r *repoData) error {
			files, err := r.branch(branch)
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
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
	}
}
