package mcp

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoding a typed tool's arguments.
//
// encoding/json reads a value twice (it checks the whole input, then
// decodes it) and unescapes every string through a buffer of its own: for
// a tool taking a large text, most of the call's CPU. The arguments of a
// tools/call are valid JSON already (they are part of a decoded message)
// and, for the common input type, a struct of strings, numbers and
// booleans, argsDecoder fills the struct in one pass, taking a string
// without escapes with one copy. Anything it does not decode exactly as
// encoding/json would (an escaped or unusual key, a value of the wrong
// kind, a number out of range) makes it give up, and the arguments are
// decoded by encoding/json from the start: same result, same errors.

// argsDecoder decodes a JSON object into a flat struct type.
type argsDecoder struct {
	fields []argField
}

// argField is a struct field the decoder fills.
type argField struct {
	name  string // its JSON name
	index int
	kind  reflect.Kind
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// newArgsDecoder returns the decoder for t, or nil when t is not a struct
// whose every field it can decode exactly as encoding/json does: exported
// fields of kind string, bool, int, uint or float, with plain names and no
// options but omitempty and omitzero, none embedded, none unmarshalling
// itself.
func newArgsDecoder(t reflect.Type) *argsDecoder {
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	d := &argsDecoder{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for opts != "" {
			var o string
			o, opts, _ = strings.Cut(opts, ",")
			if o != "omitempty" && o != "omitzero" {
				return nil
			}
		}
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || seen[strings.ToLower(name)] {
			return nil
		}
		seen[strings.ToLower(name)] = true
		ft := sf.Type
		if reflect.PointerTo(ft).Implements(jsonUnmarshaler) || reflect.PointerTo(ft).Implements(textUnmarshaler) {
			return nil
		}
		switch k := ft.Kind(); k {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			d.fields = append(d.fields, argField{name: name, index: i, kind: k})
		default:
			return nil
		}
	}
	return d
}

// plainName reports whether name is ASCII letters, digits, '_' and '-'
// only: encoding/json takes it as it is, and matches keys to it by ASCII
// case folding alone.
func plainName(name string) bool {
	for i := range len(name) {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// decode fills the struct v points to from data, a valid JSON value, as
// json.Unmarshal would. It reports false, having perhaps filled part of
// v, when it cannot: the caller then decodes into a fresh value with
// encoding/json.
func (d *argsDecoder) decode(data []byte, v reflect.Value) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	return eachMember(data, func(key, val []byte) error {
		if f := d.field(key); f != nil {
			if !f.set(v.Field(f.index), val) {
				return errSyntax
			}
		} else if !d.unknown(key) {
			return errSyntax
		}
		return nil
	}) == nil
}

// field returns the field the quoted key names exactly, if any.
func (d *argsDecoder) field(key []byte) *argField {
	name := key[1 : len(key)-1]
	for i := range d.fields {
		if d.fields[i].name == string(name) {
			return &d.fields[i]
		}
	}
	return nil
}

// unknown reports whether the quoted key, which names no field exactly,
// is one encoding/json ignores too: ASCII without escapes (encoding/json
// folds other letters its own way), and naming no field case-insensitively.
func (d *argsDecoder) unknown(key []byte) bool {
	name := key[1 : len(key)-1]
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	for _, f := range d.fields {
		if strings.EqualFold(f.name, string(name)) {
			return false
		}
	}
	return true
}

// set stores the JSON value val in the field fv, as encoding/json would,
// or reports false.
func (f *argField) set(fv reflect.Value, val []byte) bool {
	if string(val) == "null" {
		return true // encoding/json leaves the field as it is
	}
	switch f.kind {
	case reflect.String:
		if val[0] != '"' {
			return false
		}
		inner := val[1 : len(val)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			fv.SetString(string(inner))
			return true
		}
		var s string
		if json.Unmarshal(val, &s) != nil {
			return false
		}
		fv.SetString(s)
	case reflect.Bool:
		switch string(val) {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return false
		}
		fv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return false
		}
		fv.SetUint(n)
	default: // float
		if c := val[0]; c != '-' && (c < '0' || c > '9') {
			return false
		}
		n, err := strconv.ParseFloat(string(val), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(n) {
			return false
		}
		fv.SetFloat(n)
	}
	return true
}
