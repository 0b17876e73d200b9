package mcpotel

import (
	"bytes"
	"encoding/json"
)

// stringMember returns the string value of the top-level member key of a
// params object, or "" when there is none or params are not valid enough
// to tell. It reads the object without decoding it, since the one member
// wanted (a tool name, a resource URI) is usually next to arguments that
// may be large, and the middleware runs on every call. quotedKey is the
// key as a JSON string literal, e.g. `"name"`.
func stringMember(params []byte, quotedKey string) string {
	i := skipSpace(params, 0)
	if i >= len(params) || params[i] != '{' {
		return ""
	}
	i++
	for {
		i = skipSpace(params, i)
		if i >= len(params) || params[i] != '"' {
			return "" // the end, '}', or not JSON
		}
		end := scanString(params, i)
		if end < 0 {
			return ""
		}
		k := params[i:end]
		i = skipSpace(params, end)
		if i >= len(params) || params[i] != ':' {
			return ""
		}
		v := skipSpace(params, i+1)
		i = skipValue(params, v)
		if i < 0 {
			return ""
		}
		if string(k) == quotedKey {
			return unquote(params[v:i])
		}
		i = skipSpace(params, i)
		if i >= len(params) || params[i] != ',' {
			return ""
		}
		i++
	}
}

// unquote returns the string a JSON string literal holds, or "" for any
// other value.
func unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if !bytes.ContainsRune(v, '\\') {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// skipSpace returns the index of the first non-space byte from b[i].
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string literal starting at b[i]
// (a quote), or -1 when it is not closed.
func scanString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or
// -1. Objects and arrays are skipped by bracket depth, strings honouring
// escapes; scalars run to the next delimiter. Validity beyond that is the
// handler's business: the middleware only wants one member.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := scanString(b, i)
			if end < 0 {
				return -1
			}
			if depth == 0 {
				return end
			}
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // a scalar, ended by the enclosing object's '}'
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i // a scalar at the very end
	}
	return -1
}
