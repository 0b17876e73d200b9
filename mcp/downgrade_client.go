// Downgrading what travels from server to client and back inside the
// client's features (sampling, elicitation, roots) and the multi-round-trip
// requests of 2026-07-28; see downgrade.go.

package mcp

import (
	"maps"
	"slices"
	"strings"
)

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
