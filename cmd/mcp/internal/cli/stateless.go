package cli

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// Bounds of the header book.
const (
	headerBookTools   = 1024 // tools whose x-mcp-header annotations are kept
	headerBookPending = 256  // tools/list requests awaiting their answer
)

// headerBook computes the standard headers (SEP-2243) of the 2026-07-28
// requests that mcp proxy relays to an HTTP target. Over stdio a request
// is its body alone; over HTTP it must repeat its method, its name and the
// tool arguments whose schema says "x-mcp-header" in headers. The book
// learns those annotations the way a client does, from the tools/list
// answers passing back through the proxy.
type headerBook struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool                // tools/list requests in flight
	tools   map[string][]mcpheader.ParamHeader // by tool name
}

// statelessMeta is the part of a request's params the book reads.
type statelessMeta struct {
	Meta *struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Arguments json.RawMessage `json:"arguments"`
}

// stateless reports the revision a request declares in its _meta, "" for
// a request of a stateful session.
func stateless(m *jsonrpc.Message) (string, *statelessMeta) {
	if !m.IsRequest() || len(m.Params) == 0 || m.Params[0] != '{' {
		return "", nil
	}
	var p statelessMeta
	if json.Unmarshal(m.Params, &p) != nil || p.Meta == nil {
		return "", nil
	}
	return p.Meta.ProtocolVersion, &p
}

// headers returns the standard headers of a client's message, nil when
// it is not a stateless request. It notes tools/list requests so that
// their answers can be learned.
func (b *headerBook) headers(m *jsonrpc.Message) http.Header {
	version, p := stateless(m)
	if version == "" {
		return nil
	}
	h := http.Header{}
	h.Set(mcpheader.HeaderProtocolVersion, version)
	h.Set(mcpheader.HeaderMethod, m.Method)
	switch m.Method {
	case mcp.MethodToolsList:
		b.mu.Lock()
		if b.pending == nil {
			b.pending = map[jsonrpc.ID]bool{}
		}
		if len(b.pending) < headerBookPending {
			b.pending[m.ID] = true
		}
		b.mu.Unlock()
	case mcp.MethodToolsCall:
		setName(h, p.Name)
		b.mu.Lock()
		hdrs := b.tools[p.Name]
		b.mu.Unlock()
		for _, ph := range hdrs {
			if v, ok := mcpheader.ArgumentAt(p.Arguments, ph.Path); ok {
				if s, ok := mcpheader.EncodeHeaderValue(v); ok {
					h.Set(mcpheader.HeaderParamPrefix+ph.Name, s)
				}
			}
		}
	case mcp.MethodPromptsGet:
		setName(h, p.Name)
	case mcp.MethodResourcesRead:
		setName(h, p.URI)
	}
	return h
}

func setName(h http.Header, name string) {
	if s, ok := mcpheader.EncodeHeaderValue(name); ok {
		h.Set(mcpheader.HeaderName, s)
	}
}

// learn reads a server's message: the answer to a tools/list request
// noted by headers updates the annotations of the tools it lists.
func (b *headerBook) learn(m *jsonrpc.Message) {
	if !m.IsResponse() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.pending[m.ID] {
		return
	}
	delete(b.pending, m.ID)
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil {
		return
	}
	if b.tools == nil {
		b.tools = map[string][]mcpheader.ParamHeader{}
	}
	for _, t := range res.Tools {
		hdrs, err := mcpheader.ParamHeaders(t.InputSchema)
		if err != nil || len(hdrs) == 0 {
			delete(b.tools, t.Name)
			continue
		}
		if _, known := b.tools[t.Name]; known || len(b.tools) < headerBookTools {
			b.tools[t.Name] = hdrs
		}
	}
}

// check returns what is wrong with the Mcp-Param-* headers h of a
// stateless tools/call, by the annotations of the tools seen listed, or "".
func (b *headerBook) check(h http.Header, m *jsonrpc.Message) string {
	if m.Method != mcp.MethodToolsCall {
		return ""
	}
	_, p := stateless(m)
	if p == nil {
		return ""
	}
	b.mu.Lock()
	hdrs := b.tools[p.Name]
	b.mu.Unlock()
	if err := mcpheader.CheckParamHeaders(h, hdrs, p.Arguments); err != nil {
		return err.Error()
	}
	return ""
}

// note records a stateless tools/list request, so that learn reads its
// answer.
func (b *headerBook) note(m *jsonrpc.Message) {
	if m.Method != mcp.MethodToolsList {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[jsonrpc.ID]bool{}
	}
	if len(b.pending) < headerBookPending {
		b.pending[m.ID] = true
	}
}
