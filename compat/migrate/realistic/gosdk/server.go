// Package gosdkserver is a realistic MCP server written on
// github.com/modelcontextprotocol/go-sdk v1.8.0 the way large servers
// (github-mcp-server among them) are written: tools in toolsets, each with a
// hand-built *jsonschema.Schema and annotations; middleware added after
// construction; one server per HTTP request, built from the request's
// headers, served statelessly; resources, resource templates and prompts.
//
// Its tests build requests by hand and compare every tool against a snapshot
// in testdata/toolsnaps. The package is self-contained so that a copy of it
// can be migrated to gomcp by cmd/mcp-migrate and tested unchanged.
package gosdkserver

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerTool is one tool and its handler.
type ServerTool struct {
	Tool    mcp.Tool
	Handler mcp.ToolHandlerFor[map[string]any, any]
}

func tool(t mcp.Tool, h mcp.ToolHandlerFor[map[string]any, any]) ServerTool {
	return ServerTool{Tool: t, Handler: h}
}

// Toolset is a group of tools a deployment turns on or off as a whole;
// Write holds the tools that change something, left out in read-only mode.
type Toolset struct {
	Name        string
	Description string
	Read        []ServerTool
	Write       []ServerTool
}

// Toolsets returns every toolset, in the order they are registered.
func Toolsets(b *Backend) []Toolset {
	return []Toolset{
		{Name: "context", Description: "Who the user is",
			Read: []ServerTool{tool(GetMe(b))}},
		{Name: "repos", Description: "Repositories, branches and files",
			Read: []ServerTool{tool(GetRepository(b)), tool(SearchRepositories(b)), tool(ListBranches(b)), tool(GetFileContents(b))},
			Write: []ServerTool{tool(CreateRepository(b)), tool(CreateBranch(b)), tool(CreateOrUpdateFile(b)),
				tool(DeleteFile(b))}},
		{Name: "issues", Description: "Issues, comments and labels",
			Read: []ServerTool{tool(GetIssue(b)), tool(ListIssues(b)), tool(SearchIssues(b)), tool(ListLabels(b))},
			Write: []ServerTool{tool(CreateIssue(b)), tool(UpdateIssue(b)), tool(AddIssueComment(b)),
				tool(AddIssueLabels(b)), tool(AssignIssue(b))}},
		{Name: "pull_requests", Description: "Pull requests and reviews",
			Read:  []ServerTool{tool(GetPullRequest(b)), tool(ListPullRequests(b)), tool(GetPullRequestFiles(b))},
			Write: []ServerTool{tool(CreatePullRequest(b)), tool(MergePullRequest(b)), tool(CreatePullRequestReview(b))}},
		{Name: "actions", Description: "CI workflow runs",
			Read:  []ServerTool{tool(ListWorkflowRuns(b)), tool(GetWorkflowRun(b))},
			Write: []ServerTool{tool(RerunWorkflowRun(b))}},
		{Name: "notifications", Description: "The user's notifications",
			Read:  []ServerTool{tool(ListNotifications(b))},
			Write: []ServerTool{tool(DismissNotifications(b))}},
	}
}

// Config is what one server instance serves.
type Config struct {
	Version  string
	Toolsets []string // nil or "all": every toolset
	ReadOnly bool
	Logger   *slog.Logger
}

func (c Config) enabled(name string) bool {
	return len(c.Toolsets) == 0 || slices.Contains(c.Toolsets, "all") || slices.Contains(c.Toolsets, name)
}

// NewServer builds a server for cfg on b. The caller may add middleware to it
// before serving.
func NewServer(cfg Config, b *Backend) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "forge-mcp-server", Title: "Forge", Version: cfg.Version},
		&mcp.ServerOptions{
			Instructions: "Tools for the Forge code host. Call get_me first to learn who you are.",
			Logger:       cfg.Logger,
			HasPrompts:   true,
			HasResources: true,
		})
	for _, ts := range Toolsets(b) {
		if !cfg.enabled(ts.Name) {
			continue
		}
		tools := ts.Read
		if !cfg.ReadOnly {
			tools = append(slices.Clip(tools), ts.Write...)
		}
		for _, t := range tools {
			mcp.AddTool(s, &t.Tool, t.Handler)
		}
	}
	addResources(s, b)
	addPrompts(s)
	return s
}

// Metrics counts the requests the servers receive, by method and tool. It is
// installed on each server as receiving middleware.
type Metrics struct {
	mu     sync.Mutex
	counts map[string]int
	last   time.Duration
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics { return &Metrics{counts: map[string]int{}} }

// Middleware counts every request and, for tools/call, the tool's name.
func (m *Metrics) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		key := method
		if call, ok := req.(*mcp.CallToolRequest); ok {
			key = method + ":" + call.Params.Name
		}
		res, err := next(ctx, method, req)
		m.mu.Lock()
		m.counts[key]++
		m.last = time.Since(start)
		m.mu.Unlock()
		return res, err
	}
}

// Count returns how many requests had key: a method, or "tools/call:NAME".
func (m *Metrics) Count(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[key]
}

// NewHTTPHandler serves b over Streamable HTTP, statelessly, building one
// server per request: the X-MCP-Toolsets header (comma-separated) picks the
// toolsets and X-MCP-Readonly: true leaves out the write tools.
func NewHTTPHandler(base Config, b *Backend, m *Metrics) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		cfg := base
		if h := r.Header.Get("X-MCP-Toolsets"); h != "" {
			cfg.Toolsets = strings.Split(h, ",")
		}
		if r.Header.Get("X-MCP-Readonly") == "true" {
			cfg.ReadOnly = true
		}
		s := NewServer(cfg, b)
		s.AddReceivingMiddleware(m.Middleware)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
}
