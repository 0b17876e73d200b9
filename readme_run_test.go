package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// readmeRevs are the revisions every README server is run at: the default
// (stateless) one and the last with sessions.
var readmeRevs = []string{mcp.Version20260728, mcp.Version20251125}

// runReadme runs the built README blocks (bins[i] is block i's program, ""
// if it was not built). A block that serves on stdio (transport.Stdio) is
// started as a subprocess, once per revision of readmeRevs, and a client
// lists and uses everything it registers: every tool called with arguments
// made from its input schema, every prompt got, every resource and
// template read, with handlers for elicitation, sampling and roots. The
// block that starts "my-server" is run with the first server block as
// my-server, and must print what it got. A block that serves Streamable
// HTTP runs on a free loopback port (runHTTPBlock), unless it needs what
// the test lacks (notRunHere: an authorization server; Redis without
// GOMCP_REDIS_URL).
func runReadme(t *testing.T, readme string, blocks []codeBlock, bins []string, addr string) {
	// The servers' working directory: a tree of skills, and the view of
	// the apps block.
	work := t.TempDir()
	for name, text := range readmeFiles {
		file := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	firstServer := ""
	ran := 0
	for i, b := range blocks {
		if bins[i] == "" || !bytes.Contains(b.code, []byte("transport.Stdio()")) {
			continue
		}
		if firstServer == "" {
			firstServer = bins[i]
		}
		for _, rev := range readmeRevs {
			t.Run(fmt.Sprintf("%s:%d/%s", readme, b.line, rev), func(t *testing.T) {
				runServerBlock(t, bins[i], work, rev)
			})
			ran++
		}
	}
	if ran == 0 {
		t.Fatalf("%s has no server on stdio to run", readme)
	}
	for i, b := range blocks {
		if bins[i] == "" || !bytes.Contains(b.code, []byte("mcphttp.NewHandler(")) {
			continue
		}
		name := fmt.Sprintf("%s:%d", readme, b.line)
		if why := notRunHere(b.code); why != "" {
			t.Logf("%s serves HTTP but is built only: %s", name, why)
			continue
		}
		t.Run(name, func(t *testing.T) { runHTTPBlock(t, bins[i], work, addr, b.code) })
	}
	for i, b := range blocks {
		if bins[i] != "" && bytes.Contains(b.code, []byte(`exec.Command("my-server")`)) {
			t.Run(fmt.Sprintf("%s:%d", readme, b.line), func(t *testing.T) {
				runClientBlock(t, bins[i], firstServer)
			})
		}
	}
}

// readmeFiles are the files the README's programs read from their working
// directory, or embed (//go:embed, see embedOverlay).
var readmeFiles = map[string]string{
	"skills/hello/SKILL.md": "---\nname: hello\ndescription: Says hello.\n---\nSay hello.\n",
	"web/view.html":         "<!DOCTYPE html><html><body><p>forecast</p></body></html>\n",
}

// readmeClient is the client the README's servers are used with, at rev:
// it answers elicitation, sampling and roots.
func readmeClient(rev string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "readme-test", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: rev,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: fillForm(req.Params.RequestedSchema)}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test", Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
	})
}

// runServerBlock starts bin and uses everything it serves at rev.
func runServerBlock(t *testing.T, bin, dir, rev string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cs, err := readmeClient(rev).Connect(ctx, &transport.CommandTransport{Cmd: cmd})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if useServer(ctx, t, cs, rev) == 0 {
		t.Error("the server serves nothing to use")
	}
}

// useServer uses everything cs's server registers and says how many
// features it used.
func useServer(ctx context.Context, t *testing.T, cs *mcp.ClientSession, rev string) (used int) {
	t.Helper()
	if got := cs.ProtocolVersion(); got != rev {
		t.Fatalf("the session speaks %s, want %s", got, rev)
	}
	caps := cs.ServerCapabilities()
	if caps.Tools != nil {
		used += useTools(ctx, t, cs)
	}
	if caps.Prompts != nil {
		used += usePrompts(ctx, t, cs)
	}
	if caps.Resources != nil {
		used += useResources(ctx, t, cs)
	}
	if caps.Completions != nil {
		used += useCompletions(ctx, t, cs)
	}
	return used
}

