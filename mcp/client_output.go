package mcp

import (
	"context"
	"fmt"
	"sync"

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
		var v *jsonschema.Validator
		if t.OutputSchema != nil {
			v, _ = jsonschema.Compile(t.OutputSchema) // a schema that does not compile checks nothing
		}
		o.byName[t.Name] = v
	}
	o.complete = o.complete || complete
}

// forget drops every schema: the tool list changed.
func (o *toolOutputs) forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byName, o.complete = nil, false
	o.gen++
}

// lookup returns the validator of the named tool, and whether the session
// knows it (or has tried to learn it since the list last changed).
func (o *toolOutputs) lookup(name string) (v *jsonschema.Validator, known bool, gen int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, known = o.byName[name]
	return v, known || o.complete, o.gen
}

// markTried records that a listing was tried, unless the list changed
// since it began: a failed or partial listing is not retried on every call.
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
		if err != nil || res.NextCursor == "" {
			break
		}
		params = &ListToolsParams{Cursor: res.NextCursor}
	}
	cs.outputs.markTried(gen)
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
