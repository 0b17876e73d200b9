package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// Handlers for registrations whose handler never runs.
func noTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
func noResource(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return nil, nil
}
func noTemplate(context.Context, *mcp.ReadResourceRequest, map[string]string) (*mcp.ReadResourceResult, error) {
	return nil, nil
}
func noPrompt(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }

type objIn struct {
	A string `json:"a"`
}

type objOut struct {
	N int `json:"n"`
}

func typedTool[In, Out any](name string) func(*mcp.Server) error {
	return func(s *mcp.Server) error {
		return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, In) (Out, error) {
			var out Out
			return out, nil
		})
	}
}

func rawTool(name, in, out string) func(*mcp.Server) error {
	return func(s *mcp.Server) error {
		t := &mcp.Tool{Name: name}
		if in != "" {
			t.InputSchema = json.RawMessage(in)
		}
		if out != "" {
			t.OutputSchema = json.RawMessage(out)
		}
		return s.AddTool(t, noTool)
	}
}

func prompt(name string, args ...*mcp.PromptArgument) func(*mcp.Server) error {
	return func(s *mcp.Server) error {
		return s.AddPrompt(&mcp.Prompt{Name: name, Arguments: args}, noPrompt)
	}
}

func resource(uri string) func(*mcp.Server) error {
	return func(s *mcp.Server) error {
		return s.AddResource(&mcp.Resource{URI: uri, Name: "r"}, noResource)
	}
}

func template(tmpl string) func(*mcp.Server) error {
	return func(s *mcp.Server) error {
		return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tmpl, Name: "t"}, noTemplate)
	}
}

