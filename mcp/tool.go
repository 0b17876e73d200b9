package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/gomcp/sdk/internal/mcpheader"
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
// Out decides the result's shape. The rule is that a tool sends structured
// content exactly when it advertises an output schema, and the content
// matches the schema:
//   - *CallToolResult is sent as it is;
//   - string becomes one text content block, with no output schema;
//   - *ToolResult[T] sends T as structuredContent, with the output schema
//     inferred from T, and lets the handler set isError, the content and
//     _meta too;
//   - an interface type (any) or json.RawMessage has no schema to infer:
//     unless the Tool sets OutputSchema, the tool advertises none, and the
//     value is sent by its dynamic type (a *CallToolResult as it is, a
//     string as text, anything else as one text block holding its JSON),
//     never as structured content;
//   - any other type is sent as structuredContent, with its JSON also as a
//     text block for clients that predate structured output, and its
//     output schema inferred from Out.
//
// Structured content must be a JSON object before 2026-07-28. A type whose
// schema is not an object (a number, a slice, a named type such as
// type Celsius float64 or type Mood string) is therefore wrapped, so that
// one tool list serves every revision: the output schema is
// {"type":"object","properties":{"result":S},"required":["result"]} and the
// structured content {"result":value}.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (Out, error)

// A ToolResult is the Out of a typed tool (ToolHandlerFor) that returns
// structured output and also needs the rest of a result: an error result
// that still carries data, content of its own, or _meta. Use it as
// *ToolResult[T]; the output schema is inferred from T. A nil
// *ToolResult[T] is the same as a zero one.
type ToolResult[T any] struct {
	// Structured is sent as structuredContent, as {"result": Structured}
	// when T is not a JSON object (see ToolHandlerFor). The server and
	// clients check it against the output schema unless IsError is set.
	Structured T
	// IsError marks the result as a tool failure the model should see.
	IsError bool
	// Content, when not nil, is the result's content exactly as given, in
	// place of the default: one text block holding Structured's JSON, for
	// clients that predate structured output. Include such a block
	// yourself if those clients matter and you set Content.
	Content []Content
	// Meta is sent as the result's _meta.
	Meta *Meta
}

// toolResult is implemented by *ToolResult[T], whatever T: it is how AddTool
// recognises the wrapper, by its method set rather than by its name.
type toolResult interface {
	// structuredType is T, whose schema is the output schema. It is called
	// on a nil pointer.
	structuredType() reflect.Type
	// callToolResult builds the wire result; wrap puts the structured
	// value under "result" (see ToolHandlerFor).
	callToolResult(wrap bool) (*CallToolResult, error)
}

func (*ToolResult[T]) structuredType() reflect.Type { return reflect.TypeFor[T]() }

func (r *ToolResult[T]) callToolResult(wrap bool) (*CallToolResult, error) {
	if r == nil {
		r = &ToolResult[T]{}
	}
	res, err := structuredResult(r.Structured, wrap)
	if err != nil {
		return nil, err
	}
	if r.Content != nil {
		res.Content = r.Content
	}
	res.IsError = r.IsError
	res.Meta = r.Meta
	return res, nil
}

// structuredResult encodes out once, as structuredContent and as the JSON
// text block that mirrors it. wrap sends {"result": out} instead.
func structuredResult(out any, wrap bool) (*CallToolResult, error) {
	if wrap {
		out = wrappedOutput{out}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding tool output: %w", err)
	}
	return &CallToolResult{Content: []Content{&TextContent{Text: string(raw)}}, StructuredContent: raw}, nil
}

// wrappedOutput is the structured content of a tool whose output type is
// not a JSON object.
type wrappedOutput struct {
	Result any `json:"result"`
}

type serverTool struct {
	tool    *Tool
	handler ToolHandler
	headers []mcpheader.ParamHeader // x-mcp-header arguments (SEP-2243)
	// validators returns the compiled schemas, compiled when compileTime
	// says.
	validators func() (toolValidators, error)
}

// toolValidators are a tool's compiled schemas.
type toolValidators struct {
	in  *jsonschema.Validator
	out *jsonschema.Validator // nil when results are not checked
}

// compileTime says when a tool's schemas are compiled.
type compileTime int

