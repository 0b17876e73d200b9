package jsonschema

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// object is an ordered JSON object. Inferred schemas are built from objects
// rather than Go maps so that the output is deterministic and properties
// appear in struct field order.
//
// Each value is a json.RawMessage (already encoded JSON) or an *object.
type object struct {
	members []member
}

type member struct {
	key string
	val any // json.RawMessage or *object
}

// get returns the value stored under key.
func (o *object) get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces the value stored under key, or appends a new member.
func (o *object) set(key string, val any) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = val
			return
		}
	}
	o.members = append(o.members, member{key, val})
}

// remove deletes the member stored under key, if any.
func (o *object) remove(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// appendJSON appends the compact JSON encoding of o to b.
func (o *object) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(b, ':')
		switch v := m.val.(type) {
		case json.RawMessage:
			b = append(b, v...)
		case *object:
			b = v.appendJSON(b)
		}
	}
	return append(b, '}')
}

// rawString returns the JSON encoding of s.
func rawString(s string) json.RawMessage {
	return appendString(nil, s)
}

// rawStrings returns the JSON encoding of a string array.
func rawStrings(ss []string) json.RawMessage {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Unlike encoding/json it does not
// escape <, > and &, which keeps descriptions readable; invalid UTF-8 is
// replaced by U+FFFD as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript parsers.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
