package surface_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/surface"
	"github.com/gomcp/sdk/transport"
)

// connect connects a client to s over a pipe, at the client's default
// revision or rev.
func connect(t *testing.T, s *mcp.Server, rev string) *mcp.ClientSession {
	t.Helper()
	c, srv := transport.Pipe()
	ss := s.Connect(srv, nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: rev}).Connect(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// pagedServer registers n of each kind of item in reverse order, served
// two to a page.
func pagedServer(t *testing.T, n int, opts *mcp.ServerOptions) *mcp.Server {
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	opts.PageSize = 2
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "7.0.0", Title: "Paged"}, opts)
	for i := n - 1; i >= 0; i-- {
		name := fmt.Sprintf("item%d", i)
		if err := s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","required":["b","a"],"properties":{"a":{},"b":{"enum":[3,1,2]}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.AddPrompt(&mcp.Prompt{Name: name, Arguments: []*mcp.PromptArgument{{Name: "z"}, {Name: "y", Required: true}}},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		size := int64(i)
		if err := s.AddResource(&mcp.Resource{URI: "mem://" + name, Name: name, Size: &size},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://" + name + "/{x}", Name: name},
			func(context.Context, *mcp.ReadResourceRequest, map[string]string) (*mcp.ReadResourceResult, error) {
				return nil, nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestTake checks that every page of every list is taken, normalized and
// keyed, and that the result is the same bytes whatever the order of
// registration.
func TestTake(t *testing.T) {
	for _, rev := range []string{"", mcp.Version20251125, mcp.Version20250326} {
		t.Run(rev, func(t *testing.T) {
			s, err := surface.Take(t.Context(), connect(t, pagedServer(t, 5, nil), rev))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != 5 || len(s.Prompts) != 5 || len(s.Resources) != 5 || len(s.ResourceTemplates) != 5 {
				t.Fatalf("took %d tools, %d prompts, %d resources, %d templates, want 5 each", len(s.Tools), len(s.Prompts), len(s.Resources), len(s.ResourceTemplates))
			}
			b, err := surface.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			tool := s.Tools["item4"].(map[string]any)["inputSchema"].(map[string]any)
			args := s.Prompts["item1"].(map[string]any)["arguments"]
			for _, c := range []struct {
				got  any
				want string
			}{
				{tool["required"], `["a","b"]`},
				{tool["properties"].(map[string]any)["b"], `{"enum":[1,2,3]}`},
				{args, `[{"name":"y","required":true},{"name":"z"}]`},
				{s.ResourceTemplates["mem://item0/{x}"], `{"name":"item0"}`},
			} {
				if got, _ := json.Marshal(c.got); string(got) != c.want {
					t.Errorf("got %s, want %s", got, c.want)
				}
			}
			if strings.Contains(text, "7.0.0") || strings.Contains(text, `"size"`) {
				t.Errorf("volatile fields kept:\n%s", text)
			}
			again, err := surface.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if b2, _ := surface.Marshal(again); !bytes.Equal(b, b2) {
				t.Errorf("Marshal(Parse(b)) differs from b")
			}
			if d := surface.Diff(s, again); len(d) != 0 {
				t.Errorf("Diff of a snapshot and its copy: %v", d)
			}
		})
	}
}

// TestTakeExtensions checks that extensions are taken out of the
// capabilities, and that a list the server does not offer is empty.
func TestTakeExtensions(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "ext", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Extensions: map[string]json.RawMessage{"io.example/thing": json.RawMessage(`{"mode":"on"}`)}},
	})
	snap, err := surface.Take(t.Context(), connect(t, s, ""))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := surface.Marshal(snap)
	if _, ok := snap.Capabilities["extensions"]; ok || snap.Extensions["io.example/thing"] == nil || len(snap.Tools) != 0 {
		t.Errorf("snapshot:\n%s", b)
	}
	if !strings.Contains(string(b), `"tools": {}`) {
		t.Errorf("an empty list is not written as {}:\n%s", b)
	}
}

