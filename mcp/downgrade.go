package mcp

import (
	"bytes"
	"encoding/json"
)

// Downgrading: one server speaks every revision, and the protocol values it
// sends (tools, resources, prompts, its Implementation, capabilities) are
// built once, with every field the newest revision has, and shared by all
// sessions. The rule is that a field a revision lacks is not sent to a peer
// speaking that revision. downgradeResult and downgradeParams apply it just
// before a value is encoded: they return a value safe to encode for
// revision f.
//
// Copy on write: the input is never modified, since it is shared across
// sessions, revisions and goroutines. When nothing needs removing, which is
// the common case at the newest revisions, the input itself comes back and
// nothing is allocated. Otherwise the result is a shallow copy with the
// missing fields cleared, copied again at each nested level that changes
// (a ListToolsResult copies its Tools slice and the tools that change; the
// tools that do not are shared with the input).
//
// Content a revision lacks. A content block of a kind the revision does
// not have (audio before 2025-03-26, resource_link before 2025-06-18,
// tool_use and tool_result before 2025-11-25) is replaced by a text block
// that describes it, keeping its annotations: dropping it would leave the
// model unaware that something was there, and could leave a prompt or
// sampling message, which needs a block, with none. A link keeps its
// URI, a tool call its name and input, a tool result its text, so most of
// the meaning survives; audio cannot, so its block says it was left out.
//
// What is not changed: _meta on params and results exists in every
// revision and its keys are opaque to the peer, so it passes through (only
// the _meta of objects that gained it later, such as content blocks, tools
// and roots, is removed). Values the revision cannot carry at all, a
// URL-mode elicitation before 2025-11-25, an InputRequiredResult before
// 2026-07-28, task results outside 2025-11-25, are the caller's error (the
// session refuses to send them) and pass through unchanged, as do types
// this file does not know (extensions) and values that are not pointers.

// downgradeResult returns res, the result of the request method, as it may
// be sent to a peer speaking revision f. It never modifies res; it returns
// res itself when nothing needs removing. No rule depends on method yet
// (each type is sent the same way whichever request it answers, as a
// CallToolResult is for tools/call and tasks/result); it is there so that
// one that must can.
func downgradeResult(f versionFeatures, method string, res any) any {
	switch r := res.(type) {
	case *InitializeResult:
		return downgradeInitializeResult(f, r)
	case *DiscoverResult:
		return downgradeDiscoverResult(f, r)
	case *EmptyResult:
		return downgradeEmptyResult(f, r)
	case *ListToolsResult:
		return downgradeListToolsResult(f, r)
	case *CallToolResult:
		return downgradeCallToolResult(f, r)
	case *ListResourcesResult:
		return downgradeListResourcesResult(f, r)
	case *ListResourceTemplatesResult:
		return downgradeListResourceTemplatesResult(f, r)
	case *ReadResourceResult:
		return downgradeReadResourceResult(f, r)
	case *ListPromptsResult:
		return downgradeListPromptsResult(f, r)
	case *GetPromptResult:
		return downgradeGetPromptResult(f, r)
	case *CompleteResult:
		return downgradeCompleteResult(f, r)
	case *ListenResult:
		return downgradeListenResult(f, r)
	case *InputRequiredResult:
		return downgradeInputRequiredResult(f, r)
	case *CreateMessageResult:
		return downgradeCreateMessageResult(f, r)
	case *ElicitResult:
		return downgradeElicitResult(f, r)
	case *ListRootsResult:
		return downgradeListRootsResult(f, r)
	}
	// The task results (package tasks's) exist in 2025-11-25 only and
	// have no optional parts that differ; everything else is unknown here.
	return res
}

// downgradeParams returns params, the params of the request or
// notification method, as they may be sent to a peer speaking revision f:
// outgoing notifications and requests, in either direction. It never
// modifies params; it returns params itself when nothing needs removing.
// As for downgradeResult, no rule depends on method yet.
func downgradeParams(f versionFeatures, method string, params any) any {
	switch p := params.(type) {
	case *InitializeParams:
		return downgradeInitializeParams(f, p)
	case *ProgressNotificationParams:
		return downgradeProgressParams(f, p)
	case *CallToolParams:
		return downgradeCallToolParams(f, p)
	case *GetPromptParams:
		return downgradeGetPromptParams(f, p)
	case *ReadResourceParams:
		return downgradeReadResourceParams(f, p)
	case *CompleteParams:
		return downgradeCompleteParams(f, p)
	case *CreateMessageParams:
		return downgradeCreateMessageParams(f, p)
	case *ElicitParams:
		return downgradeElicitParams(f, p)
	}
	// The other params (ping, initialized, cancelled, logging, list_changed,
	// resources/updated, subscribe, the list requests, roots/list, tasks,
	// subscriptions) have no fields that differ between the revisions that
	// have the method.
	return params
}

// cow is a copy-on-write handle on a value that must not be modified:
// edit returns a copy, made at the first call, and result returns the copy
// or, if nothing was edited, the original.
type cow[T any] struct {
	orig, dup *T
}