// TestRegistrationErrors checks that every kind of invalid feature is
// refused the same way, at registration, and leaves nothing registered,
// not even in place of a valid feature of the same name.
func TestRegistrationErrors(t *testing.T) {
	long := strings.Repeat("x", 129)
	tests := []struct {
		name     string
		add      func(*mcp.Server) error
		kind     string // RegistrationError.Kind
		feature  string // RegistrationError.Name
		contains string // in the error text
	}{
		{"empty tool name", rawTool("", "", ""), "tool", "", "1 to 128"},
		{"129-character tool name", rawTool(long, "", ""), "tool", long, "1 to 128"},
		{"space in tool name", rawTool("my tool", "", ""), "tool", "my tool", `' '`},
		{"slash in tool name", rawTool("a/b", "", ""), "tool", "a/b", `'/'`},
		{"non-ASCII tool name", rawTool("café", "", ""), "tool", "café", "only A-Z"},
		{"typed tool with a bad name", typedTool[objIn, objOut]("a b"), "tool", "a b", "only A-Z"},
		{"nil tool", func(s *mcp.Server) error { return s.AddTool(nil, noTool) }, "tool", "", "nil definition"},
		{"nil typed tool", func(s *mcp.Server) error {
			return mcp.AddTool(s, nil, func(context.Context, *mcp.CallToolRequest, objIn) (objOut, error) { return objOut{}, nil })
		}, "tool", "", "nil definition"},
		{"nil tool handler", func(s *mcp.Server) error { return s.AddTool(&mcp.Tool{Name: "h"}, nil) }, "tool", "h", "nil handler"},
		{"nil typed tool handler", func(s *mcp.Server) error {
			return mcp.AddTool[objIn, objOut](s, &mcp.Tool{Name: "h"}, nil)
		}, "tool", "h", "nil handler"},
		{"input schema not JSON", rawTool("in", `{`, ""), "tool", "in", "input schema"},
		{"input schema an array", rawTool("in", `[]`, ""), "tool", "in", "not a JSON object"},
		{"input schema true", rawTool("in", `true`, ""), "tool", "in", "not a JSON object"},
		{"input schema of a string", rawTool("in", `{"type":"string"}`, ""), "tool", "in", `"type": "object"`},
		{"input schema without type", rawTool("in", `{"properties":{}}`, ""), "tool", "in", `no "type"`},
		{"input schema that does not compile", rawTool("in", `{"type":"object","properties":{"a":{"type":"nosuch"}}}`, ""), "tool", "in", "input schema"},
		{"input schema with a dangling $ref", rawTool("in", `{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`, ""), "tool", "in", "input schema"},
		{"x-mcp-header on an object", rawTool("hdr", `{"type":"object","properties":{"r":{"type":"object","x-mcp-header":"R"}}}`, ""), "tool", "hdr", "x-mcp-header"},
		{"x-mcp-header not a token", rawTool("hdr", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"a b"}}}`, ""), "tool", "hdr", "x-mcp-header"},
		{"x-mcp-header twice", rawTool("hdr", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`, ""), "tool", "hdr", "used twice"},
		{"output schema of an array", rawTool("out", "", `{"type":"array"}`), "tool", "out", "output schema"},
		{"output schema that does not compile", rawTool("out", "", `{"type":"object","minProperties":-1}`), "tool", "out", "output schema"},
		{"input type not an object", typedTool[int, objOut]("typed"), "tool", "typed", "input type"},
		{"input type without a schema", typedTool[chan int, objOut]("typed"), "tool", "typed", "input type"},
		{"recursive output type not an object", typedTool[objIn, treeList]("typed"), "tool", "typed", "recursive"},
		{"output type without a schema", typedTool[objIn, func()]("typed"), "tool", "typed", "output type"},
		{"ToolResult by value", typedTool[objIn, mcp.ToolResult[objOut]]("typed"), "tool", "typed", "use a pointer"},

		{"empty resource URI", resource(""), "resource", "", "empty URI"},
		{"resource URI without a scheme", resource("readme.md"), "resource", "readme.md", "no scheme"},
		{"resource URI with a space", resource("test://a b"), "resource", "test://a b", `' '`},
		{"resource URI with a newline", resource("test://a\n"), "resource", "test://a\n", `'\n'`},
		{"resource URI that does not parse", resource("://x"), "resource", "://x", "missing protocol scheme"},
		{"nil resource", func(s *mcp.Server) error { return s.AddResource(nil, noResource) }, "resource", "", "nil definition"},
		{"resource without a name", func(s *mcp.Server) error {
			return s.AddResource(&mcp.Resource{URI: "test://nameless"}, noResource)
		}, "resource", "test://nameless", "empty name"},
		{"nil resource handler", func(s *mcp.Server) error {
			return s.AddResource(&mcp.Resource{URI: "test://h", Name: "h"}, nil)
		}, "resource", "test://h", "nil handler"},

		{"empty URI template", template(""), "resource template", "", "empty URI template"},
		{"unclosed URI template", template("test://{"), "resource template", "test://{", ""},
		{"URI template with a bad operator", template("test://{!x}"), "resource template", "test://{!x}", ""},
		{"nil resource template", func(s *mcp.Server) error { return s.AddResourceTemplate(nil, noTemplate) }, "resource template", "", "nil definition"},
		{"resource template without a name", func(s *mcp.Server) error {
			return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://nameless/{x}"}, noTemplate)
		}, "resource template", "test://nameless/{x}", "empty name"},
		{"nil resource template handler", func(s *mcp.Server) error {
			return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://h/{x}", Name: "h"}, nil)
		}, "resource template", "test://h/{x}", "nil handler"},

		{"empty prompt name", prompt(""), "prompt", "", "empty name"},
		{"nil prompt argument", prompt("p", nil), "prompt", "p", "argument 0 is nil"},
		{"unnamed prompt argument", prompt("p", &mcp.PromptArgument{}), "prompt", "p", "argument 0 has no name"},
		{"prompt argument twice", prompt("p", &mcp.PromptArgument{Name: "a"}, &mcp.PromptArgument{Name: "a"}), "prompt", "p", "declared twice"},
		{"nil prompt", func(s *mcp.Server) error { return s.AddPrompt(nil, noPrompt) }, "prompt", "", "nil definition"},
		{"nil prompt handler", func(s *mcp.Server) error { return s.AddPrompt(&mcp.Prompt{Name: "h"}, nil) }, "prompt", "h", "nil handler"},

		// A refused feature does not replace a valid one of the same name.
		{"replacing a tool with an invalid one", rawTool("keep", `{"type":"string"}`, ""), "tool", "keep", "input schema"},
		{"replacing a template with one without handler", func(s *mcp.Server) error {
			return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://keep/{x}", Name: "t"}, nil)
		}, "resource template", "test://keep/{x}", "nil handler"},
		{"replacing a prompt with an invalid one", prompt("keep", &mcp.PromptArgument{}), "prompt", "keep", "no name"},
	}
	s := mcp.NewServer(serverImpl, nil)
	keep := []func(*mcp.Server) error{
		rawTool("keep", `{"type":"object","properties":{"k":{"type":"string"}}}`, ""),
		resource("test://keep"),
		func(s *mcp.Server) error {
			return s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://keep/{x}", Name: "t"},
				func(_ context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						&mcp.TextResourceContents{URI: req.Params.URI, Text: "kept " + vars["x"]},
					}}, nil
				})
		},
		prompt("keep"),
	}
	for _, add := range keep {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.add(s)
			if !errors.Is(err, mcp.ErrInvalidFeature) {
				t.Fatalf("got %v, want an error wrapping ErrInvalidFeature", err)
			}
			var re *mcp.RegistrationError
			if !errors.As(err, &re) {
				t.Fatalf("got %T, want a *RegistrationError", err)
			}
			if re.Kind != tt.kind || re.Name != tt.feature {
				t.Errorf("got kind %q name %q, want %q %q", re.Kind, re.Name, tt.kind, tt.feature)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not contain %q", err, tt.contains)
			}
			if re.Err == nil || !errors.Is(err, re.Err) {
				t.Errorf("the cause %v is not unwrapped", re.Err)
			}
		})
	}

	// Nothing was registered: only the valid features are listed, as
	// they were.
	if tool, ok := s.Tool("keep"); !ok || !strings.Contains(string(tool.InputSchema.(json.RawMessage)), `"k"`) {
		t.Errorf("the valid tool was replaced: %v %+v", ok, tool)
	}
	e := connect(t, mcp.Version20251125, s, nil)
	ctx := testCtx(t)
	tools := collect(t, e.cs.Tools(ctx, nil), func(x *mcp.Tool) string { return x.Name })
	resources := collect(t, e.cs.Resources(ctx, nil), func(x *mcp.Resource) string { return x.URI })
	templates := collect(t, e.cs.ResourceTemplates(ctx, nil), func(x *mcp.ResourceTemplate) string { return x.URITemplate })
	prompts := collect(t, e.cs.Prompts(ctx, nil), func(x *mcp.Prompt) string { return x.Name })
	for what, got := range map[string][]string{
		"tools": tools, "resources": resources, "templates": templates, "prompts": prompts,
	} {
		want := map[string][]string{
			"tools": {"keep"}, "resources": {"test://keep"}, "templates": {"test://keep/{x}"}, "prompts": {"keep"},
		}[what]
		if !slices.Equal(got, want) {
			t.Errorf("%s listed %q, want %q", what, got, want)
		}
	}
	// The template that stayed reads with its own handler.
	res, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://keep/1"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].(*mcp.TextResourceContents).Text != "kept 1" {
		t.Errorf("reading the kept template: %v %+v", err, res)
	}
}

