package mcp

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
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
	// The task results (CreateTaskResult, GetTaskResult, ListTasksResult,
	// CancelTaskResult) exist in 2025-11-25 only and have no optional parts
	// that differ; everything else is unknown here.
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
	if len(t.OutputSchema) > 0 && (!f.structuredOutput || !f.structuredContentAnyJSON && !isObjectSchema(t.OutputSchema)) {
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

// Content.

// downgradeBlocks downgrades a list of content blocks.
func downgradeBlocks(f versionFeatures, cs []Content) []Content {
	return mapSlice(cs, func(c Content) Content { return downgradeContent(f, c) })
}

// downgradeContent removes from one content block what revision f lacks:
// _meta (2025-06-18), annotations.lastModified, icons on links. A block of
// a kind f lacks becomes a text block describing it (see the top of this
// file).
func downgradeContent(f versionFeatures, c Content) Content {
	switch c := c.(type) {
	case *TextContent:
		m, a := objectMeta(f, c.Meta), downgradeAnnotations(f, c.Annotations)
		if m == c.Meta && a == c.Annotations {
			return c
		}
		d := *c
		d.Meta, d.Annotations = m, a
		return &d
	case *ImageContent:
		m, a := objectMeta(f, c.Meta), downgradeAnnotations(f, c.Annotations)
		if m == c.Meta && a == c.Annotations {
			return c
		}
		d := *c
		d.Meta, d.Annotations = m, a
		return &d
	case *AudioContent:
		if !f.audioContent {
			return substituteText(f, "[audio omitted ("+c.MIMEType+"): protocol revision "+f.version+" has no audio content]", c.Annotations)
		}
		m, a := objectMeta(f, c.Meta), downgradeAnnotations(f, c.Annotations)
		if m == c.Meta && a == c.Annotations {
			return c
		}
		d := *c
		d.Meta, d.Annotations = m, a
		return &d
	case *ResourceLink:
		if !f.resourceLinks {
			return substituteText(f, describeContent(c), c.Annotations)
		}
		w := cow[ResourceLink]{orig: c}
		if m := objectMeta(f, c.Meta); m != c.Meta {
			w.edit().Meta = m
		}
		if a := downgradeAnnotations(f, c.Annotations); a != c.Annotations {
			w.edit().Annotations = a
		}
		if !f.titles && c.Title != "" {
			w.edit().Title = ""
		}
		if !f.icons && c.Icons != nil {
			w.edit().Icons = nil
		}
		return w.result()
	case *EmbeddedResource:
		m, a, rc := objectMeta(f, c.Meta), downgradeAnnotations(f, c.Annotations), downgradeResourceContents(f, c.Resource)
		if m == c.Meta && a == c.Annotations && rc == c.Resource {
			return c
		}
		d := *c
		d.Meta, d.Annotations, d.Resource = m, a, rc
		return &d
	case *ToolUseContent:
		if !f.samplingTools {
			return substituteText(f, describeContent(c), nil)
		}
		if m := objectMeta(f, c.Meta); m != c.Meta {
			d := *c
			d.Meta = m
			return &d
		}
		return c
	case *ToolResultContent:
		if !f.samplingTools {
			return substituteText(f, describeContent(c), nil)
		}
		m, cs := objectMeta(f, c.Meta), downgradeBlocks(f, c.Content)
		if m == c.Meta && sameSlice(cs, c.Content) {
			return c
		}
		d := *c
		d.Meta, d.Content = m, cs
		return &d
	}
	return c
}

// substituteText is the text block that stands for a block revision f
// lacks, keeping its annotations.
func substituteText(f versionFeatures, text string, a *Annotations) *TextContent {
	return &TextContent{Text: text, Annotations: downgradeAnnotations(f, a)}
}

// describeContent returns text standing for content block c: the text of
// a text block, and a bracketed description of anything else, carrying
// what text can (a link's URI, a tool call's input, a tool result's text).
func describeContent(c Content) string {
	var b strings.Builder
	switch c := c.(type) {
	case *TextContent:
		return c.Text
	case *ImageContent:
		return "[image (" + c.MIMEType + ")]"
	case *AudioContent:
		return "[audio (" + c.MIMEType + ")]"
	case *ResourceLink:
		b.WriteString("[resource link: ")
		if c.Title != "" {
			b.WriteString(c.Title)
		} else {
			b.WriteString(c.Name)
		}
		b.WriteString(" <" + c.URI + ">")
		if c.MIMEType != "" {
			b.WriteString(" (" + c.MIMEType + ")")
		}
		if c.Description != "" {
			b.WriteString(": " + c.Description)
		}
		b.WriteByte(']')
	case *EmbeddedResource:
		b.WriteString("[resource")
		switch r := c.Resource.(type) {
		case *TextResourceContents:
			b.WriteString(" <" + r.URI + ">: " + r.Text)
		case *BlobResourceContents:
			b.WriteString(" <" + r.URI + ">")
		}
		b.WriteByte(']')
	case *ToolUseContent:
		input := "{}"
		if len(c.Input) > 0 {
			input = string(c.Input)
		}
		b.WriteString("[tool call " + c.ID + ": " + c.Name + " " + input + "]")
	case *ToolResultContent:
		b.WriteString("[tool result " + c.ToolUseID)
		if c.IsError {
			b.WriteString(" (error)")
		}
		b.WriteByte(':')
		for _, x := range c.Content {
			b.WriteByte(' ')
			b.WriteString(describeContent(x))
		}
		if len(c.Content) == 0 && len(c.StructuredContent) > 0 {
			b.WriteString(" " + string(c.StructuredContent))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// Resources.

// downgradeResourceContents removes _meta (2025-06-18) from text or blob
// contents.
func downgradeResourceContents(f versionFeatures, rc ResourceContents) ResourceContents {
	if f.contentMeta {
		return rc
	}
	switch r := rc.(type) {
	case *TextResourceContents:
		if r.Meta != nil {
			d := *r
			d.Meta = nil
			return &d
		}
	case *BlobResourceContents:
		if r.Meta != nil {
			d := *r
			d.Meta = nil
			return &d
		}
	}
	return rc
}

// downgradeResource removes _meta and title (2025-06-18), icons
// (2025-11-25) and annotations.lastModified (2025-06-18).
func downgradeResource(f versionFeatures, r *Resource) *Resource {
	if r == nil {
		return nil
	}
	w := cow[Resource]{orig: r}
	if m := objectMeta(f, r.Meta); m != r.Meta {
		w.edit().Meta = m
	}
	if !f.titles && r.Title != "" {
		w.edit().Title = ""
	}
	if a := downgradeAnnotations(f, r.Annotations); a != r.Annotations {
		w.edit().Annotations = a
	}
	if !f.icons && r.Icons != nil {
		w.edit().Icons = nil
	}
	return w.result()
}

// downgradeResourceTemplate removes what downgradeResource does.
func downgradeResourceTemplate(f versionFeatures, t *ResourceTemplate) *ResourceTemplate {
	if t == nil {
		return nil
	}
	w := cow[ResourceTemplate]{orig: t}
	if m := objectMeta(f, t.Meta); m != t.Meta {
		w.edit().Meta = m
	}
	if !f.titles && t.Title != "" {
		w.edit().Title = ""
	}
	if a := downgradeAnnotations(f, t.Annotations); a != t.Annotations {
		w.edit().Annotations = a
	}
	if !f.icons && t.Icons != nil {
		w.edit().Icons = nil
	}
	return w.result()
}

func downgradeListResourcesResult(f versionFeatures, r *ListResourcesResult) *ListResourcesResult {
	if r == nil {
		return nil
	}
	w := cow[ListResourcesResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if rs := mapSlice(r.Resources, func(x *Resource) *Resource { return downgradeResource(f, x) }); !sameSlice(rs, r.Resources) {
		w.edit().Resources = rs
	}
	return w.result()
}

func downgradeListResourceTemplatesResult(f versionFeatures, r *ListResourceTemplatesResult) *ListResourceTemplatesResult {
	if r == nil {
		return nil
	}
	w := cow[ListResourceTemplatesResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if ts := mapSlice(r.ResourceTemplates, func(x *ResourceTemplate) *ResourceTemplate { return downgradeResourceTemplate(f, x) }); !sameSlice(ts, r.ResourceTemplates) {
		w.edit().ResourceTemplates = ts
	}
	return w.result()
}

func downgradeReadResourceResult(f versionFeatures, r *ReadResourceResult) *ReadResourceResult {
	if r == nil {
		return nil
	}
	w := cow[ReadResourceResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if cs := mapSlice(r.Contents, func(rc ResourceContents) ResourceContents { return downgradeResourceContents(f, rc) }); !sameSlice(cs, r.Contents) {
		w.edit().Contents = cs
	}
	return w.result()
}

func downgradeReadResourceParams(f versionFeatures, p *ReadResourceParams) *ReadResourceParams {
	if p == nil {
		return nil
	}
	rs, state, changed := downgradeInputResponses(f, p.InputResponses, p.RequestState)
	if !changed {
		return p
	}
	c := *p
	c.InputResponses, c.RequestState = rs, state
	return &c
}

// Prompts.

// downgradePrompt removes _meta and title (2025-06-18, on the arguments
// too) and icons (2025-11-25).
func downgradePrompt(f versionFeatures, p *Prompt) *Prompt {
	if p == nil {
		return nil
	}
	w := cow[Prompt]{orig: p}
	if m := objectMeta(f, p.Meta); m != p.Meta {
		w.edit().Meta = m
	}
	if !f.titles && p.Title != "" {
		w.edit().Title = ""
	}
	if !f.icons && p.Icons != nil {
		w.edit().Icons = nil
	}
	if as := mapSlice(p.Arguments, func(a *PromptArgument) *PromptArgument { return downgradePromptArgument(f, a) }); !sameSlice(as, p.Arguments) {
		w.edit().Arguments = as
	}
	return w.result()
}

func downgradePromptArgument(f versionFeatures, a *PromptArgument) *PromptArgument {
	if a == nil || f.titles || a.Title == "" {
		return a
	}
	c := *a
	c.Title = ""
	return &c
}

func downgradeListPromptsResult(f versionFeatures, r *ListPromptsResult) *ListPromptsResult {
	if r == nil {
		return nil
	}
	w := cow[ListPromptsResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	if h, changed := downgradeCacheHints(f, r.CacheHints); changed {
		w.edit().CacheHints = h
	}
	if ps := mapSlice(r.Prompts, func(p *Prompt) *Prompt { return downgradePrompt(f, p) }); !sameSlice(ps, r.Prompts) {
		w.edit().Prompts = ps
	}
	return w.result()
}

func downgradeGetPromptResult(f versionFeatures, r *GetPromptResult) *GetPromptResult {
	if r == nil {
		return nil
	}
	w := cow[GetPromptResult]{orig: r}
	if !f.resultType && r.ResultType != "" {
		w.edit().ResultType = ""
	}
	ms := mapSlice(r.Messages, func(m *PromptMessage) *PromptMessage {
		if m == nil {
			return nil
		}
		c := downgradeContent(f, m.Content)
		if c == m.Content {
			return m
		}
		return &PromptMessage{Role: m.Role, Content: c}
	})
	if !sameSlice(ms, r.Messages) {
		w.edit().Messages = ms
	}
	return w.result()
}

func downgradeGetPromptParams(f versionFeatures, p *GetPromptParams) *GetPromptParams {
	if p == nil {
		return nil
	}
	rs, state, changed := downgradeInputResponses(f, p.InputResponses, p.RequestState)
	if !changed {
		return p
	}
	c := *p
	c.InputResponses, c.RequestState = rs, state
	return &c
}

// Completion.

// downgradeCompleteParams removes context (2025-06-18) and the prompt
// reference's title (2025-06-18).
func downgradeCompleteParams(f versionFeatures, p *CompleteParams) *CompleteParams {
	if p == nil {
		return nil
	}
	w := cow[CompleteParams]{orig: p}
	if !f.completionContext && p.Context != nil {
		w.edit().Context = nil
	}
	if !f.titles && p.Ref.Title != "" {
		w.edit().Ref.Title = ""
	}
	return w.result()
}

func downgradeCompleteResult(f versionFeatures, r *CompleteResult) *CompleteResult {
	if r == nil || f.resultType || r.ResultType == "" {
		return r
	}
	c := *r
	c.ResultType = ""
	return &c
}

// Sampling.

// downgradeCreateMessageParams removes tools and toolChoice (2025-11-25),
// task (2025-11-25 only) and, where sampling requests travel inside an
// InputRequiredResult (2026-07-28), _meta, which those embedded requests do
// not have. It downgrades the messages (see downgradeSamplingMessages) and
// the tools.
func downgradeCreateMessageParams(f versionFeatures, p *CreateMessageParams) *CreateMessageParams {
	if p == nil {
		return nil
	}
	w := cow[CreateMessageParams]{orig: p}
	if !f.serverRequests && p.Meta != nil {
		w.edit().Meta = nil
	}
	if ms := downgradeSamplingMessages(f, p.Messages); !sameSlice(ms, p.Messages) {
		w.edit().Messages = ms
	}
	if !f.samplingTools {
		if p.Tools != nil || p.ToolChoice != nil {
			c := w.edit()
			c.Tools, c.ToolChoice = nil, nil
		}
	} else if ts := mapSlice(p.Tools, func(t *Tool) *Tool { return downgradeTool(f, t) }); !sameSlice(ts, p.Tools) {
		w.edit().Tools = ts
	}
	if !f.tasks && p.Task != nil {
		w.edit().Task = nil
	}
	return w.result()
}

// downgradeSamplingMessages downgrades each message's content blocks and
// removes its _meta, which SamplingMessage gained in 2025-11-25 with tools
// in sampling, not in 2025-06-18 with the other _meta fields. Before
// 2025-11-25 a message holds exactly one block, so a message of several is
// split into consecutive messages of the same role, one block each, which
// the model reads the same way.
func downgradeSamplingMessages(f versionFeatures, ms []*SamplingMessage) []*SamplingMessage {
	var out []*SamplingMessage // nil until a message changes
	for i, m := range ms {
		var repl []*SamplingMessage // m's replacement, if it changes
		if m != nil {
			cs := downgradeBlocks(f, m.Content)
			meta := m.Meta
			if !f.samplingTools {
				meta = nil
			}
			switch {
			case !f.samplingContentArrays && len(cs) > 1:
				repl = make([]*SamplingMessage, len(cs))
				for j, c := range cs {
					repl[j] = &SamplingMessage{Role: m.Role, Content: []Content{c}}
				}
				repl[0].Meta = meta
			case meta != m.Meta || !sameSlice(cs, m.Content):
				repl = []*SamplingMessage{{Meta: meta, Role: m.Role, Content: cs}}
			}
		}
		if repl == nil {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]*SamplingMessage, 0, len(ms)+len(repl)-1), ms[:i]...)
		}
		out = append(out, repl...)
	}
	if out == nil {
		return ms
	}
	return out
}

// downgradeCreateMessageResult downgrades the content blocks. Before
// 2025-11-25 a result holds exactly one block: several text blocks (which
// is what tool calls and results become there) are joined into one, and of
// anything else only the first block is kept.
func downgradeCreateMessageResult(f versionFeatures, r *CreateMessageResult) *CreateMessageResult {
	if r == nil {
		return nil
	}
	cs := downgradeBlocks(f, r.Content)
	if !f.samplingContentArrays && len(cs) > 1 {
		cs = []Content{joinBlocks(f, cs)}
	}
	if sameSlice(cs, r.Content) {
		return r
	}
	c := *r
	c.Content = cs
	return &c
}

// joinBlocks returns one block standing for cs: their texts joined by
// blank lines if all are text, else the first block.
func joinBlocks(f versionFeatures, cs []Content) Content {
	var b strings.Builder
	for i, c := range cs {
		t, ok := c.(*TextContent)
		if !ok || t == nil {
			return cs[0]
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t.Text)
	}
	return substituteText(f, b.String(), nil)
}

// Elicitation.

// downgradeElicitParams removes mode (2025-11-25; a form is the only kind
// before), elicitationId (2025-11-25 only, and on URL-mode requests only),
// task (2025-11-25 only) and,
// where elicitations travel inside an InputRequiredResult (2026-07-28),
// _meta, which those embedded requests do not have. It downgrades the form
// (see downgradeElicitSchema). A URL-mode request cannot be expressed
// before 2025-11-25 and passes through unchanged.
func downgradeElicitParams(f versionFeatures, p *ElicitParams) *ElicitParams {
	if p == nil || !f.elicitationURLMode && p.Mode == ElicitModeURL {
		return p
	}
	w := cow[ElicitParams]{orig: p}
	if !f.serverRequests && p.Meta != nil {
		w.edit().Meta = nil
	}
	if !f.elicitationURLMode && p.Mode != "" {
		w.edit().Mode = ""
	}
	if p.ElicitationID != "" && (!f.elicitationComplete || p.Mode != ElicitModeURL) {
		w.edit().ElicitationID = ""
	}
	if !f.tasks && p.Task != nil {
		w.edit().Task = nil
	}
	if s := downgradeElicitSchema(f, p.RequestedSchema); s != p.RequestedSchema {
		w.edit().RequestedSchema = s
	}
	return w.result()
}

// downgradeElicitSchema removes $schema (2025-11-25, with JSON Schema
// 2020-12 as the default dialect) and downgrades each field. A
// multi-select enum (2025-11-25) has no equivalent before: the field is
// removed, and from required too, so the user is not asked for it and the
// answer lacks it, which the caller sees as a field left empty.
func downgradeElicitSchema(f versionFeatures, s *ElicitSchema) *ElicitSchema {
	if s == nil {
		return nil
	}
	w := cow[ElicitSchema]{orig: s}
	if !f.jsonSchema202012Default && s.Schema != "" {
		w.edit().Schema = ""
	}
	var props []ElicitProperty // nil until a property changes
	var dropped []string
	for i, p := range s.Properties {
		ps := p.Schema
		drop := !f.enumSchemas && ps != nil && ps.Type == SchemaArray
		if !drop {
			ps = downgradePrimitiveSchema(f, ps)
		}
		if !drop && ps == p.Schema {
			if props != nil {
				props = append(props, p)
			}
			continue
		}
		if props == nil {
			props = append(make([]ElicitProperty, 0, len(s.Properties)), s.Properties[:i]...)
		}
		if drop {
			dropped = append(dropped, p.Name)
			continue
		}
		props = append(props, ElicitProperty{Name: p.Name, Schema: ps})
	}
	if props != nil {
		w.edit().Properties = props
	}
	if dropped != nil {
		var req []string
		for _, name := range s.Required {
			if !slices.Contains(dropped, name) {
				req = append(req, name)
			}
		}
		w.edit().Required = req
	}
	return w.result()
}

// downgradePrimitiveSchema removes default (2025-11-25; booleans had it
// from the start of elicitation) and turns a titled single-select enum
// (oneOf, 2025-11-25) into the enum and enumNames form every revision
// reads, which says the same.
func downgradePrimitiveSchema(f versionFeatures, ps *PrimitiveSchema) *PrimitiveSchema {
	if ps == nil {
		return nil
	}
	w := cow[PrimitiveSchema]{orig: ps}
	if !f.elicitationDefaults && ps.Default != nil && ps.Type != SchemaBoolean {
		w.edit().Default = nil
	}
	if !f.enumSchemas && ps.OneOf != nil {
		enum := make([]string, len(ps.OneOf))
		names := make([]string, len(ps.OneOf))
		for i, o := range ps.OneOf {
			enum[i], names[i] = o.Const, o.Title
		}
		c := w.edit()
		c.Enum, c.EnumNames, c.OneOf = enum, names, nil
	}
	return w.result()
}

// downgradeElicitResult removes multi-select answers (lists, 2025-11-25)
// and, where the result travels inside inputResponses (2026-07-28), _meta,
// which it does not have there.
func downgradeElicitResult(f versionFeatures, r *ElicitResult) *ElicitResult {
	if r == nil {
		return nil
	}
	w := cow[ElicitResult]{orig: r}
	if !f.serverRequests && r.Meta != nil {
		w.edit().Meta = nil
	}
	if !f.enumSchemas && hasList(r.Content) {
		content := make(map[string]any, len(r.Content))
		for k, v := range r.Content {
			if !isList(v) {
				content[k] = v
			}
		}
		w.edit().Content = content
	}
	return w.result()
}

// hasList reports whether some answer of a form is a list.
func hasList(content map[string]any) bool {
	for _, v := range content {
		if isList(v) {
			return true
		}
	}
	return false
}

// isList reports whether v, a form answer, is a list of choices.
func isList(v any) bool {
	switch v.(type) {
	case []string, []any:
		return true
	}
	return false
}

// Roots.

// downgradeListRootsResult removes each root's _meta (2025-06-18) and,
// where the result travels inside inputResponses (2026-07-28), its own
// _meta, which it does not have there.
func downgradeListRootsResult(f versionFeatures, r *ListRootsResult) *ListRootsResult {
	if r == nil {
		return nil
	}
	w := cow[ListRootsResult]{orig: r}
	if !f.serverRequests && r.Meta != nil {
		w.edit().Meta = nil
	}
	rs := mapSlice(r.Roots, func(x *Root) *Root {
		if x == nil || x.Meta == nil || f.contentMeta {
			return x
		}
		c := *x
		c.Meta = nil
		return &c
	})
	if !sameSlice(rs, r.Roots) {
		w.edit().Roots = rs
	}
	return w.result()
}

// Multi-round-trip requests (2026-07-28).

// downgradeInputRequiredResult downgrades the embedded requests. Before
// 2026-07-28 the result does not exist and passes through unchanged.
func downgradeInputRequiredResult(f versionFeatures, r *InputRequiredResult) *InputRequiredResult {
	if r == nil || !f.inputRequired {
		return r
	}
	var reqs map[string]*InputRequest // nil until a request changes
	for k, q := range r.InputRequests {
		if q == nil {
			continue
		}
		e, cm := downgradeElicitParams(f, q.Elicit), downgradeCreateMessageParams(f, q.CreateMessage)
		if e == q.Elicit && cm == q.CreateMessage {
			continue
		}
		if reqs == nil {
			reqs = maps.Clone(r.InputRequests)
		}
		reqs[k] = &InputRequest{Elicit: e, CreateMessage: cm, ListRoots: q.ListRoots}
	}
	if reqs == nil {
		return r
	}
	c := *r
	c.InputRequests = reqs
	return &c
}

// downgradeInputResponses returns the inputResponses and requestState to
// send, and whether they differ from rs and state: none before 2026-07-28,
// else the responses downgraded (a changed response makes a new map).
func downgradeInputResponses(f versionFeatures, rs map[string]*InputResponse, state string) (map[string]*InputResponse, string, bool) {
	if !f.inputRequired {
		return nil, "", rs != nil || state != ""
	}
	var out map[string]*InputResponse // nil until a response changes
	for k, r := range rs {
		if r == nil {
			continue
		}
		e, cm, lr := downgradeElicitResult(f, r.Elicit), downgradeCreateMessageResult(f, r.CreateMessage), downgradeListRootsResult(f, r.ListRoots)
		if e == r.Elicit && cm == r.CreateMessage && lr == r.ListRoots {
			continue
		}
		if out == nil {
			out = maps.Clone(rs)
		}
		out[k] = &InputResponse{Elicit: e, CreateMessage: cm, ListRoots: lr}
	}
	if out == nil {
		return rs, state, false
	}
	return out, state, true
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
