package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A mock file's errors name the line they are about. YAML is turned into
// JSON for decoding (so that both formats obey the same json tags); the
// JSON written notes where each YAML node went (sourceMap), and a decoding
// error's offset is mapped back to the node's line. mcp mock's checks of
// each item (a bad result, an item given twice) use the item's line.

// sourceMap maps JSON offsets, and the paths of the top-level items
// ("tools.2"), to the lines of the source.
type sourceMap struct {
	offsets []int // increasing JSON offsets where a node starts
	lines   []int // the source line of each
	items   map[string]int
	// maxNodes bounds the nodes written (YAML).
	maxNodes int
}

// lineAt returns the line of the node holding JSON offset off, or 0.
func (sm *sourceMap) lineAt(off int64) int {
	i := sort.SearchInts(sm.offsets, int(off)+1) - 1
	if i < 0 {
		return 0
	}
	return sm.lines[i]
}

// atLine prefixes err with "line N: " when line is known.
func atLine(line int, err error) error {
	if line <= 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// maxYAMLDepth bounds the nesting of a mock file, against a stack
// overflow.
const maxYAMLDepth = 100

// yamlToJSON turns a YAML document into JSON, with its source map.
func yamlToJSON(data []byte) ([]byte, *sourceMap, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	sm := &sourceMap{items: map[string]int{}, maxNodes: len(data) + 1000}
	var buf bytes.Buffer
	if len(doc.Content) == 0 {
		buf.WriteString("null")
		return buf.Bytes(), sm, nil
	}
	if err := sm.write(&buf, doc.Content[0], "", 0); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), sm, nil
}

// write writes node n as JSON; path names it when it is a top-level item.
func (sm *sourceMap) write(buf *bytes.Buffer, n *yaml.Node, path string, depth int) error {
	switch {
	case depth > maxYAMLDepth:
		return atLine(n.Line, errors.New("nested too deeply"))
	case len(sm.offsets) > sm.maxNodes:
		// Aliases may repeat a node without end (billion laughs); a
		// file without them has fewer nodes than bytes.
		return atLine(n.Line, errors.New("too many nodes once its aliases are expanded"))
	}
	sm.offsets = append(sm.offsets, buf.Len())
	sm.lines = append(sm.lines, n.Line)
	switch n.Kind {
	case yaml.AliasNode:
		return sm.write(buf, n.Alias, path, depth+1)
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return atLine(k.Line, errors.New("a key must be a plain value"))
			}
			sm.offsets = append(sm.offsets, buf.Len())
			sm.lines = append(sm.lines, k.Line)
			key, _ := json.Marshal(k.Value)
			buf.Write(key)
			buf.WriteByte(':')
			sub := ""
			if depth == 0 {
				sub = k.Value
			}
			if err := sm.write(buf, v, sub, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			sub := ""
			if path != "" && depth == 1 {
				sub = path + "." + strconv.Itoa(i)
				sm.items[sub] = e.Line
			}
			if err := sm.write(buf, e, sub, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return atLine(n.Line, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return atLine(n.Line, err)
		}
		buf.Write(b)
	}
	return nil
}

// jsonLines is the source map of a JSON file: its lines by offset.
func jsonLines(data []byte) *sourceMap {
	sm := &sourceMap{items: map[string]int{}, offsets: []int{0}, lines: []int{1}}
	for i, c := range data {
		if c == '\n' {
			sm.offsets = append(sm.offsets, i+1)
			sm.lines = append(sm.lines, len(sm.lines)+1)
		}
	}
	return sm
}

// decodeError places an error decoding the JSON data on its line: the
// offset the error gives, or for an unknown field (encoding/json gives
// none) the first place where the field is a key.
func (sm *sourceMap) decodeError(err error, data []byte) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return atLine(sm.lineAt(se.Offset-1), err)
	case errors.As(err, &te):
		return atLine(sm.lineAt(te.Offset-1), err)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if re, rerr := regexp.Compile(regexp.QuoteMeta(name) + `\s*:`); rerr == nil {
			if loc := re.FindIndex(data); loc != nil {
				return atLine(sm.lineAt(int64(loc[0])), err)
			}
		}
	}
	return err
}
