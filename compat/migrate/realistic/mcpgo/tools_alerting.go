package mcpgoserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ListAlertRules describes the list_alert_rules tool.
func ListAlertRules(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_alert_rules",
			mcp.WithDescription("List alert rules, optionally those carrying a label."),
			mcp.WithString("label", mcp.Description("A label selector, name=value")),
			mcp.WithNumber("page", mcp.Description("Page number"), mcp.Min(1), mcp.DefaultNumber(1)),
			mcp.WithNumber("limit", mcp.Description("Rules per page"), mcp.Min(1), mcp.Max(200), mcp.DefaultNumber(100)),
			mcp.WithTitleAnnotation("List alert rules"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, value, _ := strings.Cut(req.GetString("label", ""), "=")
			page, limit := req.GetInt("page", 1), req.GetInt("limit", 100)
			if page < 1 || limit < 1 {
				return mcp.NewToolResultError("page and limit must be positive"), nil
			}
			defer b.lock()()
			var out []AlertRule
			for _, uid := range sortedKeys(b.rules) {
				r := b.rules[uid]
				if name == "" || r.Labels[name] == value {
					out = append(out, *r)
				}
			}
			start := min((page-1)*limit, len(out))
			return jsonText(out[start:min(start+limit, len(out))])
		},
	}
}

// GetAlertRule describes the get_alert_rule tool.
func GetAlertRule(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_alert_rule",
			mcp.WithDescription("Get one alert rule by uid."),
			mcp.WithString("uid", mcp.Required(), mcp.Description("The uid of the alert rule")),
			mcp.WithTitleAnnotation("Get alert rule details"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uid, err := req.RequireString("uid")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			r, ok := b.rules[uid]
			if !ok {
				return nil, fmt.Errorf("alert rule %q: %w", uid, ErrNotFound)
			}
			return jsonText(r)
		},
	}
}

// CreateAlertRuleParams are create_alert_rule's arguments.
type CreateAlertRuleParams struct {
	UID       string            `json:"uid" jsonschema:"The uid of the new rule"`
	Title     string            `json:"title" jsonschema:"The rule title"`
	FolderUID string            `json:"folderUid" jsonschema:"The folder holding the rule"`
	Condition string            `json:"condition" jsonschema:"The expression that fires the rule"`
	For       string            `json:"for,omitempty" jsonschema:"How long the condition must hold, such as 5m"`
	Labels    map[string]string `json:"labels,omitempty" jsonschema:"Labels to attach"`
}

// CreateAlertRule describes the create_alert_rule tool.
func CreateAlertRule(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("create_alert_rule",
			mcp.WithDescription("Create an alert rule."),
			mcp.WithInputSchema[CreateAlertRuleParams](),
			mcp.WithTitleAnnotation("Create alert rule"),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args CreateAlertRuleParams) (*mcp.CallToolResult, error) {
			defer b.lock()()
			if _, ok := b.folders[args.FolderUID]; !ok {
				return mcp.NewToolResultErrorf("folder %q not found", args.FolderUID), nil
			}
			if _, ok := b.rules[args.UID]; ok {
				return mcp.NewToolResultErrorf("alert rule %q exists", args.UID), nil
			}
			if args.For == "" {
				args.For = "1m"
			}
			b.rules[args.UID] = &AlertRule{UID: args.UID, Title: args.Title, Folder: args.FolderUID,
				Condition: args.Condition, For: args.For, Labels: args.Labels}
			return jsonText(b.rules[args.UID])
		}),
	}
}

// DeleteAlertRule describes the delete_alert_rule tool.
func DeleteAlertRule(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("delete_alert_rule",
			mcp.WithDescription("Delete an alert rule."),
			mcp.WithString("uid", mcp.Required(), mcp.Description("The uid of the alert rule")),
			mcp.WithTitleAnnotation("Delete alert rule"),
			mcp.WithDestructiveHintAnnotation(true),
			mcp.WithIdempotentHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uid, err := req.RequireString("uid")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			delete(b.rules, uid)
			return mcp.NewToolResultText("deleted " + uid), nil
		},
	}
}

