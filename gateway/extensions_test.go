package gateway_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
)

// viewURI is the view both app upstreams serve, as the ext-apps examples
// basic-react and basic-vue both serve ui://get-time/mcp-app.html.
const viewURI = "ui://clock/view.html"

// appUpstream is an MCP Apps server named name: a view at viewURI with
// every _meta.ui member, a tool it renders, and an app-only tool.
func appUpstream(t *testing.T, name string) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	a, err := apps.New(s)
	if err != nil {
		t.Fatal(err)
	}
	border := true
	if err := a.AddHTML(&apps.View{URI: viewURI, Name: "clock", UI: apps.ResourceMeta{
		CSP:           &apps.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://cdn.example.com"}},
		Permissions:   &apps.Permissions{ClipboardWrite: &apps.Permission{}},
		Domain:        name + ".example.com",
		PrefersBorder: &border,
	}}, "<html>"+name+"</html>"); err != nil {
		t.Fatal(err)
	}
	if err := apps.AddTool(a, &mcp.Tool{Name: "show"}, apps.ToolMeta{ResourceURI: viewURI},
		func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return name + " shows", nil }); err != nil {
		t.Fatal(err)
	}
	if err := apps.AddTool(a, &mcp.Tool{Name: "refresh"}, apps.ToolMeta{Visibility: []apps.Visibility{apps.VisibilityApp}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return name + " refreshed", nil }); err != nil {
		t.Fatal(err)
	}
	return s
}

// renderer is the options of a downstream client that renders views.
func renderer() *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	apps.DeclareClient(caps)
	return &mcp.ClientOptions{Capabilities: caps}
}

// Two MCP Apps upstreams serving one view URI: the later one's view is
// moved within ui:// (hosts render nothing else), its tool's _meta.ui and
// legacy key follow, both views read back with their MIME type and _meta.ui
// as the upstream wrote them, the extension is declared, and app-only
// tools are seen by clients that render views alone.
func TestAppsThroughGateway(t *testing.T) {
	g := startGateway(t, config("alpha", "beta"), nil, map[string]*mcp.Server{
		"alpha": appUpstream(t, "alpha"), "beta": appUpstream(t, "beta")})
	const moved = "ui://mcp-gateway/beta/clock/view.html"
	// 2024-11-05 has no _meta on tools and resources: no views there.
	for _, v := range []string{mcp.Version20251125, mcp.LatestVersion} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectDown(t, g, v, renderer())
			if _, ok := cs.ServerCapabilities().Extensions[apps.ExtensionID]; !ok {
				t.Errorf("%s not declared: %v", apps.ExtensionID, cs.ServerCapabilities().Extensions)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			views := map[string]string{}
			for _, tl := range res.Tools {
				m, err := apps.ToolUI(tl)
				if err != nil || m == nil {
					t.Fatalf("tool %s: _meta.ui %v (%v)", tl.Name, m, err)
				}
				views[tl.Name] = m.ResourceURI
				if m.ResourceURI != "" {
					var legacy string
					_ = json.Unmarshal(tl.Meta.Extra[apps.LegacyResourceURIKey], &legacy)
					if legacy != m.ResourceURI {
						t.Errorf("tool %s: ui/resourceUri %q, _meta.ui.resourceUri %q", tl.Name, legacy, m.ResourceURI)
					}
				}
			}
			want := map[string]string{"alpha_show": viewURI, "beta_show": moved, "alpha_refresh": "", "beta_refresh": ""}
			if !reflect.DeepEqual(views, want) {
				t.Errorf("tools and views %v, want %v", views, want)
			}
			for uri, name := range map[string]string{viewURI: "alpha", moved: "beta"} {
				rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("read %s: %v", uri, err)
				}
				c := rr.Contents[0].(*mcp.TextResourceContents)
				if c.URI != uri || c.MIMEType != apps.MIMEType || c.Text != "<html>"+name+"</html>" {
					t.Errorf("read %s: %s %s %q", uri, c.URI, c.MIMEType, c.Text)
				}
				var ui apps.ResourceMeta
				if c.Meta == nil || json.Unmarshal(c.Meta.Extra[apps.MetaKey], &ui) != nil ||
					ui.Domain != name+".example.com" || ui.PrefersBorder == nil || !*ui.PrefersBorder ||
					ui.Permissions == nil || ui.Permissions.ClipboardWrite == nil ||
					ui.CSP == nil || !slices.Equal(ui.CSP.ConnectDomains, []string{"https://api.example.com"}) {
					t.Errorf("read %s: _meta %+v", uri, c.Meta)
				}
			}
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "beta_refresh"})
			if err != nil || r.IsError || text(t, r) != "beta refreshed" {
				t.Errorf("beta_refresh: %v %v", r, err)
			}
			plain := connectDown(t, g, v, nil)
			names := toolNames(t, ctx, plain)
			if slices.Contains(names, "alpha_refresh") || !slices.Contains(names, "alpha_show") {
				t.Errorf("a client without views sees %v", names)
			}
		})
	}
}

