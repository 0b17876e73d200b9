package jsonschema

import (
	"github.com/gomcp/sdk/jsonrpc"

	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
)

// defaultsNode lists, for an object schema, the properties that have a
// default value or whose value is an object schema with defaults below.
// Nodes form a graph: recursive schemas yield cycles, which terminate
// because instances are finite.
type defaultsNode struct {
	props  []defaultProp // sorted by name
	useful bool
}

type defaultProp struct {
	name   string
	member []byte        // `"name":default` as JSON, nil if no default
	child  *defaultsNode // nil if nothing to fill below
}

// buildDefaults collects the defaults of sch's properties, following
// "properties" through $ref and allOf (which always apply) but not through
// conditional keywords (anyOf, oneOf, if/then/else). It returns nil if
// there is nothing to fill in.
func buildDefaults(sch *node) *defaultsNode {
	b := &defaultsBuilder{memo: map[*node]*defaultsNode{}}
	root := b.node(sch)
	for changed := true; changed; {
		changed = false
		for _, n := range b.all {
			if !n.useful && n.hasWork() {
				n.useful, changed = true, true
			}
		}
	}
	for _, n := range b.all {
		props := n.props[:0]
		for _, p := range n.props {
			if p.child != nil && !p.child.useful {
				p.child = nil
			}
			if p.member != nil || p.child != nil {
				props = append(props, p)
			}
		}
		n.props = props
	}
	if !root.useful {
		return nil
	}
	return root
}

func (n *defaultsNode) hasWork() bool {
	for _, p := range n.props {
		if p.member != nil || (p.child != nil && p.child.useful) {
			return true
		}
	}
	return false
}

type defaultsBuilder struct {
	memo map[*node]*defaultsNode
	all  []*defaultsNode
}

func (b *defaultsBuilder) node(sch *node) *defaultsNode {
	if n, ok := b.memo[sch]; ok {
		return n
	}
	n := &defaultsNode{}
	b.memo[sch] = n
	b.all = append(b.all, n)
	seen := map[string]bool{}
	for _, s := range expand(sch) {
		for _, name := range slices.Sorted(maps.Keys(s.properties)) {
			if seen[name] {
				continue // the first declaration wins
			}
			seen[name] = true
			ps := s.properties[name]
			p := defaultProp{name: name, child: b.node(ps)}
			for _, d := range expand(ps) {
				if d.hasDef {
					if v, err := marshalNoEscape(d.def); err == nil {
						p.member = append(append(jsonrpc.AppendString(nil, name, false), ':'), v...)
					}
					break
				}
			}
			n.props = append(n.props, p)
		}
	}
	slices.SortFunc(n.props, func(a, b defaultProp) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return n
}

// expand returns sch followed by the schemas that always apply along with
// it: its $ref target and allOf members, transitively.
func expand(sch *node) []*node {
	var out []*node
	var visit func(*node)
	visit = func(s *node) {
		if s == nil || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
		visit(s.ref)
		for _, a := range s.allOf {
			visit(a)
		}
	}
	visit(sch)
	return out
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// edit inserts a member before the closing brace at offset at.
type edit struct {
	at     int
	comma  bool
	member []byte
}

// ApplyDefaults returns instance with the default values declared in the
// schema's "properties" (also through $ref and allOf) filled in for
// missing properties, at the top level and in nested objects that are
// present. A missing property whose default is an object is inserted
// whole. If nothing is missing — the common case — instance itself is
// returned without allocating. An instance that is not a JSON object is
// returned unchanged; one that is not valid JSON is an error.
func (v *Validator) ApplyDefaults(instance json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(instance) {
		return nil, errors.New("jsonschema: instance is not valid JSON")
	}
	return v.applyDefaults(instance), nil
}

// applyDefaults is ApplyDefaults for an instance known to be valid JSON.
func (v *Validator) applyDefaults(instance json.RawMessage) json.RawMessage {
	if v.defaults == nil {
		return instance
	}
	i := skipSpace(instance, 0)
	if instance[i] != '{' {
		return instance
	}
	var edits []edit
	scanObject(instance, i, v.defaults, &edits)
	if len(edits) == 0 {
		return instance
	}
	size := len(instance)
	for _, e := range edits {
		size += len(e.member) + 1
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, e := range edits {
		out = append(out, instance[prev:e.at]...)
		if e.comma {
			out = append(out, ',')
		}
		out = append(out, e.member...)
		prev = e.at
	}
	return append(out, instance[prev:]...)
}

// scanObject walks the valid JSON object starting at data[i] == '{',
// records the insertions n calls for, and returns the offset after it.
func scanObject(data []byte, i int, n *defaultsNode, edits *[]edit) int {
	var buf [4]uint64
	present := buf[:]
	if len(n.props) > 64*len(buf) {
		present = make([]uint64, (len(n.props)+63)/64)
	}
	empty := true
	i++
	for {
		i = skipSpace(data, i)
		if data[i] == '}' {
			break
		}
		if data[i] == ',' {
			i++
			continue
		}
		empty = false
		end := skipString(data, i)
		idx := n.lookup(data[i:end])
		i = skipSpace(data, end) + 1 // past ':'
		i = skipSpace(data, i)
		if idx >= 0 {
			present[idx/64] |= 1 << (idx % 64)
			if c := n.props[idx].child; c != nil && data[i] == '{' {
				i = scanObject(data, i, c, edits)
				continue
			}
		}
		i = skipValue(data, i)
	}
	for idx, p := range n.props {
		if p.member != nil && present[idx/64]&(1<<(idx%64)) == 0 {
			*edits = append(*edits, edit{at: i, comma: !empty, member: p.member})
			empty = false
		}
	}
	return i + 1
}

// lookup returns the index of the property named by the JSON string key,
// or -1.
func (n *defaultsNode) lookup(key []byte) int {
	raw := key[1 : len(key)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		if json.Unmarshal(key, &s) != nil {
			return -1
		}
		raw = []byte(s)
	}
	lo, hi := 0, len(n.props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.props[m].name < string(raw) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(n.props) && n.props[lo].name == string(raw) {
		return lo
	}
	return -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset after the JSON string at data[i] == '"'.
// It finds quotes with bytes.IndexByte, not byte by byte: a large argument
// is one long string. A string without an end gives len(data).
func skipString(data []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return len(data)
		}
		j := i + q
		k := j // the quote is escaped if an odd number of backslashes precede it
		for k > i && data[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// skipValue returns the offset after the valid JSON value at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}
