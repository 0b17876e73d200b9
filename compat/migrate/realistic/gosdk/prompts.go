package gosdkserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "issue_to_fix_workflow",
		Description: "Open an issue for a problem, then a pull request that fixes it.",
		Arguments: []*mcp.PromptArgument{
			{Name: "owner", Description: "Repository owner", Required: true},
			{Name: "repo", Description: "Repository name", Required: true},
			{Name: "title", Description: "Issue title", Required: true},
			{Name: "description", Description: "What is wrong"},
		},
	}, issueToFix)
	s.AddPrompt(&mcp.Prompt{
		Name:        "summarize_pull_request",
		Title:       "Summarize a pull request",
		Description: "Summarize a pull request's changes and reviews.",
		Arguments: []*mcp.PromptArgument{
			{Name: "owner", Required: true},
			{Name: "repo", Required: true},
			{Name: "pullNumber", Required: true},
		},
	}, summarizePR)
}

func issueToFix(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	a := req.Params.Arguments
	for _, name := range []string{"owner", "repo", "title"} {
		if a[name] == "" {
			return nil, fmt.Errorf("missing required argument %q", name)
		}
	}
	text := fmt.Sprintf("In %s/%s, open an issue titled %q", a["owner"], a["repo"], a["title"])
	if d := a["description"]; d != "" {
		text += " describing: " + d
	}
	text += ". Then create a branch, commit a fix, and open a pull request that references the issue."
	return &mcp.GetPromptResult{
		Description: "Issue to fix workflow",
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: text}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "I will start by opening the issue."}},
		},
	}, nil
}

func summarizePR(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	a := req.Params.Arguments
	return &mcp.GetPromptResult{
		Messages: []*mcp.PromptMessage{{
			Role: "user",
			Content: &mcp.TextContent{Text: fmt.Sprintf(
				"Read pull request #%s in %s/%s with get_pull_request and get_pull_request_files, then summarize it.",
				a["pullNumber"], a["owner"], a["repo"])},
		}},
	}, nil
}
