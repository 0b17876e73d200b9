// Package mcpgoserver is a realistic MCP server written on
// github.com/mark3labs/mcp-go v1.2.1 the way large servers (mcp-grafana among
// them) are written: tools in toolsets, built with mcp.NewTool and its
// property options or with WithInputSchema[T] from tagged structs, with
// annotations; hooks and tool middleware, the middleware added after
// construction with Use; one server per HTTP request, built from the
// request's headers, served statelessly, with the caller's organization put
// in the context; resources, a resource template and prompts.
//
// Its tests build requests by hand and compare every tool against a snapshot
// in testdata/toolsnaps. The package is self-contained so that a copy of it
// can be migrated to gomcp by cmd/mcp-migrate and tested unchanged.
package mcpgoserver

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Toolset is a group of tools a deployment turns on or off as a whole.
type Toolset struct {
	Name  string
	Tools []server.ServerTool
}

// Toolsets returns every toolset, in the order they are registered.
func Toolsets(b *Backend) []Toolset {
	return []Toolset{
		{"datasources", []server.ServerTool{ListDatasources(b), GetDatasource(b)}},
		{"dashboards", []server.ServerTool{SearchDashboards(b), GetDashboardByUID(b), UpdateDashboard(b),
			GetDashboardPanelQueries(b), ListFolders(b), CreateFolder(b)}},
		{"prometheus", []server.ServerTool{QueryPrometheus(b), ListPrometheusMetricNames(b), ListPrometheusLabelValues(b)}},
		{"loki", []server.ServerTool{QueryLokiLogs(b), ListLokiLabelNames(b)}},
		{"alerting", []server.ServerTool{ListAlertRules(b), GetAlertRule(b), CreateAlertRule(b), DeleteAlertRule(b),
			ListContactPoints(b)}},
		{"incident", []server.ServerTool{ListIncidents(b), CreateIncident(b), AddActivityToIncident(b), ResolveIncident(b)}},
		{"annotations", []server.ServerTool{GetAnnotations(b), CreateAnnotation(b)}},
		{"oncall", []server.ServerTool{ListOncallSchedules(b), GetCurrentOncallUsers(b)}},
		{"admin", []server.ServerTool{ListTeams(b), ListUsersByOrg(b)}},
	}
}

// Config is what one server instance serves.
type Config struct {
	Version  string
	Toolsets []string // nil: every toolset
}

// Metrics counts tool calls and failed requests. Its middleware and hook are
// installed on every server.
type Metrics struct {
	mu     sync.Mutex
	calls  map[string]int
	errors map[string]int
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{calls: map[string]int{}, errors: map[string]int{}}
}

// Middleware counts every tool call by tool name, and the calls whose
// result is an error by "NAME:error".
func (m *Metrics) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		m.mu.Lock()
		defer m.mu.Unlock()
		m.calls[req.Params.Name]++
		if err != nil || (res != nil && res.IsError) {
			m.calls[req.Params.Name+":error"]++
		}
		return res, err
	}
}

// Calls returns how many calls key counted: a tool name or "NAME:error".
func (m *Metrics) Calls(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[key]
}

// Errors returns how many requests of method failed with a protocol error.
func (m *Metrics) Errors(method string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.errors[method]
}

// Hooks returns the hooks that count protocol errors by method.
func (m *Metrics) Hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, message any, err error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.errors[string(method)]++
	})
	return h
}

// NewServer builds a server for cfg on b. Middleware is added by the caller.
func NewServer(cfg Config, b *Backend, m *Metrics) *server.MCPServer {
	s := server.NewMCPServer("observability-mcp", cfg.Version,
		server.WithInstructions("Tools for dashboards, metrics, logs, alerts and incidents."),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithRecovery(),
		server.WithHooks(m.Hooks()),
	)
	for _, ts := range Toolsets(b) {
		if len(cfg.Toolsets) == 0 || slices.Contains(cfg.Toolsets, ts.Name) {
			s.AddTools(ts.Tools...)
		}
	}
	addResources(s, b)
	addPrompts(s)
	return s
}

// orgFromHeader puts the X-Org-Id header's organization in the context.
func orgFromHeader(ctx context.Context, r *http.Request) context.Context {
	if org, err := strconv.Atoi(r.Header.Get("X-Org-Id")); err == nil {
		return WithOrgID(ctx, org)
	}
	return ctx
}

// NewHTTPHandler serves b over Streamable HTTP, statelessly, building one
// server per request: the X-MCP-Toolsets header (comma-separated) picks the
// toolsets, X-Org-Id the caller's organization.
func NewHTTPHandler(base Config, b *Backend, m *Metrics) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg := base
		if h := r.Header.Get("X-MCP-Toolsets"); h != "" {
			cfg.Toolsets = strings.Split(h, ",")
		}
		s := NewServer(cfg, b, m)
		s.Use(m.Middleware)
		server.NewStreamableHTTPServer(s,
			server.WithStateLess(true),
			server.WithHTTPContextFunc(orgFromHeader),
		).ServeHTTP(w, r)
	})
}
