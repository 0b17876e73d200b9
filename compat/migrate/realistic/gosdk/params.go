package gosdkserver

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RequiredParam returns the argument name, which must be present, non-zero
// and of type T. JSON numbers arrive as float64.
func RequiredParam[T comparable](args map[string]any, name string) (T, error) {
	var zero T
	v, ok := args[name]
	if !ok {
		return zero, fmt.Errorf("missing required parameter: %s", name)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("parameter %s is not of type %T, is %T", name, zero, v)
	}
	if t == zero {
		return zero, fmt.Errorf("missing required parameter: %s", name)
	}
	return t, nil
}

// RequiredInt is RequiredParam for an integer parameter.
func RequiredInt(args map[string]any, name string) (int, error) {
	f, err := RequiredParam[float64](args, name)
	return int(f), err
}

// OptionalParam returns the argument name if present, or T's zero value.
func OptionalParam[T any](args map[string]any, name string) (T, error) {
	var zero T
	v, ok := args[name]
	if !ok || v == nil {
		return zero, nil
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("parameter %s is not of type %T, is %T", name, zero, v)
	}
	return t, nil
}

// OptionalIntWithDefault returns the integer argument name, or def.
func OptionalIntWithDefault(args map[string]any, name string, def int) (int, error) {
	f, err := OptionalParam[float64](args, name)
	if err != nil {
		return 0, err
	}
	if f == 0 {
		return def, nil
	}
	return int(f), nil
}

// OptionalStringArray returns the argument name as strings.
func OptionalStringArray(args map[string]any, name string) ([]string, error) {
	raw, err := OptionalParam[[]any](args, name)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("parameter %s: element is %T, not string", name, v)
		}
		out = append(out, s)
	}
	return out, nil
}

// ownerRepo reads the two parameters almost every tool takes.
func ownerRepo(args map[string]any) (string, string, error) {
	owner, err := RequiredParam[string](args, "owner")
	if err != nil {
		return "", "", err
	}
	repo, err := RequiredParam[string](args, "repo")
	if err != nil {
		return "", "", err
	}
	return owner, repo, nil
}

// textError is the tool result for an error the model should see and may
// correct; the call itself succeeded.
func textError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: msg}},
		IsError: true,
	}
}

// textResult is a plain text tool result.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// jsonResult marshals v as the text of the result, as REST-backed servers do.
func jsonResult(v any) (*mcp.CallToolResult, any, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to marshal result: %w", err)
	}
	return textResult(string(b)), nil, nil
}