// treeList is a recursive type whose schema is not an object.
type treeList []treeList

// celsius is a named non-struct output type.
type celsius float64

// TestRegistrationLeavesToolAlone checks that the server keeps a copy of a
// tool: registering never changes the caller's Tool, refused or not, and
// changing it (or the copy Server.Tool returns) afterwards changes nothing
// the server lists.
func TestRegistrationLeavesToolAlone(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	readOnly := true
	tool := &mcp.Tool{Name: "bad name", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: &readOnly}, Icons: []mcp.Icon{{Src: "data:,"}}}
	handler := func(context.Context, *mcp.CallToolRequest, objIn) (objOut, error) { return objOut{}, nil }
	if err := mcp.AddTool(s, tool, handler); err == nil {
		t.Fatal("a bad name was accepted")
	}
	if tool.InputSchema != nil || tool.OutputSchema != nil {
		t.Errorf("refused tool was given schemas: %s %s", tool.InputSchema, tool.OutputSchema)
	}
	tool.Name = "good"
	if err := mcp.AddTool(s, tool, handler); err != nil {
		t.Fatal(err)
	}
	if tool.InputSchema != nil || tool.OutputSchema != nil {
		t.Errorf("registered tool was given schemas: %s %s", tool.InputSchema, tool.OutputSchema)
	}
	tool.Description = "changed"
	readOnly = false
	tool.Icons[0].Src = "data:,changed"
	got, ok := s.Tool("good")
	if !ok || got.InputSchema == nil || got.OutputSchema == nil {
		t.Fatalf("registered tool has no inferred schemas: %+v", got)
	}
	if got.Description != "" || !*got.Annotations.ReadOnlyHint || got.Icons[0].Src != "data:," {
		t.Errorf("changing the caller's tool changed the registered one: %+v", got)
	}
	got.Name = "changed"
	if again, _ := s.Tool("good"); again.Name != "good" {
		t.Errorf("changing the tool Server.Tool returned changed the registered one")
	}
}

