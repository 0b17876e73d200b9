package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const anyOutGoSDK = `package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func branch(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
	return nil, map[string]any{"ref": "refs/heads/" + args["name"].(string)}, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "b"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "branch"}, branch)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
`

const anyOutGoSDKTest = `package main

import (
	"context"
	"testing"
)

func TestBranch(t *testing.T) {
	res, out, err := branch(context.Background(), nil, map[string]any{"name": "fix"})
	if err != nil || res != nil {
		t.Fatalf("got %v, %v", res, err)
	}
	if ref := out.(map[string]any)["ref"]; ref != "refs/heads/fix" {
		t.Errorf("ref %v", ref)
	}
}
`

// TestDirectCallAnyOut migrates a go-sdk handler with an untyped output
// and a test calling it directly: after migration the handler folds its
// output into the result (what go-sdk sent), and the direct call still sees
// go-sdk's (nil, output, nil), so the test passes unchanged.
func TestDirectCallAnyOut(t *testing.T) {
	dir := newGoSDKModule(t, anyOutGoSDK)
	if err := os.WriteFile(filepath.Join(dir, "main_test.go"), []byte(anyOutGoSDKTest), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Migrate(Config{Dir: dir, Patterns: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		got, _ := os.ReadFile(filepath.Join(dir, "main_test.go"))
		t.Fatalf("go test of the migrated module: %v\n%s\n%s", err, out, got)
	}
}