func (w *cow[T]) edit() *T {
	if w.dup == nil {
		c := *w.orig
		w.dup = &c
	}
	return w.dup
}

func (w *cow[T]) result() *T {
	if w.dup != nil {
		return w.dup
	}
	return w.orig
}

// mapSlice returns s with every element replaced by fn(element). It
// allocates a new slice only if some element changes; otherwise it returns
// s itself.
func mapSlice[T comparable](s []T, fn func(T) T) []T {
	var out []T
	for i, e := range s {
		d := fn(e)
		if out == nil {
			if d == e {
				continue
			}
			out = make([]T, len(s))
			copy(out, s[:i])
		}
		out[i] = d
	}
	if out == nil {
		return s
	}
	return out
}

// Shared parts.

// downgradeImplementation removes the display fields: title (2025-06-18),
// description, websiteUrl and icons (2025-11-25).
func downgradeImplementation(f versionFeatures, impl *Implementation) *Implementation {
	if impl == nil {
		return nil
	}
	w := cow[Implementation]{orig: impl}
	if !f.titles && impl.Title != "" {
		w.edit().Title = ""
	}
	if !f.implementationDescription && (impl.Description != "" || impl.WebsiteURL != "") {
		c := w.edit()
		c.Description, c.WebsiteURL = "", ""
	}
	if !f.icons && impl.Icons != nil {
		w.edit().Icons = nil
	}
	return w.result()
}

// downgradeAnnotations removes lastModified (2025-06-18).
func downgradeAnnotations(f versionFeatures, a *Annotations) *Annotations {
	if a == nil || f.annotationsLastModified || a.LastModified == "" {
		return a
	}
	c := *a
	c.LastModified = ""
	return &c
}

// objectMeta is the _meta of an object that gained it in 2025-06-18
// (content blocks, resource contents, tools, resources, prompts, roots).
func objectMeta(f versionFeatures, m *Meta) *Meta {
	if f.contentMeta {
		return m
	}
	return nil
}

// downgradeServerCapabilities removes completions (2025-03-26) and tasks
// (2025-11-25 only). Extensions stay in every revision: 2026-07-28 defines
// the member, and peers of the earlier ones exchange it in initialize too
// (the TypeScript SDK 2, MCP Apps hosts); their schemas allow it.
func downgradeServerCapabilities(f versionFeatures, c *ServerCapabilities) *ServerCapabilities {
	if c == nil {
		return nil
	}
	w := cow[ServerCapabilities]{orig: c}
	if !f.completionsCapability && c.Completions != nil {
		w.edit().Completions = nil
	}
	if !f.tasks && c.Tasks != nil {
		w.edit().Tasks = nil
	}
	return w.result()
}

// downgradeClientCapabilities removes elicitation (2025-06-18) and its
// modes (2025-11-25), sampling.context and sampling.tools (2025-11-25),
// roots.listChanged (gone in 2026-07-28) and tasks (2025-11-25 only);
// extensions stay, as in downgradeServerCapabilities. A client that
// supports URL-mode elicitation only does not support elicitation at all in
// a revision without URL mode.
func downgradeClientCapabilities(f versionFeatures, c *ClientCapabilities) *ClientCapabilities {
	if c == nil {
		return nil
	}
	w := cow[ClientCapabilities]{orig: c}
	if e := c.Elicitation; e != nil {
		switch {
		case !f.elicitation, !f.elicitationURLMode && e.Form == nil && e.URL != nil:
			w.edit().Elicitation = nil
		case !f.elicitationURLMode && e.Form != nil:
			w.edit().Elicitation = &ElicitationCapabilities{}
		}
	}
	if s := c.Sampling; s != nil && !f.samplingTools && (s.Context != nil || s.Tools != nil) {
		w.edit().Sampling = &SamplingCapabilities{}
	}
	if r := c.Roots; r != nil && !f.rootsListChanged && r.ListChanged {
		w.edit().Roots = &RootCapabilities{}
	}
	if !f.tasks && c.Tasks != nil {
		w.edit().Tasks = nil
	}
	return w.result()
}

// downgradeCacheHints reports the hints to send: none before 2026-07-28.
func downgradeCacheHints(f versionFeatures, h CacheHints) (CacheHints, bool) {
	if f.cacheHints || (h.TTLMs == nil && h.CacheScope == "") {
		return h, false
	}
	return CacheHints{}, true
}

// Lifecycle.

func downgradeInitializeParams(f versionFeatures, p *InitializeParams) *InitializeParams {
	if p == nil {
		return nil
	}
	w := cow[InitializeParams]{orig: p}
	if c := downgradeClientCapabilities(f, p.Capabilities); c != p.Capabilities {
		w.edit().Capabilities = c
	}
	if i := downgradeImplementation(f, p.ClientInfo); i != p.ClientInfo {
		w.edit().ClientInfo = i
	}
	return w.result()
}

func downgradeInitializeResult(f versionFeatures, r *InitializeResult) *InitializeResult {
	if r == nil {
		return nil
	}
	w := cow[InitializeResult]{orig: r}
	if c := downgradeServerCapabilities(f, r.Capabilities); c != r.Capabilities {
		w.edit().Capabilities = c
	}
	if i := downgradeImplementation(f, r.ServerInfo); i != r.ServerInfo {
		w.edit().ServerInfo = i
	}
	return w.result()
}

