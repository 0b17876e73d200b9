package jsonschema

import (
	"bytes"
	"encoding/json"
	"math"
	"unicode/utf8"
)

// The fast path: schemas made only of the keywords most tool input schemas
// use (those inferred from Go types in particular) are also compiled into a
// fastNode tree, which checks an instance directly on its bytes without
// decoding it and without allocating. It only ever answers "certainly
// valid": anything it cannot decide, and every invalid instance, goes to the
// full validator, so verdicts and error messages are the full validator's.

// JSON types as a bit set.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

type fastNode struct {
	types     uint8 // 0: any type
	props     []fastProp
	required  []string
	addl      uint8 // addlAny, addlNone or addlSchema
	addlNode  *fastNode
	items     *fastNode
	enum      [][]byte // raw JSON of string, boolean or null enum values; nil: no enum
	min, max  float64  // NaN when absent
	xmin      float64  // exclusiveMinimum, NaN when absent
	xmax      float64
	minLen    int // -1 when absent
	maxLen    int
	minItems  int
	maxItems  int
	hasNumLim bool
}

type fastProp struct {
	name string
	node *fastNode
}

const (
	addlAny uint8 = iota
	addlNone
	addlSchema
)

// compileFast returns the fast tree of the decoded schema document doc, or
// nil if it uses a keyword outside the subset.
func compileFast(doc any) *fastNode {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	if s, ok := m["$schema"]; ok && s != "https://json-schema.org/draft/2020-12/schema" {
		return nil
	}
	n, ok := buildFast(m, true)
	if !ok {
		return nil
	}
	return n
}