const (
	// compileAtRegistration is for schemas the caller wrote: their errors
	// belong to AddTool.
	compileAtRegistration compileTime = iota
	// compileAtFirstCall is for schemas inferred from Go types that have
	// no custom schema (jsonschema.Schemer) in them: those cannot fail to
	// compile, so compiling them can wait for the tool's first call. A
	// server then starts sooner (compiling is most of what a typed AddTool
	// costs a starting process) and compiles only the tools it is asked
	// to run.
	compileAtFirstCall
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// AddTool adds or replaces a tool whose handler builds its own results.
// t.InputSchema may be any value whose JSON is the schema (see Tool): it
// is encoded once, here, and those bytes are served as they are (a
// json.RawMessage byte for byte; a nil schema means any object);
// arguments are validated against it before h runs. The server keeps a
// copy of t: changing t, or the schema value, afterwards changes nothing.
//
// When t has an OutputSchema, every result that is not an error result
// must carry structured content matching it (unless
// ServerOptions.SkipOutputValidation is set); one that does not is
// replaced by an error result saying so, so that no client receives output
// that contradicts the schema it was given.
//
// A tool clients could not use is refused: AddTool registers nothing and
// returns a *RegistrationError (wrapping ErrInvalidFeature) when the name is
// not 1 to 128 characters of [A-Za-z0-9_.-], when either schema cannot be
// encoded, is not a JSON object with "type": "object" or does not
// compile, when an
// x-mcp-header annotation is invalid (see SEP-2243), or when t or h is
// nil.
func (s *Server) AddTool(t *Tool, h ToolHandler) error {
	if t == nil {
		return s.refuse(&RegistrationError{Kind: featureTool, Err: errNilFeature})
	}
	in, out, err := toolSchemas(t)
	if err != nil {
		return s.refuse(&RegistrationError{Kind: featureTool, Name: t.Name, Err: err})
	}
	if in == nil {
		in = objectSchema
	}
	return s.addTool(t, in, out, h, compileAtRegistration)
}

// toolSchemas returns the JSON of t's schemas, given as any values (see
// Tool.InputSchema); nil for one not given.
func toolSchemas(t *Tool) (in, out json.RawMessage, err error) {
	if in, err = schemaJSON(t.InputSchema); err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if out, err = schemaJSON(t.OutputSchema); err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	return in, out, nil
}

// schemaJSON is jsonschema.Raw without checking raw JSON, which
// checkObjectSchema does.
func schemaJSON(schema any) (json.RawMessage, error) {
	if raw, ok := schema.(json.RawMessage); ok {
		if len(raw) == 0 {
			return nil, nil
		}
		return raw, nil
	}
	return jsonschema.Raw(schema)
}

// schemaBytes returns the JSON of a schema a Tool holds: the server's
// copies and decoded tools hold json.RawMessage; any other value is
// encoded now, nil if it cannot be.
func schemaBytes(schema any) json.RawMessage {
	raw, _ := schemaJSON(schema)
	return raw
}

// schemaValue is raw as a Tool holds it: nil, not a nil json.RawMessage,
// for no schema.
func schemaValue(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return raw
}

// addTool checks a tool whose schemas are in and out, and registers a copy
// of t with them only if all is well. t itself is never changed.
func (s *Server) addTool(t *Tool, in, out json.RawMessage, h ToolHandler, when compileTime) error {
	fail := func(err error) error { return s.refuse(&RegistrationError{Kind: featureTool, Name: t.Name, Err: err}) }
	if h == nil {
		return fail(errNilHandler)
	}
	if err := checkToolName(t.Name); err != nil {
		return fail(err)
	}
	if err := checkObjectSchema(in); err != nil {
		return fail(fmt.Errorf("input schema: %w", err))
	}
	hdrs, err := mcpheader.ParamHeaders(in)
	if err != nil {
		return fail(fmt.Errorf("input schema: %w", err))
	}
	if out != nil {
		if err := checkObjectSchema(out); err != nil {
			return fail(fmt.Errorf("output schema: %w", err))
		}
	}
	compile := func() (toolValidators, error) { return compileToolSchemas(in, out, s.opts.SkipOutputValidation) }
	var validators func() (toolValidators, error)
	switch when {
	case compileAtFirstCall:
		validators = sync.OnceValues(compile)
	default:
		vs, err := compile()
		if err != nil {
			return fail(err)
		}
		validators = func() (toolValidators, error) { return vs, nil }
	}
	tool, err := cloneTool(t, in, out)
	if err != nil {
		return fail(err)
	}
	s.tools.put([]string{t.Name}, []*serverTool{{tool: tool, handler: h, headers: hdrs, validators: validators}})
	s.registeredFeature(featureTool, t.Name)
	s.notifyListChanged(NotificationToolListChanged)
	return nil
}

// compileToolSchemas compiles a tool's input schema and, unless skipOut,
// its output schema (nil for none).
func compileToolSchemas(in, out json.RawMessage, skipOut bool) (toolValidators, error) {
	var vs toolValidators
	var err error
	if vs.in, err = jsonschema.Compile(in); err != nil {
		return toolValidators{}, fmt.Errorf("input schema: %w", err)
	}
	if out != nil {
		// Compiled even when not checked, so that a broken schema is
		// still refused.
		if vs.out, err = jsonschema.Compile(out); err != nil {
			return toolValidators{}, fmt.Errorf("output schema: %w", err)
		}
		if skipOut {
			vs.out = nil
		}
	}
	return vs, nil
}

// hasCustomSchema reports whether a schema inferred from t may hold a
// custom part (a jsonschema.Schemer anywhere in t), which could fail to
// compile. It errs on the side of yes.
func hasCustomSchema(t reflect.Type) bool {
	return customSchemaIn(t, map[reflect.Type]bool{})
}

func customSchemaIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Implements(schemerType) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(schemerType)) {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return customSchemaIn(t.Elem(), seen)
	case reflect.Map:
		return customSchemaIn(t.Key(), seen) || customSchemaIn(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if customSchemaIn(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

var schemerType = reflect.TypeFor[jsonschema.Schemer]()

// cloneTool returns a deep copy of t with the schemas in and out, so that
// the server shares no memory with the caller's Tool.
func cloneTool(t *Tool, in, out json.RawMessage) (*Tool, error) {
	if t.Meta == nil && t.Annotations == nil && t.Icons == nil && t.Execution == nil {
		// Nothing but strings and the schemas: a copy of the struct
		// shares no memory. It spares a starting server encoding/json's
		// first look at the Tool type (about 0.2 ms; TestCloneToolFields
		// keeps the list of fields above whole).
		c := *t
		c.InputSchema, c.OutputSchema = schemaValue(bytes.Clone(in)), schemaValue(bytes.Clone(out))
		return &c, nil
	}
	bare := *t
	bare.InputSchema, bare.OutputSchema = nil, nil // encoded already
	raw, err := json.Marshal(bare)
	if err != nil {
		return nil, err
	}
	c := new(Tool)
	if err := json.Unmarshal(raw, c); err != nil {
		return nil, err
	}
	// Kept byte for byte, which a JSON round trip would not do.
	c.InputSchema, c.OutputSchema = schemaValue(bytes.Clone(in)), schemaValue(bytes.Clone(out))
	return c, nil
}

// AddTool adds or replaces a typed tool. Unless t sets them, the input
// schema is inferred from In and the output schema from Out (see
// ToolHandlerFor, which says what each Out sends), with every struct
// closed ("additionalProperties": false, jsonschema.ForTypeClosed): an
// argument In has no field for is refused, not ignored. To accept them,
// give the schema: t.InputSchema, _ = jsonschema.For[In](). Schemas t sets
// are taken as Server.AddTool takes them. The server keeps a copy
// of t. Besides what Server.AddTool refuses, it refuses, with a
// *RegistrationError and registering nothing, an In whose schema cannot be
// inferred or does not describe a JSON object, an Out whose schema cannot
// be inferred, and an Out of ToolResult[T] instead of *ToolResult[T].
//
// Schemas inferred from types without a custom part (jsonschema.Schemer)
// are compiled at the tool's first call rather than here: they cannot
// fail to, and a server registering many tools starts sooner.
func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) error {
	if t == nil {
		return s.refuse(&RegistrationError{Kind: featureTool, Err: errNilFeature})
	}
	fail := func(err error) error { return s.refuse(&RegistrationError{Kind: featureTool, Name: t.Name, Err: err}) }
	if h == nil {
		return fail(errNilHandler)
	}
	in, out, err := toolSchemas(t)
	if err != nil {
		return fail(err)
	}
	given := in != nil || out != nil
	if in == nil {
		var err error
		if in, err = inferObjectSchema(reflect.TypeFor[In]()); err != nil {
			return fail(fmt.Errorf("input type: %w", err))
		}
	}
	wrap := false
	if out == nil {
		var err error
		if out, wrap, err = inferOutputSchema[Out](); err != nil {
			return fail(fmt.Errorf("output type: %w", err))
		}
	}
	structured := out != nil
	fast := newArgsDecoder(reflect.TypeFor[In]())
	when := compileAtRegistration
	if !given && !hasCustomSchema(reflect.TypeFor[In]()) && !hasCustomSchema(reflect.TypeFor[Out]()) {
		when = compileAtFirstCall
	}
	return s.addTool(t, in, out, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var in In
		if args := req.Params.Arguments; len(args) > 0 && (fast == nil || !fast.decode(args, reflect.ValueOf(&in).Elem())) {
			var zero In
			in = zero // what the fast decoder filled before it gave up
			if err := json.Unmarshal(args, &in); err != nil {
				return errorResult(fmt.Errorf("invalid arguments: %v", err)), nil
			}
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		return toolOutput(out, structured, wrap)
	}, when)
}

// toolOutput builds the result of a typed tool from what its handler
// returned: structured content only when the tool has an output schema
// (structured), wrapped under "result" when wrap is set.
func toolOutput(out any, structured, wrap bool) (*CallToolResult, error) {
	switch o := out.(type) {
	case nil:
		return &CallToolResult{}, nil
	case *CallToolResult:
		return o, nil
	case string:
		return &CallToolResult{Content: []Content{&TextContent{Text: o}}}, nil
	case toolResult:
		res, err := o.callToolResult(wrap)
		if err == nil && !structured {
			res.StructuredContent = nil
		}
		return res, err
	}
	res, err := structuredResult(out, wrap)
	if err == nil && !structured {
		res.StructuredContent = nil
	}
	return res, err
}

// inferOutputSchema returns a typed tool's output schema: nil when Out is
// not sent as structured content (*CallToolResult, string, an interface,
// json.RawMessage), the schema of T for *ToolResult[T], of Out otherwise.
// A schema that does not describe an object is wrapped as {"result": …},
// and wrap is set.
func inferOutputSchema[Out any]() (schema json.RawMessage, wrap bool, err error) {
	var zero Out
	t := reflect.TypeFor[Out]()
	switch o := any(zero).(type) {
	case *CallToolResult, string:
		return nil, false, nil
	case toolResult:
		t = o.structuredType()
	default:
		if _, ok := any(&zero).(toolResult); ok {
			return nil, false, fmt.Errorf("%s: use a pointer, *%[1]s", t)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || t == reflect.TypeFor[json.RawMessage]() {
		return nil, false, nil // any JSON at all: nothing to promise
	}
	if schema, err = jsonschema.ForTypeClosed(t); err != nil {
		return nil, false, err
	}
	if checkObjectSchema(schema) == nil {
		return schema, false, nil
	}
	if schema, err = wrapSchema(schema); err != nil {
		return nil, false, fmt.Errorf("%s: %w", t, err)
	}
	return schema, true, nil
}

// wrapSchema returns the schema of {"result": v} for v of schema s, its
// $defs moved to the new root so that their references still resolve.
func wrapSchema(s json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil {
		return nil, err
	}
	if bytes.Contains(s, []byte(`"$ref":"#"`)) {
		return nil, errors.New("a recursive type that is not a JSON object cannot be wrapped; return a struct holding it")
	}
	defs := m["$defs"]
	delete(m, "$defs")
	inner, err := marshalJSONNoEscape(m)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"type":"object","properties":{"result":`), inner...)
	b = append(b, `},"required":["result"]`...)
	if defs != nil {
		b = append(append(b, `,"$defs":`...), defs...)
	}
	return append(b, '}'), nil
}

// inferObjectSchema infers the schema of t, which must describe a JSON
// object. Interfaces and json.RawMessage, which could hold anything, get
// the schema of any object.
func inferObjectSchema(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || t == reflect.TypeFor[json.RawMessage]() {
		return objectSchema, nil
	}
	schema, err := jsonschema.ForTypeClosed(t)
	if err != nil {
		return nil, err
	}
	if err := checkObjectSchema(schema); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object", t)
	}
	return schema, nil
}

// Tool returns a copy of the tool registered under name.
func (s *Server) Tool(name string) (*Tool, bool) {
	st, ok := s.tools.get(name)
	if !ok {
		return nil, false
	}
	c, err := cloneTool(st.tool, schemaBytes(st.tool.InputSchema), schemaBytes(st.tool.OutputSchema))
	if err != nil {
		return nil, false // it was copied once already: cannot happen
	}
	return c, true
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

func (s *Server) handleListTools(ctx context.Context, r *Request) (any, error) {
	var p ListToolsParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	tools, next, err := pageFor(s.viewOf(ctx, r), &s.tools, p.Cursor, s.opts.PageSize, toolFeature)
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
	p := decodedAs[CallToolParams](r)
	if p == nil {
		p = new(CallToolParams)
		if err := decodeCallToolParams(r.Params, r.meta, p); err != nil {
			return nil, err
		}
	}
	st, ok := getFor(s.viewOf(ctx, r), &s.tools, p.Name, toolFeature)
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
	vs, err := st.validators()
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %q: %v", p.Name, err)
	}
	if vs.in != nil {
		// The arguments are part of a decoded message: valid JSON.
		filled, err := vs.in.ValidateDecoded(p.Arguments)
		if err != nil {
			return errorResult(fmt.Errorf("invalid arguments for tool %q: %v", p.Name, err)), nil
		}
		p.Arguments = filled
	}
	if r.rc != nil { // not before: the closure costs an allocation
		if err := s.beginInput(r.rc, func() string { return bindingOf(r.Method, p.Name, p.Arguments) }, p.RequestState, p.InputResponses); err != nil {
			return nil, err
		}
	}
	req := newServerRequest(r, p, p.Meta)
	var run func(context.Context, *CallToolRequest) (*CallToolResult, error) // with tool middleware
	if s.toolMW.Load() != nil {
		run = func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
			return st.runWith(ctx, req, s.toolHandler(st.handler))
		}
	}
	if hook := s.toolHook.Load(); hook != nil {
		if run == nil {
			run = st.run
		}
		res, err := (*hook)(ctx, req, st.tool, run)
		if ir, err, ok := s.finishInput(r.rc, err); ok {
			return ir, err
		}
		if err != nil {
			return nil, err
		}
		if res == nil {
			return &CallToolResult{Content: []Content{}}, nil
		}
		return res, nil
	}
	var res *CallToolResult
	if run != nil {
		res, err = run(ctx, req)
	} else {
		res, err = st.run(ctx, req)
	}
	if ir, err, ok := s.finishInput(r.rc, err); ok {
		return ir, err
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// run calls the tool's handler and shapes its answer as the client sees
// it: a plain error becomes an isError result, a nil result an empty one;
// the error returned is a protocol error (*jsonrpc.Error) or, for a
// 2026-07-28 request, one wrapping ErrInputRequired.
func (st *serverTool) run(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
	return st.runWith(ctx, req, st.handler)
}

// runWith is run with h, the tool's handler wrapped in the tool middleware
// (hooks.AddToolMiddleware).
func (st *serverTool) runWith(ctx context.Context, req *CallToolRequest, h ToolHandler) (*CallToolResult, error) {
	res, err := h(ctx, req)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, je
		}
		if errors.Is(err, ErrInputRequired) && req.Stateless() {
			return nil, err
		}
		return errorResult(err), nil
	}
	if res == nil {
		res = &CallToolResult{}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	if vs, _ := st.validators(); vs.out != nil && !res.IsError {
		if err := st.checkOutput(res, vs.out); err != nil {
			return errorResult(err), nil
		}
	}
	return res, nil
}

// checkOutput checks a result against the tool's output schema: the spec
// has a server that declares one send conforming structured content.
func (st *serverTool) checkOutput(res *CallToolResult, out *jsonschema.Validator) error {
	if res.StructuredContent == nil {
		return fmt.Errorf("tool %q declares an output schema but returned no structured content", st.tool.Name)
	}
	if err := out.Validate(res.StructuredContent); err != nil {
		return fmt.Errorf("tool %q returned structured content that does not match its output schema: %v", st.tool.Name, err)
	}
	return nil
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
