package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeTOML decodes a TOML document.
func decodeTOML(src []byte) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.NewDecoder(bytes.NewReader(src)).Decode(&m)
	return m, err
}

// tomlHeader is one table header line: [a.b] or [[a.b]].
type tomlHeader struct {
	start int      // the start of its line
	keys  []string // its dotted key, unquoted
}

// tomlHeaders finds the table headers of a valid TOML document: a '[' that
// starts a line outside strings and values.
func tomlHeaders(s []byte) []tomlHeader {
	hs, _ := tomlScan(s)
	return hs
}

// tomlScan finds the table headers, and the starts of the lines where a
// key/value pair begins.
func tomlScan(s []byte) (hs []tomlHeader, kvs []int) {
	depth, lineBegin := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lineBegin && (c == ' ' || c == '\t') {
			continue
		}
		if lineBegin && depth == 0 && c == '[' {
			end := bytes.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			hs = append(hs, tomlHeader{start: lineStart(s, i), keys: headerKeys(string(s[i : i+end]))})
			i += end
			continue // at the '\n'
		}
		if lineBegin && depth == 0 && c != '#' && c != '\n' && c != '\r' {
			kvs = append(kvs, lineStart(s, i))
		}
		lineBegin = false
		switch {
		case c == '\n':
			lineBegin = true
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case c == '"' || c == '\'':
			i = skipTOMLString(s, i)
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return hs, kvs
}

// skipTOMLString returns the offset of the last byte of the string at s[i].
func skipTOMLString(s []byte, i int) int {
	q := s[i]
	if bytes.HasPrefix(s[i:], []byte{q, q, q}) {
		j := i + 3
		for j < len(s) {
			if q == '"' && s[j] == '\\' {
				j += 2
				continue
			}
			if bytes.HasPrefix(s[j:], []byte{q, q, q}) {
				for j+3 < len(s) && s[j+3] == q { // up to two quotes end the content
					j++
				}
				return j + 2
			}
			j++
		}
		return len(s) - 1
	}
	for j := i + 1; j < len(s); j++ {
		if q == '"' && s[j] == '\\' {
			j++
		} else if s[j] == q || s[j] == '\n' {
			return j
		}
	}
	return len(s) - 1
}

var headerKeyPart = regexp.MustCompile(`^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*`)

// headerKeys reads the dotted key of a header line ([a."b c".d] # x).
func headerKeys(line string) []string {
	line = strings.TrimLeft(line, "[")
	var keys []string
	for {
		m := headerKeyPart.FindStringSubmatch(line)
		if m == nil {
			return keys
		}
		k := m[1]
		switch k[0] {
		case '"':
			var v map[string]any
			if _, err := toml.Decode("k = "+k, &v); err == nil {
				k, _ = v["k"].(string)
			}
		case '\'':
			k = k[1 : len(k)-1]
		}
		keys = append(keys, k)
		line = line[len(m[0]):]
		if !strings.HasPrefix(line, ".") {
			return keys
		}
		line = line[1:]
	}
}

// tomlBlock is the span of the tables of one entry: from its first header
// to the end of its last table, not counting the blank and comment lines
// just before the next header, which belong to that one.
type tomlBlock struct{ start, end int }

// findTOMLEntry finds the tables [table.name] and [table.name.*], which
// must be one run of headers; it reports found = false when there are none.
func findTOMLEntry(src []byte, table, name string) (b tomlBlock, found bool, lastOfTable int, err error) {
	hs := tomlHeaders(src)
	first, last := -1, -1
	lastOfTable = -1
	for i, h := range hs {
		if len(h.keys) >= 2 && h.keys[0] == table {
			lastOfTable = i
		}
		if len(h.keys) >= 2 && h.keys[0] == table && h.keys[1] == name {
			if first < 0 {
				first = i
			} else if last != i-1 {
				return b, false, 0, fmt.Errorf("the tables of %s.%s are not together: edit the file by hand", table, name)
			}
			last = i
		}
	}
	end := func(i int) int {
		e := len(src)
		if i+1 < len(hs) {
			e = hs[i+1].start
		}
		return trimTrailingNotes(src, hs[i].start, e)
	}
	if lastOfTable >= 0 {
		lastOfTable = end(lastOfTable)
	}
	if first < 0 {
		return b, false, lastOfTable, nil
	}
	return tomlBlock{hs[first].start, end(last)}, true, lastOfTable, nil
}

// managed are the keys mcp install writes in an entry, in any host; an
// update replaces them and keeps the others (a user's disabled, timeout,
// trust, cwd, Codex's tool approvals).
var managed = map[string]bool{"type": true, "command": true, "args": true, "env": true, "url": true, "serverUrl": true,
	"httpUrl": true, "headers": true, "env_vars": true, "bearer_token_env_var": true, "http_headers": true, "env_http_headers": true}

// keepUnmanaged adds to want the keys of the old entry that mcp does not
// write, as an update keeps them.
func keepUnmanaged(want, old any) any {
	w, ok1 := want.(map[string]any)
	o, ok2 := old.(map[string]any)
	if !ok1 || !ok2 {
		return want
	}
	out := make(map[string]any, len(w))
	for k, v := range o {
		if !managed[k] {
			out[k] = v
		}
	}
	for k, v := range w {
		out[k] = v
	}
	return out
}

// onlyManaged is v without the keys mcp does not write.
func onlyManaged(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if managed[k] {
			out[k] = x
		}
	}
	return out
}

