package apps_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
)

const (
	viewURI  = "ui://demo/view.html"
	viewHTML = "<!doctype html><title>demo</title><p>hello</p>"
)

type greetIn struct {
	Name string `json:"name"`
}

type greeting struct {
	Text string `json:"text"`
}

// newDemo returns a server with a view, a tool it renders (with a text
// fallback for hosts without views) and an app-only tool.
func newDemo(t *testing.T) *mcp.Server {
	t.Helper()
	ms := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	err = a.AddHTML(&apps.View{URI: viewURI, Name: "demo-view", Description: "The demo's view", UI: apps.ResourceMeta{
		CSP:           &apps.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://cdn.example.com"}},
		Permissions:   &apps.Permissions{ClipboardWrite: &apps.Permission{}},
		PrefersBorder: &yes,
	}}, viewHTML)
	if err != nil {
		t.Fatal(err)
	}
	err = apps.AddTool(a, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		apps.ToolMeta{ResourceURI: viewURI},
		func(_ context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.ToolResult[greeting], error) {
			g := greeting{Text: "Hello, " + in.Name}
			if apps.HostRenders(req) {
				return &mcp.ToolResult[greeting]{Structured: g, Content: []mcp.Content{&mcp.TextContent{Text: "Greeted " + in.Name + " in the view."}}}, nil
			}
			return &mcp.ToolResult[greeting]{Structured: g, Content: []mcp.Content{&mcp.TextContent{Text: g.Text + "! (text fallback)"}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	err = apps.AddTool(a, &mcp.Tool{Name: "refresh", Description: "Refreshes the view"},
		apps.ToolMeta{ResourceURI: viewURI, Visibility: []apps.Visibility{apps.VisibilityApp}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "refreshed", nil })
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func clientOptions(ui bool) *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	if ui {
		apps.DeclareClient(caps)
	}
	return &mcp.ClientOptions{Capabilities: caps}
}

var wireRevisions = []string{mcp.Version20251125, mcp.Version20260728}

// TestWire drives the demo at 2025-11-25 and 2026-07-28, from a host that
// renders views and from one that does not, and checks every message
// against the revision's MCP schema and every _meta.ui against the
// extension's schema.
func TestWire(t *testing.T) {
	for _, rev := range wireRevisions {
		for _, ui := range []bool{true, false} {
			name := rev + "/text-only"
			if ui {
				name = rev + "/ui-host"
			}
			t.Run(name, func(t *testing.T) {
				var tr mcptest.Transcript
				cs := mcptest.Connect(t, newDemo(t), &mcptest.Options{ProtocolVersion: rev, Client: clientOptions(ui), Transcript: &tr})
				ctx := t.Context()
				if _, ok := cs.ServerCapabilities().Extensions[apps.ExtensionID]; !ok {
					t.Errorf("the server does not advertise %s: %+v", apps.ExtensionID, cs.ServerCapabilities().Extensions)
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				greet := findTool(tools.Tools, "greet")
				if greet == nil {
					t.Fatal("no greet tool")
				}
				m, err := apps.ToolUI(greet)
				if err != nil || m == nil || m.ResourceURI != viewURI || m.AppOnly() {
					t.Errorf("greet's _meta.ui as a host reads it: %+v, %v", m, err)
				}
				if got := string(greet.Meta.Extra[apps.LegacyResourceURIKey]); got != `"`+viewURI+`"` {
					t.Errorf("greet's deprecated ui/resourceUri: %s", got)
				}
				if refresh := findTool(tools.Tools, "refresh"); (refresh != nil) != ui {
					t.Errorf("the app-only tool listed: %v, want %v", refresh != nil, ui)
				}
				_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "refresh"})
				if (err == nil) != ui {
					t.Errorf("calling the app-only tool: %v", err)
				}
				res, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Resources) != 1 || res.Resources[0].MIMEType != apps.MIMEType || res.Resources[0].Name != "demo-view" {
					t.Errorf("resources/list: %+v", res.Resources)
				}
				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: viewURI})
				if err != nil {
					t.Fatal(err)
				}
				text, ok := read.Contents[0].(*mcp.TextResourceContents)
				if !ok || text.MIMEType != apps.MIMEType || text.Text != viewHTML {
					t.Errorf("resources/read: %#v", read.Contents[0])
				}
				if rm, err := apps.ContentsUI(read.Contents[0]); err != nil || rm == nil || rm.CSP == nil || rm.PrefersBorder == nil {
					t.Errorf("the view's _meta.ui as a host reads it: %+v, %v", rm, err)
				}
				call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
				if err != nil {
					t.Fatal(err)
				}
				want := "Hello, Ada! (text fallback)"
				if ui {
					want = "Greeted Ada in the view."
				}
				if got := call.Content[0].(*mcp.TextContent).Text; got != want {
					t.Errorf("greet answered %q, want %q", got, want)
				}
				checkTranscript(t, rev, tr.String())
			})
		}
	}
}

