package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

const mockYAML = `server: {name: my-mock, version: "2"}
instructions: Use greet.
tools:
  - name: greet
    description: Greets.
    inputSchema:
      type: object
      properties: {name: {type: string}}
      required: [name]
    text: Hello!
  - name: weather
    result:
      content: [{type: text, text: "21 C"}]
      structuredContent: {celsius: 21}
resources:
  - {uri: mem://readme, name: readme, mimeType: text/plain, text: Read me.}
  - {uri: mem://logo, name: logo, mimeType: image/png, blob: iVBORw0KGgo=}
prompts:
  - name: review
    arguments: [{name: code, required: true}]
    text: Review this code.
  - name: chat
    messages: [{role: assistant, content: {type: text, text: Hi there.}}]
`

// writeMock writes a mock file named name holding text.
func writeMock(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkMock checks what a client sees of mockYAML.
func checkMock(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	if got := cs.InitializeResult(); got.ServerInfo.Name != "my-mock" || got.Instructions != "Use greet." {
		t.Errorf("initialize: %+v", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 || tools.Tools[0].Description != "Greets." {
		t.Fatalf("tools: %+v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "Hello!" {
		t.Errorf("greet: %+v, %v", res, err)
	}
	// The input schema is enforced.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}); err == nil && !res.IsError {
		t.Errorf("greet without its required name: %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "21 C" || string(res.StructuredContent) != `{"celsius":21}` {
		t.Errorf("weather: %+v, %v", res, err)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://readme"})
	if err != nil || read.Contents[0].(*mcp.TextResourceContents).Text != "Read me." {
		t.Errorf("mem://readme: %+v, %v", read, err)
	}
	read, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://logo"})
	if err != nil || read.Contents[0].(*mcp.BlobResourceContents).Blob != "iVBORw0KGgo=" {
		t.Errorf("mem://logo: %+v, %v", read, err)
	}
	var je *jsonrpc.Error
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://nope"}); !errors.As(err, &je) {
		t.Errorf("mem://nope: %v", err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x"}})
	if err != nil || p.Messages[0].Role != mcp.RoleUser || p.Messages[0].Content.(*mcp.TextContent).Text != "Review this code." {
		t.Errorf("review: %+v, %v", p, err)
	}
	p, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "chat"})
	if err != nil || p.Messages[0].Role != mcp.RoleAssistant || p.Messages[0].Content.(*mcp.TextContent).Text != "Hi there." {
		t.Errorf("chat: %+v, %v", p, err)
	}
}

// TestMockStdio drives mcp mock on stdio with the SDK's client, from a YAML
// file and from the same file as JSON.
func TestMockStdio(t *testing.T) {
	var v any
	if err := yaml.Unmarshal([]byte(mockYAML), &v); err != nil {
		t.Fatal(err)
	}
	asJSON, _ := json.Marshal(v)
	for _, file := range []string{writeMock(t, "mock.yaml", mockYAML), writeMock(t, "mock.json", string(asJSON))} {
		t.Run(filepath.Ext(file), func(t *testing.T) {
			clientIn, mockOut := io.Pipe()
			mockIn, clientOut := io.Pipe()
			done := make(chan int, 1)
			var errb bytes.Buffer
			go func() {
				done <- Run(context.Background(), []string{"mock", file}, mockIn, mockOut, &errb)
				mockOut.Close()
			}()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), transport.NewLineStream(clientIn, clientOut, clientOut, nil))
			if err != nil {
				t.Fatal(err)
			}
			checkMock(t, cs)
			cs.Close() // closes the mock's stdin: it ends
			if code := <-done; code != ExitOK {
				t.Errorf("mock exit %d; stderr %q", code, errb.String())
			}
		})
	}
}

// TestMockHTTP drives mcp mock --http in both eras.
func TestMockHTTP(t *testing.T) {
	file := writeMock(t, "mock.yml", mockYAML)
	url, _ := mcpServe(t, "mock", "--http", "127.0.0.1:0", file)
	for _, version := range []string{"2025-06-18", ""} {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
		cs, err := client.Connect(context.Background(), mcphttp.NewClientStream(url, nil))
		if err != nil {
			t.Fatal(err)
		}
		checkMock(t, cs)
		cs.Close()
	}
}

func TestMockRefuses(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"typo.yaml", "tools: [{name: x, txt: hi}]", "unknown field"},
		{"bad.json", `{"tools": [{"name": "x", "result": {"content": [{"type": "nope"}]}}]}`, "result"},
		{"blob.yaml", "resources: [{uri: 'mem://x', name: x, blob: '!!'}]", "blob"},
		{"dup.yaml", "tools: [{name: x}, {name: x}]", "given twice"},
		// Errors name their line (issue 31, bug 8).
		{"typo-line.yaml", "tools:\n  - name: x\n    text: hi\n  - name: y\n    txt: hi\n    text: ho\n", `line 5: json: unknown field "txt"`},
		{"type-line.yaml", "server:\n  name: m\n  version: '1'\ntools:\n  - name: [x]\n", "line 5: json: cannot unmarshal array"},
		{"item-line.yaml", "tools:\n  - name: x\n  - name: x\n", `line 3: tool "x": given twice`},
		{"syntax-line.yaml", "tools:\n  - name: x\n  - name: 'y\n", "yaml: line "},
		{"typo-line.json", "{\n  \"tools\": [\n    {\"name\": \"x\", \"txt\": \"hi\"}\n  ]\n}\n", `line 3: json: unknown field "txt"`},
		{"huge.json", "{}" + strings.Repeat(" ", mockMaxFile-1), "huge.json: larger than 16777216 bytes"},
		{"laughs.yaml", "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\n", "aliases"},
	} {
		code, _, errs := mcpRun(t, context.Background(), "mock", writeMock(t, c.name, c.text))
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, errs)
		}
	}
	if code, _, errs := mcpRun(t, context.Background(), "mock", "--http", "0.0.0.0:0", writeMock(t, "m.yaml", "{}")); code != ExitUsage || !strings.Contains(errs, "loopback") {
		t.Errorf("--http off loopback: exit %d, stderr %q", code, errs)
	}
}
