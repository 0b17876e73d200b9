package surface

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// direction is which way values flow through a schema: into the server
// (a tool's input: accepting fewer values breaks callers) or out of it (a
// tool's output: producing more kinds of values breaks readers).
type direction int

const (
	input direction = iota
	output
)

// schemaCtx is the state of the comparison of one pair of schemas.
type schemaCtx struct {
	label            string // the tool, for messages
	dir              direction
	oldRoot, newRoot any
	seen             map[string]bool // pairs of schemas with $refs already compared
}

// schemaRoot compares a tool's input or output schemas.
func (d *differ) schemaRoot(path []string, label string, dir direction, o, n any) {
	c := &schemaCtx{label: label, dir: dir, oldRoot: o, newRoot: n, seen: map[string]bool{}}
	d.schema(c, path, "", o, n, 0)
}

// subject names the place in the schema for a message.
func (c *schemaCtx) subject(where string) string {
	noun := map[direction]string{input: "argument", output: "output field"}[c.dir]
	if where == "" {
		return c.label + ": " + map[direction]string{input: "input", output: "output"}[c.dir]
	}
	return fmt.Sprintf("%s: %s %q", c.label, noun, where)
}

// shift records a change that narrows (accepts fewer values) or widens
// the schema: Breaking for an input narrowed or an output widened.
func (d *differ) shift(c *schemaCtx, path []string, where string, narrowed bool, format string, args ...any) {
	class := Compatible
	if narrowed == (c.dir == input) {
		class = Breaking
	}
	d.add(class, path, "%s: %s", c.subject(where), fmt.Sprintf(format, args...))
}

// breaking records a change that is Breaking either way.
func (d *differ) breaking(c *schemaCtx, path []string, where, format string, args ...any) {
	d.add(Breaking, path, "%s: %s", c.subject(where), fmt.Sprintf(format, args...))
}

// annotationKeywords change no value's validity.
var annotationKeywords = []string{"title", "description", "examples", "default", "deprecated", "$comment",
	"readOnly", "writeOnly", "$schema", "$id", "$anchor", "contentMediaType", "contentEncoding"}

// Keywords that narrow as they grow (lower bounds) or as they shrink.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)

// schema compares the schemas o and n found at path (where names the
// argument or output field in messages).
func (d *differ) schema(c *schemaCtx, path []string, where string, o, n any, depth int) {
	if !d.step(path) {
		return
	}
	if key := refKey(o) + "\x00" + refKey(n); strings.Contains(key, `"$ref"`) {
		// A pair of schemas with $refs is compared once: that ends
		// recursive schemas, and $refs that fan out cost no more than
		// their targets.
		if c.seen[key] {
			return
		}
		c.seen[key] = true
	} else if canonical(o) == canonical(n) {
		return
	}
	o, n = resolve(o, c.oldRoot), resolve(n, c.newRoot)
	if !strings.Contains(canonical(o)+canonical(n), `"$ref"`) && canonical(o) == canonical(n) {
		return
	}
	if depth > maxDepth {
		d.breaking(c, path, where, "changed below the depth compared (%d)", maxDepth)
		return
	}
	om, ook := o.(map[string]any)
	nm, nok := n.(map[string]any)
	if !ook || !nok {
		d.boolSchema(c, path, where, o, n)
		return
	}
	d.types(c, path, where, om, nm)
	d.enum(c, path, where, om, nm)
	d.bounds(c, path, where, om, nm)
	d.object(c, path, where, om, nm, depth)
	d.arrays(c, path, where, om, nm, depth)
	d.combinators(c, path, where, om, nm, depth)
	d.others(c, path, where, om, nm)
}

// refKey is the JSON of a schema without its definitions, which are the
// same wherever the schema refers to them.
func refKey(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return canonical(v)
	}
	if _, defs := m["$defs"]; !defs {
		if _, defs = m["definitions"]; !defs {
			return canonical(m)
		}
	}
	c := make(map[string]any, len(m))
	for k, x := range m {
		if k != "$defs" && k != "definitions" {
			c[k] = x
		}
	}
	return canonical(c)
}

// rank orders schema values by what they accept: false (nothing), an
// object (some values), true, {} or absent (everything).
func rank(v any) int {
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return 2
	}
	switch v {
	case false:
		return 0
	case true, nil:
		return 2
	}
	return 1
}

