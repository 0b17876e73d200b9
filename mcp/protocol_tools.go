package mcp

import (
	"github.com/gomcp/sdk/jsonrpc"

	"bytes"
	"encoding/json"
)

// Tool describes a tool the client can call.
type Tool struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Name identifies the tool; from 2025-11-25 it SHOULD be 1-128
	// characters of [A-Za-z0-9_.-].
	Name string `json:"name"`
	// Title is a display name (2025-06-18+). Display precedence is Title,
	// then Annotations.Title, then Name.
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments: an object schema.
	// A server may set it to any value whose JSON encoding is the schema,
	// so that schemas built with any library work as they are: a
	// json.RawMessage (or []byte) of raw JSON, a *jsonschema.Schema of
	// github.com/google/jsonschema-go, a map[string]any, a struct.
	// AddTool encodes it once, with json.Marshal, and serves exactly
	// those bytes; the server keeps them, so it holds a json.RawMessage
	// afterwards (Server.Tool, hooks). A decoded Tool (a client's
	// tools/list, sampling tools) always holds a json.RawMessage: the
	// bytes the server sent, every keyword and number as written.
	// Nil is written as {"type":"object"}.
	InputSchema any `json:"inputSchema"`
	// OutputSchema is the JSON Schema of StructuredContent (2025-06-18+),
	// given and decoded as InputSchema is.
	OutputSchema any `json:"outputSchema,omitempty"`
	// Annotations are behaviour hints (2025-03-26+); never trust them from an
	// untrusted server.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Icons are 2025-11-25+.
	Icons []Icon `json:"icons,omitempty"`
	// Execution says whether the tool runs as a task (2025-11-25 only).
	Execution *ToolExecution `json:"execution,omitempty"`
}

// defaultInputSchema is the schema written for a Tool with no InputSchema.
var defaultInputSchema = json.RawMessage(`{"type":"object"}`)

// MarshalJSON writes a nil InputSchema as {"type":"object"}, and a schema
// given as []byte as the raw JSON it holds.
func (t Tool) MarshalJSON() ([]byte, error) {
	type wire Tool
	t.InputSchema, t.OutputSchema = rawSchemaValue(t.InputSchema), rawSchemaValue(t.OutputSchema)
	if t.InputSchema == nil {
		t.InputSchema = defaultInputSchema
	}
	return marshalJSONNoEscape(wire(t))
}

// rawSchemaValue is schema as encoding/json should see it: []byte is raw
// JSON, not base64, and an empty json.RawMessage is no schema.
func rawSchemaValue(schema any) any {
	switch v := schema.(type) {
	case json.RawMessage:
		if len(v) == 0 {
			return nil
		}
	case []byte:
		if len(v) == 0 {
			return nil
		}
		return json.RawMessage(v)
	}
	return schema
}

