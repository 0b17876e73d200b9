package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/jsonschema"
)

// A ToolHandler answers tools/call for one tool with a result it builds
// itself. The arguments in req.Params.Arguments have already been validated
// against the tool's input schema (defaults filled in).
//
// Returning an error makes the result an error result (isError: true) whose
// text is the error's message, as the spec asks for tool failures. Return a
// *jsonrpc.Error to send a protocol error instead.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// A ToolHandlerFor is a typed tool handler: it receives the arguments decoded
// into In and returns Out, which becomes the tool's structured output.
//
// Out decides the result's shape:
//   - *CallToolResult is sent as it is;
//   - string becomes one text content block, with no output schema;
//   - any other type is sent as structuredContent, with its JSON also as a
//     text block for clients that predate structured output, and its
//     output schema inferred from Out.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (Out, error)

type serverTool struct {
	tool      *Tool
	handler   ToolHandler
	validator *jsonschema.Validator // nil when the input schema could not be compiled
	headers   []ParamHeader         // x-mcp-header arguments (SEP-2243)
}

var objectSchema = json.RawMessage(`{"type":"object"}`)

// AddTool adds or replaces a tool whose handler builds its own results.
// t.InputSchema is kept byte for byte as given (a nil schema means any
// object); arguments are validated against it before h runs.
func (s *Server) AddTool(t *Tool, h ToolHandler) {
	if t.InputSchema == nil {
		t.InputSchema = objectSchema
	}
	st := &serverTool{tool: t, handler: h}
	if hdrs, err := ParamHeaders(t.InputSchema); err == nil {
		st.headers = hdrs
	} else {
		s.log.Warn("mcp: tool has invalid x-mcp-header annotations; 2026-07-28 clients will not call it", "tool", t.Name, "err", err)
	}
	if v, err := jsonschema.Compile(t.InputSchema); err == nil {
		st.validator = v
	} else {
		s.log.Warn("mcp: tool input schema does not compile; arguments will not be validated", "tool", t.Name, "err", err)
	}
	s.tools.put([]string{t.Name}, []*serverTool{st})
	s.notifyListChanged(NotificationToolListChanged)
}

// AddTool adds or replaces a typed tool. Unless t sets them, the input
// schema is inferred from In and the output schema from Out (see
// ToolHandlerFor). It panics if a schema cannot be inferred, which is a
// programming error caught the first time the server starts.
func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		t.InputSchema = mustInfer[In]("input", t.Name)
	}
	structured := structuredOutput[Out]()
	if t.OutputSchema == nil && structured {
		t.OutputSchema = mustInfer[Out]("output", t.Name)
	}
	s.AddTool(t, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var in In
		if args := req.Params.Arguments; len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return errorResult(fmt.Errorf("invalid arguments: %v", err)), nil
			}
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		switch o := any(out).(type) {
		case *CallToolResult:
			return o, nil
		case string:
			return &CallToolResult{Content: []Content{&TextContent{Text: o}}}, nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding tool output: %w", err)
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: string(raw)}}, StructuredContent: raw}, nil
	})
}

// structuredOutput reports whether a typed tool's Out is sent as structured
// content.
func structuredOutput[Out any]() bool {
	switch reflect.TypeFor[Out]() {
	case reflect.TypeFor[*CallToolResult](), reflect.TypeFor[string]():
		return false
	}
	return true
}

// mustInfer infers the schema of T, which must describe a JSON object.
func mustInfer[T any](what, tool string) json.RawMessage {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || t == reflect.TypeFor[json.RawMessage]() {
		return objectSchema
	}
	schema, err := jsonschema.ForType(t)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %q: cannot infer %s schema: %v", tool, what, err))
	}
	var probe struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(schema, &probe) != nil || probe.Type != "object" {
		panic(fmt.Sprintf("mcp: tool %q: %s type %s is not a JSON object", tool, what, t))
	}
	return schema
}

// Tool returns the tool registered under name.
func (s *Server) Tool(name string) (*Tool, bool) {
	st, ok := s.tools.get(name)
	if !ok {
		return nil, false
	}
	return st.tool, true
}

// RemoveTools removes tools by name; connected clients are told.
func (s *Server) RemoveTools(names ...string) {
	if s.tools.remove(names...) {
		s.notifyListChanged(NotificationToolListChanged)
	}
}

func errorResult(err error) *CallToolResult {
	return &CallToolResult{IsError: true, Content: []Content{&TextContent{Text: err.Error()}}}
}

func (s *Server) handleListTools(_ context.Context, r *Request) (any, error) {
	var p ListToolsParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	tools, next, err := s.tools.page(p.Cursor, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	res := &ListToolsResult{Tools: make([]*Tool, len(tools)), NextCursor: next}
	for i, t := range tools {
		res.Tools[i] = t.tool
	}
	return res, nil
}

func (s *Server) handleCallTool(ctx context.Context, r *Request) (any, error) {
	var p CallToolParams
	if err := decodeCallToolParams(r.Params, r.meta, &p); err != nil {
		return nil, err
	}
	st, ok := s.tools.get(p.Name)
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown tool %q", p.Name)
	}
	if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
		p.Arguments = json.RawMessage("{}")
	}
	if r.rc != nil && len(st.headers) > 0 {
		if err := checkParamHeaders(ctx, st.headers, p.Arguments); err != nil {
			return nil, err
		}
	}
	if st.validator != nil {
		if err := st.validator.Validate(p.Arguments); err != nil {
			return errorResult(fmt.Errorf("invalid arguments for tool %q: %v", p.Name, err)), nil
		}
		if filled, err := st.validator.ApplyDefaults(p.Arguments); err == nil {
			p.Arguments = filled
		}
	}
	if err := s.beginInput(r.rc, func() string { return bindingOf(r.Method, p.Name, p.Arguments) }, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	res, err := st.handler(ctx, newServerRequest(r, &p, p.Meta))
	if ir, err, ok := s.finishInput(r.rc, err); ok {
		return ir, err
	}
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, je
		}
		return errorResult(err), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return res, nil
}

// decodeCallToolParams reads tools/call params in one pass over their
// members: the name is unquoted, the arguments are a sub-slice of params
// (which the message owns, so no copy is needed), and _meta is taken from
// meta when route has already decoded it. Anything unusual (escaped or
// unknown member names, which encoding/json would match case-insensitively,
// or non-string values) falls back to decodeParams, so results and errors
// are exactly encoding/json's.
func decodeCallToolParams(params json.RawMessage, meta *Meta, p *CallToolParams) error {
	if len(params) == 0 {
		return nil
	}
	simple := true
	err := eachMember(params, func(k, v []byte) error {
		switch string(k) {
		case `"name"`:
			s, ok := unquote(v)
			if !ok {
				simple = false
				return errSyntax
			}
			p.Name = s
		case `"arguments"`:
			if string(v) != "null" {
				p.Arguments = json.RawMessage(v)
			}
		case `"_meta"`:
			if string(v) == "null" {
				return nil
			}
			if meta != nil {
				p.Meta = meta
				return nil
			}
			p.Meta = new(Meta)
			return p.Meta.UnmarshalJSON(v)
		case `"task"`, `"inputResponses"`, `"requestState"`:
			// Rare members: let encoding/json read them below.
			return json.Unmarshal(append(append([]byte("{"), k...), append(append([]byte(":"), v...), '}')...), p)
		default:
			simple = false
			return errSyntax
		}
		return nil
	})
	if err == nil {
		return nil
	}
	if simple {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	*p = CallToolParams{}
	return decodeParams(params, p)
}
