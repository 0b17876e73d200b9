package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// jsonEqual reports whether two JSON texts encode the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("invalid JSON %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// findTool lists every tool and returns the named one.
func findTool(t *testing.T, e *env, name string) *mcp.Tool {
	t.Helper()
	for tool, err := range e.cs.Tools(testCtx(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("tool %q not listed", name)
	return nil
}

type forecastIn struct {
	City string `json:"city" description:"The city to forecast."`
	Unit string `json:"unit,omitempty" jsonschema:"enum=celsius|fahrenheit,default=celsius"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=3"`
}

type forecastOut struct {
	City  string    `json:"city"`
	Unit  string    `json:"unit"`
	Temps []float64 `json:"temps"`
}

func TestTypedTool(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		var calls atomic.Int32
		mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Weather forecast."},
			func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (forecastOut, error) {
				calls.Add(1)
				out := forecastOut{City: in.City, Unit: in.Unit, Temps: []float64{}}
				for i := range in.Days {
					out.Temps = append(out.Temps, 20+float64(i)/2)
				}
				return out, nil
			})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)

		tool := findTool(t, e, "forecast")
		var in struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type        string   `json:"type"`
				Description string   `json:"description"`
				Enum        []string `json:"enum"`
				Default     any      `json:"default"`
				Minimum     *float64 `json:"minimum"`
				Maximum     *float64 `json:"maximum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.InputSchema.(json.RawMessage), &in); err != nil {
			t.Fatal(err)
		}
		props := in.Properties
		switch {
		case in.Type != "object":
			t.Errorf("input schema type %q", in.Type)
		case props["city"].Type != "string" || props["city"].Description != "The city to forecast.":
			t.Errorf("city schema %+v", props["city"])
		case !slices.Equal(props["unit"].Enum, []string{"celsius", "fahrenheit"}) || props["unit"].Default != "celsius":
			t.Errorf("unit schema %+v", props["unit"])
		case props["days"].Type != "integer" || props["days"].Default != 3.0 || *props["days"].Minimum != 1 || *props["days"].Maximum != 7:
			t.Errorf("days schema %+v", props["days"])
		case !slices.Equal(in.Required, []string{"city"}):
			t.Errorf("required %v, want [city]", in.Required)
		}
		if !since(rev, mcp.Version20250618) {
			if tool.OutputSchema != nil {
				t.Errorf("output schema %s sent to a %s client", tool.OutputSchema, rev)
			}
			return
		}
		var out struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.OutputSchema.(json.RawMessage), &out); err != nil {
			t.Fatalf("output schema %s: %v", tool.OutputSchema, err)
		}
		if out.Type != "object" || !slices.Equal(slices.Sorted(maps.Keys(out.Properties)), []string{"city", "temps", "unit"}) {
			t.Errorf("output schema %s", tool.OutputSchema)
		}

		// Defaults are filled in before the handler runs.
		res, err := e.callTool(ctx, "forecast", `{"city":"Paris"}`)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"city":"Paris","unit":"celsius","temps":[20,20.5,21]}`
		if res.IsError || !jsonEqual(t, res.StructuredContent, []byte(want)) {
			t.Errorf("got %+v %s, want structured %s", res, res.StructuredContent, want)
		}
		if got := text(t, res); !jsonEqual(t, []byte(got), res.StructuredContent) {
			t.Errorf("text block %q does not hold the structured content", got)
		}
		res, err = e.callTool(ctx, "forecast", `{"city":"Oslo","unit":"fahrenheit","days":1}`)
		if err != nil || !jsonEqual(t, res.StructuredContent, []byte(`{"city":"Oslo","unit":"fahrenheit","temps":[20]}`)) {
			t.Errorf("got %v %+v", err, res)
		}

		// Invalid arguments are tool errors the model can see; the
		// handler does not run.
		before := calls.Load()
		for _, args := range []string{
			`{"city":"Paris","unit":"kelvin"}`,
			`{"unit":"celsius"}`,
			`{"city":5}`,
			`{"city":"Paris","days":8}`,
			`{"city":"Paris","days":1.5}`,
			``,
		} {
			res, err := e.callTool(ctx, "forecast", args)
			if err != nil {
				t.Errorf("args %s: %v", args, err)
				continue
			}
			if !res.IsError || !strings.Contains(text(t, res), "invalid arguments") {
				t.Errorf("args %s: got %+v, want an invalid arguments error result", args, res)
			}
		}
		if calls.Load() != before {
			t.Error("the handler ran with invalid arguments")
		}
	})
}

