package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server assembled the way large mcp-go servers are: a ServerTool table
// registered with AddTools, a typed handler stored in the table, tool
// middleware added with Use, hooks, and a stateless per-request HTTP server
// whose context function puts the caller's organization in the context.
const tablesMCPGo = `package tables

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type orgKey struct{}

func org(ctx context.Context) string { s, _ := ctx.Value(orgKey{}).(string); return s }

type doubleArgs struct {
	N    int      ` + "`json:\"n\" jsonschema:\"the number\"`" + `
	Tags []string ` + "`json:\"tags,omitempty\"`" + `
}

func Tools() []server.ServerTool {
	return []server.ServerTool{
		{
			Tool: mcp.NewTool("hello", mcp.WithString("name", mcp.Required())),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				name, err := req.RequireString("name")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return mcp.NewToolResultText("hi " + name + org(ctx)), nil
			},
		},
		{
			Tool: mcp.NewTool("double", mcp.WithInputSchema[doubleArgs]()),
			Handler: mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, a doubleArgs) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultStructuredOnly(map[string]int{"n": 2 * a.N}), nil
			}),
		},
	}
}

type Counter struct {
	mu     sync.Mutex
	Calls  int
	Errors []string
}

func (c *Counter) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c.mu.Lock()
		c.Calls++
		c.mu.Unlock()
		return next(ctx, req)
	}
}

func (c *Counter) Hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, message any, err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.Errors = append(c.Errors, string(method))
	})
	return h
}

func NewServer(c *Counter) *server.MCPServer {
	s := server.NewMCPServer("tables", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(c.Hooks()))
	s.AddTools(Tools()...)
	s.Use(c.Middleware)
	return s
}

func Handler(c *Counter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server.NewStreamableHTTPServer(NewServer(c),
			server.WithStateLess(true),
			server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
				return context.WithValue(ctx, orgKey{}, strings.ToLower(r.Header.Get("X-Org")))
			}),
		).ServeHTTP(w, r)
	})
}
`

// Its test builds requests by hand and calls the handlers of the table.
const tablesMCPGoTest = `package tables

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	for _, st := range Tools() {
		if st.Tool.Name == name {
			c := &Counter{}
			res, err := c.Middleware(st.Handler)(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
			if err != nil {
				t.Fatal(err)
			}
			if c.Calls != 1 {
				t.Errorf("middleware counted %d calls", c.Calls)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestTable(t *testing.T) {
	if res := call(t, "hello", map[string]any{"name": "ann"}); res.IsError || res.Content[0].(mcp.TextContent).Text != "hi ann" {
		t.Errorf("hello: %+v", res)
	}
	if res := call(t, "hello", nil); !res.IsError {
		t.Errorf("hello without a name: %+v", res)
	}
	res := call(t, "double", map[string]any{"n": 21})
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || string(b) != ` + "`{\"n\":42}`" + ` {
		t.Errorf("double: %s %v", b, err)
	}
}
`

// TestMCPGoServerTables migrates tablesMCPGo: the table, AddTools, Use,
// hooks and the HTTP options have rules, so the result builds with no
// TODO, its hand-built-request test passes, the double tool's schema is
// the one mcp-go gave (closed, tags nullable) and a second run changes
// nothing.
func TestMCPGoServerTables(t *testing.T) {
	dir := migrateMCPGoModule(t, "tables.go", map[string]string{"tables.go": tablesMCPGo, "tables_test.go": tablesMCPGoTest},
		"[]mcpmigrateServerTool{", "mcpmigrateAddTools(s, Tools()...)", "hooks.AddToolMiddleware(s, c.Middleware)",
		"mcpmigrateWithHooks(mcp.NewServer(", "mcpmigrateContextFunc(mcphttp.NewHandler(NewServer(c), nil), func(",
		"toolresult.Text(", "toolresult.Error(", "return toolresult.JSON(map[string]int{\"n\": 2 * a.N})\n",
		"mcpmigrateTyped(func(ctx context.Context, req *mcp.CallToolRequest, a doubleArgs)",
	)
	schemaTest := `package tables

import "testing"

func TestDoubleSchema(t *testing.T) {
	if got, want := string(Tools()[1].Tool.InputSchema.(json.RawMessage)), ` + "`" + `{"additionalProperties":false,"properties":{"n":{"description":"the number","type":"integer"},"tags":{"items":{"type":"string"},"type":["null","array"]}},"required":["n"],"type":"object"}` + "`" + `; got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
}
`
	schemaTest = strings.Replace(schemaTest, `import "testing"`, "import (\n\t\"encoding/json\"\n\t\"testing\"\n)", 1)
	if err := os.WriteFile(filepath.Join(dir, "schema_test.go"), []byte(schemaTest), 0o644); err != nil {
		t.Fatal(err)
	}
	testMigrated(t, dir)
}