func findTool(tools []*mcp.Tool, name string) *mcp.Tool {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// checkTranscript validates each message of a transcript against the MCP
// schema of rev, and the _meta.ui of the tools, resources and contents the
// server sent against the extension's schema.
func checkTranscript(t *testing.T, rev, transcript string) {
	t.Helper()
	methods := map[string]string{} // request id -> method
	checked := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(transcript))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		dir, msg, _ := strings.Cut(sc.Text(), " ")
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(msg), &env); err != nil {
			t.Fatalf("transcript line %q: %v", msg, err)
		}
		method := ""
		if dir == "->" && env.Method != "" && env.ID != nil {
			methods[string(env.ID)] = env.Method
		} else if dir == "<-" && env.Method == "" {
			method = methods[string(env.ID)]
		}
		if err := specschema.ValidateMessage(rev, []byte(msg), method); err != nil {
			t.Errorf("%s %s: %v", dir, msg, err)
		}
		if env.Method == mcp.MethodInitialize {
			checkClientCapability(t, msg)
		}
		if env.Result == nil {
			continue
		}
		var r struct {
			Tools []struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"tools"`
			Resources []struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"resources"`
			Contents []struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(env.Result, &r); err != nil {
			t.Fatal(err)
		}
		for _, x := range r.Tools {
			if ui, ok := x.Meta[apps.MetaKey]; ok {
				validateExt(t, "McpUiToolMeta", ui)
				checked["tool"]++
			}
		}
		for _, x := range r.Resources {
			validateExt(t, "McpUiResourceMeta", x.Meta[apps.MetaKey])
			checked["resource"]++
		}
		for _, x := range r.Contents {
			validateExt(t, "McpUiResourceMeta", x.Meta[apps.MetaKey])
			checked["contents"]++
		}
	}
	for _, k := range []string{"tool", "resource", "contents"} {
		if checked[k] == 0 {
			t.Errorf("no %s _meta.ui was checked", k)
		}
	}
}

