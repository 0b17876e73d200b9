package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A small JSON structure scanner. The hot decoders (_meta on every 2026
// request, content blocks) use it to walk an object's members or an array's
// elements without decoding them through reflection first. It finds value
// boundaries only: each value it returns is later decoded by encoding/json,
// which validates it, or kept raw. Malformed input gives errSyntax, never a
// panic.

var errSyntax = errors.New("mcp: malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] ('"').
// It finds quotes with bytes.IndexByte, not byte by byte: a large argument
// is one long string.
func skipString(b []byte, i int) (int, error) {
	for i++; i <= len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			break
		}
		j := i + q
		k := j // the quote is escaped if an odd number of backslashes precede it
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1, nil
		}
		i = j + 1
	}
	return 0, errSyntax
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		var buf [32]byte
		closers := buf[:0] // the closing bracket each open level expects
		for ; i < len(b); i++ {
			switch c := b[i]; c {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{':
				closers = append(closers, '}')
			case '[':
				closers = append(closers, ']')
			case '}', ']':
				if closers[len(closers)-1] != c {
					return 0, errSyntax
				}
				closers = closers[:len(closers)-1]
				if len(closers) == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errSyntax
	case ',', ':', '}', ']':
		return 0, errSyntax
	}
	start := i
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ':' {
		i++
	}
	if i == start {
		return 0, errSyntax
	}
	return i, nil
}

// eachMember calls fn with the raw (quoted) key and raw value of every
// member of the object obj, in order. It stops at fn's first error.
func eachMember(obj []byte, fn func(key, val []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return trailing(obj, i+1)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return errSyntax
		}
		end, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i:end]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errSyntax
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		if err := fn(key, obj[i:vend]); err != nil {
			return err
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return errSyntax
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return trailing(obj, i+1)
		default:
			return errSyntax
		}
	}
}

// eachElement calls fn with every element of the array arr, in order.
func eachElement(arr []byte, fn func(val []byte) error) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errSyntax
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return trailing(arr, i+1)
	}
	for {
		vend, err := skipValue(arr, i)
		if err != nil {
			return err
		}
		if err := fn(arr[i:vend]); err != nil {
			return err
		}
		i = skipSpace(arr, vend)
		if i >= len(arr) {
			return errSyntax
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return trailing(arr, i+1)
		default:
			return errSyntax
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errSyntax
	}
	return nil
}

// unquote returns the string a raw JSON string value holds. ok is false if
// raw is not a string.
func unquote(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; plainString(inner) {
		return string(inner), true
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// plainString reports whether the inside of a JSON string needs no
// decoding: no escapes, no control characters and valid UTF-8 (which
// encoding/json would otherwise repair with U+FFFD).
func plainString(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c < 0x20 || c == '\\' {
			return false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

// keyIs reports whether the raw quoted key equals name (keys with escapes
// or invalid UTF-8 are compared after decoding, as encoding/json does).
func keyIs(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	inner := key[1 : len(key)-1]
	if string(inner) == name {
		return true
	}
	if plainString(inner) {
		return false
	}
	s, ok := unquote(key)
	return ok && s == name
}
