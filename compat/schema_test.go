package compat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	gomcp "github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// handBuiltTools are tool schemas written the way go-sdk servers write
// them (github-mcp-server has 128 such literals): *jsonschema.Schema of
// google/jsonschema-go, with descriptions holding HTML-like text,
// numeric bounds, enums, defaults, nested items, a $defs reference, an
// explicit property order and an output schema.
func handBuiltTools() []struct {
	name, description string
	in, out           *jsonschema.Schema
} {
	return []struct {
		name, description string
		in, out           *jsonschema.Schema
	}{
		{"get_issue", "Get an issue <by number> & its state", &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"owner":        {Type: "string", Description: "Repository owner"},
				"repo":         {Type: "string", Description: "Repository name"},
				"issue_number": {Type: "number", Description: "The issue number", Minimum: jsonschema.Ptr(1.0)},
				"state":        {Type: "string", Enum: []any{"open", "closed"}, Default: json.RawMessage(`"open"`)},
				"labels":       {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "Labels, e.g. bug"},
				"perPage":      {Type: "number", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(100.0)},
			},
			Required: []string{"owner", "repo", "issue_number"},
		}, &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"title": {Type: "string"},
				"url":   {Type: "string", Format: "uri"},
			},
			Required: []string{"title"},
		}},
		{"search_code", "Search code", &jsonschema.Schema{
			Type:          "object",
			PropertyOrder: []string{"query", "sort", "order"},
			Properties: map[string]*jsonschema.Schema{
				"query": {Type: "string", Description: "Search query using GitHub's code search syntax", MinLength: jsonschema.Ptr(1)},
				"sort":  {Type: "string", Description: "Sort field ('indexed' only)"},
				"order": {Type: "string", Enum: []any{"asc", "desc"}},
				"page":  {Type: "integer", Minimum: jsonschema.Ptr(1.0)},
			},
			Required:             []string{"query"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		}, nil},
		{"create_pull_request", "Open a pull request", &jsonschema.Schema{
			Type: "object",
			Defs: map[string]*jsonschema.Schema{
				"branch": {Type: "string", Pattern: `^[^\s~^:?*\[\\]+$`},
			},
			Properties: map[string]*jsonschema.Schema{
				"head":  {Ref: "#/$defs/branch"},
				"base":  {Ref: "#/$defs/branch"},
				"draft": {Type: "boolean", Default: json.RawMessage(`false`)},
				"body":  {Types: []string{"null", "string"}},
				"reviewers": {Type: "array", Items: &jsonschema.Schema{
					AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer", Minimum: jsonschema.Ptr(0.0)}},
				}, MaxItems: jsonschema.Ptr(15)},
			},
			Required: []string{"head", "base"},
		}, nil},
	}
}

// listToolsRaw initializes a server over newline-delimited JSON at
// revision version and returns its tools/list tools as it wrote them,
// by name.
func listToolsRaw(t *testing.T, version string, serve func(r *io.PipeReader, w *io.PipeWriter) func()) map[string]map[string]json.RawMessage {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	stop := serve(c2sR, s2cW)
	defer func() {
		c2sW.Close()
		s2cR.Close()
		stop()
	}()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(s2cR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(c2sW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	reply := func(id int) json.RawMessage {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatal("the server closed the stream")
				}
				var m struct {
					ID     *int            `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				if m.ID != nil && *m.ID == id {
					if m.Error != nil {
						t.Fatalf("error: %s", m.Error)
					}
					return m.Result
				}
			case <-timeout:
				t.Fatalf("no reply to request %d", id)
			}
		}
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, version))
	reply(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var res struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(reply(2), &res); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]json.RawMessage{}
	for _, tool := range res.Tools {
		var name string
		if err := json.Unmarshal(tool["name"], &name); err != nil {
			t.Fatal(err)
		}
		byName[name] = tool
	}
	return byName
}

// A go-sdk server's hand-built *jsonschema.Schema literals, moved
// unchanged to a gomcp server, are listed byte for byte as go-sdk lists
// them: the done-when of issue 35.
func TestHandBuiltSchemasByteEqual(t *testing.T) {
	noop := func(context.Context, *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		return &gosdk.CallToolResult{}, nil
	}
	ourNoop := func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
		return &gomcp.CallToolResult{}, nil
	}
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			theirs := listToolsRaw(t, version, func(r *io.PipeReader, w *io.PipeWriter) func() {
				s := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk", Version: "1"}, nil)
				for _, tt := range handBuiltTools() {
					tool := &gosdk.Tool{Name: tt.name, Description: tt.description, InputSchema: tt.in}
					if tt.out != nil {
						tool.OutputSchema = tt.out
					}
					s.AddTool(tool, noop)
				}
				ss, err := s.Connect(context.Background(), &gosdk.IOTransport{Reader: r, Writer: w}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return func() { ss.Close() }
			})
			ours := listToolsRaw(t, version, func(r *io.PipeReader, w *io.PipeWriter) func() {
				s := gomcp.NewServer(&gomcp.Implementation{Name: "gomcp", Version: "1"}, nil)
				for _, tt := range handBuiltTools() {
					tool := &gomcp.Tool{Name: tt.name, Description: tt.description, InputSchema: tt.in}
					if tt.out != nil {
						tool.OutputSchema = tt.out
					}
					if err := s.AddTool(tool, ourNoop); err != nil {
						t.Fatal(err)
					}
				}
				ss := s.Connect(transport.NewLineStream(r, w, nil, nil), nil)
				return func() { ss.Close(); ss.Wait() }
			})
			for _, tt := range handBuiltTools() {
				want, err := json.Marshal(tt.in)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(theirs[tt.name]["inputSchema"]); got != string(want) {
					t.Errorf("%s: go-sdk does not list json.Marshal's bytes:\n got %s\nwant %s", tt.name, got, want)
				}
				for _, key := range []string{"inputSchema", "outputSchema"} {
					if got, want := string(ours[tt.name][key]), string(theirs[tt.name][key]); got != want {
						t.Errorf("%s %s:\n gomcp  %s\n go-sdk %s", tt.name, key, got, want)
					}
				}
			}
			if len(ours) != len(handBuiltTools()) || len(theirs) != len(ours) {
				t.Errorf("listed %d and %d tools", len(ours), len(theirs))
			}
		})
	}
}
