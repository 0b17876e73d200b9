package mcpgoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func jsonText(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal result: %w", err)
	}
	return mcp.NewToolResultText(string(b)), nil
}

// ListDatasources describes the list_datasources tool.
func ListDatasources(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_datasources",
			mcp.WithDescription("List the configured data sources, optionally of one type."),
			mcp.WithString("type", mcp.Description("Only data sources of this type, such as prometheus or loki")),
			mcp.WithTitleAnnotation("List datasources"),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			typ := req.GetString("type", "")
			defer b.lock()()
			var out []Datasource
			for _, ds := range b.datasources {
				if typ == "" || ds.Type == typ {
					out = append(out, ds)
				}
			}
			return jsonText(out)
		},
	}
}

// GetDatasourceParams are get_datasource's arguments.
type GetDatasourceParams struct {
	UID string `json:"uid" jsonschema:"The uid of the data source"`
}

// GetDatasource describes the get_datasource tool, whose schema comes from
// GetDatasourceParams.
func GetDatasource(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_datasource",
			mcp.WithDescription("Get one data source by uid."),
			mcp.WithInputSchema[GetDatasourceParams](),
			mcp.WithTitleAnnotation("Get datasource"),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		),
		Handler: mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args GetDatasourceParams) (*mcp.CallToolResult, error) {
			defer b.lock()()
			ds, err := b.datasource(args.UID)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return jsonText(ds)
		}),
	}
}

// SearchDashboards describes the search_dashboards tool.
func SearchDashboards(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("search_dashboards",
			mcp.WithDescription("Search dashboards by title and tag."),
			mcp.WithString("query", mcp.Description("Text the title contains")),
			mcp.WithArray("tags", mcp.Description("Tags every result has"), mcp.WithStringItems()),
			mcp.WithNumber("limit", mcp.Description("Maximum number of results"), mcp.Min(1), mcp.Max(500), mcp.DefaultNumber(50)),
			mcp.WithTitleAnnotation("Search dashboards"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			q := strings.ToLower(req.GetString("query", ""))
			tags := req.GetStringSlice("tags", nil)
			limit := req.GetInt("limit", 50)
			defer b.lock()()
			type hit struct {
				UID   string `json:"uid"`
				Title string `json:"title"`
			}
			var out []hit
			for _, uid := range sortedKeys(b.dashboards) {
				d := b.dashboards[uid]
				if strings.Contains(strings.ToLower(d.Title), q) && hasAll(d.Tags, tags) && len(out) < limit {
					out = append(out, hit{d.UID, d.Title})
				}
			}
			return jsonText(out)
		},
	}
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// GetDashboardByUID describes the get_dashboard_by_uid tool.
func GetDashboardByUID(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_dashboard_by_uid",
			mcp.WithDescription("Get the complete dashboard, panels included, by its uid."),
			mcp.WithString("uid", mcp.Required(), mcp.Description("The uid of the dashboard")),
			mcp.WithTitleAnnotation("Get dashboard details"),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uid, err := req.RequireString("uid")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			d, ok := b.dashboards[uid]
			if !ok {
				return mcp.NewToolResultErrorf("dashboard %q not found", uid), nil
			}
			return jsonText(d)
		},
	}
}

// UpdateDashboardParams are update_dashboard's arguments.
type UpdateDashboardParams struct {
	UID       string   `json:"uid" jsonschema:"The uid of the dashboard to create or replace"`
	Title     string   `json:"title" jsonschema:"The dashboard title"`
	FolderUID string   `json:"folderUid,omitempty" jsonschema:"The folder to save it in"`
	Tags      []string `json:"tags,omitempty" jsonschema:"Tags of the dashboard"`
	Panels    []Panel  `json:"panels,omitempty" jsonschema:"The panels"`
	Message   string   `json:"message,omitempty" jsonschema:"A message describing the change"`
	Overwrite bool     `json:"overwrite,omitempty" jsonschema:"Replace a dashboard that changed since it was read"`
}

