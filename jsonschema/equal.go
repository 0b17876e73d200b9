// Equality of decoded JSON values (const, enum, uniqueItems) and the
// rendering of values in error messages.

package jsonschema

import (
	"fmt"
	"strconv"
	"strings"
)

// jsonEqual reports whether two decoded JSON values are equal: numbers by
// value (1 == 1.0), objects regardless of member order.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	da, ok := numberOf(a)
	if !ok {
		return false
	}
	db, ok := numberOf(b)
	return ok && cmpDecimal(da, db) == 0
}

// canonical appends a form of x that is equal for equal JSON values.
func canonical(buf []byte, x any) []byte {
	switch x := x.(type) {
	case nil:
		return append(buf, 'n')
	case bool:
		if x {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case string:
		buf = append(buf, 's')
		buf = strconv.AppendInt(buf, int64(len(x)), 10)
		buf = append(buf, ':')
		return append(buf, x...)
	case []any:
		buf = append(buf, '[')
		for _, e := range x {
			buf = canonical(buf, e)
			buf = append(buf, ',')
		}
		return append(buf, ']')
	case map[string]any:
		buf = append(buf, '{')
		for _, k := range sortedKeys(x) {
			buf = canonical(buf, k)
			buf = canonical(buf, x[k])
		}
		return append(buf, '}')
	}
	d, _ := numberOf(x)
	buf = append(buf, 'd')
	if d.neg {
		buf = append(buf, '-')
	}
	buf = append(buf, d.digits...)
	buf = append(buf, 'e')
	buf = strconv.AppendInt(buf, d.mag, 10)
	return append(buf, ';')
}

// quote renders a value in a message: strings in single quotes, other
// values as JSON. Long values are cut.
func quote(x any) string {
	if s, ok := x.(string); ok {
		if len(s) > maxMessageLen {
			s = shorten(s)
		}
		return "'" + s + "'"
	}
	if d, ok := numberOf(x); ok {
		return d.String()
	}
	b, err := marshalNoEscape(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return shorten(string(b))
}

func quoteAll(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = quote(s)
	}
	return strings.Join(out, ", ")
}

func joinInts(list []int) string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, ", ")
}