// UnmarshalJSON decodes the schemas as json.RawMessage, the bytes the
// server sent, where encoding/json would make maps of them (losing the
// order of keys and the digits of numbers); a Tool round-trips byte for
// byte. A struct that embeds Tool gets this method too, and with it
// decodes only Tool's fields: name the field instead, or decode the
// struct's own fields apart.
func (t *Tool) UnmarshalJSON(data []byte) error {
	type toolFields Tool // without Tool's methods
	var w struct {
		toolFields
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Tool(w.toolFields)
	t.InputSchema, t.OutputSchema = decodedSchema(w.InputSchema), decodedSchema(w.OutputSchema)
	return nil
}

// decodedSchema is a decoded schema as a Tool holds it: nil when absent
// or null.
func decodedSchema(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// ToolAnnotations are hints about a tool's behaviour (2025-03-26+). The
// booleans are pointers because their defaults differ: absent DestructiveHint
// and OpenWorldHint mean true, absent ReadOnlyHint and IdempotentHint false.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// TaskSupport says whether a tool may or must be called as a task.
type TaskSupport string

// Task support levels (2025-11-25).
const (
	TaskSupportForbidden TaskSupport = "forbidden" // the default
	TaskSupportOptional  TaskSupport = "optional"
	TaskSupportRequired  TaskSupport = "required"
)

// ToolExecution describes how a tool runs (2025-11-25 only).
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// ListToolsParams are the params of tools/list.
type ListToolsParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	// Tools is written as [] when nil.
	Tools      []*Tool `json:"tools"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil Tools as [].
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	type wire ListToolsResult
	r.Tools = nonNilSlice(r.Tools)
	return marshalJSONNoEscape(wire(r))
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Meta *Meta  `json:"_meta,omitempty"`
	Name string `json:"name"`
	// Arguments is the arguments object, raw, to be decoded once by the
	// tool.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks for the call to run as a task (2025-11-25 only).
	Task *TaskMetadata `json:"task,omitempty"`
	// InputResponses and RequestState retry a call that returned an
	// InputRequiredResult (2026-07-28).
	InputResponses map[string]*InputResponse `json:"inputResponses,omitempty"`
	RequestState   string                    `json:"requestState,omitempty"`
}

// appendJSON appends p to b as encoding/json writes it (the same members
// in the same order, the same omitted), without reflection or a second pass
// over the output of Meta's MarshalJSON: a gateway sends one per forwarded
// call. A call that retries or asks for a task, or whose arguments are not
// valid JSON, goes through encoding/json (and gets its error).
func (p *CallToolParams) appendJSON(b []byte) ([]byte, error) {
	if p.Task != nil || p.InputResponses != nil || p.RequestState != "" ||
		(len(p.Arguments) > 0 && !json.Valid(p.Arguments)) {
		raw, err := json.Marshal(p)
		return append(b, raw...), err
	}
	if b == nil { // room enough for the usual: grown once, not five times
		n := 32 + len(p.Name) + len(p.Arguments) // {"name":"…","arguments":…}
		if p.Meta != nil {
			n += 128 + len(p.Meta.clientJSON) + len(p.Meta.serverJSON)
		}
		b = make([]byte, 0, n)
	}
	b = append(b, '{')
	if p.Meta != nil {
		var err error
		b = append(b, `"_meta":`...)
		if b, err = p.Meta.appendJSON(b); err != nil {
			return nil, err
		}
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = jsonrpc.AppendString(b, p.Name, false)
	if len(p.Arguments) > 0 {
		b = append(b, `,"arguments":`...)
		b = append(b, p.Arguments...)
	}
	return append(b, '}'), nil
}

// CallToolResult is the result of tools/call. Tool failures (bad arguments,
// API errors, ...) are reported here with IsError set, so the model sees
// them; protocol errors (unknown tool) are JSON-RPC errors instead.
type CallToolResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	// Content is the unstructured result: ContentBlock types only. It is
	// written as [] when nil (the field is required).
	Content []Content `json:"content"`
	// StructuredContent is the structured result (2025-06-18+), raw: an
	// object before 2026-07-28, any JSON value from then on.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// MarshalJSON writes a nil Content as [].
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	type wire CallToolResult
	r.Content = nonNilSlice(r.Content)
	return marshalJSONNoEscape(wire(r))
}

// UnmarshalJSON decodes Content polymorphically.
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	if r.decodeFast(data) {
		return nil
	}
	*r = CallToolResult{}
	type wire CallToolResult
	var w struct {
		*wire
		Content json.RawMessage `json:"content"`
	}
	w.wire = (*wire)(r)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	r.Content, err = unmarshalContentList(w.Content, blockKinds)
	return err
}

// toolListChangedNotificationParams are the params of notifications/tools/list_changed.
type toolListChangedNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}

// decodeFast decodes a result made only of the usual members in one pass
// over data, without encoding/json's reflection. It reports false, leaving
// r to be reset, for anything else.
func (r *CallToolResult) decodeFast(data []byte) bool {
	err := eachMember(data, func(k, v []byte) error {
		var err error
		switch string(k) {
		case `"content"`:
			r.Content, err = unmarshalContentList(v, blockKinds)
		case `"structuredContent"`:
			r.StructuredContent = bytes.Clone(v) // null included, as encoding/json keeps it
		case `"isError"`:
			switch string(v) {
			case "true":
				r.IsError = true
			case "false", "null":
			default:
				err = errSyntax
			}
		case `"resultType"`:
			s, ok := unquote(v)
			if !ok {
				return errSyntax
			}
			r.ResultType = ResultType(s)
		case `"_meta"`:
			if string(v) != "null" {
				r.Meta = new(Meta)
				err = r.Meta.UnmarshalJSON(v)
			}
		default:
			return errSyntax
		}
		return err
	})
	return err == nil
}

// AppendJSON implements jsonrpc.Appender: results made of text blocks (by
// far the most common) are written directly; anything else through
// MarshalJSON.
func (r *CallToolResult) AppendJSON(b []byte) ([]byte, error) {
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			raw, err := r.MarshalJSON()
			return append(b, raw...), err
		}
	}
	if len(r.StructuredContent) > 0 && !json.Valid(r.StructuredContent) {
		raw, err := r.MarshalJSON()
		return append(b, raw...), err
	}
	if b == nil {
		// Room for the texts as they are: a large one is then encoded
		// without the buffer growing (and being copied) on the way.
		n := 256 + len(r.StructuredContent)
		for _, c := range r.Content {
			n += len(c.(*TextContent).Text) + 32
		}
		b = make([]byte, 0, n)
	}
	b = append(b, '{')
	if r.Meta != nil {
		mb, err := r.Meta.appendJSON(append(b, `"_meta":`...))
		if err != nil {
			return b, err
		}
		b = append(mb, ',')
	}
	if r.ResultType != "" {
		b = append(b, `"resultType":`...)
		b = jsonrpc.AppendString(b, string(r.ResultType), false)
		b = append(b, ',')
	}
	b = append(b, `"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = jsonrpc.AppendString(b, c.(*TextContent).Text, false)
		b = append(b, '}')
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		if bytes.ContainsAny(r.StructuredContent, " \t\r\n") {
			var c bytes.Buffer
			if err := json.Compact(&c, r.StructuredContent); err != nil {
				return b, err
			}
			b = append(b, c.Bytes()...)
		} else {
			b = append(b, r.StructuredContent...)
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}