// TestToolResults covers what handlers can return and how it reaches the
// client: errors, protocol errors, panics, text and ready-made results.
func TestToolResults(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		type none struct{}
		mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, none) (string, error) {
			return "", errors.New("disk on fire")
		})
		mcp.AddTool(s, &mcp.Tool{Name: "proto"}, func(context.Context, *mcp.CallToolRequest, none) (string, error) {
			return "", fmt.Errorf("wrapped: %w", jsonrpc.NewError(4001, "quota exceeded").WithData(map[string]int{"retryAfter": 30}))
		})
		mcp.AddTool(s, &mcp.Tool{Name: "panic"}, func(context.Context, *mcp.CallToolRequest, none) (string, error) {
			panic("boom")
		})
		mcp.AddTool(s, &mcp.Tool{Name: "text"}, func(_ context.Context, req *mcp.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "hello " + in.Name, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "raw"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("an image:"),
				mcp.NewImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
			}}, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "nil"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return nil, nil
		})
		s.AddTool(&mcp.Tool{Name: "plain-error"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("plain failure")
		})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)

		res, err := e.callTool(ctx, "fail", `{}`)
		if err != nil || !res.IsError || text(t, res) != "disk on fire" {
			t.Errorf("fail: %v %+v", err, res)
		}
		res, err = e.callTool(ctx, "plain-error", `{}`)
		if err != nil || !res.IsError || text(t, res) != "plain failure" {
			t.Errorf("plain-error: %v %+v", err, res)
		}

		_, err = e.callTool(ctx, "proto", `{}`)
		je := wantCode(t, err, 4001)
		if je.Message != "quota exceeded" || string(je.Data) != `{"retryAfter":30}` {
			t.Errorf("proto: got %+v", je)
		}

		_, err = e.callTool(ctx, "panic", `{}`)
		wantCode(t, err, jsonrpc.CodeInternalError)
		// The session survives the panic.
		if err := e.cs.Ping(ctx); err != nil {
			t.Fatalf("ping after panic: %v", err)
		}

		res, err = e.callTool(ctx, "text", `{"name":"Ada"}`)
		if err != nil || res.IsError || text(t, res) != "hello Ada" || res.StructuredContent != nil {
			t.Errorf("text: %v %+v", err, res)
		}
		if tool := findTool(t, e, "text"); tool.OutputSchema != nil {
			t.Errorf("a string tool declares an output schema: %s", tool.OutputSchema)
		}

		res, err = e.callTool(ctx, "raw", `{}`)
		if err != nil || len(res.Content) != 2 {
			t.Fatalf("raw: %v %+v", err, res)
		}
		if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" {
			t.Errorf("raw: second block %+v", res.Content[1])
		} else if data, err := img.DecodeData(); err != nil || string(data) != "\x89PNG" {
			t.Errorf("raw: image data %q %v", data, err)
		}
		if tool := findTool(t, e, "raw"); tool.OutputSchema != nil {
			t.Errorf("a *CallToolResult tool declares an output schema: %s", tool.OutputSchema)
		}

		res, err = e.callTool(ctx, "nil", `{}`)
		if err != nil || res.IsError || len(res.Content) != 0 {
			t.Errorf("nil: %v %+v", err, res)
		}

		_, err = e.callTool(ctx, "no-such-tool", `{}`)
		wantCode(t, err, jsonrpc.CodeInvalidParams)
	})
}

// rawSchema uses keywords that only survive if the schema is kept as it
// was given: $schema, $defs, $anchor, $ref, oneOf, not, if/then/else, and
// members in an order that is not alphabetical.
const rawSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"properties":{"kind":{"oneOf":[{"const":"a"},{"const":"b"}]},"n":{"$ref":"#positive"},"z":{"not":{"type":"null"}}},` +
	`"required":["kind"],"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["n"]},"else":{"required":["z"]},` +
	`"$defs":{"pos":{"$anchor":"positive","type":"integer","minimum":1}}}`

const rawOutputSchema = `{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`

