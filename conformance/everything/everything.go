// Package everything builds the "everything server": a server with every
// fixture the official MCP conformance suite drives (tools, resources,
// templates, prompts, completion, logging, progress, sampling and
// elicitation). The names and contents follow the suite's scenarios exactly.
package everything

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Fixture data shared with the suite's reference server.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// JSONSchema202012 is the input schema of json_schema_2020_12_tool, which
// the suite expects back byte for byte.
const JSONSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

// Options configures NewServer.
type Options struct {
	// Logger receives server diagnostics.
	Logger *slog.Logger
	// Step is the pause between the notifications of the logging and
	// progress tools. Default 50ms.
	Step time.Duration
	// Configure, if set, may change the server's options before the server
	// is made: it is how a wrapper adds middleware (the OpenTelemetry
	// instrumentation of the otel module, say) without this package
	// depending on it.
	Configure func(*mcp.ServerOptions)
	// TaskStore keeps the tasks; replicas sharing one (and the server's
	// Notifier) serve the same tasks. Default: tasks.NewMemoryStore.
	TaskStore tasks.TaskStore
}

type none struct{}

type promptIn struct {
	Prompt string `json:"prompt" description:"the prompt to send to the client's model"`
}

type messageIn struct {
	Message string `json:"message" description:"the message to show the user"`
}

// NewServer returns the everything server, or the errors of the fixtures
// it could not register.
func NewServer(opts *Options) (*mcp.Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Step <= 0 {
		o.Step = 50 * time.Millisecond
	}
	so := &mcp.ServerOptions{
		Instructions:      "The gomcp conformance fixture server.",
		Logger:            o.Logger,
		CompletionHandler: complete,
	}
	if o.Configure != nil {
		o.Configure(so)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gomcp-everything-server", Version: "1.0.0"}, so)
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	addTools(s, o.Step, add)
	addModernTools(s, add)
	addTasks(s, o.TaskStore, add)
	addResources(s, add)
	addPrompts(s, add)
	addSkills(s, add)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(s)}}
}