// useCompletions completes every argument of every prompt from nothing
// typed, and expects a suggestion for one at least.
func useCompletions(ctx context.Context, t *testing.T, cs *mcp.ClientSession) (used int) {
	offered := 0
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range p.Arguments {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: p.Name},
				Argument: mcp.CompleteArgument{Name: a.Name},
			})
			if err != nil {
				t.Errorf("completing %s of prompt %s: %v", a.Name, p.Name, err)
				continue
			}
			offered += len(res.Completion.Values)
			used++
		}
	}
	if offered == 0 {
		t.Error("the server declares completions but suggested nothing for any prompt argument")
	}
	return used
}

// useTools calls every tool, with arguments made from its schema.
func useTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) (used int) {
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: argsFor(tool.InputSchema.(json.RawMessage))})
		if err != nil || res.IsError {
			t.Errorf("tool %s: %v %+v", tool.Name, err, res)
		}
		used++
	}
	return used
}

// usePrompts gets every prompt, with every argument.
func usePrompts(ctx context.Context, t *testing.T, cs *mcp.ClientSession) (used int) {
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "x"
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args}); err != nil {
			t.Errorf("prompt %s: %v", p.Name, err)
		}
		used++
	}
	return used
}

// useResources reads every resource, and every template of simple
// variables with "x" for each.
func useResources(ctx context.Context, t *testing.T, cs *mcp.ClientSession) (used int) {
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
			t.Errorf("resource %s: %v", r.URI, err)
		}
		used++
	}
	for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		used++
		if !simpleTemplate.MatchString(tmpl.URITemplate) {
			continue // skill://{+path}, say: its resources are listed, and read above
		}
		uri := templateVar.ReplaceAllString(tmpl.URITemplate, "x")
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
			t.Errorf("template %s as %s: %v", tmpl.URITemplate, uri, err)
		}
	}
	return used
}

// templateVar matches a simple URI template variable; simpleTemplate a
// template with no other expression (no {+path}, {?q}, ...).
var (
	templateVar    = regexp.MustCompile(`\{[A-Za-z0-9_]+\}`)
	simpleTemplate = regexp.MustCompile(`^([^{}]|\{[A-Za-z0-9_]+\})*$`)
)

// runClientBlock runs the client block with server as my-server on PATH.
func runClientBlock(t *testing.T, bin, server string) {
	if server == "" {
		t.Fatal("no server block to run the client against")
	}
	path := t.TempDir()
	if err := os.Symlink(server, filepath.Join(path, "my-server")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr.Bytes())
	}
	if want := "add - add two integers\n3\n{\"sum\":3}\n"; string(out) != want {
		t.Errorf("the client printed\n%s\nwant\n%s", out, want)
	}
}

// argsFor makes arguments that satisfy a tool's input schema: a value for
// every required property, of its type (its enum's first value, an email
// address for format email).
func argsFor(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return json.RawMessage(`{}`)
	}
	args := map[string]any{}
	for _, name := range s.Required {
		var p struct {
			Type   string `json:"type"`
			Format string `json:"format"`
			Enum   []any  `json:"enum"`
		}
		if json.Unmarshal(s.Properties[name], &p) != nil {
			continue
		}
		args[name] = sample(p.Type, p.Format, p.Enum)
	}
	raw, _ := json.Marshal(args)
	return raw
}

// fillForm answers an elicitation form: a value for every field.
func fillForm(schema *mcp.ElicitSchema) map[string]any {
	if schema == nil {
		return nil
	}
	content := map[string]any{}
	for _, p := range schema.Properties {
		var enum []any
		for _, e := range p.Schema.Enum {
			enum = append(enum, e)
		}
		content[p.Name] = sample(string(p.Schema.Type), string(p.Schema.Format), enum)
	}
	return content
}

// sample is a value of a JSON Schema type.
func sample(typ, format string, enum []any) any {
	switch {
	case len(enum) > 0:
		return enum[0]
	case typ == "integer", typ == "number":
		return 1
	case typ == "boolean":
		return true
	case format == "email":
		return "ada@example.com"
	case strings.Contains(format, "uri"):
		return "https://example.com/"
	}
	return "x"
}