// checkClientCapability validates a declared extension capability.
func checkClientCapability(t *testing.T, msg string) {
	var m struct {
		Params struct {
			Capabilities mcp.ClientCapabilities `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatal(err)
	}
	if c, ok := m.Params.Capabilities.Extensions[apps.ExtensionID]; ok {
		validateExt(t, "McpUiClientCapabilities", c)
	}
}

// TestHostRendersEveryRevision checks that the handler tells the two kinds
// of host apart at every revision: from initialize before 2026-07-28, and
// at 2026-07-28 from each request's _meta, with one server answering
// clients with and without the extension in turn.
func TestHostRendersEveryRevision(t *testing.T) {
	ms := newDemo(t)
	for _, rev := range mcp.SupportedVersions() {
		for _, ui := range []bool{true, false, true} {
			cs := mcptest.Connect(t, ms, &mcptest.Options{ProtocolVersion: rev, Client: clientOptions(ui)})
			call, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Bo"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if got := call.Content[0].(*mcp.TextContent).Text; strings.Contains(got, "fallback") == ui {
				t.Errorf("%s ui=%v: %q", rev, ui, got)
			}
		}
	}
}

// TestViewSources registers views from an fs.FS file and from a handler,
// and checks that the handler's contents get the MIME type and _meta.ui
// (unless they carry their own) without being modified.
func TestViewSources(t *testing.T) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"web/view.html": {Data: []byte("<p>file</p>")}}
	if err := a.AddFile(&apps.View{URI: "ui://demo/file", Name: "file"}, fsys, "web/view.html"); err != nil {
		t.Fatal(err)
	}
	no := false
	own := &mcp.TextResourceContents{URI: "ui://demo/own", Text: "<p>own</p>", MIMEType: "text/html",
		Meta: &mcp.Meta{Extra: map[string]json.RawMessage{"ui": json.RawMessage(`{"domain":"own.example.com"}`)}}}
	plain := &mcp.TextResourceContents{URI: "ui://demo/handler", Text: "<p>handler</p>"}
	handler := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if req.Params.URI == own.URI {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{own}}, nil
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{plain}}, nil
	}
	for _, uri := range []string{own.URI, plain.URI} {
		if err := a.AddView(&apps.View{URI: uri, Name: "h", UI: apps.ResourceMeta{PrefersBorder: &no}}, handler); err != nil {
			t.Fatal(err)
		}
	}
	cs := mcptest.Connect(t, ms, &mcptest.Options{Client: clientOptions(true)})
	for uri, want := range map[string]string{
		"ui://demo/file":    `<p>file</p> {"prefersBorder":null}`,
		"ui://demo/handler": `<p>handler</p> {"prefersBorder":false}`,
		"ui://demo/own":     `<p>own</p> {"domain":"own.example.com"}`,
	} {
		read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		c := read.Contents[0].(*mcp.TextResourceContents)
		if c.MIMEType != apps.MIMEType {
			t.Errorf("%s: MIME type %q", uri, c.MIMEType)
		}
		ui := "{\"prefersBorder\":null}"
		if c.Meta != nil {
			ui = string(c.Meta.Extra[apps.MetaKey])
		}
		if got := c.Text + " " + ui; got != want {
			t.Errorf("%s: %s, want %s", uri, got, want)
		}
	}
	if own.MIMEType != "text/html" || plain.MIMEType != "" || plain.Meta != nil {
		t.Error("the handler's contents were modified")
	}
}

// TestBadRegistrations checks that what the specification forbids, or
// what cannot work, is refused and registers nothing.
func TestBadRegistrations(t *testing.T) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddHTML(&apps.View{URI: viewURI, Name: "v"}, viewHTML); err != nil {
		t.Fatal(err)
	}
	views := map[string]error{
		"https scheme": a.AddHTML(&apps.View{URI: "https://example.com/v.html", Name: "v"}, viewHTML),
		"no scheme":    a.AddHTML(&apps.View{URI: "view.html", Name: "v"}, viewHTML),
		"bare ui://":   a.AddHTML(&apps.View{URI: "ui://", Name: "v"}, viewHTML),
		"no name":      a.AddHTML(&apps.View{URI: "ui://demo/noname"}, viewHTML),
		"nil view":     a.AddHTML(nil, viewHTML),
		"nil handler":  a.AddView(&apps.View{URI: "ui://demo/nil", Name: "v"}, nil),
		"missing file": a.AddFile(&apps.View{URI: "ui://demo/missing", Name: "v"}, fstest.MapFS{}, "view.html"),
		"directory":    a.AddFile(&apps.View{URI: "ui://demo/dir", Name: "v"}, fstest.MapFS{"d/x": {}}, "d"),
		"nil fs":       a.AddFile(&apps.View{URI: "ui://demo/nilfs", Name: "v"}, nil, "view.html"),
		"white space":  a.AddHTML(&apps.View{URI: "ui://demo/a b", Name: "v"}, viewHTML),
	}
	for name, err := range views {
		if !errors.Is(err, mcp.ErrInvalidFeature) {
			t.Errorf("view %s: %v, want an error wrapping mcp.ErrInvalidFeature", name, err)
		}
	}
	h := func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil }
	tools := map[string]error{
		"unregistered view": apps.AddTool(a, &mcp.Tool{Name: "t1"}, apps.ToolMeta{ResourceURI: "ui://demo/other"}, h),
		"not a ui URI":      apps.AddTool(a, &mcp.Tool{Name: "t2"}, apps.ToolMeta{ResourceURI: "https://example.com"}, h),
		"empty ui":          apps.AddTool(a, &mcp.Tool{Name: "t3"}, apps.ToolMeta{}, h),
		"unknown visibility": apps.AddTool(a, &mcp.Tool{Name: "t4"},
			apps.ToolMeta{ResourceURI: viewURI, Visibility: []apps.Visibility{"user"}}, h),
		"bad name": apps.AddTool(a, &mcp.Tool{Name: "a tool"}, apps.ToolMeta{ResourceURI: viewURI}, h),
		"nil tool": apps.AddTool(a, nil, apps.ToolMeta{ResourceURI: viewURI}, h),
		"nil handler": apps.AddTool[struct{}, string](a, &mcp.Tool{Name: "t5"},
			apps.ToolMeta{ResourceURI: viewURI}, nil),
	}
	for name, err := range tools {
		if !errors.Is(err, mcp.ErrInvalidFeature) {
			t.Errorf("tool %s: %v, want an error wrapping mcp.ErrInvalidFeature", name, err)
		}
	}
	for _, name := range []string{"t1", "t2", "t3", "t4", "t5", "a tool"} {
		if _, ok := ms.Tool(name); ok {
			t.Errorf("tool %q registered", name)
		}
	}
	cs := mcptest.Connect(t, ms, &mcptest.Options{Client: clientOptions(true)})
	if rl, err := cs.ListResources(t.Context(), nil); err != nil || len(rl.Resources) != 1 {
		t.Errorf("resources registered: %v, %v", rl, err)
	}
	if _, err := apps.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// TestAddToolKeepsTool checks that the caller's Tool and its _meta are
// not modified, and that other _meta keys are kept.
func TestAddToolKeepsTool(t *testing.T) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddHTML(&apps.View{URI: viewURI, Name: "v"}, viewHTML); err != nil {
		t.Fatal(err)
	}
	tool := &mcp.Tool{Name: "t", Meta: &mcp.Meta{Extra: map[string]json.RawMessage{"com.example/x": json.RawMessage(`1`)}}}
	err = apps.AddTool(a, tool, apps.ToolMeta{ResourceURI: viewURI}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(tool.Meta.Extra) != 1 || tool.InputSchema != nil {
		t.Errorf("the caller's tool was modified: %+v", tool)
	}
	got, _ := ms.Tool("t")
	if string(got.Meta.Extra["com.example/x"]) != "1" || got.Meta.Extra[apps.MetaKey] == nil {
		t.Errorf("registered _meta: %v", got.Meta.Extra)
	}
}

// TestAppOnlyRegisteredElsewhere hides an app-only tool registered with
// mcp.AddTool and its own _meta.ui from a client without views, and
// checks that visibility follows a tool replaced under the same name.
func TestAppOnlyRegisteredElsewhere(t *testing.T) {
	ms := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	a, err := apps.New(ms)
	if err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "ok", nil }
	app := &mcp.Meta{Extra: map[string]json.RawMessage{"ui": json.RawMessage(`{"visibility":["app"]}`)}}
	if err := mcp.AddTool(ms, &mcp.Tool{Name: "foreign", Meta: app}, h); err != nil {
		t.Fatal(err)
	}
	if err := apps.AddTool(a, &mcp.Tool{Name: "replaced"}, apps.ToolMeta{Visibility: []apps.Visibility{apps.VisibilityApp}}, h); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddTool(ms, &mcp.Tool{Name: "replaced"}, h); err != nil { // now an ordinary tool
		t.Fatal(err)
	}
	if err := mcp.AddTool(ms, &mcp.Tool{Name: "plain"}, h); err != nil {
		t.Fatal(err)
	}
	for _, rev := range wireRevisions {
		for _, ui := range []bool{true, false} {
			cs := mcptest.Connect(t, ms, &mcptest.Options{ProtocolVersion: rev, Client: clientOptions(ui)})
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			want := "plain replaced"
			if ui {
				want = "foreign plain replaced"
			}
			slices.Sort(names)
			if got := strings.Join(names, " "); got != want {
				t.Errorf("%s ui=%v: tools %q, want %q", rev, ui, got, want)
			}
		}
	}
}
