package jsonschema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDecodeDepth bounds the nesting of decoded documents, as encoding/json
// does.
const maxDecodeDepth = 10000

// decodeJSON decodes one JSON value, with nothing but white space after
// it, into the types encoding/json produces for an any with UseNumber:
// map[string]any, []any, string, json.Number, bool and nil. It is one pass
// over the bytes (encoding/json makes three: buffer, scan, decode), which
// on a tool argument of a megabyte is most of the validation's work.
// Strings are decoded as encoding/json does: invalid UTF-8 and lone
// surrogates become U+FFFD; duplicate keys keep the last value.
func decodeJSON(data []byte) (any, error) {
	d := decoder{data: data}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.i != len(d.data) {
		return nil, d.errorf("data after the JSON value")
	}
	return v, nil
}

type decoder struct {
	data []byte
	i    int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *decoder) unexpected() error {
	if d.i >= len(d.data) {
		return d.errorf("unexpected end of JSON input")
	}
	return d.errorf("invalid character %q", d.data[d.i])
}

func (d *decoder) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.i >= len(d.data) {
		return nil, d.unexpected()
	}
	switch c := d.data[d.i]; c {
	case '{':
		if depth >= maxDecodeDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.object(depth + 1)
	case '[':
		if depth >= maxDecodeDepth {
			return nil, d.errorf("exceeded max depth")
		}
		return d.array(depth + 1)
	case '"':
		return d.string()
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			return d.number()
		}
	}
	return nil, d.unexpected()
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.i < len(lit) || string(d.data[d.i:d.i+len(lit)]) != lit {
		for j := 0; j < len(lit); j++ {
			if d.i >= len(d.data) || d.data[d.i] != lit[j] {
				return d.unexpected()
			}
			d.i++
		}
	}
	d.i += len(lit)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.i++ // '{'
	m := map[string]any{}
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, d.unexpected()
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, d.unexpected()
		}
		d.i++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		if end, err := d.separator('}'); err != nil {
			return nil, err
		} else if end {
			return m, nil
		}
	}
}

// separator reads what follows a member or element: a comma (false), or
// the closing byte (true).
func (d *decoder) separator(closing byte) (end bool, err error) {
	d.skipSpace()
	if d.i >= len(d.data) {
		return false, d.unexpected()
	}
	switch d.data[d.i] {
	case ',':
		d.i++
		d.skipSpace()
		return false, nil
	case closing:
		d.i++
		return true, nil
	}
	return false, d.unexpected()
}

func (d *decoder) array(depth int) (any, error) {
	d.i++ // '['
	a := []any{}
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if end, err := d.separator(']'); err != nil {
			return nil, err
		} else if end {
			return a, nil
		}
	}
}

func (d *decoder) number() (any, error) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.data) && d.data[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, d.unexpected()
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.unexpected()
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.unexpected()
		}
	}
	return json.Number(d.data[start:d.i]), nil
}

// string decodes the string at d.data[d.i] == '"'.
func (d *decoder) string() (string, error) {
	d.i++
	start := d.i
	// The common case: no escapes, valid UTF-8.
	for d.i < len(d.data) {
		c := d.data[d.i]
		if c == '"' {
			s := d.data[start:d.i]
			d.i++
			if !utf8.Valid(s) {
				return string(appendValidUTF8(nil, s)), nil
			}
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", d.errorf("invalid character %q in string literal", c)
		}
		d.i++
	}
	if d.i >= len(d.data) {
		return "", d.errorf("unexpected end of JSON input")
	}
	buf := make([]byte, 0, d.i-start+16)
	buf = appendValidUTF8(buf, d.data[start:d.i])
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("invalid character %q in string literal", c)
		case c != '\\':
			j := d.i
			for j < len(d.data) && d.data[j] != '"' && d.data[j] != '\\' && d.data[j] >= 0x20 {
				j++
			}
			buf = appendValidUTF8(buf, d.data[d.i:j])
			d.i = j
			continue
		}
		// An escape.
		if d.i+1 >= len(d.data) {
			return "", d.errorf("unexpected end of JSON input")
		}
		e := d.data[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf("invalid \\u escape in string literal")
			}
			if utf16.IsSurrogate(r) {
				// A pair, if the next escape completes it.
				if d.i+1 < len(d.data) && d.data[d.i] == '\\' && d.data[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					r2, ok := d.hex4()
					if !ok {
						return "", d.errorf("invalid \\u escape in string literal")
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
					} else {
						r = utf8.RuneError
						d.i = save
					}
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.i -= 1
			return "", d.errorf("invalid escape %q in string literal", e)
		}
	}
	return "", d.errorf("unexpected end of JSON input")
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	for _, c := range d.data[d.i : d.i+4] {
		if c == '+' || c == '-' || c == '_' {
			return 0, false
		}
	}
	d.i += 4
	return rune(n), true
}

// appendValidUTF8 appends b with invalid UTF-8 replaced by U+FFFD, one
// per invalid byte, as encoding/json does.
func appendValidUTF8(buf, b []byte) []byte {
	if utf8.Valid(b) {
		return append(buf, b...)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		buf = utf8.AppendRune(buf, r)
		b = b[size:]
	}
	return buf
}