// TestTakeEndlessPages checks that a server sending empty pages with a
// cursor forever is given up on after MaxPages.
func TestTakeEndlessPages(t *testing.T) {
	var pages atomic.Int64
	endless := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == "tools/list" {
				pages.Add(1)
				return &mcp.ListToolsResult{NextCursor: "again"}, nil
			}
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "endless", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		Receiving:    []mcp.Middleware{endless},
	})
	_, err := surface.Take(t.Context(), connect(t, s, mcp.Version20251125))
	if err == nil || !strings.Contains(err.Error(), "more than") || pages.Load() != surface.MaxPages {
		t.Errorf("Take: %v after %d pages", err, pages.Load())
	}
}

// TestParse checks what Parse refuses.
func TestParse(t *testing.T) {
	for _, doc := range []string{
		``, `[]`, `{"format":"gomcp-surface/0"}`, `{"format":"gomcp-surface/1"} {}`, `{"format":"gomcp-surface/1","tools":[]}`,
	} {
		if _, err := surface.Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%q) succeeded", doc)
		}
	}
	big := make([]byte, surface.MaxSnapshotBytes+1)
	if _, err := surface.Parse(big); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("a huge snapshot: %v", err)
	}
	s, err := surface.Parse([]byte(`{"format":"gomcp-surface/1"}`))
	if err != nil || s.Tools == nil || s.ServerInfo == nil {
		t.Errorf("Parse of an empty snapshot: %+v, %v", s, err)
	}
}

// TestDiffBounded checks that a deeply nested schema, and a schema whose
// $refs fan out, are compared in bounded time and reported.
func TestDiffBounded(t *testing.T) {
	deep := func(leaf string) string {
		return strings.Repeat(`{"properties":{"a":`, 200) + leaf + strings.Repeat(`}}`, 200)
	}
	// Each level refers to the next twice: 2^30 paths if followed blindly.
	fan := func(leaf string) string {
		var b strings.Builder
		b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
		for i := range 30 {
			fmt.Fprintf(&b, `"d%d":{"properties":{"x":{"$ref":"#/$defs/d%d"},"y":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1)
		}
		b.WriteString(`"d30":` + leaf + `}}`)
		return b.String()
	}
	for name, schemas := range map[string][2]string{
		"deep": {deep(`{"type":"string"}`), deep(`{"type":"integer"}`)},
		"fan":  {fan(`{"type":"string"}`), fan(`{"type":"integer"}`)},
	} {
		t.Run(name, func(t *testing.T) {
			old, err := surface.Parse([]byte(`{"format":"gomcp-surface/1","tools":{"t":{"inputSchema":` + schemas[0] + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			new, err := surface.Parse([]byte(`{"format":"gomcp-surface/1","tools":{"t":{"inputSchema":` + schemas[1] + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			changes := surface.Diff(old, new)
			if !surface.HasBreaking(changes) {
				t.Errorf("Diff: %v", changes)
			}
		})
	}
}

// TestTakeNoTemplates checks that a server with resources that does not
// know resources/templates/list has no templates, and that another error
// fails Take.
func TestTakeNoTemplates(t *testing.T) {
	for _, tc := range []struct {
		code    int64
		wantErr bool
	}{{jsonrpc.CodeMethodNotFound, false}, {jsonrpc.CodeInternalError, true}} {
		refuse := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if r.Method == "resources/templates/list" {
					return nil, jsonrpc.Errorf(tc.code, "no")
				}
				return next(ctx, r)
			}
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "r", Version: "1"}, &mcp.ServerOptions{Receiving: []mcp.Middleware{refuse}})
		if err := s.AddResource(&mcp.Resource{URI: "mem://a", Name: "a"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
		snap, err := surface.Take(t.Context(), connect(t, s, mcp.Version20251125))
		if (err != nil) != tc.wantErr || err == nil && (len(snap.Resources) != 1 || len(snap.ResourceTemplates) != 0) {
			t.Errorf("code %d: %+v, %v", tc.code, snap, err)
		}
	}
	if d := surface.Diff(nil, &surface.Snapshot{Tools: map[string]any{"t": map[string]any{}}}); len(d) != 1 || d[0].Class != surface.Compatible {
		t.Errorf("Diff(nil, one tool) = %v", d)
	}
}
