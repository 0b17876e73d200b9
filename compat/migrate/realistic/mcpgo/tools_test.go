package mcpgoserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolSnaps(t *testing.T) {
	tools := allTools(NewBackend())
	if len(tools) < 25 {
		t.Fatalf("only %d tools", len(tools))
	}
	names := map[string]bool{}
	for _, st := range tools {
		testToolSnap(t, st.Tool.Name, st.Tool)
		names[st.Tool.Name+".snap"] = true
	}
	files, err := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[f.Name()] {
			t.Errorf("stale snapshot %s", f.Name())
		}
	}
}

func TestDashboards(t *testing.T) {
	b := NewBackend()
	ctx := context.Background()
	search := toolByName(t, b, "search_dashboards")
	if search.Tool.Annotations.ReadOnlyHint == nil || !*search.Tool.Annotations.ReadOnlyHint {
		t.Error("search_dashboards is not read-only")
	}

	tests := []struct {
		tool    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{"search_dashboards", map[string]any{"query": "node", "tags": []any{"linux"}}, `[{"uid":"node","title":"Node exporter"}]`, false},
		{"search_dashboards", map[string]any{"tags": []any{"windows"}}, `null`, false},
		{"get_dashboard_by_uid", map[string]any{}, "required argument \"uid\" not found", true},
		{"get_dashboard_by_uid", map[string]any{"uid": "nope"}, `dashboard "nope" not found`, true},
		{"get_dashboard_panel_queries", map[string]any{"uid": "node"}, `[{"id":1,"title":"CPU","datasource":"prom","query":"rate(cpu_seconds_total[5m])"}]`, false},
		{"create_folder", map[string]any{"title": "Team A"}, "team-a", false},
		{"create_folder", map[string]any{"title": "Infra", "uid": "infra"}, `folder "infra" exists`, true},
		{"list_folders", nil, `[{"title":"Infrastructure","uid":"infra"},{"title":"Team A","uid":"team-a"}]`, false},
		{"update_dashboard", map[string]any{"uid": "node", "title": "Nodes"}, "dashboard exists; set overwrite to replace it", true},
		{"update_dashboard", map[string]any{"uid": "node", "title": "Nodes", "overwrite": true}, "saved node at version 2", false},
		{"update_dashboard", map[string]any{"uid": "new", "title": "New", "folderUid": "nope"}, `folder "nope" not found`, true},
	}
	for _, tc := range tests {
		st := toolByName(t, b, tc.tool)
		result, err := st.Handler(ctx, newCallToolRequest(tc.tool, tc.args))
		if err != nil {
			t.Fatalf("%s(%v): %v", tc.tool, tc.args, err)
		}
		if result.IsError != tc.wantErr {
			t.Errorf("%s(%v): isError %v", tc.tool, tc.args, result.IsError)
		}
		if got := resultText(t, result); got != tc.want {
			t.Errorf("%s(%v) = %s, want %s", tc.tool, tc.args, got, tc.want)
		}
	}
}

func TestQueries(t *testing.T) {
	b := NewBackend()
	ctx := context.Background()
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{"query_prometheus", map[string]any{"datasourceUid": "prom", "expr": `up{job="db"}`},
			`[{"metric":"up","labels":{"job":"db"},"value":0}]`, false},
		{"query_prometheus", map[string]any{"datasourceUid": "loki", "expr": "up"}, `datasource "loki" is loki, not prometheus`, true},
		{"query_prometheus", map[string]any{"datasourceUid": "prom", "expr": "up", "queryType": "range"}, "a range query needs stepSeconds", true},
		{"list_prometheus_metric_names", map[string]any{"datasourceUid": "prom", "prefix": "cpu"}, `["cpu_seconds_total"]`, false},
		{"list_prometheus_label_values", map[string]any{"datasourceUid": "prom", "labelName": "job", "limit": float64(1)}, `["api"]`, false},
		{"query_loki_logs", map[string]any{"datasourceUid": "loki", "stream": "api", "limit": float64(2)}, `["level=error msg=timeout","level=info msg=ok"]`, false},
		{"query_loki_logs", map[string]any{"datasourceUid": "loki", "stream": "api", "limit": float64(1), "direction": "forward"}, `["level=info msg=started"]`, false},
		{"query_loki_logs", map[string]any{"datasourceUid": "prom", "stream": "api"}, `datasource "prom" is not a Loki data source`, true},
		{"list_loki_label_names", map[string]any{"datasourceUid": "loki"}, `["api"]`, false},
		{"get_datasource", map[string]any{"uid": "loki"}, `{"uid":"loki","name":"Loki","type":"loki","isDefault":false}`, false},
		{"list_datasources", map[string]any{"type": "prometheus"}, `[{"uid":"prom","name":"Prometheus","type":"prometheus","isDefault":true}]`, false},
	} {
		result, err := toolByName(t, b, tc.tool).Handler(ctx, newCallToolRequest(tc.tool, tc.args))
		if err != nil {
			t.Fatalf("%s(%v): %v", tc.tool, tc.args, err)
		}
		if result.IsError != tc.wantErr {
			t.Errorf("%s(%v): isError %v", tc.tool, tc.args, result.IsError)
		}
		if got := resultText(t, result); got != tc.want {
			t.Errorf("%s(%v) = %s, want %s", tc.tool, tc.args, got, tc.want)
		}
	}
}