// ListContactPoints describes the list_contact_points tool.
func ListContactPoints(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_contact_points",
			mcp.WithDescription("List where alerts are sent."),
			mcp.WithString("name", mcp.Description("Only the contact point with this name")),
			mcp.WithTitleAnnotation("List contact points"),
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithOpenWorldHintAnnotation(false),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			all := []map[string]string{{"name": "email", "type": "email"}, {"name": "pager", "type": "oncall"}}
			name := req.GetString("name", "")
			var out []map[string]string
			for _, cp := range all {
				if name == "" || cp["name"] == name {
					out = append(out, cp)
				}
			}
			return jsonText(out)
		},
	}
}

// ListIncidents describes the list_incidents tool.
func ListIncidents(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_incidents",
			mcp.WithDescription("List incidents, the active ones by default."),
			mcp.WithBoolean("drill", mcp.Description("Include drill incidents")),
			mcp.WithString("status", mcp.Description("Only incidents in this status"), mcp.Enum("active", "resolved")),
			mcp.WithNumber("limit", mcp.Description("Maximum number of incidents"), mcp.DefaultNumber(10)),
			mcp.WithTitleAnnotation("List incidents"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			status := req.GetString("status", "active")
			drill := req.GetBool("drill", false)
			limit := req.GetInt("limit", 10)
			defer b.lock()()
			out := []Incident{}
			for _, in := range b.incidents {
				isDrill := strings.HasPrefix(in.Title, "[drill]")
				if in.Status == status && (drill || !isDrill) && len(out) < limit {
					out = append(out, *in)
				}
			}
			return jsonText(out)
		},
	}
}

// CreateIncidentParams are create_incident's arguments.
type CreateIncidentParams struct {
	Title    string   `json:"title" jsonschema:"The incident title"`
	Severity string   `json:"severity" jsonschema:"enum=minor,enum=major,enum=critical"`
	RoomHint string   `json:"roomPrefix,omitempty" jsonschema:"Prefix of the chat room to open"`
	Labels   []string `json:"labels,omitempty" jsonschema:"Labels to attach"`
}

// CreateIncident describes the create_incident tool.
func CreateIncident(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("create_incident",
			mcp.WithDescription("Declare an incident."),
			mcp.WithInputSchema[CreateIncidentParams](),
			mcp.WithTitleAnnotation("Create incident"),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args CreateIncidentParams
			if err := req.BindArguments(&args); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if args.Title == "" {
				return mcp.NewToolResultError("title is required"), nil
			}
			defer b.lock()()
			in := &Incident{ID: fmt.Sprintf("inc-%d", len(b.incidents)+1), Title: args.Title,
				Severity: args.Severity, Status: "active", Labels: args.Labels}
			b.incidents = append(b.incidents, in)
			return jsonText(in)
		},
	}
}

func (b *Backend) incident(id string) (*Incident, error) {
	for _, in := range b.incidents {
		if in.ID == id {
			return in, nil
		}
	}
	return nil, fmt.Errorf("incident %q: %w", id, ErrNotFound)
}

// AddActivityToIncident describes the add_activity_to_incident tool.
func AddActivityToIncident(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("add_activity_to_incident",
			mcp.WithDescription("Add a note to an incident's timeline."),
			mcp.WithString("incidentId", mcp.Required(), mcp.Description("The incident")),
			mcp.WithString("body", mcp.Required(), mcp.Description("The note"), mcp.MaxLength(4096)),
			mcp.WithTitleAnnotation("Add activity to incident"),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, err := req.RequireString("incidentId")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			body, err := req.RequireString("body")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			in, err := b.incident(id)
			if err != nil {
				return mcp.NewToolResultErrorFromErr("cannot add activity", err), nil
			}
			in.Activity = append(in.Activity, body)
			return mcp.NewToolResultText(fmt.Sprintf("%d activities", len(in.Activity))), nil
		},
	}
}

// ResolveIncident describes the resolve_incident tool.
func ResolveIncident(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("resolve_incident",
			mcp.WithDescription("Mark an incident resolved."),
			mcp.WithString("incidentId", mcp.Required(), mcp.Description("The incident")),
			mcp.WithString("summary", mcp.Description("What happened")),
			mcp.WithTitleAnnotation("Resolve incident"),
			mcp.WithIdempotentHintAnnotation(true),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, err := req.RequireString("incidentId")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			in, err := b.incident(id)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			in.Status = "resolved"
			if s := req.GetString("summary", ""); s != "" {
				in.Activity = append(in.Activity, "resolved: "+s)
			}
			return jsonText(in)
		},
	}
}