// UpdateDashboard describes the update_dashboard tool.
func UpdateDashboard(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("update_dashboard",
			mcp.WithDescription("Create a dashboard or replace an existing one."),
			mcp.WithInputSchema[UpdateDashboardParams](),
			mcp.WithTitleAnnotation("Create or update dashboard"),
			mcp.WithDestructiveHintAnnotation(true),
		),
		Handler: mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args UpdateDashboardParams) (*mcp.CallToolResult, error) {
			defer b.lock()()
			if args.FolderUID != "" {
				if _, ok := b.folders[args.FolderUID]; !ok {
					return mcp.NewToolResultErrorf("folder %q not found", args.FolderUID), nil
				}
			}
			version := 1
			if old, ok := b.dashboards[args.UID]; ok {
				if !args.Overwrite {
					return mcp.NewToolResultError("dashboard exists; set overwrite to replace it"), nil
				}
				version = old.Version + 1
			}
			b.dashboards[args.UID] = &Dashboard{UID: args.UID, Title: args.Title, Folder: args.FolderUID,
				Tags: args.Tags, Panels: args.Panels, Version: version}
			return mcp.NewToolResultText(fmt.Sprintf("saved %s at version %d", args.UID, version)), nil
		}),
	}
}

// GetDashboardPanelQueries describes the get_dashboard_panel_queries tool.
func GetDashboardPanelQueries(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_dashboard_panel_queries",
			mcp.WithDescription("Get the title, query and data source of every panel of a dashboard."),
			mcp.WithString("uid", mcp.Required(), mcp.Description("The uid of the dashboard")),
			mcp.WithTitleAnnotation("Get dashboard panel queries"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uid, err := req.RequireString("uid")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			d, ok := b.dashboards[uid]
			if !ok {
				return mcp.NewToolResultErrorf("dashboard %q not found", uid), nil
			}
			return jsonText(d.Panels)
		},
	}
}

// ListFolders describes the list_folders tool.
func ListFolders(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_folders",
			mcp.WithDescription("List the dashboard folders."),
			mcp.WithTitleAnnotation("List folders"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			defer b.lock()()
			out := []map[string]string{}
			for _, uid := range sortedKeys(b.folders) {
				out = append(out, map[string]string{"uid": uid, "title": b.folders[uid]})
			}
			return jsonText(out)
		},
	}
}

// CreateFolder describes the create_folder tool.
func CreateFolder(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("create_folder",
			mcp.WithDescription("Create a dashboard folder."),
			mcp.WithString("title", mcp.Required(), mcp.Description("The folder title"), mcp.MinLength(1)),
			mcp.WithString("uid", mcp.Description("The folder uid; derived from the title when omitted"),
				mcp.Pattern("^[a-z0-9-]*$")),
			mcp.WithTitleAnnotation("Create folder"),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			title, err := req.RequireString("title")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			uid := req.GetString("uid", strings.ReplaceAll(strings.ToLower(title), " ", "-"))
			defer b.lock()()
			if _, ok := b.folders[uid]; ok {
				return mcp.NewToolResultErrorf("folder %q exists", uid), nil
			}
			b.folders[uid] = title
			return mcp.NewToolResultText(uid), nil
		},
	}
}

// QueryPrometheusParams are query_prometheus's arguments.
type QueryPrometheusParams struct {
	DatasourceUID string `json:"datasourceUid" jsonschema:"The uid of the Prometheus data source"`
	Expr          string `json:"expr" jsonschema:"The PromQL expression"`
	QueryType     string `json:"queryType,omitempty" jsonschema:"enum=instant,enum=range"`
	StartTime     string `json:"startTime,omitempty" jsonschema:"Start of a range query, RFC3339 or now-1h"`
	EndTime       string `json:"endTime,omitempty" jsonschema:"End of a range query"`
	StepSeconds   int    `json:"stepSeconds,omitempty" jsonschema:"Step of a range query in seconds"`
}

// QueryPrometheus describes the query_prometheus tool.
func QueryPrometheus(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("query_prometheus",
			mcp.WithDescription("Run a PromQL query against a Prometheus data source."),
			mcp.WithInputSchema[QueryPrometheusParams](),
			mcp.WithTitleAnnotation("Query Prometheus metrics"),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		),
		Handler: mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args QueryPrometheusParams) (*mcp.CallToolResult, error) {
			defer b.lock()()
			ds, err := b.datasource(args.DatasourceUID)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if ds.Type != "prometheus" {
				return mcp.NewToolResultErrorf("datasource %q is %s, not prometheus", ds.UID, ds.Type), nil
			}
			if args.QueryType == "range" && args.StepSeconds <= 0 {
				return mcp.NewToolResultError("a range query needs stepSeconds"), nil
			}
			return jsonText(b.query(args.Expr))
		}),
	}
}

