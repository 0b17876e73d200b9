package surface

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Class says whether a change breaks the clients of the older surface.
type Class int

// The classes of a change. The zero Class is neither, and is never in a
// Change that Diff returns.
const (
	// Compatible: a client written against the old surface still works
	// (an addition, a new optional argument, a wider enum, a new
	// description).
	Compatible Class = iota + 1
	// Breaking: a client written against the old surface may fail (a
	// removal, a new required argument, a type change, a narrower enum or
	// range, a removed output field, a changed behaviour hint).
	Breaking
)

// String returns "compatible" or "breaking".
func (c Class) String() string {
	switch c {
	case Compatible:
		return "compatible"
	case Breaking:
		return "breaking"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// MarshalText writes the class as String does.
func (c Class) MarshalText() ([]byte, error) {
	if c != Compatible && c != Breaking {
		return nil, fmt.Errorf("surface: invalid class %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads "compatible" or "breaking".
func (c *Class) UnmarshalText(b []byte) error {
	switch string(b) {
	case "compatible":
		*c = Compatible
	case "breaking":
		*c = Breaking
	default:
		return fmt.Errorf("surface: unknown class %q", b)
	}
	return nil
}

// Change is one difference between two snapshots.
type Change struct {
	Class Class `json:"class"`
	// Path is a JSON Pointer (RFC 6901) to the changed value in the
	// snapshots, such as /tools/add/inputSchema/properties/a/type, except
	// that a prompt's arguments are named, not numbered
	// (/prompts/review/arguments/code), and that a change found through
	// a $ref is placed where the $ref is.
	Path string `json:"path"`
	// Message says what changed, naming the tool, prompt or resource.
	Message string `json:"message"`
}

// String returns the change on one line: class, path and message.
func (c Change) String() string { return c.Class.String() + ": " + c.Path + ": " + c.Message }

// Area returns the first segment of the change's path: tools, prompts,
// resources, resourceTemplates, capabilities, extensions, serverInfo,
// instructions or protocolVersion.
func (c Change) Area() string {
	a, _, _ := strings.Cut(strings.TrimPrefix(c.Path, "/"), "/")
	return a
}

// HasBreaking reports whether any of changes is Breaking.
func HasBreaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Class == Breaking })
}

// maxSteps bounds the values one Diff compares (a schema whose $refs fan
// out could otherwise take exponential time).
const maxSteps = 200000

// Diff lists the differences between old and new, each classified, in a
// stable order: by area, then by name, then by place. Every difference of
// the normalized snapshots is reported, as Compatible when nothing more
// is known (a new description, a changed _meta). An empty result means
// the surfaces are the same. A nil snapshot is an empty surface.
func Diff(old, new *Snapshot) []Change {
	if old == nil {
		old = &Snapshot{}
	}
	if new == nil {
		new = &Snapshot{}
	}
	d := &differ{}
	if old.ProtocolVersion != new.ProtocolVersion {
		d.add(Compatible, []string{"protocolVersion"}, "protocol revision %q became %q (compare snapshots taken at the same revision)", old.ProtocolVersion, new.ProtocolVersion)
	}
	d.generic([]string{"serverInfo"}, "serverInfo", asAny(old.ServerInfo), asAny(new.ServerInfo), Compatible, 0)
	if old.Instructions != new.Instructions {
		d.add(Compatible, []string{"instructions"}, "instructions changed")
	}
	d.capabilities([]string{"capabilities"}, "capability", asAny(old.Capabilities), asAny(new.Capabilities), 0)
	d.capabilities([]string{"extensions"}, "extension", asAny(old.Extensions), asAny(new.Extensions), 0)
	d.items("tools", "tool", old.Tools, new.Tools, d.tool)
	d.items("prompts", "prompt", old.Prompts, new.Prompts, d.prompt)
	d.items("resources", "resource", old.Resources, new.Resources, d.resource)
	d.items("resourceTemplates", "resource template", old.ResourceTemplates, new.ResourceTemplates, d.resource)
	return d.changes
}

// asAny turns a nil map into an empty one, typed any.
func asAny(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// differ accumulates the changes of one Diff.
type differ struct {
	changes []Change
	steps   int
	stopped bool
}

// add records a change at path.
func (d *differ) add(class Class, path []string, format string, args ...any) {
	d.changes = append(d.changes, Change{Class: class, Path: pointer(path), Message: fmt.Sprintf(format, args...)})
}

// step counts one comparison and reports whether the budget allows it;
// the first refusal is recorded as a Breaking change, since what was not
// compared cannot be called compatible.
func (d *differ) step(path []string) bool {
	d.steps++
	if d.steps <= maxSteps {
		return true
	}
	if !d.stopped {
		d.stopped = true
		d.add(Breaking, path, "too much to compare (over %d values): the rest is not compared", maxSteps)
	}
	return false
}

// pointer writes path as a JSON Pointer.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// with returns path extended by more, without sharing its array.
func with(path []string, more ...string) []string {
	return append(slices.Clip(path), more...)
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// short renders a JSON value for a message, cut to 80 bytes.
func short(v any) string {
	s := canonical(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// generic reports every difference between o and n as class: keys added
// and removed, values changed (arrays as a whole).
func (d *differ) generic(path []string, what string, o, n any, class Class, depth int) {
	if !d.step(path) || canonical(o) == canonical(n) {
		return
	}
	om, ook := o.(map[string]any)
	nm, nok := n.(map[string]any)
	switch {
	case o == nil:
		d.add(class, path, "%s added", what)
		return
	case n == nil:
		d.add(class, path, "%s removed", what)
		return
	case !ook || !nok || depth > maxDepth:
		d.add(class, path, "%s changed from %s to %s", what, short(o), short(n))
		return
	}
	for _, k := range unionKeys(om, nm) {
		ov, inOld := om[k]
		nv, inNew := nm[k]
		switch {
		case !inNew:
			d.add(class, with(path, k), "%s.%s removed", what, k)
		case !inOld:
			d.add(class, with(path, k), "%s.%s added", what, k)
		default:
			d.generic(with(path, k), what+"."+k, ov, nv, class, depth+1)
		}
	}
}

// capabilities compares capabilities (or extensions): one removed, or a
// flag turned off, is Breaking; one added is Compatible; any other change
// to a capability's settings is Breaking, not being understood.
func (d *differ) capabilities(path []string, what string, o, n any, depth int) {
	if !d.step(path) || canonical(o) == canonical(n) {
		return
	}
	name := strings.Join(path[1:], ".")
	om, ook := o.(map[string]any)
	nm, nok := n.(map[string]any)
	switch {
	case ook && nok && depth <= maxDepth:
		for _, k := range unionKeys(om, nm) {
			ov, inOld := om[k]
			nv, inNew := nm[k]
			sub := strings.TrimPrefix(name+"."+k, ".")
			switch {
			case !inNew && (ov == false || ov == nil):
			case !inNew:
				d.add(Breaking, with(path, k), "%s %s removed", what, sub)
			case !inOld:
				d.add(Compatible, with(path, k), "%s %s added", what, sub)
			default:
				d.capabilities(with(path, k), what, ov, nv, depth+1)
			}
		}
	case o == true && (n == false || n == nil):
		d.add(Breaking, path, "%s %s turned off", what, name)
	case (o == false || o == nil) && n == true:
		d.add(Compatible, path, "%s %s turned on", what, name)
	default:
		d.add(Breaking, path, "%s %s changed from %s to %s", what, name, short(o), short(n))
	}
}

// items compares two collections of tools, prompts, resources or
// templates, keyed by name: one removed is Breaking, one added
// Compatible, and cmp compares those in both.
func (d *differ) items(area, noun string, o, n map[string]any, cmp func(path []string, label string, o, n map[string]any)) {
	for _, k := range unionKeys(o, n) {
		path := []string{area, k}
		ov, inOld := o[k]
		nv, inNew := n[k]
		label := fmt.Sprintf("%s %q", noun, k)
		switch {
		case !inNew:
			d.add(Breaking, path, "%s removed", label)
		case !inOld:
			d.add(Compatible, path, "%s added", label)
		default:
			om, _ := ov.(map[string]any)
			nm, _ := nv.(map[string]any)
			cmp(path, label, om, nm)
		}
	}
}

// hintDefaults are the values the behaviour hints of a tool's annotations
// take when absent.
var hintDefaults = map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}

// tool compares two versions of a tool.
func (d *differ) tool(path []string, label string, o, n map[string]any) {
	for _, k := range unionKeys(o, n) {
		ov, inOld := o[k]
		nv, inNew := n[k]
		p := with(path, k)
		switch {
		case k == "inputSchema":
			d.schemaRoot(p, label, input, ov, nv)
		case k == "outputSchema" && inOld && !inNew:
			d.add(Breaking, p, "%s: output schema removed", label)
		case k == "outputSchema" && !inOld:
			d.add(Compatible, p, "%s: output schema added", label)
		case k == "outputSchema":
			d.schemaRoot(p, label, output, ov, nv)
		case k == "annotations":
			d.annotations(p, label, ov, nv)
		case k == "execution":
			d.execution(p, label, ov, nv)
		default:
			d.generic(p, label+": "+k, ov, nv, Compatible, 0)
		}
	}
}

// annotations compares a tool's annotations: a behaviour hint whose
// value (or default, when absent) changes is Breaking, since hosts decide
// on it whether to ask the user before a call; the rest is Compatible.
func (d *differ) annotations(path []string, label string, o, n any) {
	om, _ := o.(map[string]any)
	nm, _ := n.(map[string]any)
	for _, k := range unionKeys(om, nm) {
		p := with(path, k)
		def, isHint := hintDefaults[k]
		ov, inOld := om[k]
		nv, inNew := nm[k]
		ob, obOK := ov.(bool)
		nb, nbOK := nv.(bool)
		if !inOld {
			ob, obOK = def, true
		}
		if !inNew {
			nb, nbOK = def, true
		}
		switch {
		case !isHint || !obOK || !nbOK:
			d.generic(p, label+": annotations."+k, ov, nv, Compatible, 0)
		case ob != nb:
			d.add(Breaking, p, "%s: %s changed from %t to %t", label, k, ob, nb)
		case canonical(ov) != canonical(nv):
			d.add(Compatible, p, "%s: %s stated as its default, %t", label, k, ob)
		}
	}
}

// execution compares a tool's execution: a task support that becomes
// "optional" is Compatible, any other change Breaking (a client calling
// the tool as it did may be refused).
func (d *differ) execution(path []string, label string, o, n any) {
	support := func(v any) string {
		m, _ := v.(map[string]any)
		if s, ok := m["taskSupport"].(string); ok {
			return s
		}
		return "forbidden"
	}
	if os, ns := support(o), support(n); os != ns {
		class := Breaking
		if ns == "optional" {
			class = Compatible
		}
		d.add(class, with(path, "taskSupport"), "%s: task support %q became %q", label, os, ns)
	}
	om, _ := o.(map[string]any)
	nm, _ := n.(map[string]any)
	for _, k := range unionKeys(om, nm) {
		if k != "taskSupport" {
			d.generic(with(path, k), label+": execution."+k, om[k], nm[k], Compatible, 0)
		}
	}
}

// prompt compares two versions of a prompt: an argument removed, added
// as required, or made required is Breaking.
func (d *differ) prompt(path []string, label string, o, n map[string]any) {
	for _, k := range unionKeys(o, n) {
		if k != "arguments" {
			d.generic(with(path, k), label+": "+k, o[k], n[k], Compatible, 0)
		}
	}
	oa, na := byName(o["arguments"]), byName(n["arguments"])
	for _, name := range unionKeys(oa, na) {
		p := with(path, "arguments", name)
		ov, inOld := oa[name]
		nv, inNew := na[name]
		om, _ := ov.(map[string]any)
		nm, _ := nv.(map[string]any)
		oreq, nreq := om["required"] == true, nm["required"] == true
		switch {
		case !inNew:
			d.add(Breaking, p, "%s: argument %q removed", label, name)
		case !inOld && nreq:
			d.add(Breaking, p, "%s: new required argument %q", label, name)
		case !inOld:
			d.add(Compatible, p, "%s: optional argument %q added", label, name)
		default:
			if oreq != nreq {
				class, what := Breaking, "is now required"
				if !nreq {
					class, what = Compatible, "is no longer required"
				}
				d.add(class, with(p, "required"), "%s: argument %q %s", label, name, what)
			}
			for _, k := range unionKeys(om, nm) {
				if k != "required" && k != "name" {
					d.generic(with(p, k), fmt.Sprintf("%s: argument %q %s", label, name, k), om[k], nm[k], Compatible, 0)
				}
			}
		}
	}
}

// byName keys the objects of an array by their "name"; a pointer path
// names the argument, not its index, so that order does not matter.
func byName(v any) map[string]any {
	a, _ := v.([]any)
	m := make(map[string]any, len(a))
	for _, x := range a {
		m[nameOf(x)] = x
	}
	return m
}

// resource compares two versions of a resource or template: a new MIME
// type is Breaking (a client reads the content by it), the rest
// Compatible.
func (d *differ) resource(path []string, label string, o, n map[string]any) {
	for _, k := range unionKeys(o, n) {
		class := Compatible
		if k == "mimeType" {
			class = Breaking
		}
		d.generic(with(path, k), label+": "+k, o[k], n[k], class, 0)
	}
}