// GetAnnotations describes the get_annotations tool.
func GetAnnotations(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_annotations",
			mcp.WithDescription("List annotations, optionally of one dashboard or with given tags."),
			mcp.WithString("dashboardUid", mcp.Description("Only annotations of this dashboard")),
			mcp.WithArray("tags", mcp.Description("Tags every result has"), mcp.WithStringItems(mcp.MinLength(1))),
			mcp.WithTitleAnnotation("Get annotations"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			dash := req.GetString("dashboardUid", "")
			tags := req.GetStringSlice("tags", nil)
			defer b.lock()()
			out := []Annotation{}
			for _, a := range b.annotations {
				if (dash == "" || a.Dashboard == dash) && hasAll(a.Tags, tags) {
					out = append(out, a)
				}
			}
			return jsonText(out)
		},
	}
}

// CreateAnnotationParams are create_annotation's arguments.
type CreateAnnotationParams struct {
	DashboardUID string   `json:"dashboardUid,omitempty" jsonschema:"The dashboard to annotate; all when omitted"`
	Time         int64    `json:"time,omitempty" jsonschema:"Epoch milliseconds; now when omitted"`
	Text         string   `json:"text" jsonschema:"The annotation text"`
	Tags         []string `json:"tags,omitempty" jsonschema:"Tags of the annotation"`
}

// CreateAnnotation describes the create_annotation tool, whose result is
// structured.
func CreateAnnotation(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("create_annotation",
			mcp.WithDescription("Create an annotation."),
			mcp.WithInputSchema[CreateAnnotationParams](),
			mcp.WithOutputSchema[Annotation](),
			mcp.WithTitleAnnotation("Create annotation"),
			mcp.WithDestructiveHintAnnotation(false),
		),
		Handler: mcp.NewStructuredToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args CreateAnnotationParams) (Annotation, error) {
			defer b.lock()()
			if args.DashboardUID != "" {
				if _, ok := b.dashboards[args.DashboardUID]; !ok {
					return Annotation{}, fmt.Errorf("dashboard %q: %w", args.DashboardUID, ErrNotFound)
				}
			}
			if args.Time == 0 {
				args.Time = b.now().UnixMilli()
			}
			a := Annotation{ID: len(b.annotations) + 1, Dashboard: args.DashboardUID, Time: args.Time,
				Text: args.Text, Tags: args.Tags}
			b.annotations = append(b.annotations, a)
			return a, nil
		}),
	}
}

// ListOncallSchedules describes the list_oncall_schedules tool.
func ListOncallSchedules(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_oncall_schedules",
			mcp.WithDescription("List the on-call schedules."),
			mcp.WithTitleAnnotation("List on-call schedules"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			defer b.lock()()
			return jsonText(sortedKeys(b.schedules))
		},
	}
}

// GetCurrentOncallUsers describes the get_current_oncall_users tool.
func GetCurrentOncallUsers(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_current_oncall_users",
			mcp.WithDescription("Get who is on call now in a schedule."),
			mcp.WithString("scheduleId", mcp.Required(), mcp.Description("The schedule")),
			mcp.WithTitleAnnotation("Get current on-call users"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, err := req.RequireString("scheduleId")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer b.lock()()
			users, ok := b.schedules[id]
			if !ok {
				return mcp.NewToolResultErrorf("schedule %q not found", id), nil
			}
			return jsonText(users)
		},
	}
}

// ListTeams describes the list_teams tool.
func ListTeams(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_teams",
			mcp.WithDescription("List teams, optionally matching a query."),
			mcp.WithString("query", mcp.Description("Text the team name contains")),
			mcp.WithTitleAnnotation("List teams"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			q := req.GetString("query", "")
			defer b.lock()()
			out := []string{}
			for _, t := range b.teams {
				if strings.Contains(t, q) {
					out = append(out, t)
				}
			}
			return jsonText(out)
		},
	}
}

// ListUsersByOrg describes the list_users_by_org tool; the organization is
// the caller's, from the request context.
func ListUsersByOrg(b *Backend) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_users_by_org",
			mcp.WithDescription("List the users of the caller's organization."),
			mcp.WithTitleAnnotation("List users by org"),
			mcp.WithReadOnlyHintAnnotation(true),
		),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			defer b.lock()()
			users := append([]string{}, b.users[OrgID(ctx)]...)
			sort.Strings(users)
			return jsonText(users)
		},
	}
}
