package hostconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// sanitize returns a copy of src with its comments, trailing commas and
// byte order mark turned into spaces, so that encoding/json reads it and
// every offset is the same in both. It fails on an unterminated comment or
// string, and on anything that is then not JSON.
func sanitize(src []byte) ([]byte, error) {
	out, _, err := sanitizeCommas(src)
	return out, err
}

// sanitizeCommas is sanitize, which also returns where the trailing commas
// were.
func sanitizeCommas(src []byte) ([]byte, []int, error) {
	var trailing []int
	out := bytes.Clone(src)
	if bytes.HasPrefix(out, []byte("\xEF\xBB\xBF")) {
		copy(out, "   ")
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return out, nil, nil
	}
	comma, last := -1, byte(0)
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == '"':
			j := i + 1
			for ; j < len(out) && out[j] != '"'; j++ {
				if out[j] == '\\' {
					j++
				}
			}
			if j >= len(out) {
				return nil, nil, errors.New("unterminated string")
			}
			i, comma, last = j, -1, '"'
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, nil, errors.New("unterminated comment")
			}
			for j := i; j < i+2+end+2; j++ {
				out[j] = ' '
			}
			i += 2 + end + 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == ',':
			if last != '{' && last != '[' && last != ',' { // a comma after a value may trail
				comma = i
			}
			last = c
			continue
		default:
			if (c == '}' || c == ']') && comma >= 0 {
				out[comma] = ' '
				trailing = append(trailing, comma)
			}
			comma, last = -1, c
		}
	}
	if !json.Valid(out) {
		var v any
		err := json.Unmarshal(out, &v)
		return nil, nil, err
	}
	return out, trailing, nil
}

// decodeJSONC decodes a JSON (or JSONC) document, numbers kept as written.
func decodeJSONC(src []byte) (any, error) {
	san, err := sanitize(src)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(san)) == 0 {
		return map[string]any{}, nil
	}
	d := json.NewDecoder(bytes.NewReader(san))
	d.UseNumber()
	var v any
	return v, d.Decode(&v)
}

// member is one member of a JSON object, by its offsets.
type member struct {
	key              string
	keyStart, valEnd int
	valStart         int
}

