package mcpgoserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is what the Backend returns for anything that does not exist.
var ErrNotFound = errors.New("not found")

// Datasource is a configured data source.
type Datasource struct {
	UID     string `json:"uid"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default bool   `json:"isDefault"`
}

// Dashboard is a dashboard with its panels.
type Dashboard struct {
	UID     string   `json:"uid"`
	Title   string   `json:"title"`
	Folder  string   `json:"folderUid,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Panels  []Panel  `json:"panels"`
	Version int      `json:"version"`
}

// Panel is one panel of a dashboard and the query behind it.
type Panel struct {
	ID         int    `json:"id"`
	Title      string `json:"title"`
	Datasource string `json:"datasource"`
	Query      string `json:"query"`
}

// AlertRule is an alert rule.
type AlertRule struct {
	UID       string            `json:"uid"`
	Title     string            `json:"title"`
	Folder    string            `json:"folderUid"`
	Condition string            `json:"condition"`
	For       string            `json:"for"`
	Labels    map[string]string `json:"labels,omitempty"`
	Paused    bool              `json:"isPaused"`
}

// Incident is an incident with its timeline.
type Incident struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Severity string   `json:"severity"`
	Status   string   `json:"status"`
	Labels   []string `json:"labels,omitempty"`
	Activity []string `json:"activity,omitempty"`
}

// Annotation marks a moment on dashboards.
type Annotation struct {
	ID        int      `json:"id"`
	Dashboard string   `json:"dashboardUid,omitempty"`
	Time      int64    `json:"time"`
	Text      string   `json:"text"`
	Tags      []string `json:"tags,omitempty"`
}

// Sample is one point of a time series.
type Sample struct {
	Metric string            `json:"metric"`
	Labels map[string]string `json:"labels"`
	Value  float64           `json:"value"`
}

// Backend is the in-memory observability stack the tools talk to, standing
// in for the HTTP API a real server calls. It is safe for concurrent use.
type Backend struct {
	mu          sync.Mutex
	datasources []Datasource
	dashboards  map[string]*Dashboard
	folders     map[string]string // uid -> title
	rules       map[string]*AlertRule
	incidents   []*Incident
	annotations []Annotation
	samples     []Sample
	logs        map[string][]string // stream label -> lines
	schedules   map[string][]string // schedule -> users on call
	teams       []string
	users       map[int][]string // org -> logins
	now         func() time.Time
}

// NewBackend returns a stack with a Prometheus and a Loki data source, one
// folder, one dashboard, one alert rule, a few samples and log lines.
func NewBackend() *Backend {
	return &Backend{
		datasources: []Datasource{
			{UID: "prom", Name: "Prometheus", Type: "prometheus", Default: true},
			{UID: "loki", Name: "Loki", Type: "loki"},
		},
		dashboards: map[string]*Dashboard{"node": {UID: "node", Title: "Node exporter", Folder: "infra",
			Tags: []string{"linux"}, Version: 1,
			Panels: []Panel{{ID: 1, Title: "CPU", Datasource: "prom", Query: `rate(cpu_seconds_total[5m])`}}}},
		folders: map[string]string{"infra": "Infrastructure"},
		rules: map[string]*AlertRule{"high-cpu": {UID: "high-cpu", Title: "High CPU", Folder: "infra",
			Condition: "cpu > 0.9", For: "5m", Labels: map[string]string{"team": "sre"}}},
		samples: []Sample{
			{Metric: "up", Labels: map[string]string{"job": "api"}, Value: 1},
			{Metric: "up", Labels: map[string]string{"job": "db"}, Value: 0},
			{Metric: "cpu_seconds_total", Labels: map[string]string{"job": "api"}, Value: 123.5},
		},
		logs: map[string][]string{
			"api": {"level=info msg=started", "level=error msg=timeout", "level=info msg=ok"},
		},
		schedules: map[string][]string{"primary": {"alice"}, "secondary": {"bob", "carol"}},
		teams:     []string{"platform", "sre"},
		users:     map[int][]string{1: {"admin", "alice"}, 2: {"bob"}},
		now:       func() time.Time { return time.Unix(1_700_000_000, 0) },
	}
}

// orgKey carries the caller's organization in a context.
type orgKey struct{}

// WithOrgID returns ctx for a caller in organization org.
func WithOrgID(ctx context.Context, org int) context.Context {
	return context.WithValue(ctx, orgKey{}, org)
}

// OrgID returns the caller's organization, 1 when ctx has none.
func OrgID(ctx context.Context) int {
	if org, ok := ctx.Value(orgKey{}).(int); ok {
		return org
	}
	return 1
}

func (b *Backend) lock() func() {
	b.mu.Lock()
	return b.mu.Unlock
}

func (b *Backend) datasource(uid string) (Datasource, error) {
	for _, ds := range b.datasources {
		if ds.UID == uid {
			return ds, nil
		}
	}
	return Datasource{}, fmt.Errorf("datasource %q: %w", uid, ErrNotFound)
}

// query evaluates the tiny query language of this stack: a metric name,
// optionally followed by {label="value"}.
func (b *Backend) query(expr string) []Sample {
	name, sel, _ := strings.Cut(expr, "{")
	var label, value string
	if sel != "" {
		l, v, _ := strings.Cut(strings.TrimSuffix(sel, "}"), "=")
		label, value = l, strings.Trim(v, `"`)
	}
	var out []Sample
	for _, s := range b.samples {
		if s.Metric == name && (label == "" || s.Labels[label] == value) {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
