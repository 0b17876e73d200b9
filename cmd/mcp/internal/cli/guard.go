package cli

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// itemKind is what a proxy --allow/--deny pattern applies to.
type itemKind int

const (
	kindTool itemKind = iota
	kindPrompt
	kindResource
	numKinds
)

// kindNames maps the prefixes a pattern may start with to their kind.
var kindNames = map[string]itemKind{
	"tool": kindTool, "tools": kindTool,
	"prompt": kindPrompt, "prompts": kindPrompt,
	"resource": kindResource, "resources": kindResource,
}

// guard hides tools, prompts and resources from the client of mcp proxy
// (--allow and --deny): hidden items are left out of every page of the
// list results, and a call, get or read of one is answered, without the
// target seeing it, with the error an unknown item gets; the target's
// update notifications about one are dropped. A nil guard hides
// nothing.
//
// A pattern is [KIND:]GLOB, KIND one of tools, prompts, resources (without
// it, the pattern applies to all three), GLOB as in path.Match, matched
// against a tool's or a prompt's name and a resource's URI (a template's
// URI template). An item is visible when no --allow pattern of its kind is
// given or one matches, and no --deny pattern matches.
type guard struct {
	allow, deny [numKinds][]string
}

// newGuard parses the patterns; it returns nil when there are none.
func newGuard(allow, deny []string) (*guard, error) {
	if len(allow) == 0 && len(deny) == 0 {
		return nil, nil
	}
	g := &guard{}
	for _, set := range []struct {
		flag     string
		patterns []string
		into     *[numKinds][]string
	}{{"--allow", allow, &g.allow}, {"--deny", deny, &g.deny}} {
		for _, p := range set.patterns {
			kinds := []itemKind{kindTool, kindPrompt, kindResource}
			glob := p
			if prefix, rest, ok := strings.Cut(p, ":"); ok {
				if k, known := kindNames[prefix]; known {
					kinds, glob = []itemKind{k}, rest
				}
			}
			if _, err := path.Match(glob, ""); err != nil {
				return nil, fmt.Errorf("%s %q: %w", set.flag, p, err)
			}
			for _, k := range kinds {
				set.into[k] = append(set.into[k], glob)
			}
		}
	}
	return g, nil
}

// hides reports whether the item of kind k named name is hidden.
func (g *guard) hides(k itemKind, name string) bool {
	if g == nil {
		return false
	}
	if matchAny(g.deny[k], name) {
		return true
	}
	return len(g.allow[k]) > 0 && !matchAny(g.allow[k], name)
}

func matchAny(globs []string, name string) bool {
	for _, p := range globs {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// refuse returns the answer to a client's request that names a hidden
// item, or nil when the request may pass: the error the target gives for
// an unknown tool, prompt or resource.
func (g *guard) refuse(m *jsonrpc.Message) *jsonrpc.Message {
	if g == nil || !m.IsRequest() || len(m.Params) == 0 {
		return nil
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Ref  struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return nil // the target says what is wrong with it
	}
	var err *jsonrpc.Error
	switch m.Method {
	case mcp.MethodToolsCall:
		if g.hides(kindTool, p.Name) {
			err = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown tool %q", p.Name)
		}
	case mcp.MethodPromptsGet:
		if g.hides(kindPrompt, p.Name) {
			err = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown prompt %q", p.Name)
		}
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		if g.hides(kindResource, p.URI) {
			err = mcp.ResourceNotFoundError(p.URI)
			if declaresStateless(m) {
				err.Code = jsonrpc.CodeInvalidParams // the 2026-07-28 code
			}
		}
	case mcp.MethodCompletionComplete:
		if (p.Ref.Type == "ref/prompt" && g.hides(kindPrompt, p.Ref.Name)) ||
			(p.Ref.Type == "ref/resource" && g.hides(kindResource, p.Ref.URI)) {
			err = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: unknown reference")
		}
	}
	if err == nil {
		return nil
	}
	return jsonrpc.NewErrorResponse(m.ID, err)
}

// hidesNotice reports whether the notification m is about a hidden item.
func (g *guard) hidesNotice(m *jsonrpc.Message) bool {
	if m.Method != mcp.NotificationResourceUpdated {
		return false
	}
	var p struct {
		URI string `json:"uri"`
	}
	return json.Unmarshal(m.Params, &p) == nil && g.hides(kindResource, p.URI)
}

// listField names, for each list method, the result's array and the kind
// and field of its items that the patterns match.
var listField = map[string]struct {
	array, key string
	kind       itemKind
}{
	mcp.MethodToolsList:              {"tools", "name", kindTool},
	mcp.MethodPromptsList:            {"prompts", "name", kindPrompt},
	mcp.MethodResourcesList:          {"resources", "uri", kindResource},
	mcp.MethodResourcesTemplatesList: {"resourceTemplates", "uriTemplate", kindResource},
}

// filter returns the response m to a request of method with the hidden
// items left out; m itself when nothing is hidden or method lists nothing.
func (g *guard) filter(method string, m *jsonrpc.Message) *jsonrpc.Message {
	lf, ok := listField[method]
	if g == nil || !ok || m.Error != nil || len(m.Result) == 0 {
		return m
	}
	var res map[string]json.RawMessage
	var items []map[string]json.RawMessage
	if json.Unmarshal(m.Result, &res) != nil || json.Unmarshal(res[lf.array], &items) != nil {
		return m
	}
	kept := make([]map[string]json.RawMessage, 0, len(items))
	for _, it := range items {
		var name string
		_ = json.Unmarshal(it[lf.key], &name)
		if !g.hides(lf.kind, name) {
			kept = append(kept, it)
		}
	}
	if len(kept) == len(items) {
		return m
	}
	res[lf.array], _ = json.Marshal(kept)
	out := *m
	out.Result, _ = json.Marshal(res)
	return &out
}

// listWatch remembers which of a client's requests in flight are list
// requests, so that their responses can be filtered; it holds at most
// maxInFlight of them. A nil listWatch filters nothing.
type listWatch struct {
	g       *guard
	mu      sync.Mutex
	pending map[jsonrpc.ID]string
}

// note remembers m if it is a list request the guard filters.
func (w *listWatch) note(m *jsonrpc.Message) {
	if w == nil || w.g == nil || !m.IsRequest() {
		return
	}
	if _, ok := listField[m.Method]; !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[jsonrpc.ID]string{}
	}
	if len(w.pending) < maxInFlight {
		w.pending[m.ID] = m.Method
	}
}

// filter returns the server's message m, filtered if it answers a noted
// list request, or nil when m is a notification about a hidden item
// (notifications/resources/updated of a hidden resource), which the client
// must not learn of.
func (w *listWatch) filter(m *jsonrpc.Message) *jsonrpc.Message {
	if w == nil || w.g == nil {
		return m
	}
	if m.IsNotification() {
		if w.g.hidesNotice(m) {
			return nil
		}
		return m
	}
	if !m.IsResponse() {
		return m
	}
	w.mu.Lock()
	method, ok := w.pending[m.ID]
	delete(w.pending, m.ID)
	w.mu.Unlock()
	if !ok {
		return m
	}
	return w.g.filter(method, m)
}