// object is a JSON object: '{' at start, '}' at end-1.
type object struct {
	start, end int
	members    []member
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value at i in valid JSON s.
func skipValue(s []byte, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			for i++; s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// parseObject reads the members of the object at s[at] (valid JSON, '{').
func parseObject(s []byte, at int) object {
	o := object{start: at}
	i := skipSpace(s, at+1)
	for s[i] != '}' {
		keyEnd := skipValue(s, i)
		var key string
		_ = json.Unmarshal(s[i:keyEnd], &key)
		v := skipSpace(s, skipSpace(s, keyEnd)+1) // past ':'
		end := skipValue(s, v)
		o.members = append(o.members, member{key: key, keyStart: i, valStart: v, valEnd: end})
		i = skipSpace(s, end)
		if s[i] == ',' {
			i = skipSpace(s, i+1)
		}
	}
	o.end = i + 1
	return o
}

// find returns the index of the member named key, or -1; a key that
// appears twice is refused, since which one the host reads is unclear.
func (o object) find(key string) (int, error) {
	at := -1
	for i, m := range o.members {
		if m.key == key {
			if at >= 0 {
				return 0, fmt.Errorf("%q appears twice", key)
			}
			at = i
		}
	}
	return at, nil
}

// lineStart is the offset of the start of the line holding pos.
func lineStart(s []byte, pos int) int {
	return bytes.LastIndexByte(s[:pos], '\n') + 1
}

// indentOf is the leading white space of the line holding pos.
func indentOf(s []byte, pos int) string {
	ls := lineStart(s, pos)
	e := ls
	for e < pos && (s[e] == ' ' || s[e] == '\t') {
		e++
	}
	return string(s[ls:e])
}

// restOfLineBlank reports whether san holds only spaces from pos to the
// end of its line (comments are spaces in san), and where that line ends.
func restOfLineBlank(san []byte, pos int) (int, bool) {
	for i := pos; i < len(san); i++ {
		switch san[i] {
		case '\n':
			return i, true
		case ' ', '\t', '\r':
		default:
			return i, false
		}
	}
	return len(san), false
}

// layout is the indentation of an object's members.
type layout struct{ parent, member, unit string }

func layoutOf(src []byte, o object) layout {
	l := layout{parent: indentOf(src, o.start)}
	l.unit = "  "
	if strings.HasPrefix(l.parent, "\t") {
		l.unit = "\t"
	}
	for _, m := range o.members {
		if lineStart(src, m.keyStart) > o.start {
			in := indentOf(src, m.keyStart)
			if strings.HasPrefix(in, l.parent) && len(in) > len(l.parent) {
				l.unit = in[len(l.parent):]
			}
			break
		}
	}
	l.member = l.parent + l.unit
	return l
}

// jsonString is s as a JSON string, with <, > and & as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderJSON writes fields as a JSON object indented for a member at
// indentation prefix, in steps of unit.
func renderJSON(fs []field, prefix, unit string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(jsonString(f.key) + ":")
		switch v := f.value.(type) {
		case string:
			b.WriteString(jsonString(v))
		case []string:
			b.WriteString("[")
			for j, s := range v {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString(jsonString(s))
			}
			b.WriteString("]")
		case []KV:
			b.WriteString("{")
			for j, kv := range v {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString(jsonString(kv.Key) + ":" + jsonString(kv.Value))
			}
			b.WriteString("}")
		}
	}
	b.WriteString("}")
	var out bytes.Buffer
	_ = json.Indent(&out, []byte(b.String()), prefix, unit)
	return out.Bytes()
}

// splice replaces src[from:to] with with.
func splice(src []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// insertMember adds "name": value as the last member of o.
func insertMember(src, san []byte, trailing []int, o object, name string, value func(prefix, unit string) []byte) []byte {
	l := layoutOf(src, o)
	text := jsonString(name) + ": " + string(value(l.member, l.unit))
	nl := newline(src)
	text = strings.ReplaceAll(text, "\n", nl)
	if len(o.members) == 0 {
		inner := src[o.start+1 : o.end-1]
		if len(bytes.TrimSpace(san[o.start+1:o.end-1])) == 0 && len(bytes.TrimSpace(inner)) == 0 {
			return splice(src, o.start+1, o.end-1, nl+l.member+text+nl+l.parent)
		}
		last := o.start + 1 + len(bytes.TrimRight(inner, " \t\r\n"))
		return splice(src, last, last, nl+l.member+text)
	}
	m := o.members[len(o.members)-1]
	after := m.valEnd
	comma, end := ",", ""
	if c := trailingComma(trailing, m, o); c >= 0 { // the file's style: the new last member gets one too
		after, comma, end = c+1, "", ","
	}
	if eol, ok := restOfLineBlank(san, after); ok && eol < o.end-1 {
		if eol > 0 && src[eol-1] == '\r' {
			eol--
		}
		src = splice(src, eol, eol, nl+l.member+text+end)
		return splice(src, m.valEnd, m.valEnd, comma)
	}
	return splice(src, after, after, comma+" "+text)
}

// newline is the line ending of src: CRLF if it has one, LF otherwise.
func newline(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// trailingComma is the offset of the trailing comma after member m of o,
// or -1.
func trailingComma(trailing []int, m member, o object) int {
	for _, c := range trailing {
		if c >= m.valEnd && c < o.end {
			return c
		}
	}
	return -1
}

// removeMember deletes member i of o, with the comma that goes with it.
func removeMember(src, san []byte, trailing []int, o object, i int) []byte {
	m := o.members[i]
	ownLine := strings.TrimSpace(string(san[lineStart(san, m.keyStart):m.keyStart])) == ""
	if len(o.members) == 1 {
		eol, ok := restOfLineBlank(san, m.valEnd)
		rest := string(src[o.start+1:m.keyStart]) + string(src[m.valEnd:o.end-1])
		if strings.TrimSpace(rest) == "" || !ok || !ownLine {
			return splice(src, o.start+1, o.end-1, "")
		}
		return splice(src, lineStart(san, m.keyStart), eol+1, "") // keep the comments around it
	}
	if i < len(o.members)-1 { // remove up to and with its comma
		c := skipSpace(san, m.valEnd) // the comma
		next := o.members[i+1].keyStart
		if eol, ok := restOfLineBlank(san, c+1); ok && ownLine && eol < next {
			return splice(src, lineStart(san, m.keyStart), eol+1, "")
		}
		return splice(src, m.keyStart, next, "")
	}
	prev := o.members[i-1]
	c := skipSpace(san, prev.valEnd) // the comma after prev
	if eol, ok := restOfLineBlank(san, m.valEnd); ok && ownLine {
		src = splice(src, lineStart(san, m.keyStart), eol+1, "")
		if trailingComma(trailing, m, o) >= 0 {
			return src // prev keeps its comma, now trailing
		}
		return splice(src, c, c+1, "")
	}
	return splice(src, prev.valEnd, m.valEnd, "")
}

// jsonServers finds the object of servers (key) in the document, and the
// root object. servers is nil when the root has no such key.
func jsonServers(san []byte, key string) (root object, servers *object, at int, err error) {
	i := skipSpace(san, 0)
	if i >= len(san) || san[i] != '{' {
		return object{}, nil, -1, errors.New("the file is not a JSON object")
	}
	root = parseObject(san, i)
	at, err = root.find(key)
	if err != nil || at < 0 {
		return root, nil, at, err
	}
	m := root.members[at]
	if san[m.valStart] != '{' {
		return root, nil, at, fmt.Errorf("%q is not an object", key)
	}
	o := parseObject(san, m.valStart)
	return root, &o, at, nil
}

// jsonSet writes entry name (fields fs) into the servers object key of
// src, creating what is missing. It returns src itself when the entry is
// already there as it would be written.
func jsonSet(src []byte, key, name string, fs []field) ([]byte, error) {
	value := func(prefix, unit string) []byte { return renderJSON(fs, prefix, unit) }
	if len(bytes.TrimSpace(src)) == 0 {
		doc := "{\n  " + jsonString(key) + ": {\n    " + jsonString(name) + ": " + string(value("    ", "  ")) + "\n  }\n}\n"
		return []byte(doc), nil
	}
	san, trailing, err := sanitizeCommas(src)
	if err != nil {
		return nil, err
	}
	root, servers, _, err := jsonServers(san, key)
	if err != nil {
		return nil, err
	}
	if servers == nil {
		return insertMember(src, san, trailing, root, key, func(prefix, unit string) []byte {
			return []byte("{\n" + prefix + unit + jsonString(name) + ": " + string(value(prefix+unit, unit)) + "\n" + prefix + "}")
		}), nil
	}
	at, err := servers.find(name)
	if err != nil {
		return nil, err
	}
	if at < 0 {
		return insertMember(src, san, trailing, *servers, name, value), nil
	}
	m := servers.members[at]
	var have, want any
	_ = json.Unmarshal(san[m.valStart:m.valEnd], &have)
	_ = json.Unmarshal(value("", ""), &want)
	if reflect.DeepEqual(onlyManaged(have), want) {
		return src, nil
	}
	l := layoutOf(src, *servers)
	indent := indentOf(src, m.keyStart)
	text := string(value(indent, l.unit))
	if san[m.valStart] == '{' { // keep the members mcp does not write, as they are
		closing := "\n" + indent + "}"
		body := strings.TrimSuffix(text, closing)
		for _, em := range parseObject(san, m.valStart).members {
			if !managed[em.key] {
				body += ",\n" + indent + l.unit + string(src[em.keyStart:em.valEnd])
			}
		}
		text = body + closing
	}
	text = strings.ReplaceAll(text, "\n", newline(src))
	return splice(src, m.valStart, m.valEnd, text), nil
}

// jsonRemove deletes entry name from the servers object key of src; it
// returns src itself when there is no such entry.
func jsonRemove(src []byte, key, name string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	san, trailing, err := sanitizeCommas(src)
	if err != nil {
		return nil, err
	}
	_, servers, _, err := jsonServers(san, key)
	if err != nil || servers == nil {
		return src, err
	}
	at, err := servers.find(name)
	if err != nil || at < 0 {
		return src, err
	}
	return removeMember(src, san, trailing, *servers, at), nil
}
