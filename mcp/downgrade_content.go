// Downgrading content blocks, resources, prompts and completions; see
// downgrade.go.

package mcp

import "strings"

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
