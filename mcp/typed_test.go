package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

type weatherOut struct {
	City string `json:"city"`
	Temp int    `json:"temp"`
}

const weatherSchemaProps = "city,temp"

// TestTypedToolResults covers each shape a typed tool's Out can take, and
// what reaches the client: content, structured content, isError, _meta and
// the listed output schema.
func TestTypedToolResults(t *testing.T) {
	paris := weatherOut{City: "Paris", Temp: 21}
	parisJSON := `{"city":"Paris","temp":21}`
	meta := &mcp.Meta{Extra: map[string]json.RawMessage{"example.com/source": json.RawMessage(`"station 7"`)}}
	tests := []struct {
		name           string
		add            func(s *mcp.Server, name string) error
		wantContent    []string // text of each block; "image" for an image block
		wantStructured string   // "" for none
		wantIsError    bool
		wantMeta       string // the _meta member example.com/source, "" for none
		wantSchema     string // property names of the output schema, "" for none
	}{
		{
			name: "plain struct",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (weatherOut, error) {
					return paris, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "pointer to struct",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*weatherOut, error) {
					return &paris, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "string",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
					return "sunny", nil
				})
			},
			wantContent: []string{"sunny"},
		},
		{
			name: "*CallToolResult",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("as is")}, IsError: true, Meta: meta}, nil
				})
			},
			wantContent: []string{"as is"}, wantIsError: true, wantMeta: `"station 7"`,
		},
		{
			name: "ToolResult with structured content only",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{Structured: paris}, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult with IsError",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{Structured: weatherOut{City: "Atlantis"}, IsError: true}, nil
				})
			},
			wantContent: []string{`{"city":"Atlantis","temp":0}`}, wantStructured: `{"city":"Atlantis","temp":0}`, wantIsError: true, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult with IsError and its own content",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{
						Structured: weatherOut{City: "Atlantis"},
						IsError:    true,
						Content:    []mcp.Content{mcp.NewTextContent("no weather station in Atlantis")},
					}, nil
				})
			},
			wantContent: []string{"no weather station in Atlantis"}, wantStructured: `{"city":"Atlantis","temp":0}`, wantIsError: true, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult with extra content",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{Structured: paris, Content: []mcp.Content{
						mcp.NewTextContent("21 degrees in Paris"),
						mcp.NewImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
					}}, nil
				})
			},
			wantContent: []string{"21 degrees in Paris", "image"}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult with empty content",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{Structured: paris, Content: []mcp.Content{}}, nil
				})
			},
			wantContent: []string{}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult with Meta",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return &mcp.ToolResult[weatherOut]{Structured: paris, Meta: meta}, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantMeta: `"station 7"`, wantSchema: weatherSchemaProps,
		},
		{
			name: "nil ToolResult",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[weatherOut], error) {
					return nil, nil
				})
			},
			wantContent: []string{`{"city":"","temp":0}`}, wantStructured: `{"city":"","temp":0}`, wantSchema: weatherSchemaProps,
		},
		{
			name: "ToolResult of a pointer",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[*weatherOut], error) {
					return &mcp.ToolResult[*weatherOut]{Structured: &paris}, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "any holding a string",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) {
					return "sunny", nil
				})
			},
			wantContent: []string{"sunny"},
		},
		{
			name: "any holding a struct",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) {
					return paris, nil
				})
			},
			wantContent: []string{parisJSON},
		},
		{
			name: "any with an output schema of its own",
			add: func(s *mcp.Server, name string) error {
				tool := &mcp.Tool{Name: name, OutputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}}}`)}
				return mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, struct{}) (any, error) {
					return paris, nil
				})
			},
			wantContent: []string{parisJSON}, wantStructured: parisJSON, wantSchema: weatherSchemaProps,
		},
		{
			name: "raw JSON",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (json.RawMessage, error) {
					return json.RawMessage(`[1,2]`), nil
				})
			},
			wantContent: []string{`[1,2]`},
		},
		{
			name: "slice, wrapped",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) ([]string, error) {
					return []string{"rain", "sun"}, nil
				})
			},
			wantContent: []string{`{"result":["rain","sun"]}`}, wantStructured: `{"result":["rain","sun"]}`, wantSchema: "result",
		},
		{
			name: "named number, wrapped",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (celsius, error) {
					return 21.5, nil
				})
			},
			wantContent: []string{`{"result":21.5}`}, wantStructured: `{"result":21.5}`, wantSchema: "result",
		},
		{
			name: "named string, wrapped",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (mood, error) {
					return "sunny", nil
				})
			},
			wantContent: []string{`{"result":"sunny"}`}, wantStructured: `{"result":"sunny"}`, wantSchema: "result",
		},
		{
			name: "slice of a recursive struct, wrapped with its $defs",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) ([]treeNode, error) {
					return []treeNode{{Name: "a", Kids: []treeNode{{Name: "b"}}}}, nil
				})
			},
			wantContent:    []string{`{"result":[{"name":"a","kids":[{"name":"b"}]}]}`},
			wantStructured: `{"result":[{"name":"a","kids":[{"name":"b"}]}]}`, wantSchema: "result",
		},
		{
			name: "ToolResult of a number, wrapped",
			add: func(s *mcp.Server, name string) error {
				return mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.ToolResult[int], error) {
					return &mcp.ToolResult[int]{Structured: 3}, nil
				})
			},
			wantContent: []string{`{"result":3}`}, wantStructured: `{"result":3}`, wantSchema: "result",
		},
	}
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		for i, tt := range tests {
			if err := tt.add(s, toolName(i)); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		for i, tt := range tests {
			tool := findTool(t, e, toolName(i))
			res, err := e.callTool(ctx, toolName(i), `{}`)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if got := contentTexts(res); !reflect.DeepEqual(got, tt.wantContent) {
				t.Errorf("%s: content %q, want %q", tt.name, got, tt.wantContent)
			}
			if !since(rev, mcp.Version20250618) {
				// Structured output exists from 2025-06-18 on: older
				// clients get the content blocks alone.
				tt.wantStructured, tt.wantSchema = "", ""
			}
			switch {
			case tt.wantStructured == "" && res.StructuredContent != nil:
				t.Errorf("%s: structured content %s, want none", tt.name, res.StructuredContent)
			case tt.wantStructured != "" && (res.StructuredContent == nil || !jsonEqual(t, res.StructuredContent, []byte(tt.wantStructured))):
				t.Errorf("%s: structured content %s, want %s", tt.name, res.StructuredContent, tt.wantStructured)
			}
			if res.IsError != tt.wantIsError {
				t.Errorf("%s: isError %v, want %v", tt.name, res.IsError, tt.wantIsError)
			}
			var gotMeta string
			if res.Meta != nil {
				gotMeta = string(res.Meta.Extra["example.com/source"])
			}
			if gotMeta != tt.wantMeta {
				t.Errorf("%s: _meta source %q, want %q", tt.name, gotMeta, tt.wantMeta)
			}
			if got := schemaProps(t, tool.OutputSchema); got != tt.wantSchema {
				t.Errorf("%s: output schema %s has properties %q, want %q", tt.name, tool.OutputSchema, got, tt.wantSchema)
			}
		}
	})
}

// treeNode is recursive: its schema has $defs.
type treeNode struct {
	Name string     `json:"name"`
	Kids []treeNode `json:"kids,omitempty"`
}

// mood is a named string type: unlike string, a structured output.
type mood string

func toolName(i int) string { return "tool" + string(rune('a'+i)) }

// contentTexts describes a result's content blocks: the text of text
// blocks, "image" for images. It is never nil.
func contentTexts(res *mcp.CallToolResult) []string {
	out := []string{}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, c.Text)
		case *mcp.ImageContent:
			out = append(out, "image")
		default:
			out = append(out, reflect.TypeOf(c).String())
		}
	}
	return out
}

// schemaProps returns the sorted, comma-separated property names of an
// object schema, or "" for no schema.
func schemaProps(t *testing.T, v any) string {
	t.Helper()
	if v == nil {
		return ""
	}
	schema := v.(json.RawMessage)
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil || s.Type != "object" {
		t.Fatalf("output schema %s is not an object schema: %v", schema, err)
	}
	return strings.Join(slices.Sorted(maps.Keys(s.Properties)), ",")
}

// TestTemplateVars checks that a template's handler gets the variables its
// template matched in the URI it reads.
func TestTemplateVars(t *testing.T) {
	tests := []struct {
		template, uri string
		want          map[string]string
	}{
		{"file:///{dir}/{name}", "file:///a/b.txt", map[string]string{"dir": "a", "name": "b.txt"}},
		{"file:///{dir}/{name}", "file:///a%20b/c", map[string]string{"dir": "a b", "name": "c"}},
		{"file:///{+path}", "file:///a/b/c.txt", map[string]string{"path": "a/b/c.txt"}},
		{"test://search{?q,lang}", "test://search?q=go", map[string]string{"q": "go"}},
		{"test://fixed", "test://fixed", map[string]string{}},
	}
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		got := make(chan map[string]string, 1)
		for _, tt := range tests {
			err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tt.template, Name: "t"},
				func(_ context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
					got <- vars
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						&mcp.TextResourceContents{URI: req.Params.URI, Text: tt.template},
					}}, nil
				})
			if err != nil {
				t.Fatal(err)
			}
		}
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		for _, tt := range tests {
			res, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
			if err != nil {
				t.Errorf("%s: %v", tt.uri, err)
				continue
			}
			if by := res.Contents[0].(*mcp.TextResourceContents).Text; by != tt.template {
				t.Errorf("%s was read by %s, want %s", tt.uri, by, tt.template)
			}
			if vars := recv(t, got, "template variables"); vars == nil || !maps.Equal(vars, tt.want) {
				t.Errorf("%s read with %s: vars %v, want %v", tt.uri, tt.template, vars, tt.want)
			}
		}
	})
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// typedClientServer serves the tools TestCallToolFor calls: echo returns
// the arguments it received as its structured content, sum adds, text
// answers with text only and fail always fails.
func typedClientServer(t *testing.T) *mcp.Server {
	s := mcp.NewServer(serverImpl, nil)
	errs := []error{
		s.AddTool(&mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: req.Params.Arguments}, nil
		}),
		mcp.AddTool(s, &mcp.Tool{Name: "sum"}, func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (sumOut, error) {
			return sumOut{Sum: in.A + in.B}, nil
		}),
		mcp.AddTool(s, &mcp.Tool{Name: "text"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("line 1"), mcp.NewTextContent("line 2")}}, nil
		}),
		mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
			return "", errors.New("disk on fire")
		}),
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return s
}

// callFor runs CallToolFor with a given Out and returns Out as any.
func callFor[Out any](ctx context.Context, cs *mcp.ClientSession, name string, args any) (any, *mcp.CallToolResult, error) {
	return mcp.CallToolFor[Out](ctx, cs, name, args)
}

// TestCallToolFor checks that any Go value can be the arguments of a tool,
// marshalled once, and that the structured content decodes into Out.
func TestCallToolFor(t *testing.T) {
	type call = func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error)
	var nilArgs *sumIn
	tests := []struct {
		name       string
		call       call
		want       any    // the Out value
		wantErr    string // in the error; "" for none
		wantResult bool   // a result comes back with the error
		toolErr    bool   // the error wraps ErrToolError
	}{
		{"struct args into struct", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", sumIn{A: 1, B: 2})
		}, sumOut{Sum: 3}, "", true, false},
		{"pointer args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", &sumIn{A: 2, B: 2})
		}, sumOut{Sum: 4}, "", true, false},
		{"map args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", map[string]int{"a": 5, "b": 6})
		}, sumOut{Sum: 11}, "", true, false},
		{"raw JSON args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[json.RawMessage](ctx, cs, "echo", json.RawMessage(`{"x":[1,"two"]}`))
		}, json.RawMessage(`{"x":[1,"two"]}`), "", true, false},
		{"byte args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[json.RawMessage](ctx, cs, "echo", []byte(`{"y":true}`))
		}, json.RawMessage(`{"y":true}`), "", true, false},
		{"nil args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[json.RawMessage](ctx, cs, "echo", nil)
		}, json.RawMessage(`{}`), "", true, false},
		{"nil pointer args", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[json.RawMessage](ctx, cs, "echo", nilArgs)
		}, json.RawMessage(`{}`), "", true, false},
		{"Out any", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[any](ctx, cs, "sum", sumIn{A: 1, B: 1})
		}, map[string]any{"sum": 2.0}, "", true, false},
		{"Out map", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[map[string]int](ctx, cs, "sum", sumIn{A: 3, B: 4})
		}, map[string]int{"sum": 7}, "", true, false},
		{"Out string from text content", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[string](ctx, cs, "text", nil)
		}, "line 1\nline 2", "", true, false},
		{"Out struct without structured content", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "text", nil)
		}, sumOut{}, "returned no structured content", true, false},
		{"Out of the wrong shape", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[[]int](ctx, cs, "sum", sumIn{})
		}, []int(nil), "decoding structured content into []int", true, false},
		{"tool error", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[string](ctx, cs, "fail", nil)
		}, "", `from "fail": disk on fire`, true, true},
		{"invalid arguments are a tool error", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", map[string]string{"a": "one"})
		}, sumOut{}, "invalid arguments", true, true},
		{"args not an object", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", []int{1, 2})
		}, sumOut{}, "not a JSON object", false, false},
		{"raw args not an object", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", json.RawMessage(`"x"`))
		}, sumOut{}, "not a JSON object", false, false},
		{"raw args not JSON", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", []byte(`{"a":`))
		}, sumOut{}, "not a JSON object", false, false},
		{"args that do not marshal", func(ctx context.Context, cs *mcp.ClientSession) (any, *mcp.CallToolResult, error) {
			return callFor[sumOut](ctx, cs, "sum", map[string]any{"a": make(chan int)})
		}, sumOut{}, "unsupported type", false, false},
	}
	for _, rev := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			e := connect(t, rev, typedClientServer(t), nil)
			ctx := testCtx(t)
			for _, tt := range tests {
				got, res, err := tt.call(ctx, e.cs)
				switch {
				case tt.wantErr == "" && err != nil:
					t.Errorf("%s: %v", tt.name, err)
				case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
					t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
				}
				if errors.Is(err, mcp.ErrToolError) != tt.toolErr {
					t.Errorf("%s: error %v wraps ErrToolError: %v, want %v", tt.name, err, !tt.toolErr, tt.toolErr)
				}
				if (res != nil) != tt.wantResult {
					t.Errorf("%s: result %+v, want one: %v", tt.name, res, tt.wantResult)
				}
				if tt.toolErr && (res == nil || !res.IsError) {
					t.Errorf("%s: a tool error came with result %+v", tt.name, res)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: got %#v, want %#v", tt.name, got, tt.want)
				}
			}
			// A json.RawMessage Out is the result's structured content,
			// not a copy.
			raw, res, err := mcp.CallToolFor[json.RawMessage](ctx, e.cs, "echo", nil)
			if err != nil || len(raw) == 0 || &raw[0] != &res.StructuredContent[0] {
				t.Errorf("raw Out %s is not the structured content of %+v (%v)", raw, res, err)
			}
			// A protocol error is not a tool error.
			_, res, err = mcp.CallToolFor[any](ctx, e.cs, "no-such-tool", nil)
			wantCode(t, err, jsonrpc.CodeInvalidParams)
			if errors.Is(err, mcp.ErrToolError) || res != nil {
				t.Errorf("unknown tool: %v %+v", err, res)
			}
		})
	}
}
