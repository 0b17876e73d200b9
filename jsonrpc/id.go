package jsonrpc

import (
	"bytes"
	"errors"
	"strconv"
)

// ID is a JSON-RPC request id: a string or an integer. MCP forbids null ids,
// and so does this type: the zero ID means "no id" (a notification) and is
// never written as null.
//
// ID is comparable and may be used as a map key. The zero value is valid and
// reports IsZero; with the `omitzero` struct tag it is left out of JSON.
type ID struct {
	str  string
	num  int64
	kind idKind
}

type idKind uint8

const (
	idNone idKind = iota
	idInt
	idString
)

// Int64ID returns the integer id n.
func Int64ID(n int64) ID { return ID{num: n, kind: idInt} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IsZero reports whether id is absent.
func (id ID) IsZero() bool { return id.kind == idNone }

// IsString reports whether id is a string id.
func (id ID) IsString() bool { return id.kind == idString }

// Int64 returns the integer value of an integer id.
func (id ID) Int64() (int64, bool) { return id.num, id.kind == idInt }

// Str returns the value of a string id.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// Value returns the id as int64, string, or nil when absent.
func (id ID) Value() any {
	switch id.kind {
	case idInt:
		return id.num
	case idString:
		return id.str
	}
	return nil
}

// String formats the id for logs: integers bare, strings quoted.
func (id ID) String() string {
	switch id.kind {
	case idInt:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	}
	return "<none>"
}

// AppendJSON appends the JSON encoding of id to b; an absent id is written as
// null, which only happens for error responses whose request id was unreadable.
func (id ID) AppendJSON(b []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(b, id.num, 10)
	case idString:
		return appendString(b, id.str)
	}
	return append(b, "null"...)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// errBadID is returned for ids that are neither a string nor an integer.
var errBadID = errors.New("id must be a string or an integer")

// UnmarshalJSON implements json.Unmarshaler. It accepts strings and integers
// (an integral number such as 1.0 or 1e3 is refused: JSON-RPC ids SHOULD NOT
// have fractional parts and MCP requires integers) and rejects null.
func (id *ID) UnmarshalJSON(data []byte) error {
	v, err := parseID(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

func parseID(data []byte) (ID, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ID{}, errBadID
	}
	switch c := data[0]; {
	case c == '"':
		s, ok := unquote(data)
		if !ok {
			return ID{}, errBadID
		}
		return StringID(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return ID{}, errBadID
		}
		return Int64ID(n), nil
	}
	return ID{}, errBadID
}
