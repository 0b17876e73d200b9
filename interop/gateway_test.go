//go:build interop

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// gatewayUpstream is one server behind the gateway under test: as the
// configuration names it, and how the test reaches it directly.
type gatewayUpstream struct {
	config map[string]any
	direct func(t *testing.T) jsonrpc.Stream
}

// gatewayInventory is what the gateway must offer: every upstream's tools,
// prompts, resources and templates under their downstream names.
type gatewayInventory struct {
	Tools     []string `json:"tools"`
	Prompts   []string `json:"prompts"`
	Resources []string `json:"resources"`
	Templates []string `json:"templates"`

	schemas map[string]string // downstream tool name -> its input schema, as the upstream lists it
}

// TestGateway runs package gateway in this process, served over Streamable
// HTTP, in front of four upstreams: gomcp's everything-server, the
// reference @modelcontextprotocol/server-everything and
// @modelcontextprotocol/server-filesystem (all three over stdio), and
// ts/server_v2.mjs, a TypeScript SDK 2 server, over Streamable HTTP. Each
// upstream is first listed directly, which gives what the gateway must
// offer under namespaced names (PREFIX_NAME; URIs unchanged, none
// colliding). Then gomcp's client at 2025-11-25 and 2026-07-28, and the
// TypeScript SDK 2 client (ts/gateway_client_v2.mjs) in both eras, check
// that every tool (with its schema unchanged), prompt, resource and
// template is there, call a tool of every upstream, read every resource,
// get prompts, subscribe to a resource and receive its update, and (gomcp)
// run a task to its result; two gomcp clients calling at once each get the
// answer of their own sampling handler.
func TestGateway(t *testing.T) {
	env := requireEnv(t, "NODE22", "MCP_TS_SDK_DIR", "SERVER_EVERYTHING", "SERVER_FILESYSTEM")
	ours := buildEverythingServer(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the gateway test"), 0o600); err != nil {
		t.Fatal(err)
	}
	remote := startTSV2ServerHTTP(t, env["NODE22"])
	command := func(bin string, args ...string) func(t *testing.T) jsonrpc.Stream {
		return func(t *testing.T) jsonrpc.Stream {
			return &transport.CommandTransport{Cmd: exec.Command(bin, args...), Stderr: &syncBuffer{}}
		}
	}
	ups := map[string]gatewayUpstream{
		"ours":   {map[string]any{"command": ours}, command(ours)},
		"ref":    {map[string]any{"command": env["SERVER_EVERYTHING"], "args": []string{"stdio"}}, command(env["SERVER_EVERYTHING"], "stdio")},
		"fs":     {map[string]any{"command": env["SERVER_FILESYSTEM"], "args": []string{root}}, command(env["SERVER_FILESYSTEM"], root)},
		"remote": {map[string]any{"type": "http", "url": remote}, func(*testing.T) jsonrpc.Stream { return mcphttp.NewClientStream(remote, nil) }},
	}
	want := gatewayWant(t, ups)
	url := startGateway(t, ups)

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("gomcp/"+version, func(t *testing.T) {
			walkGateway(t, url, version, root, want)
		})
	}
	t.Run("sampling reaches the client that caused it", func(t *testing.T) {
		twoClients(t, url)
	})
	wantFile := filepath.Join(t.TempDir(), "want.json")
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wantFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"auto", "legacy"} {
		t.Run("ts-v2/"+era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, env["NODE22"], "ts/gateway_client_v2.mjs", url, era, wantFile, root)
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "checks ok") {
				t.Fatalf("TypeScript SDK 2 client (%s) through the gateway: %v\n%s", era, err, out)
			}
			t.Logf("%s", out)
		})
	}
}

// startTSV2ServerHTTP starts ts/server_v2.mjs over Streamable HTTP and
// returns its endpoint.
func startTSV2ServerHTTP(t *testing.T, node string) string {
	t.Helper()
	sp, failure := startServerProcess(t, exec.Command(node, "ts/server_v2.mjs", "http"), syscall.SIGTERM, func(stdout, _ string) (string, bool) {
		line, _, complete := strings.Cut(stdout, "\n")
		url, ok := strings.CutPrefix(line, "listening on ")
		return url, complete && ok
	})
	if sp == nil {
		t.Fatal(failure)
	}
	return sp.url
}

// upstreamClientOptions declare what the gateway's own client declares to
// its upstreams, so that a server whose lists depend on the client's
// capabilities (server-everything's) lists the same directly.
func upstreamClientOptions() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &struct{}{}, URL: &struct{}{}},
			Roots:       &mcp.RootCapabilities{ListChanged: true},
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("direct")}, Model: "direct"}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ElicitationURL: true,
	}
}