// tomlKept is the text of an entry's tables that an update keeps: the
// key/value lines of its main table that mcp does not write, and its
// sub-tables but those of the keys it writes ([NAME.env]).
func tomlKept(src []byte, table, name string) (lines, tables string) {
	hs, kvs := tomlScan(src)
	for i, h := range hs {
		if len(h.keys) < 2 || h.keys[0] != table || h.keys[1] != name {
			continue
		}
		end := len(src)
		if i+1 < len(hs) {
			end = hs[i+1].start
		}
		end = trimTrailingNotes(src, h.start, end)
		if len(h.keys) > 2 {
			if !managed[h.keys[2]] {
				tables += "\n" + strings.TrimRight(string(src[h.start:end]), "\r\n") + "\n"
			}
			continue
		}
		for j, k := range kvs {
			if k <= h.start || k >= end {
				continue
			}
			kend := end
			if j+1 < len(kvs) && kvs[j+1] < end {
				kend = trimTrailingNotes(src, k, kvs[j+1])
			}
			line := string(src[k:kend])
			if keys := headerKeys(strings.TrimSpace(line)); len(keys) > 0 && !managed[keys[0]] {
				lines += strings.TrimRight(line, "\r\n") + "\n"
			}
		}
	}
	return lines, tables
}

// trimTrailingNotes moves end back over the blank and comment-only lines
// that end src[start:end], so that they stay with what follows.
func trimTrailingNotes(src []byte, start, end int) int {
	for end > start {
		ls := lineStart(src, end-1)
		if ls <= start {
			break
		}
		line := strings.TrimSpace(string(src[ls:end]))
		if line != "" && !strings.HasPrefix(line, "#") {
			break
		}
		end = ls
	}
	return end
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey is k as a TOML key: bare if it can be, quoted otherwise.
func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// renderTOML writes the entry as its table.
func renderTOML(table, name string, fs []field) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s.%s]\n", tomlKey(table), tomlKey(name))
	for _, f := range fs {
		b.WriteString(tomlKey(f.key) + " = ")
		switch v := f.value.(type) {
		case string:
			b.WriteString(tomlString(v))
		case []string:
			q := make([]string, len(v))
			for i, s := range v {
				q[i] = tomlString(s)
			}
			b.WriteString("[" + strings.Join(q, ", ") + "]")
		case []KV:
			q := make([]string, len(v))
			for i, kv := range v {
				q[i] = tomlKey(kv.Key) + " = " + tomlString(kv.Value)
			}
			b.WriteString("{ " + strings.Join(q, ", ") + " }")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// tomlEntry is the decoded entry table.name of doc, or nil.
func tomlEntry(doc map[string]any, table, name string) any {
	t, _ := doc[table].(map[string]any)
	return t[name]
}

// tomlSet writes entry name into [table.name] of src: the tables of the
// entry are replaced, or the entry is added after the last table of
// table (or at the end). It returns src itself when nothing changes.
func tomlSet(src []byte, table, name string, fs []field) ([]byte, error) {
	doc, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	text := renderTOML(table, name, fs)
	want, _ := decodeTOML([]byte(text))
	have := tomlEntry(doc, table, name)
	if have != nil && reflect.DeepEqual(onlyManaged(have), tomlEntry(want, table, name)) {
		return src, nil
	}
	if have != nil {
		lines, tables := tomlKept(src, table, name)
		text += lines + tables
	}
	b, found, afterTable, err := findTOMLEntry(src, table, name)
	if err != nil {
		return nil, err
	}
	nl := newline(src)
	text = strings.ReplaceAll(text, "\n", nl)
	switch {
	case found:
		return splice(src, b.start, b.end, text), nil
	case have != nil:
		return nil, fmt.Errorf("%s.%s is written in a form mcp does not edit (not as its own [%s.%s] table): edit the file by hand", table, name, table, name)
	case afterTable >= 0:
		lead := nl
		if afterTable > 0 && src[afterTable-1] != '\n' {
			lead = nl + nl
		}
		return splice(src, afterTable, afterTable, lead+text), nil
	}
	lead := ""
	if len(src) > 0 {
		lead = nl
		if src[len(src)-1] != '\n' {
			lead = nl + nl
		}
	}
	return splice(src, len(src), len(src), lead+text), nil
}

// tomlRemove deletes the tables of entry name, and one blank line before
// them; it returns src itself when there is no such entry.
func tomlRemove(src []byte, table, name string) ([]byte, error) {
	doc, err := decodeTOML(src)
	if err != nil {
		return nil, err
	}
	if tomlEntry(doc, table, name) == nil {
		return src, nil
	}
	b, found, _, err := findTOMLEntry(src, table, name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New(table + "." + name + " is not written as its own table: edit the file by hand")
	}
	switch {
	case bytes.HasSuffix(src[:b.start], []byte("\n\n")):
		b.start--
	case bytes.HasSuffix(src[:b.start], []byte("\r\n\r\n")):
		b.start -= 2
	}
	return splice(src, b.start, b.end, ""), nil
}
