package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
)

func twoUpstreams() map[string]*mcp.Server {
	return map[string]*mcp.Server{"alpha": newUpstreamServer("alpha", nil), "beta": newUpstreamServer("beta", nil)}
}

// TestAggregate: two upstreams, every tool, prompt, resource and template
// of both reachable under its namespaced name, at both downstream eras,
// against upstreams spoken to at both eras.
func TestAggregate(t *testing.T) {
	for _, upv := range []string{mcp.Version20241105, mcp.Version20251125, mcp.LatestVersion} {
		g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: upv}, twoUpstreams())
		for _, st := range g.Status() {
			if st.State != gateway.StateUp || st.ProtocolVersion != upv {
				t.Fatalf("upstream at %s: %+v", upv, st)
			}
		}
		for _, v := range versions {
			t.Run(upv+"/"+v, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cs := connectDown(t, g, v, nil)
				names := toolNames(t, ctx, cs)
				for _, want := range []string{"alpha_echo", "beta_echo", "alpha_ask", "beta_wait"} {
					if !slices.Contains(names, want) {
						t.Errorf("tools %v lack %s", names, want)
					}
				}
				if slices.Contains(names, "echo") {
					t.Errorf("an unprefixed name is listed: %v", names)
				}
				for _, up := range []string{"alpha", "beta"} {
					res, err := call(ctx, cs, up+"_echo", "hi")
					if err != nil {
						t.Fatal(err)
					}
					if got := text(t, res); got != up+":hi" {
						t.Errorf("%s_echo = %q", up, got)
					}
					pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: up + "_greet", Arguments: map[string]string{"who": "ann"}})
					if err != nil {
						t.Fatal(err)
					}
					if got := pr.Messages[0].Content.(*mcp.TextContent).Text; got != up+" greets ann" {
						t.Errorf("prompt %s_greet = %q", up, got)
					}
					rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://" + up + "/k1"})
					if err != nil {
						t.Fatal(err)
					}
					if got := rr.Contents[0].(*mcp.TextResourceContents).Text; got != up+" key k1" {
						t.Errorf("template read = %q", got)
					}
				}
			})
		}
	}
}