// ListPrometheusMetricNames describes the list_prometheus_metric_names tool.
func ListPrometheusMetricNames(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_prometheus_metric_names",
			mcp.WithDescription("List metric names, optionally matching a regular expression prefix."),
			mcp.WithString("datasourceUid", mcp.Required(), mcp.Description("The uid of the Prometheus data source")),
			mcp.WithString("prefix", mcp.Description("Only names starting with this")),
			mcp.WithTitleAnnotation("List Prometheus metric names"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, err := req.RequireString("datasourceUid"); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			prefix := req.GetString("prefix", "")
			defer b.lock()()
			seen := map[string]bool{}
			for _, s := range b.samples {
				if strings.HasPrefix(s.Metric, prefix) {
					seen[s.Metric] = true
				}
			}
			return jsonText(sortedKeys(seen))
		},
	}
}

// ListPrometheusLabelValues describes the list_prometheus_label_values tool.
func ListPrometheusLabelValues(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_prometheus_label_values",
			mcp.WithDescription("List the values a label takes."),
			mcp.WithString("datasourceUid", mcp.Required(), mcp.Description("The uid of the Prometheus data source")),
			mcp.WithString("labelName", mcp.Required(), mcp.Description("The label")),
			mcp.WithNumber("limit", mcp.Description("Maximum number of values"), mcp.DefaultNumber(100)),
			mcp.WithTitleAnnotation("List Prometheus label values"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			label, err := req.RequireString("labelName")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			limit := req.GetInt("limit", 100)
			defer b.lock()()
			seen := map[string]bool{}
			for _, s := range b.samples {
				if v, ok := s.Labels[label]; ok {
					seen[v] = true
				}
			}
			vals := sortedKeys(seen)
			return jsonText(vals[:min(limit, len(vals))])
		},
	}
}

// QueryLokiLogs describes the query_loki_logs tool.
func QueryLokiLogs(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("query_loki_logs",
			mcp.WithDescription("Read log lines of a stream, newest last, optionally containing a string."),
			mcp.WithString("datasourceUid", mcp.Required(), mcp.Description("The uid of the Loki data source")),
			mcp.WithString("stream", mcp.Required(), mcp.Description("The stream's job label")),
			mcp.WithString("contains", mcp.Description("Only lines containing this")),
			mcp.WithNumber("limit", mcp.Description("Maximum number of lines"), mcp.Min(1), mcp.Max(1000), mcp.DefaultNumber(10)),
			mcp.WithString("direction", mcp.Description("Which lines to keep when over the limit"),
				mcp.Enum("forward", "backward"), mcp.DefaultString("backward")),
			mcp.WithTitleAnnotation("Query Loki logs"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uid, err := req.RequireString("datasourceUid")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			stream, err := req.RequireString("stream")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			contains := req.GetString("contains", "")
			limit := req.GetInt("limit", 10)
			defer b.lock()()
			if ds, err := b.datasource(uid); err != nil || ds.Type != "loki" {
				return mcp.NewToolResultErrorf("datasource %q is not a Loki data source", uid), nil
			}
			var lines []string
			for _, l := range b.logs[stream] {
				if strings.Contains(l, contains) {
					lines = append(lines, l)
				}
			}
			if len(lines) > limit {
				if req.GetString("direction", "backward") == "backward" {
					lines = lines[len(lines)-limit:]
				} else {
					lines = lines[:limit]
				}
			}
			return jsonText(lines)
		},
	}
}

// ListLokiLabelNames describes the list_loki_label_names tool.
func ListLokiLabelNames(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_loki_label_names",
			mcp.WithDescription("List the streams Loki holds logs for."),
			mcp.WithString("datasourceUid", mcp.Required(), mcp.Description("The uid of the Loki data source")),
			mcp.WithTitleAnnotation("List Loki streams"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if _, err := req.RequireString("datasourceUid"); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			names := sortedKeys(b.logs)
			sort.Strings(names)
			return jsonText(names)
		},
	}
}
