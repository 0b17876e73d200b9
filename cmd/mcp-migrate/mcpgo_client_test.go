package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An mcp-go program whose client and server talk in process: the client
// has a sampling handler and a notification handler, and the server's tool
// asks its client to sample, turning a failure into an error result (as
// mcp-go's examples do), and sends a log message.
const clientMCPGo = `package inproc

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type sampler struct{}

func (sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	text := ""
	if tc, ok := req.Messages[0].Content.(mcp.TextContent); ok {
		text = tc.Text
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "echo " + text}},
		Model:           "m",
	}, nil
}

func newServer() *server.MCPServer {
	s := server.NewMCPServer("inproc", "1.0.0")
	s.EnableSampling()
	s.AddTool(mcp.NewTool("ask", mcp.WithString("q", mcp.Required())), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		q := req.GetString("q", "")
		if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "example/asking", map[string]any{"q": q}); err != nil {
			return nil, err
		}
		res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{
			CreateMessageParams: mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: q}}},
				MaxTokens: 10,
			},
		})
		if err != nil {
			return mcp.NewToolResultError(fmt.Sprintf("sampling: %v", err)), nil
		}
		return mcp.NewToolResultText(res.Content.(mcp.TextContent).Text), nil
	})
	return s
}

// Ask runs the tool through an in-process client and returns its text and
// the notifications' methods.
func Ask(ctx context.Context, q string) (string, []string, error) {
	c, err := client.NewInProcessClientWithSamplingHandler(newServer(), sampler{})
	if err != nil {
		return "", nil, err
	}
	defer c.Close()
	var mu sync.Mutex
	var methods []string
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		methods = append(methods, n.Method)
		mu.Unlock()
	})
	if err := c.Start(ctx); err != nil {
		return "", nil, err
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return "", nil, err
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		return "", nil, err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "ask"
	req.Params.Arguments = map[string]any{"q": q}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	return res.Content[0].(mcp.TextContent).Text, methods, nil
}
`

const clientMCPGoTest = `package inproc

import (
	"context"
	"testing"
)

func TestAsk(t *testing.T) {
	text, methods, err := Ask(context.Background(), "hi")
	if err != nil || text != "echo hi" {
		t.Fatalf("Ask = %q, %v", text, err)
	}
	// At 2026-07-28 the handler runs again once the client has answered,
	// so it notifies twice (see the guide's multi-round-trip case).
	if len(methods) == 0 || methods[0] != "example/asking" {
		t.Errorf("notifications: %v", methods)
	}
}
`

// TestMCPGoClientInProcess migrates clientMCPGo: mcp-go's client becomes
// the generated mcpmigrateClient, the requests gomcp's params, the
// server's sampling request and notification the handler's request's, and
// the migrated program's own test passes (the sampling round goes through
// at the default revision, 2026-07-28, because the swallowed error now
// passes mcp.ErrInputRequired through) with no TODO left; a second run
// changes nothing.
func TestMCPGoClientInProcess(t *testing.T) {
	dir := migrateMCPGoModule(t, "inproc.go", map[string]string{"inproc.go": clientMCPGo, "inproc_test.go": clientMCPGoTest},
		"mcpmigrateInProcessClientWithSampling(newServer(), sampler{})", "c.OnNotification(func(n *mcp.Request)",
		"var init = &mcp.InitializeParams{}", "init.ClientInfo = &mcp.Implementation{", "c.ListTools(ctx, &mcp.ListToolsParams{})",
		"req.CreateMessage(ctx, &mcp.CreateMessageParams{", "errors.Is(err, mcp.ErrInputRequired)",
		"mcpmigrateNotify(ctx, req, \"example/asking\"", "req.Params.Messages[0].Content",
	)
	testMigrated(t, dir)
}

// migrateMCPGoModule writes files into a module that resolves mcp-go
// offline, migrates it, and checks that the migrated main file holds every
// want and no TODO or mcp-go import. It returns the module's directory.
func migrateMCPGoModule(t *testing.T, main string, files map[string]string, wants ...string) string {
	t.Helper()
	moduleDir(t, repoRoot(t), "github.com/mark3labs/mcp-go", "v1.2.1")
	dir := newGoSDKModule(t, "package main\n\nfunc main() {}\n")
	if err := os.Remove(filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Migrate(Config{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, main))
	for _, want := range wants {
		if !strings.Contains(string(got), want) {
			t.Errorf("migrated source lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "TODO(mcp-migrate)") || strings.Contains(string(got), "mark3labs") {
		t.Errorf("migrated source keeps a TODO or mcp-go:\n%s", got)
	}
	return dir
}

// testMigrated runs the migrated module's own tests, then checks that a
// second migration changes nothing.
func testMigrated(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the migrated module: %v\n%s", err, out)
	}
	again, err := Migrate(Config{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files) != 0 {
		t.Errorf("a second run changes %d files", len(again.Files))
	}
}
