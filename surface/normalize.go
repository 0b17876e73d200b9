package surface

import (
	"encoding/json"
	"slices"
	"strings"
)

// maxDepth bounds how deep normalization and Diff walk into a schema or
// any other JSON value; below it values are kept, and compared, as they
// are.
const maxDepth = 64

// normalize puts s in normal form (see the package documentation).
func (s *Snapshot) normalize() {
	if s.ServerInfo == nil {
		s.ServerInfo = map[string]any{}
	}
	if s.Capabilities == nil {
		s.Capabilities = map[string]any{}
	}
	delete(s.ServerInfo, "version")
	normIcons(s.ServerInfo)
	if ext, ok := s.Capabilities["extensions"].(map[string]any); ok {
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		for k, v := range ext {
			s.Extensions[k] = v
		}
	}
	delete(s.Capabilities, "extensions")
	if len(s.Extensions) == 0 {
		s.Extensions = nil
	}
	for _, m := range []*map[string]any{&s.Tools, &s.Prompts, &s.Resources, &s.ResourceTemplates} {
		if *m == nil {
			*m = map[string]any{}
		}
	}
	for _, v := range s.Tools {
		if t, ok := v.(map[string]any); ok {
			normIcons(t)
			normSchema(t["inputSchema"], 0)
			normSchema(t["outputSchema"], 0)
		}
	}
	for _, v := range s.Prompts {
		if p, ok := v.(map[string]any); ok {
			normIcons(p)
			if args, ok := p["arguments"].([]any); ok {
				slices.SortStableFunc(args, func(a, b any) int { return strings.Compare(nameOf(a), nameOf(b)) })
			}
		}
	}
	for _, m := range []map[string]any{s.Resources, s.ResourceTemplates} {
		for _, v := range m {
			if r, ok := v.(map[string]any); ok {
				normIcons(r)
				delete(r, "size")
				if a, ok := r["annotations"].(map[string]any); ok {
					delete(a, "lastModified")
					sortSet(a["audience"])
				}
			}
		}
	}
}

// nameOf returns the "name" of a JSON object, or "".
func nameOf(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// normIcons sorts the icons of obj, and the sizes of each.
func normIcons(obj map[string]any) {
	icons, ok := obj["icons"].([]any)
	if !ok {
		return
	}
	for _, ic := range icons {
		if m, ok := ic.(map[string]any); ok {
			sortSet(m["sizes"])
		}
	}
	sortSet(icons)
}

// sortSet sorts v in place by canonical JSON, if it is an array.
func sortSet(v any) {
	a, ok := v.([]any)
	if !ok {
		return
	}
	keys := make(map[int]string, len(a))
	idx := make([]int, len(a))
	for i, x := range a {
		idx[i], keys[i] = i, canonical(x)
	}
	slices.SortStableFunc(idx, func(i, j int) int { return strings.Compare(keys[i], keys[j]) })
	sorted := make([]any, len(a))
	for i, j := range idx {
		sorted[i] = a[j]
	}
	copy(a, sorted)
}

// canonical returns v's JSON with sorted keys, as encoding/json writes
// maps.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Keywords whose values are subschemas: one, an array of them, or an
// object of them.
var (
	schemaOne = []string{"items", "additionalProperties", "additionalItems", "not", "if", "then", "else",
		"contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
	schemaArray  = []string{"prefixItems", "anyOf", "oneOf", "allOf", "items"}
	schemaObject = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	// setKeywords hold arrays whose order carries no meaning.
	setKeywords = []string{"required", "enum", "type", "anyOf", "oneOf", "allOf"}
)

// normSchema sorts the set-valued keywords of a JSON Schema and of its
// subschemas, to maxDepth.
func normSchema(v any, depth int) {
	m, ok := v.(map[string]any)
	if !ok || depth > maxDepth {
		return
	}
	for _, k := range schemaOne {
		normSchema(m[k], depth+1)
	}
	for _, k := range schemaArray {
		if a, ok := m[k].([]any); ok {
			for _, x := range a {
				normSchema(x, depth+1)
			}
		}
	}
	for _, k := range schemaObject {
		if o, ok := m[k].(map[string]any); ok {
			for _, x := range o {
				normSchema(x, depth+1)
			}
		}
	}
	for _, k := range setKeywords {
		sortSet(m[k])
	}
}