// An upstream that offers a view without declaring MCP Apps (the ext-apps
// examples do not) has the extension declared for it; one offering no
// view has not.
func TestAppsDeclaredForViews(t *testing.T) {
	plain := func(withView bool) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
		uri := "file:///page.html"
		if withView {
			uri = viewURI
		}
		_ = s.AddResource(&mcp.Resource{URI: uri, Name: "page"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		return s
	}
	for _, withView := range []bool{false, true} {
		g := startGateway(t, config("one"), nil, map[string]*mcp.Server{"one": plain(withView)})
		cs := connectDown(t, g, mcp.LatestVersion, nil)
		if _, ok := cs.ServerCapabilities().Extensions[apps.ExtensionID]; ok != withView {
			t.Errorf("with a view %v: extensions %v", withView, cs.ServerCapabilities().Extensions)
		}
	}
}

// skillUpstream publishes a skill named pdf (in every upstream: the same
// name) with a file in a subdirectory.
func skillUpstream(t *testing.T, name string, dirRead bool) *mcp.Server {
	t.Helper()
	tree := fstest.MapFS{
		"pdf/SKILL.md":            {Data: []byte("---\nname: pdf\ndescription: PDF tools of " + name + "\n---\nSee references/FORMS.md.\n")},
		"pdf/references/FORMS.md": {Data: []byte("# Forms of " + name + "\n")},
	}
	ss, err := skills.NewServer(tree, &skills.Options{DirectoryRead: dirRead})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	if err := ss.Register(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Two skills upstreams with a skill of one name: the later one's URIs are
// moved within skill:// (skill://mcp-gateway/beta/...), each skill loads
// with every byte verified and reads its own files, skills/get and
// resources/directory/read reach the right one, and the settings are the
// union.
func TestSkillsThroughGateway(t *testing.T) {
	g := startGateway(t, config("alpha", "beta"), nil, map[string]*mcp.Server{
		"alpha": skillUpstream(t, "alpha", false), "beta": skillUpstream(t, "beta", true)})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectDown(t, g, v, nil)
			host := skills.NewHost("gateway", cs, nil)
			if s, err := host.Settings(); err != nil || !s.DirectoryRead {
				t.Fatalf("settings %+v, %v", s, err)
			}
			entries, err := host.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, e := range entries {
				uris = append(uris, e.Key.URI)
			}
			if want := []string{"skill://pdf/SKILL.md", "skill://mcp-gateway/beta/pdf/SKILL.md"}; !slices.Equal(uris, want) {
				t.Fatalf("skills %v, want %v", uris, want)
			}
			for i, name := range []string{"alpha", "beta"} {
				l, err := host.Load(ctx, entries[i])
				if err != nil {
					t.Fatalf("load %s: %v", entries[i].Key.URI, err)
				}
				base := map[string]string{"alpha": "skill://", "beta": "skill://mcp-gateway/beta/"}[name]
				b, err := l.Read(ctx, base+"pdf/references/FORMS.md")
				if err != nil || string(b) != "# Forms of "+name+"\n" {
					t.Errorf("%s FORMS.md: %q, %v", name, b, err)
				}
				e, err := host.Get(ctx, base+"pdf/SKILL.md")
				if err != nil || e.Skill.Frontmatter.Description() != "PDF tools of "+name {
					t.Errorf("get %s: %+v, %v", name, e, err)
				}
			}
			dir, err := host.ReadDirectory(ctx, "skill://mcp-gateway/beta/pdf/references", "")
			if err != nil || len(dir.Resources) != 1 || dir.Resources[0].URI != "skill://mcp-gateway/beta/pdf/references/FORMS.md" {
				t.Errorf("directory: %+v, %v", dir, err)
			}
			if _, err := host.Get(ctx, "skill://mcp-gateway/gamma/pdf/SKILL.md"); err == nil {
				t.Error("get of a skill no upstream holds: no error")
			}
		})
	}
}

// One skills upstream without a prefix: its URIs are kept.
func TestSkillsOneUpstream(t *testing.T) {
	g := startGateway(t, config("only"), nil, map[string]*mcp.Server{"only": skillUpstream(t, "only", true)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := connectDown(t, g, mcp.Version20251125, nil)
	host := skills.NewHost("gateway", cs, nil)
	entries, err := host.List(ctx)
	if err != nil || len(entries) != 1 || entries[0].Key.URI != "skill://pdf/SKILL.md" {
		t.Fatalf("skills %+v, %v", entries, err)
	}
	l, err := host.Load(ctx, entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if b, err := l.Read(ctx, "skill://pdf/references/FORMS.md"); err != nil || string(b) != "# Forms of only\n" {
		t.Errorf("FORMS.md: %q, %v", b, err)
	}
}

// A view calls its tools by its upstream's names: a client that renders
// views reaches the one upstream tool of that name apps may call; a name
// two upstreams share fails naming both; a tool for the model alone, or a
// client without views, gets no such resolution.
func TestViewCallsByUpstreamName(t *testing.T) {
	gamma := mcp.NewServer(&mcp.Implementation{Name: "gamma", Version: "1"}, nil)
	a, err := apps.New(gamma)
	if err != nil {
		t.Fatal(err)
	}
	for name, vis := range map[string][]apps.Visibility{"tick": {apps.VisibilityApp}, "secret": {apps.VisibilityModel}} {
		if err := apps.AddTool(a, &mcp.Tool{Name: name}, apps.ToolMeta{Visibility: vis},
			func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "gamma " + name, nil }); err != nil {
			t.Fatal(err)
		}
	}
	g := startGateway(t, config("alpha", "beta", "gamma"), nil, map[string]*mcp.Server{
		"alpha": appUpstream(t, "alpha"), "beta": appUpstream(t, "beta"), "gamma": gamma})
	for _, v := range []string{mcp.Version20251125, mcp.LatestVersion} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectDown(t, g, v, renderer())
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tick"})
			if err != nil || text(t, r) != "gamma tick" {
				t.Errorf("tick: %v, %v", r, err)
			}
			if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gamma_tick"}); err != nil || text(t, r) != "gamma tick" {
				t.Errorf("gamma_tick: %v, %v", r, err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "refresh"}); err == nil ||
				!strings.Contains(err.Error(), "alpha_refresh, beta_refresh") {
				t.Errorf("refresh, in two upstreams: %v", err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("secret, for the model alone: %v", err)
			}
			plain := connectDown(t, g, v, nil)
			if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "tick"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("tick, from a client without views: %v", err)
			}
		})
	}
}
