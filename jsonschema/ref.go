// References ($ref, $dynamicRef, $recursiveRef): recorded while a schema
// compiles (addRef), linked to their targets once it has (resolve): a
// resource by URI, then a node by JSON pointer or anchor.

package jsonschema

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

func (c *compiler) addRef(n *node, kind, ref, base, ptr string) error {
	uri, err := resolveURI(base, ref)
	if err != nil {
		return badf(ptr, "invalid reference %q: %v", ref, err)
	}
	c.refs = append(c.refs, pendingRef{n: n, ref: ref, uri: uri, kind: kind})
	return nil
}

// resolve links a reference to its target node.
func (c *compiler) resolve(r pendingRef) error {
	base, frag := splitFragment(r.uri)
	res := c.resources[base]
	if res == nil {
		return &externalError{uri: strings.TrimPrefix(base, "mem:///")}
	}
	var target *node
	switch {
	case frag == "":
		target = res.root
	case strings.HasPrefix(frag, "/"):
		f, err := url.PathUnescape(frag)
		if err != nil {
			return badf(r.n.ptr+"/"+r.kind, "invalid fragment in %q", r.ref)
		}
		t, err := c.pointer(res, f)
		if err != nil {
			return badf(r.n.ptr+"/"+r.kind, "cannot resolve %q: %v", r.ref, err)
		}
		target = t
	default:
		f, err := url.PathUnescape(frag)
		if err != nil {
			f = frag
		}
		target = res.anchors[f]
		if target == nil {
			return badf(r.n.ptr+"/"+r.kind, "cannot resolve %q: no anchor %q", r.ref, f)
		}
		if r.kind == "$dynamicRef" && res.dynAnchors[f] == target {
			r.n.dynName = f
		}
	}
	switch r.kind {
	case "$ref":
		r.n.ref = target
	case "$dynamicRef":
		r.n.dynRef = target
	case "$recursiveRef":
		r.n.recursiveRef = target
	}
	return nil
}

// pointer returns the schema at JSON pointer p within resource res,
// compiling it if it sits where no keyword put a schema.
func (c *compiler) pointer(res *resource, p string) (*node, error) {
	full := res.ptr
	var v any = c.doc
	for tok := range strings.SplitSeq(res.ptr, "/") {
		if tok == "" {
			continue
		}
		var ok bool
		if v, ok = step(v, unescapePtr(tok)); !ok {
			return nil, errors.New("no such location")
		}
	}
	for tok := range strings.SplitSeq(p[1:], "/") {
		t := unescapePtr(tok)
		var ok bool
		if v, ok = step(v, t); !ok {
			return nil, errors.New("no such location")
		}
		full += "/" + escapePtr(t)
	}
	if n := c.nodes[full]; n != nil {
		return n, nil
	}
	return c.compile(v, full, res.base, res.dialect, res)
}

func step(v any, tok string) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		x, ok := v[tok]
		return x, ok
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(v) || (len(tok) > 1 && tok[0] == '0') {
			return nil, false
		}
		return v[i], true
	}
	return nil, false
}

func unescapePtr(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