// TestRegistrationAccepts checks the valid edges of each rule.
func TestRegistrationAccepts(t *testing.T) {
	longest := strings.Repeat("x", 128)
	tests := []struct {
		name string
		add  func(*mcp.Server) error
	}{
		{"one-character tool name", rawTool("x", "", "")},
		{"128-character tool name", rawTool(longest, "", "")},
		{"every allowed character", rawTool("Az09_.-", "", "")},
		{"names differing in case", rawTool("AZ09_.-", "", "")},
		{"input schema with $schema and $defs", rawTool("raw", rawSchema, rawOutputSchema)},
		{"valid x-mcp-header", rawTool("hdr", `{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`, "")},
		{"typed tool", typedTool[objIn, objOut]("typed")},
		{"typed tool returning text", typedTool[objIn, string]("text")},
		{"typed tool returning a result", typedTool[objIn, *mcp.CallToolResult]("result")},
		{"typed tool returning a ToolResult", typedTool[objIn, *mcp.ToolResult[objOut]]("wrapped")},
		{"typed tool of any", typedTool[any, any]("any")},
		{"typed tool of raw JSON", typedTool[json.RawMessage, json.RawMessage]("rawjson")},
		{"typed tool of pointers", typedTool[*objIn, *objOut]("pointers")},
		{"typed tool returning a slice", typedTool[objIn, []string]("slice")},
		{"typed tool returning a named string", typedTool[objIn, celsius]("named")},
		{"typed tool returning a ToolResult of a non-object", typedTool[objIn, *mcp.ToolResult[int]]("wrappedint")},
		{"resource", resource("test://r")},
		{"file resource", resource("file:///a/b.txt")},
		{"URN resource", resource("urn:isbn:0451450523")},
		{"template", template("file:///{dir}/{name}")},
		{"template with a query", template("test://search{?q,lang}")},
		{"template without variables", template("test://fixed")},
		{"prompt", prompt("any name, even with spaces")},
		{"prompt with arguments", prompt("args", &mcp.PromptArgument{Name: "a", Required: true}, &mcp.PromptArgument{Name: "b"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.add(mcp.NewServer(serverImpl, nil)); err != nil {
				t.Error(err)
			}
		})
	}
}