// boolSchema compares schemas at least one of which is true, false or
// absent.
func (d *differ) boolSchema(c *schemaCtx, path []string, where string, o, n any) {
	ro, rn := rank(o), rank(n)
	os, ns := short(o), short(n)
	if o == nil {
		os = "absent"
	}
	if n == nil {
		ns = "absent"
	}
	switch {
	case ro == rn && ro == 2:
		d.add(Compatible, path, "%s: %s written as %s (both accept everything)", c.subject(where), os, ns)
	case ro == rn:
		d.breaking(c, path, where, "schema changed from %s to %s", os, ns)
	case rn < ro:
		d.shift(c, path, where, true, "accepts fewer values (%s became %s)", os, ns)
	default:
		d.shift(c, path, where, false, "accepts more values (%s became %s)", os, ns)
	}
}

// resolve follows a local $ref ("#/$defs/x", any JSON Pointer into root),
// merging the referring schema's other keywords over the target, up to 8
// times.
func resolve(v any, root any) any {
	for range 8 {
		m, ok := v.(map[string]any)
		r, isRef := m["$ref"].(string)
		if !ok || !isRef || !strings.HasPrefix(r, "#") {
			return v
		}
		target, found := lookup(root, strings.TrimPrefix(r, "#"))
		tm, isMap := target.(map[string]any)
		if !found || !isMap {
			return v
		}
		merged := make(map[string]any, len(tm)+len(m))
		for k, x := range tm {
			merged[k] = x
		}
		for k, x := range m {
			if k != "$ref" {
				merged[k] = x
			}
		}
		v = merged
	}
	return v
}

// lookup finds the value at a JSON Pointer in root.
func lookup(root any, ptr string) (any, bool) {
	if ptr == "" {
		return root, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	v := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

// typeSet reads a schema's type as a set; nil means any type.
func typeSet(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var s []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				s = append(s, str)
			}
		}
		return s
	}
	return nil
}

// accepts reports whether the type set allows values of type t.
func accepts(set []string, t string) bool {
	return set == nil || slices.Contains(set, t) || t == "integer" && slices.Contains(set, "number")
}

// types compares the type keyword: a type no longer accepted narrows, a
// type newly accepted widens, both at once is a type change.
func (d *differ) types(c *schemaCtx, path []string, where string, o, n map[string]any) {
	if canonical(o["type"]) == canonical(n["type"]) {
		return
	}
	ot, nt := typeSet(o["type"]), typeSet(n["type"])
	all := []string{"array", "boolean", "integer", "null", "number", "object", "string"}
	narrowed := slices.ContainsFunc(all, func(t string) bool { return accepts(ot, t) && !accepts(nt, t) })
	widened := slices.ContainsFunc(all, func(t string) bool { return accepts(nt, t) && !accepts(ot, t) })
	p := with(path, "type")
	switch {
	case narrowed && widened:
		d.breaking(c, p, where, "type changed from %s to %s", typeName(ot), typeName(nt))
	case narrowed:
		d.shift(c, p, where, true, "type narrowed from %s to %s", typeName(ot), typeName(nt))
	case widened:
		d.shift(c, p, where, false, "type widened from %s to %s", typeName(ot), typeName(nt))
	default:
		d.add(Compatible, p, "%s: type written differently, %s", c.subject(where), typeName(nt))
	}
}

// typeName writes a type set for a message.
func typeName(set []string) string {
	if set == nil {
		return "any"
	}
	return strings.Join(set, "|")
}

// enumSet reads enum, or const as a one-value enum; nil means no limit.
func enumSet(m map[string]any) []string {
	var set []string
	if c, ok := m["const"]; ok {
		set = append(set, canonical(c))
	}
	if e, ok := m["enum"].([]any); ok {
		for _, x := range e {
			if s := canonical(x); !slices.Contains(set, s) {
				set = append(set, s)
			}
		}
	}
	slices.Sort(set)
	return set
}

// enum compares enum and const: values removed narrow, added widen.
func (d *differ) enum(c *schemaCtx, path []string, where string, o, n map[string]any) {
	if canonical(o["enum"]) == canonical(n["enum"]) && canonical(o["const"]) == canonical(n["const"]) {
		return
	}
	oe, ne := enumSet(o), enumSet(n)
	p := with(path, "enum")
	if _, ok := n["const"]; ok {
		p = with(path, "const")
	}
	removed := slices.DeleteFunc(slices.Clone(oe), func(s string) bool { return slices.Contains(ne, s) })
	added := slices.DeleteFunc(slices.Clone(ne), func(s string) bool { return slices.Contains(oe, s) })
	switch {
	case oe == nil:
		d.shift(c, p, where, true, "limited to %s", strings.Join(ne, ", "))
	case ne == nil:
		d.shift(c, p, where, false, "no longer limited to %s", strings.Join(oe, ", "))
	case len(removed) > 0 && len(added) > 0:
		d.breaking(c, p, where, "enum changed: %s removed, %s added", strings.Join(removed, ", "), strings.Join(added, ", "))
	case len(removed) > 0:
		d.shift(c, p, where, true, "enum narrowed: %s removed", strings.Join(removed, ", "))
	case len(added) > 0:
		d.shift(c, p, where, false, "enum widened: %s added", strings.Join(added, ", "))
	}
}