// TestSchemaKept: the upstream's schemas, annotations and _meta pass
// unchanged.
func TestSchemaKept(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1.50,"x-custom":[1,2]}},"required":["n"]}`)
	up := mcp.NewServer(&mcp.Implementation{Name: "u", Version: "1"}, nil)
	ro := true
	err := up.AddTool(&mcp.Tool{Name: "t", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &ro},
		Meta: &mcp.Meta{Extra: map[string]json.RawMessage{"acme/x": json.RawMessage(`{"k":"v"}`)}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, config("solo"), nil, map[string]*mcp.Server{"solo": up})
	cs := connectDown(t, g, mcp.Version20251125, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "t" {
		t.Fatalf("one upstream: want its names unprefixed, got %+v", res.Tools)
	}
	tl := res.Tools[0]
	if got := tl.InputSchema.(json.RawMessage); !bytes.Equal(got, schema) {
		t.Errorf("schema\n got %s\nwant %s", got, schema)
	}
	if tl.Annotations == nil || tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
		t.Errorf("annotations lost: %+v", tl.Annotations)
	}
	if tl.Meta == nil || string(tl.Meta.Extra["acme/x"]) != `{"k":"v"}` {
		t.Errorf("_meta lost: %+v", tl.Meta)
	}
}

// TestCollision: two upstreams offering the same name once prefixed are
// refused at Start, naming both.
func TestCollision(t *testing.T) {
	none := ""
	cfg := config("alpha", "beta")
	cfg.Servers["alpha"].Prefix = &none
	cfg.Servers["beta"].Prefix = &none
	p := &inProcess{servers: twoUpstreams()}
	g, err := gateway.New(cfg, &gateway.Options{Dial: p.dial})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	err = g.Start(context.Background())
	var ce *gateway.CollisionError
	if !errors.As(err, &ce) {
		t.Fatalf("Start = %v, want a CollisionError", err)
	}
	if ce.Upstreams != [2]string{"alpha", "beta"} || !strings.Contains(err.Error(), `"alpha"`) || !strings.Contains(err.Error(), `"beta"`) {
		t.Errorf("error %q (%+v) does not name both upstreams", err, ce)
	}
}

// TestURIRewrite: a URI two upstreams share is kept for the first and
// rewritten, reversibly, for the second; an MCP Apps tool's resourceUri
// follows.
func TestURIRewrite(t *testing.T) {
	servers := twoUpstreams()
	for name, s := range servers {
		ui := json.RawMessage(`{"resourceUri":"file:///shared.txt"}`)
		err := s.AddTool(&mcp.Tool{Name: "app", Meta: &mcp.Meta{Extra: map[string]json.RawMessage{"ui": ui}}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(name)}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		err = s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "tpl://x/{k}", Name: "tpl"},
			func(_ context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					&mcp.TextResourceContents{URI: req.Params.URI, Text: name + " " + vars["k"]}}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	g := startGateway(t, config("alpha", "beta"), nil, servers)
	cs := connectDown(t, g, mcp.LatestVersion, nil)
	ctx := context.Background()
	for uri, want := range map[string]string{"tpl://x/7": "alpha 7", "mcp-gateway://beta/tpl://x/7": "beta 7"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		if c := rr.Contents[0].(*mcp.TextResourceContents); c.Text != want || c.URI != uri {
			t.Errorf("read %s: %q at %q, want %q", uri, c.Text, c.URI, want)
		}
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	want := []string{"file:///shared.txt", "mcp-gateway://beta/file:///shared.txt"}
	if !slices.Equal(uris, want) {
		t.Fatalf("resources %v, want %v", uris, want)
	}
	for i, from := range []string{"alpha", "beta"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: want[i]})
		if err != nil {
			t.Fatal(err)
		}
		c := rr.Contents[0].(*mcp.TextResourceContents)
		if c.Text != "from "+from || c.URI != want[i] {
			t.Errorf("read %s = %q at %q", want[i], c.Text, c.URI)
		}
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if !strings.HasSuffix(tl.Name, "_app") {
			continue
		}
		var ui struct {
			ResourceURI string `json:"resourceUri"`
		}
		_ = json.Unmarshal(tl.Meta.Extra["ui"], &ui)
		wantURI := want[0]
		if tl.Name == "beta_app" {
			wantURI = want[1]
		}
		if ui.ResourceURI != wantURI {
			t.Errorf("%s: _meta.ui.resourceUri = %q, want %q", tl.Name, ui.ResourceURI, wantURI)
		}
	}
}

// TestRemirror: an upstream's list change reaches downstream clients.
func TestRemirror(t *testing.T) {
	servers := twoUpstreams()
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{ProtocolVersion: mcp.Version20251125}, servers)
	changed := make(chan struct{}, 8)
	cs := connectDown(t, g, mcp.Version20251125, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} }})
	mcp.AddTool(servers["beta"], &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		return "late", nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("no tools/list_changed downstream")
		}
		if slices.Contains(toolNames(t, ctx, cs), "beta_late") {
			break
		}
	}
	servers["beta"].RemoveTools("late")
	for slices.Contains(toolNames(t, ctx, cs), "beta_late") {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("beta_late still listed")
		}
	}
}

// TestPagination: lists page across upstreams, and a cursor taken before an
// upstream's list changed still pages on.
func TestPagination(t *testing.T) {
	servers := twoUpstreams()
	g := startGateway(t, config("alpha", "beta"), &gateway.Options{Server: &mcp.ServerOptions{PageSize: 3}}, servers)
	cs := connectDown(t, g, mcp.Version20251125, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != 3 || first.NextCursor == "" {
		t.Fatalf("first page %d tools, cursor %q", len(first.Tools), first.NextCursor)
	}
	mcp.AddTool(servers["alpha"], &mcp.Tool{Name: "aaa"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		return "", nil
	})
	listed := func() bool {
		for tl, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tl.Name == "alpha_aaa" {
				return true
			}
		}
		return false
	}
	for !listed() {
		time.Sleep(10 * time.Millisecond)
	}
	seen := map[string]bool{}
	for _, tl := range first.Tools {
		seen[tl.Name] = true
	}
	cursor := first.NextCursor
	for cursor != "" {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("a cursor taken before the change: %v", err)
		}
		for _, tl := range res.Tools {
			seen[tl.Name] = true
		}
		cursor = res.NextCursor
	}
	for _, up := range []string{"alpha", "beta"} {
		for _, tool := range []string{"echo", "ask", "elicit", "roots", "log", "wait"} {
			if !seen[up+"_"+tool] {
				t.Errorf("%s_%s missed by the pages", up, tool)
			}
		}
	}
}