func image() *mcp.ImageContent { return &mcp.ImageContent{Data: pngBase64, MIMEType: "image/png"} }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func addTools(s *mcp.Server, step time.Duration, add func(error)) {
	// test_simple_text comes first: some scenarios call the first tool listed.
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_simple_text", Description: "Returns a simple text response"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return text("This is a simple text response for testing."), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_image_content", Description: "Returns an image"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{image()}}, nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_audio_content", Description: "Returns audio"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavBase64, MIMEType: "audio/wav"}}}, nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_embedded_resource", Description: "Returns an embedded resource"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(&mcp.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
			})}}, nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_multiple_content_types", Description: "Returns text, an image and a resource"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("Multiple content types test:"),
				image(),
				mcp.NewEmbeddedResource(&mcp.TextResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
				}),
			}}, nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, step); err != nil {
						return nil, err
					}
				}
				if err := req.Log(ctx, mcp.LevelInfo, "everything", msg); err != nil {
					return nil, err
				}
			}
			return text("Logging test completed"), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_error_handling", Description: "Always fails"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, error) {
			return nil, errors.New("This tool intentionally returns an error for testing") //lint:ignore ST1005 the suite expects this exact text
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50, 100 of 100"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, step); err != nil {
						return nil, err
					}
				}
				if err := req.NotifyProgress(ctx, p, 100, fmt.Sprintf("progress %v%%", p)); err != nil {
					return nil, err
				}
			}
			return text("Progress test completed"), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Asks the client's model to answer a prompt"},
		func(ctx context.Context, req *mcp.CallToolRequest, in promptIn) (*mcp.CallToolResult, error) {
			res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent(in.Prompt)}}},
				MaxTokens: 100,
			})
			if err != nil {
				return nil, err
			}
			answer := ""
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					answer += t.Text
				}
			}
			return text("LLM response: " + answer), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Asks the user for a username and an email"},
		func(ctx context.Context, req *mcp.CallToolRequest, in messageIn) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message: in.Message,
				RequestedSchema: &mcp.ElicitSchema{
					Properties: []mcp.ElicitProperty{
						{Name: "username", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Description: "User's response"}},
						{Name: "email", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Description: "User's email address"}},
					},
					Required: []string{"username", "email"},
				},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("User response: <action: %s, content: %s>", res.Action, jsonString(res.Content))), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits a form whose fields have defaults (SEP-1034)"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message: "Please review your profile",
				RequestedSchema: &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{
					{Name: "name", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Description: "User name", Default: "John Doe"}},
					{Name: "age", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaInteger, Description: "User age", Default: 30}},
					{Name: "score", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaNumber, Description: "User score", Default: 95.5}},
					{Name: "status", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Description: "User status", Enum: []string{"active", "inactive", "pending"}, Default: "active"}},
					{Name: "verified", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaBoolean, Description: "Verified", Default: true}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, jsonString(res.Content))), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits every kind of enum field (SEP-1330)"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message: "Please choose your options",
				RequestedSchema: &mcp.ElicitSchema{Properties: []mcp.ElicitProperty{
					{Name: "untitledSingle", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Enum: []string{"option1", "option2", "option3"}}},
					{Name: "titledSingle", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, OneOf: []mcp.EnumOption{
						{Const: "value1", Title: "First Option"}, {Const: "value2", Title: "Second Option"}, {Const: "value3", Title: "Third Option"},
					}}},
					{Name: "legacyEnum", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaString, Enum: []string{"opt1", "opt2", "opt3"},
						EnumNames: []string{"Option One", "Option Two", "Option Three"}}},
					{Name: "untitledMulti", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaArray, Items: &mcp.EnumItems{Type: mcp.SchemaString, Enum: []string{"option1", "option2", "option3"}}}},
					{Name: "titledMulti", Schema: &mcp.PrimitiveSchema{Type: mcp.SchemaArray, Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{
						{Const: "value1", Title: "First Choice"}, {Const: "value2", Title: "Second Choice"}, {Const: "value3", Title: "Third Choice"},
					}}}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, jsonString(res.Content))), nil
		}))
	add(mcp.AddTool(s, &mcp.Tool{Name: "test_reconnection", Description: "Closes its SSE stream before answering; the client must resume (SEP-1699)"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, error) {
			// Over Streamable HTTP this ends the POST's connection; the
			// answer is kept in the event store and delivered when the
			// client comes back with Last-Event-ID. Elsewhere it does nothing.
			mcphttp.CloseSSEStream(ctx)
			if err := sleep(ctx, 2*step); err != nil {
				return nil, err
			}
			return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
		}))
	add(s.AddTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: json.RawMessage(JSONSchema202012),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("Received: " + string(req.Params.Arguments)), nil
	}))
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func addResources(s *mcp.Server, add func(error)) {
	add(s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource.",
			}}}, nil
		}))
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	add(s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (a PNG image)", MIMEType: "image/png"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.NewBlobResourceContents(req.Params.URI, "image/png", png)}}, nil
		}))
	add(s.AddResource(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource clients can subscribe to", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "text/plain", Text: "Watched resource content",
			}}}, nil
		}))
	const tmpl = "test://template/{id}/data"
	add(s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tmpl, Name: "template-data", Description: "A resource template with an id", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest, vars map[string]string) (*mcp.ReadResourceResult, error) {
			id := vars["id"]
			body := jsonString(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{
				URI: req.Params.URI, MIMEType: "application/json", Text: body,
			}}}, nil
		}))
}

func userText(s string) *mcp.PromptMessage {
	return &mcp.PromptMessage{Role: mcp.RoleUser, Content: mcp.NewTextContent(s)}
}

func addPrompts(s *mcp.Server, add func(error)) {
	add(s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{userText("This is a simple prompt for testing.")}}, nil
		}))
	add(s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])),
			}}, nil
		}))
	add(s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.NewEmbeddedResource(&mcp.TextResourceContents{
					URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing.",
				})},
				userText("Please process the embedded resource above."),
			}}, nil
		}))
	add(s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: image()},
				userText("Please analyze the image above."),
			}}, nil
		}))
}

// complete suggests values for prompt and template arguments.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var vals []string
	switch req.Params.Argument.Name {
	case "arg1", "arg2":
		vals = []string{req.Params.Argument.Value + "-completed"}
	case "id":
		vals = []string{"1", "2", "3"}
	}
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: vals, Total: len(vals)}}, nil
}