// number reads a JSON number.
func number(v any) (*big.Float, bool) {
	s := fmt.Sprint(v)
	if _, isBool := v.(bool); isBool || v == nil {
		return nil, false
	}
	f, _, err := big.ParseFloat(s, 10, 200, big.ToNearestEven)
	return f, err == nil
}

// bounds compares the numeric and length bounds, pattern, format,
// multipleOf and uniqueItems.
func (d *differ) bounds(c *schemaCtx, path []string, where string, o, n map[string]any) {
	for _, k := range slices.Concat(lowerBounds, upperBounds) {
		ov, inOld := o[k]
		nv, inNew := n[k]
		if canonical(ov) == canonical(nv) {
			continue
		}
		p, lower := with(path, k), slices.Contains(lowerBounds, k)
		ob, obOK := ov.(bool) // draft-04's exclusiveMinimum/Maximum
		nb, nbOK := nv.(bool)
		of, ofOK := number(ov)
		nf, nfOK := number(nv)
		switch {
		case (obOK || !inOld) && (nbOK || !inNew) && (obOK || nbOK):
			d.shift(c, p, where, !ob && nb, "%s %t became %t", k, ob, nb)
		case !inOld && nfOK:
			d.shift(c, p, where, true, "%s %s added", k, short(nv))
		case !inNew && ofOK:
			d.shift(c, p, where, false, "%s %s removed", k, short(ov))
		case ofOK && nfOK:
			tighter := (nf.Cmp(of) > 0) == lower
			d.shift(c, p, where, tighter, "%s changed from %s to %s", k, short(ov), short(nv))
		default:
			d.breaking(c, p, where, "%s changed from %s to %s", k, short(ov), short(nv))
		}
	}
	for _, k := range []string{"pattern", "format", "multipleOf"} {
		ov, inOld := o[k]
		nv, inNew := n[k]
		p := with(path, k)
		switch {
		case canonical(ov) == canonical(nv):
		case !inOld:
			d.shift(c, p, where, true, "%s %s added", k, short(nv))
		case !inNew:
			d.shift(c, p, where, false, "%s %s removed", k, short(ov))
		default:
			d.breaking(c, p, where, "%s changed from %s to %s", k, short(ov), short(nv))
		}
	}
	if ou, nu := o["uniqueItems"] == true, n["uniqueItems"] == true; ou != nu {
		d.shift(c, with(path, "uniqueItems"), where, nu, "uniqueItems became %t", nu)
	} else if canonical(o["uniqueItems"]) != canonical(n["uniqueItems"]) {
		d.add(Compatible, with(path, "uniqueItems"), "%s: uniqueItems written differently", c.subject(where))
	}
}

// join extends a dotted place name.
func join(where, name string) string {
	if where == "" {
		return name
	}
	return where + "." + name
}

// stringSet reads an array of strings.
func stringSet(v any) []string {
	a, _ := v.([]any)
	var s []string
	for _, x := range a {
		if str, ok := x.(string); ok {
			s = append(s, str)
		}
	}
	return s
}

// object compares properties, required and additionalProperties. A
// property removed is Breaking either way (an argument callers send, a
// field readers use); one added is Breaking only as a required input.
func (d *differ) object(c *schemaCtx, path []string, where string, o, n map[string]any, depth int) {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	oreq, nreq := stringSet(o["required"]), stringSet(n["required"])
	for _, name := range unionKeys(op, np) {
		ov, inOld := op[name]
		nv, inNew := np[name]
		p, w := with(path, "properties", name), join(where, name)
		switch {
		case !inNew:
			d.breaking(c, p, w, "removed")
		case !inOld && c.dir == input && slices.Contains(nreq, name):
			d.breaking(c, p, w, "added, and required")
		case !inOld:
			d.add(Compatible, p, "%s: added", c.subject(w))
		default:
			d.schema(c, p, w, ov, nv, depth+1)
		}
	}
	for _, name := range nreq {
		_, inOld := op[name]
		_, inNew := np[name]
		if slices.Contains(oreq, name) || !inOld && inNew {
			continue // unchanged, or a new property: reported above
		}
		d.shift(c, with(path, "required"), join(where, name), true, "now required")
	}
	for _, name := range oreq {
		_, inNew := np[name]
		if !slices.Contains(nreq, name) && inNew {
			d.shift(c, with(path, "required"), join(where, name), false, "no longer required")
		}
	}
	if canonical(o["required"]) != canonical(n["required"]) && slices.Equal(sortedCopy(oreq), sortedCopy(nreq)) {
		d.add(Compatible, with(path, "required"), "%s: required written differently", c.subject(where))
	}
	ao, an := o["additionalProperties"], n["additionalProperties"]
	d.schema(c, with(path, "additionalProperties"), join(where, "(other properties)"), ao, an, depth+1)
}