func TestRawSchemaPreserved(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		s.AddTool(&mcp.Tool{
			Name:         "raw-schema",
			InputSchema:  json.RawMessage(rawSchema),
			OutputSchema: json.RawMessage(rawOutputSchema),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{"sum":1}`)}, nil
		})
		e := connect(t, rev, s, nil)
		tool := findTool(t, e, "raw-schema")
		if string(tool.InputSchema.(json.RawMessage)) != rawSchema {
			t.Errorf("input schema changed:\n got %s\nwant %s", tool.InputSchema, rawSchema)
		}
		if want := rawOutputSchema; !since(rev, mcp.Version20250618) && tool.OutputSchema != nil {
			t.Errorf("output schema %s sent to a %s client", tool.OutputSchema, rev)
		} else if got, _ := tool.OutputSchema.(json.RawMessage); since(rev, mcp.Version20250618) && string(got) != want {
			t.Errorf("output schema changed:\n got %s\nwant %s", tool.OutputSchema, rawOutputSchema)
		}
		// And the server validates against it, $ref to an anchor,
		// conditionals and all.
		ctx := testCtx(t)
		for _, tt := range []struct {
			args string
			ok   bool
		}{
			{`{"kind":"a","n":2}`, true},
			{`{"kind":"a"}`, false},       // then: n required
			{`{"kind":"a","n":0}`, false}, // n via $anchor: minimum 1
			{`{"kind":"b","z":0}`, true},
			{`{"kind":"b"}`, false},          // else: z required
			{`{"kind":"b","z":null}`, false}, // not null
			{`{"kind":"c","z":1}`, false},    // oneOf
			{`{"z":1}`, false},               // kind required
		} {
			res, err := e.callTool(ctx, "raw-schema", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError == tt.ok {
				t.Errorf("args %s: isError = %v, want %v (%+v)", tt.args, res.IsError, !tt.ok, res.Content)
			}
		}
	})
}

// sumTool registers a tool that returns, as structured content, the "out"
// argument it is given, whatever it is: a server that may break its own
// output schema.
func sumTool(t *testing.T, s *mcp.Server) {
	t.Helper()
	err := s.AddTool(&mcp.Tool{
		Name:         "sum",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"out":{}}}`),
		OutputSchema: json.RawMessage(rawOutputSchema),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Out     json.RawMessage `json:"out"`
			IsError bool            `json:"isError"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(args.Out))}, StructuredContent: args.Out, IsError: args.IsError}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// outputCases are results of sumTool, and the complaint each deserves.
var outputCases = []struct {
	args    string
	wantErr string
}{
	{`{"out":{"sum":3}}`, ""},
	{`{"out":{"sum":"three"}}`, "does not match its output schema"},
	{`{"out":{"sum":3,"extra":true}}`, "does not match its output schema"},
	{`{}`, "returned no structured content"},
	// Error results are not checked.
	{`{"isError":true}`, ""},
}

// TestStructuredOutputValidation checks that the client validates
// structured content against the output schema of the tool it calls,
// listing the tools itself (once) when it has not, from a server that does
// not check its own output.
func TestStructuredOutputValidation(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		var lists atomic.Int32
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			SkipOutputValidation: true,
			Receiving: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					if r.Method == mcp.MethodToolsList {
						lists.Add(1)
					}
					return next(ctx, r)
				}
			}},
		})
		sumTool(t, s)
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		for _, tt := range outputCases {
			res, err := e.callTool(ctx, "sum", tt.args)
			if !since(rev, mcp.Version20250618) {
				// No output schemas before 2025-06-18: nothing to check.
				tt.wantErr = ""
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("%s: %v", tt.args, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("%s: error %v, want one containing %q", tt.args, err, tt.wantErr)
			case res == nil:
				t.Errorf("%s: no result returned", tt.args)
			}
		}
		// Structured content, hence a listing, exists from 2025-06-18 on.
		want := int32(0)
		if since(rev, mcp.Version20250618) {
			want = 1
		}
		if n := lists.Load(); n != want {
			t.Errorf("the client listed the tools %d times, want %d", n, want)
		}
	})
}

// TestServerOutputValidation checks that the server does not send
// structured content that contradicts the tool's output schema: such a
// result becomes an error result, unless SkipOutputValidation is set.
func TestServerOutputValidation(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		sumTool(t, s)
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		for _, tt := range outputCases {
			res, err := e.callTool(ctx, "sum", tt.args)
			if err != nil {
				t.Fatalf("%s: %v", tt.args, err)
			}
			if tt.wantErr == "" {
				if res.IsError != strings.Contains(tt.args, "isError") {
					t.Errorf("%s: isError %v (%+v)", tt.args, res.IsError, contentTexts(res))
				}
				continue
			}
			if got := contentTexts(res); !res.IsError || res.StructuredContent != nil || len(got) != 1 || !strings.Contains(got[0], tt.wantErr) {
				t.Errorf("%s: got isError %v, structured %s, content %q; want an error result saying %q",
					tt.args, res.IsError, res.StructuredContent, got, tt.wantErr)
			}
		}
	})
}

func TestResources(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		s.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					&mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "static text"},
				}}, nil
			})
		s.AddResource(&mcp.Resource{URI: "test://blob", Name: "blob", MIMEType: "application/octet-stream"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					mcp.NewBlobResourceContents(req.Params.URI, "application/octet-stream", []byte{0, 1, 2, 255}),
				}}, nil
			})
		// RFC 6570 query expressions ({?limit}) are covered by
		// TestTemplateArgs.
		const tmpl = "test://users/{id}/posts/{page}"
		err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tmpl, Name: "posts"},
			func(_ context.Context, req *mcp.ReadResourceRequest, args map[string]string) (*mcp.ReadResourceResult, error) {
				if args["id"] == "0" {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					&mcp.TextResourceContents{URI: req.Params.URI, Text: fmt.Sprintf("user=%s page=%s", args["id"], args["page"])},
				}}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://{", Name: "bad"}, noTemplate); !errors.Is(err, mcp.ErrInvalidFeature) {
			t.Errorf("AddResourceTemplate accepted an invalid template: %v", err)
		}
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)

		if caps := e.cs.ServerCapabilities().Resources; caps == nil || !caps.Subscribe || !caps.ListChanged {
			t.Errorf("resources capability %+v", caps)
		}
		var uris []string
		for r, err := range e.cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if !slices.Equal(uris, []string{"test://static", "test://blob"}) { // in the order added
			t.Errorf("resources %v", uris)
		}
		tl, err := e.cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != tmpl {
			t.Errorf("templates %v %+v", err, tl)
		}

		read := func(uri string) (mcp.ResourceContents, error) {
			res, err := e.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				return nil, err
			}
			if len(res.Contents) != 1 {
				t.Fatalf("%s: %d contents", uri, len(res.Contents))
			}
			return res.Contents[0], nil
		}
		if c, err := read("test://static"); err != nil || c.(*mcp.TextResourceContents).Text != "static text" {
			t.Errorf("static: %v %+v", err, c)
		}
		if c, err := read("test://blob"); err != nil {
			t.Error(err)
		} else if data, err := c.(*mcp.BlobResourceContents).DecodeData(); err != nil || string(data) != "\x00\x01\x02\xff" {
			t.Errorf("blob: %q %v", data, err)
		}
		if c, err := read("test://users/42/posts/3"); err != nil || c.(*mcp.TextResourceContents).Text != "user=42 page=3" {
			t.Errorf("template: %v %+v", err, c)
		}
		for _, uri := range []string{"test://nope", "test://users/0/posts/1", "test://users/1/comments/1", "test://users/1/posts"} {
			_, err := read(uri)
			je := wantCode(t, err, mcp.CodeResourceNotFound)
			var data struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
				t.Errorf("%s: error data %s, want the uri", uri, je.Data)
			}
		}
	})
}

func TestTemplateArgs(t *testing.T) {
	tests := []struct {
		template, uri string
		want          map[string]string
	}{
		{"test://users/{id}", "test://users/42", map[string]string{"id": "42"}},
		{"test://users/{id}", "test://users/a%20b", map[string]string{"id": "a b"}},
		{"test://users/{id}", "test://posts/42", nil},
		{"test://users/{id}", "test://users/42/x", nil},
		{"file:///{+path}", "file:///a/b/c.txt", map[string]string{"path": "a/b/c.txt"}},
		{"test://search{?q,lang}", "test://search?q=go&lang=en", map[string]string{"q": "go", "lang": "en"}},
		{"test://search{?q,lang}", "test://search?q=go", map[string]string{"q": "go"}},
		{"test://a/{x}/b/{y}", "test://a/1/b/2", map[string]string{"x": "1", "y": "2"}},
		{"test://{", "test://x", nil},
	}
	for _, tt := range tests {
		if got := mcp.TemplateArgs(tt.template, tt.uri); !maps.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("TemplateArgs(%q, %q) = %v, want %v", tt.template, tt.uri, got, tt.want)
		}
	}
}

func TestSubscribe(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		for _, uri := range []string{"test://watched", "test://other"} {
			s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: uri, Text: "x"}}}, nil
			})
		}
		updated := make(chan string, 10)
		e := connect(t, rev, s, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
				updated <- p.URI
			},
		})
		// A second session that subscribes to nothing.
		bystander := connect(t, rev, s, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
				t.Errorf("unsubscribed session told about %s", p.URI)
			},
		})
		ctx := testCtx(t)
		for _, uri := range []string{"test://watched", "test://other"} {
			if err := e.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
		}
		s.ResourceUpdated(ctx, "test://watched")
		if got := recv(t, updated, "resources/updated"); got != "test://watched" {
			t.Errorf("updated %q", got)
		}
		if err := e.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched"}); err != nil {
			t.Fatal(err)
		}
		// Notifications are handled in order, so if the first were sent it
		// would arrive before the second.
		s.ResourceUpdated(ctx, "test://watched")
		s.ResourceUpdated(ctx, "test://other")
		if got := recv(t, updated, "resources/updated"); got != "test://other" {
			t.Errorf("updated %q after unsubscribing, want test://other", got)
		}
		bystander.close(t)
		if n := len(bystander.wire.notifications("server", mcp.NotificationResourceUpdated)); n != 0 {
			t.Errorf("unsubscribed session got %d updates", n)
		}
	})
}

func TestPrompts(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		s.AddPrompt(&mcp.Prompt{
			Name:        "greet",
			Description: "Greets someone.",
			Arguments: []*mcp.PromptArgument{
				{Name: "name", Description: "Who to greet.", Required: true},
				{Name: "style"},
			},
		}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			greeting := "Hello"
			if req.Params.Arguments["style"] == "formal" {
				greeting = "Good day"
			}
			return &mcp.GetPromptResult{
				Description: "A greeting",
				Messages: []*mcp.PromptMessage{
					{Role: mcp.RoleUser, Content: mcp.NewTextContent(greeting + ", " + req.Params.Arguments["name"])},
				},
			}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "broken"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "broken on purpose")
		})
		s.AddPrompt(&mcp.Prompt{Name: "empty"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, nil
		})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)

		if caps := e.cs.ServerCapabilities().Prompts; caps == nil || !caps.ListChanged {
			t.Errorf("prompts capability %+v", caps)
		}
		list, err := e.cs.ListPrompts(ctx, nil)
		if err != nil || len(list.Prompts) != 3 {
			t.Fatalf("prompts: %v %+v", err, list)
		}
		if p := list.Prompts[0]; p.Name != "greet" || p.Description != "Greets someone." || len(p.Arguments) != 2 ||
			p.Arguments[0].Name != "name" || !p.Arguments[0].Required || p.Arguments[1].Required {
			t.Errorf("greet listed as %+v", p)
		}
		get := func(name string, args map[string]string) (*mcp.GetPromptResult, error) {
			return e.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		}
		res, err := get("greet", map[string]string{"name": "Ada", "style": "formal"})
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Good day, Ada" {
			t.Errorf("greet: %v %+v", err, res)
		}
		if _, err := get("greet", map[string]string{"style": "formal"}); err != nil {
			je := wantCode(t, err, jsonrpc.CodeInvalidParams)
			if !strings.Contains(je.Message, `"name"`) {
				t.Errorf("missing argument error %q does not name it", je.Message)
			}
		} else {
			t.Error("greet without its required argument succeeded")
		}
		_, err = get("greet", nil)
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		_, err = get("nope", nil)
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		_, err = get("broken", nil)
		wantCode(t, err, jsonrpc.CodeInvalidParams)
		if res, err := get("empty", nil); err != nil || len(res.Messages) != 0 {
			t.Errorf("empty: %v %+v", err, res)
		}
	})
}

func TestCompletion(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		languages := []string{"go", "gleam", "groovy", "haskell", "python"}
		var many []string
		for i := range 150 {
			many = append(many, fmt.Sprintf("v%03d", i))
		}
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
			CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
				p := req.Params
				switch {
				case p.Ref.Type == mcp.RefTypePrompt && p.Ref.Name == "code" && p.Argument.Name == "language":
					var vals []string
					for _, l := range languages {
						if strings.HasPrefix(l, p.Argument.Value) {
							vals = append(vals, l)
						}
					}
					if p.Context != nil && p.Context.Arguments["style"] == "upper" {
						for i := range vals {
							vals[i] = strings.ToUpper(vals[i])
						}
					}
					return &mcp.CompleteResult{Completion: mcp.Completion{Values: vals, Total: len(vals)}}, nil
				case p.Ref.Type == mcp.RefTypeResource && p.Ref.URI == "test://items/{id}":
					return &mcp.CompleteResult{Completion: mcp.Completion{Values: many}}, nil
				}
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "nothing to complete")
			},
		})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		if got := e.cs.ServerCapabilities().Completions != nil; got != since(rev, mcp.Version20250326) {
			t.Errorf("completions capability advertised: %v (it exists from 2025-03-26 on)", got)
		}
		res, err := e.cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "code"},
			Argument: mcp.CompleteArgument{Name: "language", Value: "g"},
		})
		if err != nil || !slices.Equal(res.Completion.Values, []string{"go", "gleam", "groovy"}) || res.Completion.Total != 3 {
			t.Errorf("complete g: %v %+v", err, res)
		}
		if atLeast(rev, mcp.Version20250618) {
			res, err := e.cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "code"},
				Argument: mcp.CompleteArgument{Name: "language", Value: "h"},
				Context:  &mcp.CompleteContext{Arguments: map[string]string{"style": "upper"}},
			})
			if err != nil || !slices.Equal(res.Completion.Values, []string{"HASKELL"}) {
				t.Errorf("complete with context: %v %+v", err, res)
			}
		}
		// No match is an empty list, never null.
		res, err = e.cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "code"},
			Argument: mcp.CompleteArgument{Name: "language", Value: "z"},
		})
		if err != nil || res.Completion.Values == nil || len(res.Completion.Values) != 0 {
			t.Errorf("complete z: %v %+v", err, res)
		}
		// At most 100 values, with hasMore.
		res, err = e.cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "test://items/{id}"},
			Argument: mcp.CompleteArgument{Name: "id", Value: ""},
		})
		if err != nil || len(res.Completion.Values) != mcp.MaxCompletionValues || !res.Completion.HasMore || res.Completion.Values[99] != "v099" {
			t.Errorf("complete many: %v, %d values, hasMore %v", err, len(res.Completion.Values), res.Completion.HasMore)
		}
		_, err = e.cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "other"},
			Argument: mcp.CompleteArgument{Name: "x"},
		})
		wantCode(t, err, jsonrpc.CodeInvalidParams)
	})
}

func TestLogging(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		logs := make(chan *mcp.LoggingMessageNotificationParams, 10)
		s := mcp.NewServer(serverImpl, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "noisy"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			return "done", req.Log(ctx, mcp.LevelError, "noisy", map[string]any{"step": 1})
		})
		mcp.AddTool(s, &mcp.Tool{Name: "slog"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			logger := slog.New(req.LogHandler(&mcp.LoggingHandlerOptions{Logger: "app"}))
			if logger.Enabled(ctx, slog.LevelInfo) {
				return "", errors.New("info enabled, but the client asked for warning and above")
			}
			logger.Info("filtered out")
			logger.WithGroup("unused").Warn("no attributes") // an empty group is left out
			logger.With("component", "disk").WithGroup("g").With("dev", "sda").WithGroup("empty").
				Warn("disk low", "free", 5, "err", errors.New("nearly full"), slog.Group("detail", "path", "/"), slog.Group("", "inline", true))
			for _, l := range []slog.Level{slog.LevelError, slog.LevelError + 4, slog.LevelError + 8, slog.LevelError + 12} {
				logger.Log(ctx, l, "x")
			}
			// A handler with its own minimum level.
			if req.LogHandler(&mcp.LoggingHandlerOptions{Level: slog.LevelError}).Enabled(ctx, slog.LevelWarn) {
				return "", errors.New("handler with Level error enabled for warnings")
			}
			return "logged", nil
		})
		e := connect(t, rev, s, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) { logs <- p },
		})
		ctx := testCtx(t)
		next := func() *mcp.LoggingMessageNotificationParams { return recv(t, logs, "a log message") }
		log := func(level mcp.LoggingLevel, data string) {
			t.Helper()
			if err := e.ss.Log(ctx, &mcp.LoggingMessageNotificationParams{Level: level, Data: json.RawMessage(data)}); err != nil {
				t.Fatal(err)
			}
		}

		// Before logging/setLevel every level is sent.
		log(mcp.LevelDebug, `"debug 1"`)
		if p := next(); p.Level != mcp.LevelDebug || string(p.Data) != `"debug 1"` {
			t.Errorf("got %+v", p)
		}
		if err := e.cs.SetLoggingLevel(ctx, mcp.LevelWarning); err != nil {
			t.Fatal(err)
		}
		// Notifications are handled in order: the filtered ones would have
		// arrived before the next one that passes.
		log(mcp.LevelInfo, `"info"`)
		log(mcp.LevelNotice, `"notice"`)
		log(mcp.LevelWarning, `"warning"`)
		if p := next(); p.Level != mcp.LevelWarning {
			t.Errorf("got level %v, want warning", p.Level)
		}

		// The slog handler of a request.
		if res, err := e.callTool(ctx, "slog", `{}`); err != nil || text(t, res) != "logged" {
			t.Fatalf("slog: %v %+v", err, res)
		}
		if p := next(); !jsonEqual(t, p.Data, []byte(`{"msg":"no attributes"}`)) {
			t.Errorf("slog data %s", p.Data)
		}
		p := next()
		if p.Level != mcp.LevelWarning || p.Logger != "app" {
			t.Errorf("slog record: level %v logger %q", p.Level, p.Logger)
		}
		want := `{"msg":"disk low","component":"disk","g":{"dev":"sda","empty":{"free":5,"err":"nearly full","detail":{"path":"/"},"inline":true}}}`
		if !jsonEqual(t, p.Data, []byte(want)) {
			t.Errorf("slog data %s, want %s", p.Data, want)
		}
		for _, want := range []mcp.LoggingLevel{mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency} {
			if p := next(); p.Level != want {
				t.Errorf("slog level sent as %v, want %v", p.Level, want)
			}
		}

		// Logs related to a request.
		res, err := e.callTool(ctx, "noisy", `{}`)
		if err != nil || text(t, res) != "done" {
			t.Fatalf("noisy: %v %+v", err, res)
		}
		if p := next(); p.Level != mcp.LevelError || p.Logger != "noisy" || string(p.Data) != `{"step":1}` {
			t.Errorf("request log %+v %s", p, p.Data)
		}
		if err := e.cs.SetLoggingLevel(ctx, mcp.LevelEmergency); err != nil {
			t.Fatal(err)
		}
		log(mcp.LevelAlert, `"alert"`)
		log(mcp.LevelEmergency, `"emergency"`)
		if p := next(); p.Level != mcp.LevelEmergency {
			t.Errorf("got %v, want emergency", p.Level)
		}
	})
}

func TestProgress(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		acks := make(chan *mcp.ProgressNotificationParams)
		s := mcp.NewServer(serverImpl, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Steps int `json:"steps"`
		}) (string, error) {
			if _, ok := req.ProgressToken(); !ok {
				// No progress asked for: NotifyProgress does nothing.
				return "no token", req.NotifyProgress(ctx, 1, 1, "ignored")
			}
			for i := 1; i <= in.Steps; i++ {
				if err := req.NotifyProgress(ctx, float64(i), float64(in.Steps), fmt.Sprintf("step %d", i)); err != nil {
					return "", err
				}
				// Progress is handled on the client's notification lane;
				// wait until it has been, so that none is still queued when
				// the response arrives.
				recv(t, acks, "the client to see progress")
			}
			return "worked", nil
		})
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)
		var got []*mcp.ProgressNotificationParams
		pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
			got = append(got, p)
			acks <- p
		})
		res, err := e.callTool(pctx, "work", `{"steps":3}`)
		if err != nil || text(t, res) != "worked" {
			t.Fatalf("work: %v %+v", err, res)
		}
		if len(got) != 3 {
			t.Fatalf("got %d progress notifications, want 3", len(got))
		}
		for i, p := range got {
			msg := fmt.Sprintf("step %d", i+1)
			if !since(rev, mcp.Version20250326) {
				msg = "" // progress messages exist from 2025-03-26 on
			}
			if p.Progress != float64(i+1) || p.Total != 3 || p.Message != msg || p.ProgressToken != got[0].ProgressToken {
				t.Errorf("progress %d: %+v", i, p)
			}
		}
		res, err = e.callTool(ctx, "work", `{"steps":3}`)
		if err != nil || text(t, res) != "no token" {
			t.Fatalf("work without progress: %v %+v", err, res)
		}
		e.close(t)
		// The token went out in _meta and came back in every notification.
		calls := e.wire.requests("client", mcp.MethodToolsCall)
		var p mcp.CallToolParams
		if err := json.Unmarshal(calls[0].m.Params, &p); err != nil || p.Meta == nil || p.Meta.ProgressToken != got[0].ProgressToken {
			t.Errorf("first call's _meta: %s", calls[0].m.Params)
		}
		var p2 mcp.CallToolParams
		if err := json.Unmarshal(calls[1].m.Params, &p2); err != nil || p2.Meta != nil {
			t.Errorf("second call has _meta: %s", calls[1].m.Params)
		}
		if n := len(e.wire.notifications("server", mcp.NotificationProgress)); n != 3 {
			t.Errorf("server sent %d progress notifications, want 3", n)
		}
	})
}

// collect drains an iterator, failing on its first error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error], name func(T) string) []string {
	t.Helper()
	var out []string
	for x, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, name(x))
	}
	return out
}

func TestPagination(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{PageSize: 2})
		var names []string
		for i := 1; i <= 5; i++ {
			name := fmt.Sprintf("item%d", i)
			names = append(names, name)
			s.AddTool(&mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
			s.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil })
			s.AddResource(&mcp.Resource{URI: "test://" + name, Name: name}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
			if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://" + name + "/{x}", Name: name}, noTemplate); err != nil {
				t.Fatal(err)
			}
		}
		e := connect(t, rev, s, nil)
		ctx := testCtx(t)

		// Page by page.
		var pages [][]string
		cursor := ""
		for {
			res, err := e.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			var page []string
			for _, tool := range res.Tools {
				page = append(page, tool.Name)
			}
			pages = append(pages, page)
			if res.NextCursor == "" {
				break
			}
			cursor = res.NextCursor
			if len(pages) > 5 {
				t.Fatal("pagination does not end")
			}
		}
		if fmt.Sprint(pages) != "[[item1 item2] [item3 item4] [item5]]" {
			t.Errorf("pages %v", pages)
		}

		// The iterators fetch every page.
		tools := collect(t, e.cs.Tools(ctx, nil), func(x *mcp.Tool) string { return x.Name })
		prompts := collect(t, e.cs.Prompts(ctx, nil), func(x *mcp.Prompt) string { return x.Name })
		resources := collect(t, e.cs.Resources(ctx, nil), func(x *mcp.Resource) string { return x.Name })
		templates := collect(t, e.cs.ResourceTemplates(ctx, nil), func(x *mcp.ResourceTemplate) string { return x.Name })
		for what, got := range map[string][]string{"tools": tools, "prompts": prompts, "resources": resources, "templates": templates} {
			if !slices.Equal(got, names) {
				t.Errorf("%s iterator yielded %v", what, got)
			}
		}
		// Stopping early fetches no more pages.
		before := len(e.wire.requests("client", mcp.MethodToolsList))
		for range e.cs.Tools(ctx, nil) {
			break
		}
		if n := len(e.wire.requests("client", mcp.MethodToolsList)) - before; n != 1 {
			t.Errorf("breaking after the first tool fetched %d pages", n)
		}

		// A cursor names the last item of its page: removing an earlier
		// item skips nothing, and removing that item invalidates the
		// cursor (the client starts again) rather than skipping silently.
		first, err := e.cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.RemoveTools("item1")
		second, err := e.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: first.NextCursor})
		if err != nil || len(second.Tools) != 2 || second.Tools[0].Name != "item3" {
			t.Errorf("page after removing an earlier item: %v %+v", err, second)
		}
		s.RemoveTools("item2")
		_, err = e.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: first.NextCursor})
		wantCode(t, err, jsonrpc.CodeInvalidParams)

		// Bad cursors.
		for _, cursor := range []string{"!!!", "bm90IG91cnM", "AAAA"} {
			_, err := e.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			wantCode(t, err, jsonrpc.CodeInvalidParams)
			_, err = e.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			wantCode(t, err, jsonrpc.CodeInvalidParams)
			_, err = e.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			wantCode(t, err, jsonrpc.CodeInvalidParams)
			_, err = e.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			wantCode(t, err, jsonrpc.CodeInvalidParams)
		}
		var iterErr error
		for _, err := range e.cs.Tools(ctx, &mcp.ListToolsParams{Cursor: "!!!"}) {
			iterErr = err
		}
		wantCode(t, iterErr, jsonrpc.CodeInvalidParams)
	})
}

func TestListChanged(t *testing.T) {
	forEachRev(t, func(t *testing.T, rev string) {
		s := mcp.NewServer(serverImpl, nil)
		noTool := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
		noPrompt := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
		noResource := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }
		s.AddTool(&mcp.Tool{Name: "first"}, noTool)
		s.AddPrompt(&mcp.Prompt{Name: "first"}, noPrompt)
		s.AddResource(&mcp.Resource{URI: "test://first", Name: "first"}, noResource)

		changed := make(chan string, 100)
		e := connect(t, rev, s, &mcp.ClientOptions{
			ToolListChangedHandler:     func(context.Context, *mcp.ClientSession) { changed <- "tools" },
			PromptListChangedHandler:   func(context.Context, *mcp.ClientSession) { changed <- "prompts" },
			ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "resources" },
		})
		ctx := testCtx(t)
		expect := func(what string) {
			t.Helper()
			if got := recv(t, changed, what+" list_changed"); got != what {
				t.Fatalf("got %s list_changed, want %s", got, what)
			}
		}
		s.AddTool(&mcp.Tool{Name: "second"}, noTool)
		expect("tools")
		s.RemoveTools("first")
		expect("tools")
		s.RemoveTools("no-such-tool") // nothing changed, nothing sent
		s.AddPrompt(&mcp.Prompt{Name: "second"}, noPrompt)
		expect("prompts")
		s.RemovePrompts("first")
		expect("prompts")
		s.AddResource(&mcp.Resource{URI: "test://second", Name: "second"}, noResource)
		expect("resources")
		if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{x}", Name: "t"}, noTemplate); err != nil {
			t.Fatal(err)
		}
		expect("resources")
		s.RemoveResources("test://first")
		expect("resources")
		s.RemoveResourceTemplates("test://t/{x}")
		expect("resources")

		// A burst of changes is coalesced.
		for i := range 10 {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("burst%d", i)}, noTool)
		}
		expect("tools")
		res, err := e.cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 11 {
			t.Errorf("after the burst: %v, %d tools", err, len(res.Tools))
		}
		e.close(t)
		// Two single changes, then the burst: had it not been coalesced
		// it would have sent ten.
		if n := len(e.wire.notifications("server", mcp.NotificationToolListChanged)); n > 7 {
			t.Errorf("server sent %d tools/list_changed for 2 changes and a burst of 10", n)
		}
		for len(changed) > 0 {
			if what := <-changed; what != "tools" {
				t.Errorf("unexpected %s list_changed", what)
			}
		}
	})
}

// since reports whether revision rev is first or later than first, by their
// order in SupportedVersions (newest first).
func since(rev, first string) bool {
	return slices.Index(mcp.SupportedVersions(), rev) <= slices.Index(mcp.SupportedVersions(), first)
}

// TestOutputSchemaRelistedAfterChange checks that the client forgets the
// output schemas it learnt when the tool list changes, and lists the tools
// again to check the next structured content.
func TestOutputSchemaRelistedAfterChange(t *testing.T) {
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{SkipOutputValidation: true})
	sumTool(t, s)
	changed := make(chan struct{}, 1)
	e := connect(t, mcp.Version20251125, s, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
	})
	ctx := testCtx(t)
	if _, err := e.callTool(ctx, "sum", `{"out":{"sum":3}}`); err != nil {
		t.Fatal(err)
	}
	// The same tool, now promising a string sum.
	err := s.AddTool(&mcp.Tool{
		Name:         "sum",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"out":{}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"string"}}}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{"sum":3}`)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recv(t, changed, "tools/list_changed")
	if _, err := e.callTool(ctx, "sum", `{}`); err == nil || !strings.Contains(err.Error(), "does not match its output schema") {
		t.Errorf("after the change: error %v, want the new schema's mismatch", err)
	}
}

// TestOutputSchemaListingRefused checks that a client whose server refuses
// tools/list returns results unchecked, and asks only once.
func TestOutputSchemaListingRefused(t *testing.T) {
	var lists atomic.Int32
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
		SkipOutputValidation: true,
		Receiving: []mcp.Middleware{func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if r.Method == mcp.MethodToolsList {
					lists.Add(1)
					return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "no list today")
				}
				return next(ctx, r)
			}
		}},
	})
	sumTool(t, s)
	e := connect(t, mcp.Version20251125, s, nil)
	ctx := testCtx(t)
	for range 3 {
		if _, err := e.callTool(ctx, "sum", `{"out":{"sum":"three"}}`); err != nil {
			t.Fatalf("unchecked result: %v", err)
		}
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("the client asked for the tools %d times, want once", n)
	}
}
