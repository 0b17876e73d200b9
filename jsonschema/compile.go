package jsonschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Dialects, in order.
const (
	draft4 = iota + 1
	draft6
	draft7
	draft2019
	draft2020
)

// dialectOf returns the dialect of a "$schema" URI, or 0 if unknown.
func dialectOf(uri string) int {
	u := strings.TrimSuffix(uri, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	switch u {
	case "json-schema.org/draft-04/schema":
		return draft4
	case "json-schema.org/draft-06/schema":
		return draft6
	case "json-schema.org/draft-07/schema":
		return draft7
	case "json-schema.org/draft/2019-09/schema":
		return draft2019
	case "json-schema.org/draft/2020-12/schema":
		return draft2020
	}
	return 0
}

// node is one compiled schema. Keywords are pre-parsed; absent keywords
// are zero (nil, -1 for lengths). Nodes form a graph: $ref targets are
// shared and may be cyclic.
type node struct {
	ptr     string // JSON pointer of the schema in the document
	res     *resource
	boolean bool // a boolean schema: always is its verdict
	always  bool

	types      uint8 // 0: any
	enum       []any
	hasConst   bool
	constVal   any
	hasNumKw   bool // one of the five below is set
	multipleOf *decimal
	maximum    *decimal
	minimum    *decimal
	exclMax    *decimal
	exclMin    *decimal

	minLength, maxLength int
	pattern              *regexp.Regexp

	minItems, maxItems       int
	uniqueItems              bool
	prefixItems              []*node
	items                    *node // applies to items after prefixItems
	contains                 *node
	minContains, maxContains int

	minProps, maxProps int
	required           []string
	depRequired        []depRequired
	depSchemas         []depSchema
	properties         map[string]*node
	patternProps       []patternProp
	additionalProps    *node
	propertyNames      *node

	allOf, anyOf, oneOf []*node
	not                 *node
	ifN, thenN, elseN   *node

	unevalItems *node
	unevalProps *node

	ref          *node
	dynRef       *node  // $dynamicRef's static target
	dynName      string // anchor name to look up in the dynamic scope, "" if static
	recursiveRef *node  // $recursiveRef's static target

	def    any // "default", for ApplyDefaults
	hasDef bool
}

type depRequired struct {
	prop     string
	required []string
}

type depSchema struct {
	prop   string
	schema *node
}

type patternProp struct {
	re     *regexp.Regexp
	schema *node
}

// resource is a schema resource: the document root or a subschema with
// its own $id.
type resource struct {
	base            string
	ptr             string // JSON pointer of its root in the document
	dialect         int
	root            *node
	anchors         map[string]*node
	dynAnchors      map[string]*node
	recursiveAnchor bool
}

// pendingRef is a reference resolved once the whole document is compiled.
type pendingRef struct {
	n    *node
	ref  string // as written
	uri  string // resolved
	kind string // "$ref", "$dynamicRef" or "$recursiveRef"
}

type compiler struct {
	mu        sync.Mutex // held by lookup after Compile
	doc       any
	nodes     map[string]*node // by JSON pointer
	resources map[string]*resource
	refs      []pendingRef
	needEval  bool
}

// compileError is an invalid schema.
type schemaError struct {
	ptr string
	msg string
}

func (e *schemaError) Error() string {
	return "jsonschema: invalid schema:\n" + pointerOrRoot(e.ptr) + ": " + e.msg
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// externalError is a reference outside the document.
type externalError struct{ uri string }

func (e *externalError) Error() string {
	return fmt.Sprintf("jsonschema: cannot resolve %q: %v; only references within the schema are supported", e.uri, ErrExternalRef)
}

func (e *externalError) Unwrap() error { return ErrExternalRef }

func badf(ptr, format string, args ...any) error {
	return &schemaError{ptr: ptr, msg: fmt.Sprintf(format, args...)}
}

// compileSchema compiles a schema document into its root node.
func compileSchema(data []byte) (*compiler, *node, error) {
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, nil, fmt.Errorf("jsonschema: schema is not valid JSON: %w", err)
	}
	c := &compiler{doc: doc, nodes: map[string]*node{}, resources: map[string]*resource{}}
	root, err := c.compile(doc, "", schemaLocation, draft2020, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := c.resolveAll(); err != nil {
		return nil, nil, err
	}
	return c, root, nil
}

func (c *compiler) resolveAll() error {
	for len(c.refs) > 0 {
		r := c.refs[0]
		c.refs = c.refs[1:]
		if err := c.resolve(r); err != nil {
			return err
		}
	}
	return nil
}

// lookup compiles (if needed) and returns the schema ref points to,
// relative to base.
func (c *compiler) lookup(base, ref string) (*node, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	holder := &node{}
	if err := c.addRef(holder, "$ref", ref, base, ""); err != nil {
		return nil, false, err
	}
	if err := c.resolveAll(); err != nil {
		c.refs = nil
		return nil, false, err
	}
	return holder.ref, c.needEval, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func escapePtr(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// resolveURI resolves ref against base.
func resolveURI(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if b.Opaque != "" && r.Scheme == "" && r.Host == "" && r.Path == "" && r.Opaque == "" {
		// url.ResolveReference does not resolve against opaque URIs (urn:).
		out := *b
		out.Fragment, out.RawFragment = r.Fragment, r.RawFragment
		return out.String(), nil
	}
	return b.ResolveReference(r).String(), nil
}

func splitFragment(uri string) (base, frag string) {
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		return uri[:i], uri[i+1:]
	}
	return uri, ""
}

// compile compiles the schema v at JSON pointer ptr, whose base URI is
// base and dialect dialect, inside resource res (nil for the root).
func (c *compiler) compile(v any, ptr, base string, dialect int, res *resource) (*node, error) {
	if n := c.nodes[ptr]; n != nil {
		return n, nil
	}
	n := &node{ptr: ptr, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minProps: -1, maxProps: -1}
	c.nodes[ptr] = n
	switch v := v.(type) {
	case bool:
		n.boolean, n.always = true, v
		if res == nil {
			res = c.newResource(base, ptr, dialect, n)
		}
		n.res = res
		return n, nil
	case map[string]any:
		if err := c.compileObject(n, v, base, dialect, res); err != nil {
			delete(c.nodes, ptr) // Ref may try again: leave no half-compiled node
			return nil, err
		}
		return n, nil
	}
	delete(c.nodes, ptr)
	return nil, badf(ptr, "got %s, want object or boolean", typeName(v))
}

func (c *compiler) newResource(base, ptr string, dialect int, root *node) *resource {
	r := &resource{base: base, ptr: ptr, dialect: dialect, root: root,
		anchors: map[string]*node{}, dynAnchors: map[string]*node{}}
	if _, dup := c.resources[base]; !dup {
		c.resources[base] = r
	}
	return r
}

func (c *compiler) compileObject(n *node, m map[string]any, base string, dialect int, res *resource) error {
	ptr := n.ptr
	at := func(kw string) string { return ptr + "/" + escapePtr(kw) }
	if s, ok := m["$schema"]; ok && (res == nil || m["$id"] != nil || m["id"] != nil) {
		str, ok := s.(string)
		if !ok {
			return badf(at("$schema"), "got %s, want string", typeName(s))
		}
		d := dialectOf(str)
		if d == 0 {
			return &externalError{uri: strings.TrimPrefix(str, "mem:///")}
		}
		dialect = d
	}
	_, hasRef := m["$ref"]
	refOnly := hasRef && dialect <= draft7
	idKw := "$id"
	if dialect == draft4 {
		idKw = "id"
	}
	if id, ok := m[idKw]; ok && !refOnly {
		s, ok := id.(string)
		if !ok {
			return badf(at(idKw), "got %s, want string", typeName(id))
		}
		u, err := resolveURI(base, s)
		if err != nil {
			return badf(at(idKw), "invalid URI: %v", err)
		}
		b, frag := splitFragment(u)
		switch {
		case dialect <= draft7 && frag != "":
			// A fragment in an id is an anchor in old dialects.
			if res == nil || b != base {
				base = b
				res = c.newResource(base, ptr, dialect, n)
			}
			res.anchors[frag] = n
		case frag != "" && dialect >= draft2019:
			return badf(at(idKw), "$id must not contain a fragment")
		default:
			base = b
			res = c.newResource(base, ptr, dialect, n)
		}
	}
	if res == nil {
		res = c.newResource(base, ptr, dialect, n)
	}
	n.res = res
	if dialect >= draft2019 {
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			a, ok := m[kw]
			if !ok || (kw == "$dynamicAnchor" && dialect < draft2020) {
				continue
			}
			s, ok := a.(string)
			if !ok {
				return badf(at(kw), "got %s, want string", typeName(a))
			}
			res.anchors[s] = n
			if kw == "$dynamicAnchor" {
				res.dynAnchors[s] = n
			}
		}
		if ra, ok := m["$recursiveAnchor"].(bool); ok && ra && dialect == draft2019 && res.root == n {
			res.recursiveAnchor = true
		}
	}
	if d, ok := m["default"]; ok {
		n.def, n.hasDef = d, true
	}
	sub := func(kw string, v any) (*node, error) {
		return c.compile(v, at(kw), base, dialect, res)
	}
	subs := func(kw string, v any, nonEmpty bool) ([]*node, error) {
		arr, ok := v.([]any)
		if !ok {
			return nil, badf(at(kw), "got %s, want array", typeName(v))
		}
		if nonEmpty && len(arr) == 0 {
			return nil, badf(at(kw), "must not be empty")
		}
		out := make([]*node, len(arr))
		for i, s := range arr {
			var err error
			if out[i], err = c.compile(s, at(kw)+"/"+strconv.Itoa(i), base, dialect, res); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	subMap := func(kw string, v any) (map[string]*node, error) {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, badf(at(kw), "got %s, want object", typeName(v))
		}
		out := make(map[string]*node, len(obj))
		for _, k := range sortedKeys(obj) {
			s, err := c.compile(obj[k], at(kw)+"/"+escapePtr(k), base, dialect, res)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	}
	// Definitions are compiled whatever the dialect, so that their ids and
	// anchors are known.
	for _, kw := range []string{"$defs", "definitions"} {
		if v, ok := m[kw]; ok {
			if _, err := subMap(kw, v); err != nil {
				return err
			}
		}
	}
	if hasRef {
		s, ok := m["$ref"].(string)
		if !ok {
			return badf(at("$ref"), "got %s, want string", typeName(m["$ref"]))
		}
		if err := c.addRef(n, "$ref", s, base, at("$ref")); err != nil {
			return err
		}
		if refOnly {
			return nil
		}
	}
	if dialect == draft2020 {
		if v, ok := m["$dynamicRef"]; ok {
			s, ok := v.(string)
			if !ok {
				return badf(at("$dynamicRef"), "got %s, want string", typeName(v))
			}
			if err := c.addRef(n, "$dynamicRef", s, base, at("$dynamicRef")); err != nil {
				return err
			}
		}
	}
	if dialect == draft2019 {
		if v, ok := m["$recursiveRef"]; ok {
			s, ok := v.(string)
			if !ok {
				return badf(at("$recursiveRef"), "got %s, want string", typeName(v))
			}
			if err := c.addRef(n, "$recursiveRef", s, base, at("$recursiveRef")); err != nil {
				return err
			}
		}
	}

	var err error
	num := func(kw string) (*decimal, error) {
		v, ok := m[kw]
		if !ok {
			return nil, nil
		}
		jn, ok := v.(json.Number)
		if !ok {
			return nil, badf(at(kw), "got %s, want number", typeName(v))
		}
		d, ok := parseDecimal(string(jn))
		if !ok {
			return nil, badf(at(kw), "invalid number %s", jn)
		}
		return &d, nil
	}
	count := func(kw string) (int, error) {
		v, ok := m[kw]
		if !ok {
			return -1, nil
		}
		jn, ok := v.(json.Number)
		if !ok {
			return 0, badf(at(kw), "got %s, want number", typeName(v))
		}
		d, _ := parseDecimal(string(jn))
		i, ok := d.intValue()
		if !ok {
			return 0, badf(at(kw), "must be a non-negative integer, got %s", jn)
		}
		return i, nil
	}

	if t, ok := m["type"]; ok {
		var names []any
		switch t := t.(type) {
		case string:
			names = []any{t}
		case []any:
			names = t
		default:
			return badf(at("type"), "got %s, want string or array", typeName(t))
		}
		for i, s := range names {
			str, _ := s.(string)
			b := typeBit(str)
			if b == 0 {
				return badf(at("type")+"/"+strconv.Itoa(i), "unknown type %s", quote(s))
			}
			n.types |= b
		}
		if n.types == 0 {
			n.types = tNone // "type": [] accepts nothing
		}
	}
	if v, ok := m["enum"]; ok {
		arr, ok := v.([]any)
		if !ok {
			return badf(at("enum"), "got %s, want array", typeName(v))
		}
		n.enum = arr
		if arr == nil {
			n.enum = []any{}
		}
	}
	if v, ok := m["const"]; ok && dialect >= draft6 {
		n.hasConst, n.constVal = true, v
	}
	if n.multipleOf, err = num("multipleOf"); err != nil {
		return err
	}
	if n.multipleOf != nil && (n.multipleOf.neg || n.multipleOf.isZero()) {
		return badf(at("multipleOf"), "must be > 0")
	}
	if n.maximum, err = num("maximum"); err != nil {
		return err
	}
	if n.minimum, err = num("minimum"); err != nil {
		return err
	}
	if dialect == draft4 {
		for _, kw := range []string{"exclusiveMaximum", "exclusiveMinimum"} {
			v, ok := m[kw]
			if !ok {
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return badf(at(kw), "got %s, want boolean", typeName(v))
			}
			if b && kw == "exclusiveMaximum" {
				n.exclMax, n.maximum = n.maximum, nil
			} else if b {
				n.exclMin, n.minimum = n.minimum, nil
			}
		}
	} else {
		if n.exclMax, err = num("exclusiveMaximum"); err != nil {
			return err
		}
		if n.exclMin, err = num("exclusiveMinimum"); err != nil {
			return err
		}
	}
	n.hasNumKw = n.multipleOf != nil || n.maximum != nil || n.minimum != nil || n.exclMax != nil || n.exclMin != nil
	for _, f := range []struct {
		kw  string
		dst *int
		min int
	}{
		{"minLength", &n.minLength, draft4}, {"maxLength", &n.maxLength, draft4},
		{"minItems", &n.minItems, draft4}, {"maxItems", &n.maxItems, draft4},
		{"minProperties", &n.minProps, draft4}, {"maxProperties", &n.maxProps, draft4},
		{"minContains", &n.minContains, draft2019}, {"maxContains", &n.maxContains, draft2019},
	} {
		if dialect < f.min {
			continue
		}
		if *f.dst, err = count(f.kw); err != nil {
			return err
		}
	}
	if v, ok := m["pattern"]; ok {
		s, ok := v.(string)
		if !ok {
			return badf(at("pattern"), "got %s, want string", typeName(v))
		}
		if n.pattern, err = compileRegexp(s); err != nil {
			return badf(at("pattern"), "%v", err)
		}
	}
	if v, ok := m["uniqueItems"]; ok {
		b, ok := v.(bool)
		if !ok {
			return badf(at("uniqueItems"), "got %s, want boolean", typeName(v))
		}
		n.uniqueItems = b
	}
	if v, ok := m["required"]; ok {
		arr, ok := v.([]any)
		if !ok {
			return badf(at("required"), "got %s, want array", typeName(v))
		}
		for i, s := range arr {
			str, ok := s.(string)
			if !ok {
				return badf(at("required")+"/"+strconv.Itoa(i), "got %s, want string", typeName(s))
			}
			n.required = append(n.required, str)
		}
	}

	// Arrays.
	if dialect == draft2020 {
		if v, ok := m["prefixItems"]; ok {
			if n.prefixItems, err = subs("prefixItems", v, false); err != nil {
				return err
			}
		}
		if v, ok := m["items"]; ok {
			if n.items, err = sub("items", v); err != nil {
				return err
			}
		}
	} else if v, ok := m["items"]; ok {
		if _, isArr := v.([]any); isArr {
			if n.prefixItems, err = subs("items", v, false); err != nil {
				return err
			}
			if a, ok := m["additionalItems"]; ok {
				if n.items, err = sub("additionalItems", a); err != nil {
					return err
				}
			}
		} else if n.items, err = sub("items", v); err != nil {
			return err
		}
	}
	if v, ok := m["contains"]; ok && dialect >= draft6 {
		if n.contains, err = sub("contains", v); err != nil {
			return err
		}
	}

	// Objects.
	if v, ok := m["properties"]; ok {
		if n.properties, err = subMap("properties", v); err != nil {
			return err
		}
	}
	if v, ok := m["patternProperties"]; ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return badf(at("patternProperties"), "got %s, want object", typeName(v))
		}
		for _, k := range sortedKeys(obj) {
			re, err := compileRegexp(k)
			if err != nil {
				return badf(at("patternProperties")+"/"+escapePtr(k), "%v", err)
			}
			s, err := c.compile(obj[k], at("patternProperties")+"/"+escapePtr(k), base, dialect, res)
			if err != nil {
				return err
			}
			n.patternProps = append(n.patternProps, patternProp{re: re, schema: s})
		}
	}
	if v, ok := m["additionalProperties"]; ok {
		if n.additionalProps, err = sub("additionalProperties", v); err != nil {
			return err
		}
	}
	if v, ok := m["propertyNames"]; ok && dialect >= draft6 {
		if n.propertyNames, err = sub("propertyNames", v); err != nil {
			return err
		}
	}
	if v, ok := m["dependencies"]; ok && dialect <= draft7 {
		obj, ok := v.(map[string]any)
		if !ok {
			return badf(at("dependencies"), "got %s, want object", typeName(v))
		}
		for _, k := range sortedKeys(obj) {
			if arr, ok := obj[k].([]any); ok {
				d, err := stringList(at("dependencies")+"/"+escapePtr(k), arr)
				if err != nil {
					return err
				}
				n.depRequired = append(n.depRequired, depRequired{prop: k, required: d})
				continue
			}
			s, err := c.compile(obj[k], at("dependencies")+"/"+escapePtr(k), base, dialect, res)
			if err != nil {
				return err
			}
			n.depSchemas = append(n.depSchemas, depSchema{prop: k, schema: s})
		}
	}
	if dialect >= draft2019 {
		if v, ok := m["dependentRequired"]; ok {
			obj, ok := v.(map[string]any)
			if !ok {
				return badf(at("dependentRequired"), "got %s, want object", typeName(v))
			}
			for _, k := range sortedKeys(obj) {
				arr, ok := obj[k].([]any)
				if !ok {
					return badf(at("dependentRequired")+"/"+escapePtr(k), "got %s, want array", typeName(obj[k]))
				}
				d, err := stringList(at("dependentRequired")+"/"+escapePtr(k), arr)
				if err != nil {
					return err
				}
				n.depRequired = append(n.depRequired, depRequired{prop: k, required: d})
			}
		}
		if v, ok := m["dependentSchemas"]; ok {
			ds, err := subMap("dependentSchemas", v)
			if err != nil {
				return err
			}
			for _, k := range sortedKeys(ds) {
				n.depSchemas = append(n.depSchemas, depSchema{prop: k, schema: ds[k]})
			}
		}
		if v, ok := m["unevaluatedItems"]; ok {
			if n.unevalItems, err = sub("unevaluatedItems", v); err != nil {
				return err
			}
			c.needEval = true
		}
		if v, ok := m["unevaluatedProperties"]; ok {
			if n.unevalProps, err = sub("unevaluatedProperties", v); err != nil {
				return err
			}
			c.needEval = true
		}
	}

	// Applicators.
	for _, f := range []struct {
		kw  string
		dst *[]*node
	}{{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}} {
		if v, ok := m[f.kw]; ok {
			if *f.dst, err = subs(f.kw, v, true); err != nil {
				return err
			}
		}
	}
	if v, ok := m["not"]; ok {
		if n.not, err = sub("not", v); err != nil {
			return err
		}
	}
	if dialect >= draft7 {
		for _, f := range []struct {
			kw  string
			dst **node
		}{{"if", &n.ifN}, {"then", &n.thenN}, {"else", &n.elseN}} {
			if v, ok := m[f.kw]; ok {
				if *f.dst, err = sub(f.kw, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func stringList(ptr string, arr []any) ([]string, error) {
	out := make([]string, len(arr))
	for i, s := range arr {
		str, ok := s.(string)
		if !ok {
			return nil, badf(ptr+"/"+strconv.Itoa(i), "got %s, want string", typeName(s))
		}
		out[i] = str
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compileRegexp compiles an ECMA-262 pattern with Go's regexp (RE2), which
// shares the common syntax; patterns using backreferences or lookaround
// are refused as invalid.
func compileRegexp(s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(ecmaEscapes(s))
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q", s)
	}
	return re, nil
}

// ecmaEscapes rewrites the ECMA-262 escape \uXXXX, which RE2 lacks, as
// \x{XXXX}.
func ecmaEscapes(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) && isHex(s[i+2:i+6]) {
			sb.WriteString(`\x{` + s[i+2:i+6] + `}`)
			i += 5
			continue
		}
		sb.WriteString(s[i : i+2])
		i++
	}
	return sb.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
