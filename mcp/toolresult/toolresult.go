// Package toolresult builds the common results of a tool handler in one
// call: a text result, an error result the model reads, a structured
// result. They are the helpers mcp-go users know as NewToolResultText,
// NewToolResultError and NewToolResultStructured, kept beside package mcp
// rather than in it, so that mcp stays the protocol and its types:
//
//	func weather(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
//		city, err := cityOf(req)
//		if err != nil {
//			return toolresult.Errorf("no city: %v", err), nil
//		}
//		return toolresult.Text("Sunny in " + city), nil
//	}
//
// An error result (IsError) is a tool failure the model sees and may
// correct, as the specification asks for bad arguments and failed
// operations; a Go error returned by a ToolHandler becomes one too, and a
// *jsonrpc.Error a protocol error instead.
package toolresult

import (
	"encoding/json"
	"fmt"

	"github.com/gomcp/sdk/mcp"
)

// Text returns a result of one text block.
func Text(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// Error returns an error result (IsError) of one text block: the model
// reads text as what went wrong.
func Error(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// Errorf is Error with the text formatted as by fmt.Sprintf.
func Errorf(format string, args ...any) *mcp.CallToolResult {
	return Error(fmt.Sprintf(format, args...))
}

// JSON returns a result whose structured content is v's JSON, with the
// same JSON as its one text block for clients that predate structured
// output (2025-06-18). v must encode to a JSON object unless every client
// speaks 2026-07-28; a tool that sends it should declare an OutputSchema
// v matches. It fails only if v cannot be encoded, so that a handler can
// end with return toolresult.JSON(v).
func JSON(v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("toolresult: encoding structured content: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: raw}, nil
}

// Structured is JSON with text of your own as the text block, for
// clients that do not read structured content.
func Structured(v any, text string) (*mcp.CallToolResult, error) {
	res, err := JSON(v)
	if err != nil {
		return nil, err
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	return res, nil
}