func TestAlertingAndIncidents(t *testing.T) {
	b := NewBackend()
	ctx := context.Background()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		return toolByName(t, b, name).Handler(ctx, newCallToolRequest(name, args))
	}
	res, err := call("create_alert_rule", map[string]any{"uid": "disk", "title": "Disk full", "folderUid": "infra",
		"condition": "disk > 0.95", "labels": map[string]any{"team": "sre"}})
	if err != nil || res.IsError {
		t.Fatalf("create_alert_rule: %v %+v", err, res)
	}
	res, err = call("list_alert_rules", map[string]any{"label": "team=sre", "limit": float64(1), "page": float64(2)})
	if err != nil {
		t.Fatal(err)
	}
	var rules []AlertRule
	if err := json.Unmarshal([]byte(resultText(t, res)), &rules); err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].UID != "high-cpu" {
		t.Errorf("page 2 = %+v", rules)
	}
	// A handler error is returned as such; the server turns it into a
	// tool error result.
	if _, err := call("get_alert_rule", map[string]any{"uid": "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("get_alert_rule(nope) error = %v", err)
	}

	res, err = call("create_incident", map[string]any{"title": "API down", "severity": "critical", "labels": []any{"api"}})
	if err != nil || res.IsError {
		t.Fatalf("create_incident: %v %+v", err, res)
	}
	if res, _ := call("add_activity_to_incident", map[string]any{"incidentId": "inc-9", "body": "x"}); !res.IsError ||
		!strings.Contains(resultText(t, res), "cannot add activity") {
		t.Errorf("activity on a missing incident: %+v", res)
	}
	if res, _ := call("add_activity_to_incident", map[string]any{"incidentId": "inc-1", "body": "paged"}); resultText(t, res) != "1 activities" {
		t.Errorf("activity = %s", resultText(t, res))
	}
	if res, _ := call("resolve_incident", map[string]any{"incidentId": "inc-1", "summary": "restarted"}); res.IsError {
		t.Errorf("resolve = %+v", res)
	}
	res, _ = call("list_incidents", map[string]any{"status": "resolved"})
	if got := resultText(t, res); !strings.Contains(got, `"activity":["paged","resolved: restarted"]`) {
		t.Errorf("resolved incidents = %s", got)
	}
	if res, _ := call("list_incidents", nil); resultText(t, res) != "[]" {
		t.Errorf("active incidents = %s", resultText(t, res))
	}
	if res, _ := call("create_incident", map[string]any{"severity": "minor"}); !res.IsError {
		t.Errorf("incident without title: %+v", res)
	}
}

func TestAnnotationsStructured(t *testing.T) {
	b := NewBackend()
	ctx := context.Background()
	st := toolByName(t, b, "create_annotation")
	res, err := st.Handler(ctx, newCallToolRequest("create_annotation", map[string]any{
		"dashboardUid": "node", "text": "deploy", "tags": []any{"release"},
	}))
	if err != nil || res.IsError {
		t.Fatalf("create_annotation: %v %+v", err, res)
	}
	got, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"id":1,"dashboardUid":"node","time":1700000000000,"text":"deploy","tags":["release"]}` {
		t.Errorf("structured = %s", got)
	}
	res, err = toolByName(t, b, "get_annotations").Handler(ctx, newCallToolRequest("get_annotations", map[string]any{"tags": []any{"release"}}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resultText(t, res), `"text":"deploy"`) {
		t.Errorf("annotations = %s", resultText(t, res))
	}
	res, _ = st.Handler(ctx, newCallToolRequest("create_annotation", map[string]any{"dashboardUid": "nope", "text": "x"}))
	if !res.IsError {
		t.Errorf("annotation on a missing dashboard: %+v", res)
	}
}

func TestOrgFromContext(t *testing.T) {
	b := NewBackend()
	st := toolByName(t, b, "list_users_by_org")
	res, err := st.Handler(WithOrgID(context.Background(), 2), newCallToolRequest("list_users_by_org", nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != `["bob"]` {
		t.Errorf("org 2 users = %s", got)
	}
	res, err = toolByName(t, b, "get_current_oncall_users").Handler(context.Background(),
		newCallToolRequest("get_current_oncall_users", map[string]any{"scheduleId": "secondary"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != `["bob","carol"]` {
		t.Errorf("on call = %s", got)
	}
}

func TestMiddlewareByHand(t *testing.T) {
	m := NewMetrics()
	st := toolByName(t, NewBackend(), "get_alert_rule")
	h := m.Middleware(st.Handler)
	if _, err := h(context.Background(), newCallToolRequest("get_alert_rule", map[string]any{"uid": "high-cpu"})); err != nil {
		t.Fatal(err)
	}
	if _, err := h(context.Background(), newCallToolRequest("get_alert_rule", map[string]any{})); err != nil {
		t.Fatal(err)
	}
	if m.Calls("get_alert_rule") != 2 || m.Calls("get_alert_rule:error") != 1 {
		t.Errorf("calls %d, errors %d", m.Calls("get_alert_rule"), m.Calls("get_alert_rule:error"))
	}
}
