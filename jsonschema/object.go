package jsonschema

import (
	"github.com/gomcp/sdk/jsonrpc"

	"encoding/json"
	"slices"
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
		b = jsonrpc.AppendString(b, m.key, false)
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
	return jsonrpc.AppendString(nil, s, false)
}

// rawStrings returns the JSON encoding of a string array.
func rawStrings(ss []string) json.RawMessage {
	b := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, s, false)
	}
	return append(b, ']')
}