func buildFast(v any, root bool) (*fastNode, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return &fastNode{min: math.NaN(), max: math.NaN(), xmin: math.NaN(), xmax: math.NaN(), minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}, true
		}
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	n := &fastNode{min: math.NaN(), max: math.NaN(), xmin: math.NaN(), xmax: math.NaN(), minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	for k, val := range m {
		switch k {
		case "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "format":
			// annotations (format too, in 2020-12)
		case "$schema":
			if !root {
				return nil, false
			}
		case "type":
			switch t := val.(type) {
			case string:
				b := typeBit(t)
				if b == 0 {
					return nil, false
				}
				n.types = b
			case []any:
				for _, e := range t {
					s, _ := e.(string)
					b := typeBit(s)
					if b == 0 {
						return nil, false
					}
					n.types |= b
				}
			default:
				return nil, false
			}
		case "properties":
			pm, ok := val.(map[string]any)
			if !ok {
				return nil, false
			}
			for name, ps := range pm {
				pn, ok := buildFast(ps, false)
				if !ok {
					return nil, false
				}
				n.props = append(n.props, fastProp{name, pn})
			}
		case "required":
			list, ok := val.([]any)
			if !ok || len(list) > 64 {
				return nil, false
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				n.required = append(n.required, s)
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok {
				if !b {
					n.addl = addlNone
				}
				continue
			}
			an, ok := buildFast(val, false)
			if !ok {
				return nil, false
			}
			n.addl, n.addlNode = addlSchema, an
		case "items":
			in, ok := buildFast(val, false)
			if !ok {
				return nil, false
			}
			n.items = in
		case "enum":
			list, ok := val.([]any)
			if !ok {
				return nil, false
			}
			n.enum = [][]byte{}
			for _, e := range list {
				switch e.(type) {
				case string, bool, nil:
				default:
					return nil, false
				}
				raw, _ := json.Marshal(e)
				n.enum = append(n.enum, raw)
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			num, ok := val.(json.Number)
			if !ok {
				return nil, false
			}
			f, err := num.Float64()
			if err != nil || math.Abs(f) > 1<<53 {
				return nil, false
			}
			switch k {
			case "minimum":
				n.min = f
			case "maximum":
				n.max = f
			case "exclusiveMinimum":
				n.xmin = f
			default:
				n.xmax = f
			}
			n.hasNumLim = true
		case "minLength", "maxLength", "minItems", "maxItems":
			num, ok := val.(json.Number)
			if !ok {
				return nil, false
			}
			i, err := num.Int64()
			if err != nil || i < 0 || i > math.MaxInt32 {
				return nil, false
			}
			switch k {
			case "minLength":
				n.minLen = int(i)
			case "maxLength":
				n.maxLen = int(i)
			case "minItems":
				n.minItems = int(i)
			default:
				n.maxItems = int(i)
			}
		default:
			return nil, false
		}
	}
	return n, true
}

func typeBit(s string) uint8 {
	switch s {
	case "null":
		return tNull
	case "boolean":
		return tBoolean
	case "object":
		return tObject
	case "array":
		return tArray
	case "number":
		return tNumber
	case "integer":
		return tInteger
	case "string":
		return tString
	}
	return 0
}

// valid reports whether the valid JSON value starting at data[i] certainly
// conforms to n, and where it ends (only when it does). Each value is
// walked once: an object or array ends where its members do.
func (n *fastNode) valid(data []byte, i int) (int, bool) {
	if n.enum != nil {
		end := skipValue(data, i)
		val := data[i:end]
		if bytes.IndexByte(val, '\\') >= 0 {
			return end, false
		}
		found := false
		for _, e := range n.enum {
			if bytes.Equal(e, val) {
				found = true
				break
			}
		}
		if !found {
			return end, false
		}
	}
	switch c := data[i]; {
	case c == '{':
		if n.types != 0 && n.types&tObject == 0 {
			return i, false
		}
		return n.object(data, i)
	case c == '[':
		if n.types != 0 && n.types&tArray == 0 {
			return i, false
		}
		return n.array(data, i)
	case c == '"':
		end := skipString(data, i)
		if n.types != 0 && n.types&tString == 0 {
			return end, false
		}
		if n.minLen < 0 && n.maxLen < 0 {
			return end, true
		}
		inner := data[i+1 : end-1]
		if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
			return end, false
		}
		l := utf8.RuneCount(inner)
		return end, (n.minLen < 0 || l >= n.minLen) && (n.maxLen < 0 || l <= n.maxLen)
	case c == 't' || c == 'f':
		return skipValue(data, i), n.types == 0 || n.types&tBoolean != 0
	case c == 'n':
		return skipValue(data, i), n.types == 0 || n.types&tNull != 0
	default: // a number
		end := skipValue(data, i)
		val := data[i:end]
		integral := !bytes.ContainsAny(val, ".eE")
		switch {
		case n.types == 0 || n.types&tNumber != 0:
		case n.types&tInteger != 0 && integral:
		default:
			return end, false
		}
		if !n.hasNumLim {
			return end, true
		}
		f, ok := smallInt(val)
		if !ok {
			return end, false
		}
		return end, (math.IsNaN(n.min) || f >= n.min) && (math.IsNaN(n.max) || f <= n.max) &&
			(math.IsNaN(n.xmin) || f > n.xmin) && (math.IsNaN(n.xmax) || f < n.xmax)
	}
}

// array is valid for the array at data[i].
func (n *fastNode) array(data []byte, i int) (int, bool) {
	if n.items == nil && n.minItems < 0 && n.maxItems < 0 {
		return skipValue(data, i), true
	}
	count := 0
	j := skipSpace(data, i+1)
	if data[j] == ']' {
		return j + 1, n.minItems <= 0
	}
	for {
		var ok bool
		if n.items != nil {
			if j, ok = n.items.valid(data, j); !ok {
				return j, false
			}
		} else {
			j = skipValue(data, j)
		}
		count++
		j = skipSpace(data, j)
		if data[j] == ']' {
			break
		}
		j = skipSpace(data, j+1) // ','
	}
	return j + 1, (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

// smallInt parses an integer literal of at most 15 digits exactly.
func smallInt(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return float64(v), true
}

// object is valid for the object at data[i].
func (n *fastNode) object(data []byte, i int) (int, bool) {
	var seen uint64
	j := skipSpace(data, i+1)
	if data[j] != '}' {
		for {
			kend := skipString(data, j)
			key := data[j+1 : kend-1]
			if bytes.IndexByte(key, '\\') >= 0 {
				return j, false
			}
			j = skipSpace(data, kend)
			j = skipSpace(data, j+1) // ':'
			var sub *fastNode
			for _, p := range n.props {
				if p.name == string(key) {
					sub = p.node
					break
				}
			}
			if sub == nil {
				switch n.addl {
				case addlNone:
					return j, false
				case addlSchema:
					sub = n.addlNode
				}
			}
			var ok bool
			if sub != nil {
				if j, ok = sub.valid(data, j); !ok {
					return j, false
				}
			} else {
				j = skipValue(data, j)
			}
			for k, r := range n.required {
				if r == string(key) {
					seen |= 1 << k
				}
			}
			j = skipSpace(data, j)
			if data[j] == '}' {
				break
			}
			j = skipSpace(data, j+1) // ','
		}
	}
	return j + 1, seen == 1<<len(n.required)-1
}
