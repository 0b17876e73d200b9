package mcp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
)

// A client computes the standard headers of SEP-2243 (package
// internal/mcpheader) for each stateless request from the request and the
// tool schemas it has listed, and hands them to the transport through the
// context of the write; a server checks the Mcp-Param headers of
// tools/call here, the others in the transport.

// headersCtx carries what the standard headers of a request are computed
// from, so that only transports that send headers pay for them. It is one
// allocation per request instead of a header map and a context value.
type headersCtx struct {
	context.Context
	cs      *ClientSession
	version string
	method  string
	params  any
}

func (h *headersCtx) Value(key any) any {
	if key == (mcpheader.Key{}) {
		return h
	}
	return h.Context.Value(key)
}

// Header implements mcpheader.Source.
func (h *headersCtx) Header() http.Header {
	return h.cs.standardHeaders(h.version, h.method, h.params)
}

// standardHeaders computes the SEP-2243 headers of a stateless request.
func (cs *ClientSession) standardHeaders(version, method string, params any) http.Header {
	h := http.Header{}
	h.Set(mcpheader.HeaderProtocolVersion, version)
	h.Set(mcpheader.HeaderMethod, method)
	var name string
	switch p := params.(type) {
	case *CallToolParams:
		name = p.Name
		cs.mu.Lock()
		hdrs := cs.paramHeaders[p.Name]
		cs.mu.Unlock()
		for _, ph := range hdrs {
			if v, ok := mcpheader.ArgumentAt(p.Arguments, ph.Path); ok {
				if s, ok := mcpheader.EncodeHeaderValue(v); ok {
					h.Set(mcpheader.HeaderParamPrefix+ph.Name, s)
				}
			}
		}
	case *GetPromptParams:
		name = p.Name
	case *ReadResourceParams:
		name = p.URI
	case *customParams:
		if !mcpheader.NamedByTaskID(method) {
			return h
		}
		var task struct {
			TaskID string `json:"taskId"`
		}
		if json.Unmarshal(p.raw, &task) != nil || task.TaskID == "" {
			return h
		}
		name = task.TaskID
	default:
		return h
	}
	s, _ := mcpheader.EncodeHeaderValue(name)
	h.Set(mcpheader.HeaderName, s)
	return h
}

// keepValidTools drops, with a warning, the tools whose x-mcp-header
// annotations are invalid (a stateless client must not call them), and
// remembers the headers of the others.
func (cs *ClientSession) keepValidTools(tools []*Tool) []*Tool {
	kept := tools[:0]
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.paramHeaders == nil {
		cs.paramHeaders = make(map[string][]mcpheader.ParamHeader)
	}
	for _, t := range tools {
		hdrs, err := mcpheader.ParamHeaders(schemaBytes(t.InputSchema))
		if err != nil {
			cs.client.log.Warn("mcp: dropping tool with invalid x-mcp-header", "tool", t.Name, "err", err)
			delete(cs.paramHeaders, t.Name)
			continue
		}
		cs.paramHeaders[t.Name] = hdrs
		kept = append(kept, t)
	}
	return kept
}

// headerCarrier is implemented by transport information that carries HTTP
// headers (the Streamable HTTP transport's RequestInfo).
type headerCarrier interface{ HTTPHeader() http.Header }

// checkParamHeaders checks, for a 2026-07-28 request that came with HTTP
// headers, that every x-mcp-header argument was mirrored faithfully: a
// missing, malformed or different Mcp-Param header is a HeaderMismatch
// (-32020, HTTP 400).
func checkParamHeaders(ctx context.Context, hdrs []mcpheader.ParamHeader, args json.RawMessage) error {
	hc, ok := jsonrpc.MessageInfo(ctx).(headerCarrier)
	if !ok {
		return nil // stdio and in-memory requests carry no headers
	}
	if err := mcpheader.CheckParamHeaders(hc.HTTPHeader(), hdrs, args); err != nil {
		return jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: "+err.Error())
	}
	return nil
}