// gatewayWant lists every upstream directly, all at once, and returns what
// the gateway must offer.
func gatewayWant(t *testing.T, ups map[string]gatewayUpstream) *gatewayInventory {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type listed struct {
		inv *gatewayInventory
		err error
	}
	results := map[string]*listed{}
	var wg sync.WaitGroup
	for name, u := range ups {
		r := &listed{}
		results[name] = r
		stream := u.direct(t)
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, upstreamClientOptions()).Connect(ctx, stream)
			if err != nil {
				r.err = err
				return
			}
			defer cs.Close()
			r.inv, r.err = listAll(ctx, cs)
		})
	}
	wg.Wait()
	want := &gatewayInventory{schemas: map[string]string{}}
	for name, r := range results {
		if r.err != nil {
			t.Fatalf("%s directly: %v", name, r.err)
		}
		for _, tool := range r.inv.Tools {
			want.Tools = append(want.Tools, name+"_"+tool)
			want.schemas[name+"_"+tool] = r.inv.schemas[tool]
		}
		for _, p := range r.inv.Prompts {
			want.Prompts = append(want.Prompts, name+"_"+p)
		}
		want.Resources = append(want.Resources, r.inv.Resources...)
		want.Templates = append(want.Templates, r.inv.Templates...)
	}
	for _, l := range []*[]string{&want.Tools, &want.Prompts, &want.Resources, &want.Templates} {
		slices.Sort(*l)
	}
	// Every upstream contributes: a missing one would make the rest vacuous.
	for _, prefix := range []string{"ours_", "ref_", "fs_", "remote_"} {
		if !slices.ContainsFunc(want.Tools, func(n string) bool { return strings.HasPrefix(n, prefix) }) {
			t.Fatalf("no tool of %s listed directly: %q", prefix, want.Tools)
		}
	}
	return want
}

// listAll lists everything cs offers (names as listed, sorted).
func listAll(ctx context.Context, cs *mcp.ClientSession) (*gatewayInventory, error) {
	inv := &gatewayInventory{schemas: map[string]string{}}
	caps := cs.ServerCapabilities()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		inv.Tools = append(inv.Tools, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		inv.schemas[tool.Name] = string(schema)
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("prompts/list: %w", err)
			}
			inv.Prompts = append(inv.Prompts, p.Name)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/list: %w", err)
			}
			inv.Resources = append(inv.Resources, r.URI)
		}
		for r, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/templates/list: %w", err)
			}
			inv.Templates = append(inv.Templates, r.URITemplate)
		}
	}
	for _, l := range []*[]string{&inv.Tools, &inv.Prompts, &inv.Resources, &inv.Templates} {
		slices.Sort(*l)
	}
	return inv, nil
}

// startGateway configures the gateway from the JSON a host would hold,
// starts it, serves it over Streamable HTTP and returns its endpoint.
func startGateway(t *testing.T, ups map[string]gatewayUpstream) string {
	t.Helper()
	servers := map[string]any{}
	for name, u := range ups {
		servers[name] = u.config
	}
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := gateway.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	g, err := gateway.New(cfg, &gateway.Options{Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatalf("Start: %v\nupstreams' stderr:\n%s", err, stderr)
	}
	for _, st := range g.Status() {
		if st.State != gateway.StateUp {
			t.Fatalf("upstream %s is %s after Start: %s", st.Name, st.State, st.Error)
		}
	}
	h := mcphttp.NewHandler(g.Server(), &mcphttp.HandlerOptions{EagerSSE: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		g.Close()
	})
	return srv.URL + "/mcp"
}

// gatewayRecorder is a downstream client's view of what the gateway sends
// on its own.
type gatewayRecorder struct {
	mu      sync.Mutex
	updated []string
}

func (r *gatewayRecorder) hasUpdate(uri string) func() bool {
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return slices.Contains(r.updated, uri)
	}
}

