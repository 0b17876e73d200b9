package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/jsonschema"
)

// maxSchemaPages bounds the tools/list pages CallTool reads to learn output
// schemas, so that a server cannot keep it paging forever.
const maxSchemaPages = 100

// toolOutputs holds what a client session knows of its server's tool output
// schemas, for CallTool to check results against.
type toolOutputs struct {
	fetch sync.Mutex // held while CallTool lists the tools, so that concurrent calls list once

	mu       sync.Mutex
	byName   map[string]*jsonschema.Validator // a nil validator: no (usable) schema
	safe     map[string]bool                  // tools annotated idempotent or read-only: safe to send twice
	complete bool                             // byName holds every tool, or a listing was tried
	gen      int                              // counts list_changed notifications
}

// remember records the output schemas of listed tools; complete says the
// listing was the whole list.
func (o *toolOutputs) remember(tools []*Tool, complete bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byName == nil {
		o.byName = make(map[string]*jsonschema.Validator)
	}
	for _, t := range tools {
		if a := t.Annotations; a != nil && (isTrue(a.IdempotentHint) || isTrue(a.ReadOnlyHint)) {
			if o.safe == nil {
				o.safe = make(map[string]bool)
			}
			o.safe[t.Name] = true
		} else if o.safe != nil {
			delete(o.safe, t.Name)
		}
		var v *jsonschema.Validator
		if out := schemaBytes(t.OutputSchema); out != nil {
			v, _ = jsonschema.Compile(out) // a schema that does not compile checks nothing
		}
		o.byName[t.Name] = v
	}
	o.complete = o.complete || complete
}

// forget drops every schema: the tool list changed.
func (o *toolOutputs) forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byName, o.safe, o.complete = nil, nil, false
	o.gen++
}

// idempotent reports whether the session's tools/list said that the named
// tool is idempotent (idempotentHint) or read-only (readOnlyHint): a call
// to it that may have reached the server, but whose answer was lost, may
// be sent again (see jsonrpc.Idempotent).
func (o *toolOutputs) idempotent(name string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.safe[name]
}

func isTrue(b *bool) bool { return b != nil && *b }

// lookup returns the validator of the named tool, and whether the session
// knows it (or has tried to learn it since the list last changed).
func (o *toolOutputs) lookup(name string) (v *jsonschema.Validator, known bool, gen int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, known = o.byName[name]
	return v, known || o.complete, o.gen
}

// markTried records that a listing was made, unless the list changed
// since it began: a listing the server refused, or cut short after
// maxSchemaPages, is not retried on every call.
func (o *toolOutputs) markTried(gen int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gen == gen {
		o.complete = true
	}
}

// outputValidator returns the output schema of the named tool, listing the
// server's tools first if the session does not know it.
func (cs *ClientSession) outputValidator(ctx context.Context, name string) *jsonschema.Validator {
	if v, known, _ := cs.outputs.lookup(name); known {
		return v
	}
	cs.outputs.fetch.Lock()
	defer cs.outputs.fetch.Unlock()
	v, known, gen := cs.outputs.lookup(name)
	if known {
		return v
	}
	params := &ListToolsParams{}
	for range maxSchemaPages {
		res, err := cs.ListTools(ctx, params) // remembers the schemas
		var je *jsonrpc.Error
		if err != nil && !errors.As(err, &je) {
			return nil // the call was cancelled or the connection failed: try again next time
		}
		if err != nil || res.NextCursor == "" {
			break
		}
		params = &ListToolsParams{Cursor: res.NextCursor}
	}
	cs.outputs.markTried(gen) // the server answered: not again until the list changes
	v, _, _ = cs.outputs.lookup(name)
	return v
}

// checkOutput checks a successful result of the named tool against its
// output schema. Structured content is always checked, after listing the
// tools if need be; a result without any is checked only against a schema
// the session knows already, so that a tool with text output never costs a
// tools/list.
func (cs *ClientSession) checkOutput(ctx context.Context, name string, res *CallToolResult) error {
	if res.StructuredContent == nil {
		if v, _, _ := cs.outputs.lookup(name); v != nil {
			return fmt.Errorf("mcp: tool %q declares an output schema but returned no structured content", name)
		}
		return nil
	}
	v := cs.outputValidator(ctx, name)
	if v == nil {
		return nil
	}
	if err := v.Validate(res.StructuredContent); err != nil {
		return fmt.Errorf("mcp: tool %q structured content does not match its output schema: %w", name, err)
	}
	return nil
}

// ErrToolError is wrapped by the error CallToolFor returns when the tool
// answered with an error result (isError): the tool ran and failed, as
// opposed to a protocol or transport error.
var ErrToolError = errors.New("mcp: tool error result")

// CallToolFor calls the tool name with args and decodes its structured
// content into Out, so that calling a tool takes Go values both ways.
//
// args is marshalled once with encoding/json and must encode a JSON object;
// a json.RawMessage or []byte is sent as it is (after checking that it is
// one), and nil (or JSON null) sends {}.
//
// Out is decoded from the result's structuredContent with encoding/json;
// a json.RawMessage Out is the structured content itself, uncopied. A
// result without structured content is an error, except for a string Out,
// which then receives the text of the result's text blocks (what a typed
// tool returning string sends).
//
// The result is returned whenever the server sent one. An error result
// (isError) gives an error wrapping ErrToolError, with the result's text.
func CallToolFor[Out any](ctx context.Context, cs *ClientSession, name string, args any) (Out, *CallToolResult, error) {
	var out Out
	raw, err := toolArguments(args)
	if err != nil {
		return out, nil, fmt.Errorf("mcp: tool %q: arguments: %w", name, err)
	}
	res, err := cs.CallTool(ctx, &CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		return out, res, err
	}
	if res.IsError {
		return out, res, fmt.Errorf("%w from %q: %s", ErrToolError, name, resultText(res))
	}
	if len(res.StructuredContent) == 0 {
		if p, ok := any(&out).(*string); ok {
			*p = resultText(res)
			return out, res, nil
		}
		return out, res, fmt.Errorf("mcp: tool %q returned no structured content", name)
	}
	if p, ok := any(&out).(*json.RawMessage); ok {
		*p = res.StructuredContent
		return out, res, nil
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		return out, res, fmt.Errorf("mcp: tool %q: decoding structured content into %s: %w", name, reflect.TypeFor[Out](), err)
	}
	return out, res, nil
}

// toolArguments encodes a tool's arguments as a JSON object. Bytes from
// the caller are checked to be JSON; what json.Marshal made is JSON.
func toolArguments(args any) (json.RawMessage, error) {
	var raw []byte
	given := true
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		raw, given = b, false
	}
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) == 0 || string(trimmed) == "null":
		return json.RawMessage("{}"), nil
	case trimmed[0] != '{' || given && !json.Valid(trimmed):
		return nil, fmt.Errorf("not a JSON object: %.40q", raw)
	}
	return raw, nil
}

// resultText joins the text of a result's text blocks with newlines.
func resultText(res *CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*TextContent); ok && t != nil {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