// sortedCopy returns a sorted copy of s.
func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// arrays compares items and prefixItems; tuples are compared item by
// item, and a tuple of another length is Breaking.
func (d *differ) arrays(c *schemaCtx, path []string, where string, o, n map[string]any, depth int) {
	for _, k := range []string{"items", "prefixItems"} {
		ov, nv := o[k], n[k]
		oa, oTuple := ov.([]any)
		na, nTuple := nv.([]any)
		p := with(path, k)
		switch {
		case canonical(ov) == canonical(nv):
		case oTuple && nTuple && len(oa) == len(na):
			for i := range oa {
				d.schema(c, with(p, fmt.Sprint(i)), fmt.Sprintf("%s[%d]", where, i), oa[i], na[i], depth+1)
			}
		case oTuple || nTuple:
			d.breaking(c, p, where, "%s changed from %s to %s", k, short(ov), short(nv))
		default:
			d.schema(c, p, where+"[]", ov, nv, depth+1)
		}
	}
}

// combinators compares anyOf, oneOf, allOf as sets of branches: for
// anyOf and oneOf a branch removed narrows and one added widens (allOf the
// reverse); a branch that changed counts as one removed and one added,
// Breaking either way. One branch on each side is compared in depth.
func (d *differ) combinators(c *schemaCtx, path []string, where string, o, n map[string]any, depth int) {
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if canonical(o[k]) == canonical(n[k]) {
			continue
		}
		oa, _ := o[k].([]any)
		na, _ := n[k].([]any)
		p := with(path, k)
		if len(oa) == 1 && len(na) == 1 {
			d.schema(c, with(p, "0"), where, oa[0], na[0], depth+1)
			continue
		}
		os, ns := make([]string, len(oa)), make([]string, len(na))
		for i, x := range oa {
			os[i] = canonical(x)
		}
		for i, x := range na {
			ns[i] = canonical(x)
		}
		removed := slices.ContainsFunc(os, func(s string) bool { return !slices.Contains(ns, s) })
		added := slices.ContainsFunc(ns, func(s string) bool { return !slices.Contains(os, s) })
		narrowed := removed
		if k == "allOf" {
			narrowed = added
		}
		switch {
		case removed && added:
			d.breaking(c, p, where, "%s branches changed", k)
		case removed:
			d.shift(c, p, where, narrowed, "%s: a branch removed", k)
		case added:
			d.shift(c, p, where, narrowed, "%s: a branch added", k)
		default:
			d.add(Compatible, p, "%s: %s written differently", c.subject(where), k)
		}
	}
}

// handled are the keywords compared by the functions above, or reached
// through $ref.
var handled = slices.Concat([]string{"type", "enum", "const", "properties", "required", "additionalProperties",
	"items", "prefixItems", "anyOf", "oneOf", "allOf", "pattern", "format", "multipleOf", "uniqueItems",
	"$defs", "definitions", "$ref"}, lowerBounds, upperBounds)

// others compares the remaining keywords: an annotation's change is
// Compatible; a change to any other keyword (not, if, patternProperties,
// a $ref that cannot be followed...) is Breaking, not being understood.
func (d *differ) others(c *schemaCtx, path []string, where string, o, n map[string]any) {
	for _, k := range unionKeys(o, n) {
		if slices.Contains(handled, k) && k != "$ref" || canonical(o[k]) == canonical(n[k]) {
			continue
		}
		p := with(path, k)
		if slices.Contains(annotationKeywords, k) || strings.HasPrefix(k, "x-") {
			d.add(Compatible, p, "%s: %s changed", c.subject(where), k)
			continue
		}
		d.breaking(c, p, where, "%s changed from %s to %s (not compared in detail)", k, short(o[k]), short(n[k]))
	}
}