// walkGateway drives the gateway at url with gomcp's client at version.
func walkGateway(t *testing.T, url, version, root string, want *gatewayInventory) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &gatewayRecorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "gateway-walk", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			rec.mu.Lock()
			rec.updated = append(rec.updated, p.URI)
			rec.mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, mcphttp.NewClientStream(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.ProtocolVersion() != version {
		t.Fatalf("negotiated %s, want %s", cs.ProtocolVersion(), version)
	}

	t.Run("everything listed under its namespaced name", func(t *testing.T) {
		got, err := listAll(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			kind      string
			got, want []string
		}{{"tools", got.Tools, want.Tools}, {"prompts", got.Prompts, want.Prompts},
			{"resources", got.Resources, want.Resources}, {"templates", got.Templates, want.Templates}} {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("%s through the gateway:\n got %q\nwant %q", c.kind, c.got, c.want)
			}
		}
		for name, schema := range want.schemas {
			if got.schemas[name] != schema {
				t.Errorf("tool %s: input schema through the gateway\n%s\ndirect\n%s", name, got.schemas[name], schema)
			}
		}
	})

	t.Run("a tool of every upstream", func(t *testing.T) {
		for _, c := range []struct{ tool, args, want string }{
			{"ours_test_simple_text", `{}`, "This is a simple text response for testing."},
			{"ref_echo", `{"message":"through the gateway"}`, "Echo: through the gateway"},
			{"fs_read_text_file", `{"path":"` + filepath.Join(root, "hello.txt") + `"}`, "hello from the gateway test"},
			{"remote_echo", `{"text":"through the gateway"}`, "through the gateway"},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Errorf("%s: %v", c.tool, err)
				continue
			}
			if got := toolText(res); res.IsError || !strings.Contains(got, c.want) {
				t.Errorf("%s = %q (isError %v), want %q", c.tool, got, res.IsError, c.want)
			}
		}
	})

	t.Run("every resource read", func(t *testing.T) {
		for _, uri := range want.Resources {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(res.Contents) == 0 {
				t.Errorf("read %s: %v", uri, err)
			}
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///users/42"})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read the template file:///users/42: %v", err)
		}
		if tc, ok := res.Contents[0].(*mcp.TextResourceContents); !ok || tc.Text != "user 42" {
			t.Errorf("file:///users/42 = %+v", res.Contents[0])
		}
	})

	t.Run("prompts", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args map[string]string
			want string
		}{
			{"ours_test_simple_prompt", nil, ""},
			{"ref_simple-prompt", nil, ""},
			{"ref_args-prompt", map[string]string{"city": "Lyon"}, "Lyon"},
			{"remote_greet", map[string]string{"name": "alice"}, "Hello, alice!"},
		} {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.name, Arguments: c.args})
			if err != nil || len(res.Messages) == 0 {
				t.Errorf("get %s: %v", c.name, err)
				continue
			}
			b, _ := json.Marshal(res.Messages)
			if !strings.Contains(string(b), c.want) {
				t.Errorf("get %s = %s, want %q in it", c.name, b, c.want)
			}
		}
	})

	t.Run("a task runs to its result", func(t *testing.T) {
		tc, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "ours_slow_compute", Arguments: json.RawMessage(`{"seconds":0.2,"label":"via gateway"}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.Task == nil {
			t.Fatalf("ours_slow_compute was answered at once, not as a task: %+v", tc.Result)
		}
		res, err := tc.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := toolText(res); got != "computed via gateway after 0.2s" {
			t.Errorf("task result %q", got)
		}
	})

	t.Run("a subscription delivers updates", func(t *testing.T) {
		const uri = "demo://resource/static/document/architecture.md"
		if version == "2026-07-28" {
			// A listen stream with the URI in its filter; server-everything
			// repeats its updates every 5 seconds, so one sent before the
			// stream is in place is not the only one.
			lctx, stop := context.WithCancel(ctx)
			listened := make(chan error, 1)
			go func() {
				listened <- cs.Listen(lctx, &mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
			}()
			defer func() {
				stop()
				if err := <-listened; err != nil {
					t.Errorf("Listen: %v", err)
				}
			}()
		} else if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		// server-everything sends notifications/resources/updated for
		// every subscribed URI at once when toggled on.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ref_toggle-subscriber-updates", Arguments: json.RawMessage(`{}`)})
		if err != nil || !strings.HasPrefix(toolText(res), "Started") {
			t.Fatalf("toggle on: %v %q", err, toolText(res))
		}
		waitFor(t, "notifications/resources/updated for "+uri, rec.hasUpdate(uri))
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ref_toggle-subscriber-updates", Arguments: json.RawMessage(`{}`)})
		if err != nil || !strings.HasPrefix(toolText(res), "Stopped") {
			t.Errorf("toggle off: %v %q", err, toolText(res))
		}
		if version != "2026-07-28" {
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Error(err)
			}
		}
	})
}

// toolText joins the text blocks of a tool's result.
func toolText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// twoClients connects two of gomcp's clients to the gateway, one at each
// revision, each answering sampling with its own name, and has both call,
// at once, a tool of a stateful upstream (ours_test_sampling, which sends
// sampling/createMessage) and of a 2026-07-28 one (remote_sample, which
// asks in its result): each must get its own model's answer, never the
// other's.
func twoClients(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func(name, version string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			ProtocolVersion: version,
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.NewTextContent("answer of " + name)}, Model: name}, nil
			},
		})
		cs, err := client.Connect(ctx, mcphttp.NewClientStream(url, nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	clients := map[string]*mcp.ClientSession{"alice": connect("alice", "2025-11-25"), "bob": connect("bob", "2026-07-28")}
	var wg sync.WaitGroup
	for name, cs := range clients {
		for _, c := range []struct{ tool, args string }{
			{"ours_test_sampling", `{"prompt":"who are you?"}`},
			{"remote_sample", `{"text":"who are you?"}`},
		} {
			for range 3 {
				wg.Go(func() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
					if err != nil {
						t.Errorf("%s calling %s: %v", name, c.tool, err)
						return
					}
					if got := toolText(res); res.IsError || !strings.Contains(got, "answer of "+name) {
						t.Errorf("%s calling %s got %q (isError %v), want its own answer", name, c.tool, got, res.IsError)
					}
				})
			}
		}
	}
	wg.Wait()
}
