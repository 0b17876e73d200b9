package mcpgoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func addResources(s *server.MCPServer, b *Backend) {
	s.AddResource(
		mcp.NewResource("observability://datasources", "datasources",
			mcp.WithResourceDescription("Every configured data source"),
			mcp.WithMIMEType("application/json"),
		),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			defer b.lock()()
			data, err := json.Marshal(b.datasources)
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "application/json", Text: string(data),
			}}, nil
		},
	)
	s.AddResourceTemplate(
		mcp.NewResourceTemplate("observability://dashboards/{uid}", "dashboard",
			mcp.WithTemplateDescription("A dashboard's JSON model"),
			mcp.WithTemplateMIMEType("application/json"),
		),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			uid, ok := strings.CutPrefix(req.Params.URI, "observability://dashboards/")
			if !ok {
				return nil, fmt.Errorf("unexpected uri %q", req.Params.URI)
			}
			defer b.lock()()
			d, ok := b.dashboards[uid]
			if !ok {
				return nil, fmt.Errorf("dashboard %q: %w", uid, ErrNotFound)
			}
			data, err := json.Marshal(d)
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "application/json", Text: string(data),
			}}, nil
		},
	)
}

func addPrompts(s *server.MCPServer) {
	s.AddPrompt(
		mcp.NewPrompt("investigate_alert",
			mcp.WithPromptDescription("Investigate why an alert rule fired."),
			mcp.WithArgument("ruleUid", mcp.ArgumentDescription("The alert rule"), mcp.RequiredArgument()),
			mcp.WithArgument("window", mcp.ArgumentDescription("How far back to look, such as 1h")),
		),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			rule := req.Params.Arguments["ruleUid"]
			if rule == "" {
				return nil, fmt.Errorf("ruleUid is required")
			}
			window := req.Params.Arguments["window"]
			if window == "" {
				window = "1h"
			}
			return mcp.NewGetPromptResult("Investigate an alert", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf(
					"Alert rule %s fired. Read it with get_alert_rule, then query the metrics and logs of the last %s.",
					rule, window))),
			}), nil
		},
	)
	s.AddPrompt(
		mcp.NewPrompt("incident_summary",
			mcp.WithPromptDescription("Write a summary of an incident for its postmortem."),
			mcp.WithArgument("incidentId", mcp.RequiredArgument()),
		),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("Incident summary", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(
					"Summarize incident "+req.Params.Arguments["incidentId"]+" from its timeline.")),
				mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent("I will read the timeline first.")),
			}), nil
		},
	)
}
