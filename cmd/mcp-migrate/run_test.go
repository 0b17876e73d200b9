package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const helloGoSDK = `package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	Name string ` + "`json:\"name\" jsonschema:\"the person to greet\"`" + `
}

func greet(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "greeting"}); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hi " + a.Name}}}, nil, nil
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, greet)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
`

// newGoSDKModule writes a one-file go-sdk module whose go.mod is compat's
// (gomcp replaced by this checkout), so that it resolves offline.
func newGoSDKModule(t *testing.T, src string) string {
	t.Helper()
	root := repoRoot(t)
	moduleDir(t, root, "github.com/modelcontextprotocol/go-sdk", "v1.8.0")
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "compat", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(gomod), "module github.com/gomcp/sdk/compat", "module example.com/hello", 1)
	s = strings.Replace(s, "github.com/gomcp/sdk => ../", "github.com/gomcp/sdk => "+root, 1)
	sum, err := os.ReadFile(filepath.Join(root, "compat", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"go.mod": s, "go.sum": string(sum), "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRun migrates a small go-sdk server: -diff prints the change and
// writes nothing; the real run rewrites the handler, the transport, the
// session call and the unchecked AddTool, builds, and a second run changes
// nothing.
func TestRun(t *testing.T) {
	dir := newGoSDKModule(t, helloGoSDK)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-diff", "-C", dir, "./..."}, &stdout, &stderr); code != 0 {
		t.Fatalf("-diff: exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		`+	"github.com/gomcp/sdk/mcp"`,
		`+	"github.com/gomcp/sdk/transport"`,
		`+func greet(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {`,
		`+	if err := req.Log(ctx, mcp.LevelInfo, "", "greeting"); err != nil {`,
		`+	if err := mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"}, greet); err != nil {`,
		`+	if err := server.Run(context.Background(), transport.Stdio()); err != nil {`,
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-diff output lacks %q:\n%s", want, stdout.String())
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(got) != helloGoSDK {
		t.Fatal("-diff wrote the file")
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-C", dir, "./..."}, &stdout, &stderr); code != 0 {
		t.Fatalf("migration: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "go build and go vet pass") {
		t.Errorf("summary lacks the build check:\n%s", stderr.String())
	}
	got, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if strings.Contains(string(got), "modelcontextprotocol") {
		t.Errorf("go-sdk still imported:\n%s", got)
	}
	res, err := Migrate(Config{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 {
		t.Errorf("a second run changes %d files:\n%s", len(res.Files), UnifiedDiff(res.Files[0].Path, res.Files[0].Old, res.Files[0].New))
	}
}