func downgradeDiscoverResult(f versionFeatures, r *DiscoverResult) *DiscoverResult {
	if r == nil {
		return nil
	}
	w := cow[DiscoverResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if c := downgradeServerCapabilities(f, r.Capabilities); c != r.Capabilities {
		w.edit().Capabilities = c
	}
	return w.result()
}

func downgradeEmptyResult(f versionFeatures, r *EmptyResult) *EmptyResult {
	if r == nil || f.resultType || r.ResultType == "" {
		return r
	}
	c := *r
	c.ResultType = ""
	return &c
}

func downgradeListenResult(f versionFeatures, r *ListenResult) *ListenResult {
	if r == nil || f.resultType || r.ResultType == "" {
		return r
	}
	c := *r
	c.ResultType = ""
	return &c
}

// downgradeProgressParams removes message (2025-03-26).
func downgradeProgressParams(f versionFeatures, p *ProgressNotificationParams) *ProgressNotificationParams {
	if p == nil || f.progressMessage || p.Message == "" {
		return p
	}
	c := *p
	c.Message = ""
	return &c
}

// Tools.

// downgradeTool removes _meta, title and outputSchema (2025-06-18),
// annotations (2025-03-26), icons (2025-11-25) and execution (2025-11-25
// only). Before 2026-07-28 an output schema must describe an object; any
// other one is removed, and CallToolResult drops the structured content
// that goes with it.
func downgradeTool(f versionFeatures, t *Tool) *Tool {
	if t == nil {
		return nil
	}
	w := cow[Tool]{orig: t}
	if m := objectMeta(f, t.Meta); m != t.Meta {
		w.edit().Meta = m
	}
	if !f.titles && t.Title != "" {
		w.edit().Title = ""
	}
	if out := schemaBytes(t.OutputSchema); len(out) > 0 && (!f.structuredOutput || !f.structuredContentAnyJSON && !isObjectSchema(out)) {
		w.edit().OutputSchema = nil
	}
	if !f.toolAnnotations && t.Annotations != nil {
		w.edit().Annotations = nil
	}
	if !f.icons && t.Icons != nil {
		w.edit().Icons = nil
	}
	if !f.tasks && t.Execution != nil {
		w.edit().Execution = nil
	}
	return w.result()
}

// isObjectSchema reports whether the JSON Schema raw says "type":"object"
// at its root, as outputSchema must before 2026-07-28.
func isObjectSchema(raw json.RawMessage) bool {
	object := false
	_ = eachMember(raw, func(k, v []byte) error {
		if !keyIs(k, "type") {
			return nil
		}
		if bytes.IndexByte(v, '\\') < 0 {
			object = string(v) == `"object"`
		} else {
			s, ok := unquote(v)
			object = ok && s == "object"
		}
		return errStopScan
	})
	return object
}

// isJSONObject reports whether raw is a JSON object (as structuredContent
// must be before 2026-07-28), looking at its first byte only.
func isJSONObject(raw json.RawMessage) bool {
	i := skipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

func downgradeListToolsResult(f versionFeatures, r *ListToolsResult) *ListToolsResult {
	if r == nil {
		return nil
	}
	w := cow[ListToolsResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if ts := mapSlice(r.Tools, func(t *Tool) *Tool { return downgradeTool(f, t) }); !sameSlice(ts, r.Tools) {
		w.edit().Tools = ts
	}
	return w.result()
}

// downgradeCallToolResult removes resultType (2026-07-28) and
// structuredContent (2025-06-18; before 2026-07-28 only an object), and
// downgrades the content blocks.
func downgradeCallToolResult(f versionFeatures, r *CallToolResult) *CallToolResult {
	if r == nil {
		return nil
	}
	w := cow[CallToolResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if r.StructuredContent != nil && (!f.structuredOutput || !f.structuredContentAnyJSON && !isJSONObject(r.StructuredContent)) {
		w.edit().StructuredContent = nil
	}
	if cs := downgradeBlocks(f, r.Content); !sameSlice(cs, r.Content) {
		w.edit().Content = cs
	}
	return w.result()
}

func downgradeCallToolParams(f versionFeatures, p *CallToolParams) *CallToolParams {
	if p == nil {
		return nil
	}
	w := cow[CallToolParams]{orig: p}
	if !f.tasks && p.Task != nil {
		w.edit().Task = nil
	}
	if rs, state, changed := downgradeInputResponses(f, p.InputResponses, p.RequestState); changed {
		c := w.edit()
		c.InputResponses, c.RequestState = rs, state
	}
	return w.result()
}

// Helpers.

// sameSlice reports whether a and b are the same slice: same length and
// same backing array. The downgrade functions return their input slice
// when nothing changed, so this tells whether anything did.
func sameSlice[T any](a, b []T) bool {
	switch {
	case len(a) != len(b):
		return false
	case len(a) == 0:
		return (a == nil) == (b == nil)
	}
	return &a[0] == &b[0]
}
