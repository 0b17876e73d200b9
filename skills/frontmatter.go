package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"gopkg.in/yaml.v3"
)

// MaxFrontmatterSize bounds the frontmatter block of a SKILL.md, delimiters
// included; a longer one is an error rather than a parse of unbounded size.
const MaxFrontmatterSize = 64 << 10

// maxFrontmatterNodes bounds the YAML nodes a frontmatter expands to,
// aliases included, so that alias bombs fail instead of growing.
const maxFrontmatterNodes = 10000

// ErrFrontmatter is wrapped by the errors of ParseFrontmatter.
var ErrFrontmatter = errors.New("skills: invalid frontmatter")

// ParseFrontmatter returns the YAML frontmatter at the start of a SKILL.md:
// the block between a first line "---" and the next line "---", parsed
// with a YAML parser and rendered as JSON values (mappings with string
// keys, sequences, strings, numbers, booleans, null; timestamps as written).
// It fails when content does not begin with such a block, the block is
// larger than MaxFrontmatterSize, is not valid YAML, is not a mapping, or
// holds values JSON cannot carry.
func ParseFrontmatter(content []byte) (Frontmatter, error) {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	first, rest, ok := cutLine(content)
	if !ok || string(bytes.TrimRight(first, " \t")) != "---" {
		return nil, fmt.Errorf("%w: the file does not begin with a --- line", ErrFrontmatter)
	}
	start := len(content) - len(rest)
	var block []byte
	for pos := start; ; {
		if pos-start > MaxFrontmatterSize {
			return nil, fmt.Errorf("%w: longer than %d bytes", ErrFrontmatter, MaxFrontmatterSize)
		}
		line, next, ok := cutLine(content[pos:])
		if string(bytes.TrimRight(line, " \t")) == "---" {
			block = content[start:pos]
			break
		}
		if !ok {
			return nil, fmt.Errorf("%w: no closing --- line", ErrFrontmatter)
		}
		pos = len(content) - len(next)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFrontmatter, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: not a YAML mapping", ErrFrontmatter)
	}
	budget := maxFrontmatterNodes
	v, err := jsonValue(doc.Content[0], &budget, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFrontmatter, err)
	}
	return Frontmatter(v.(map[string]any)), nil
}

// cutLine splits off the first line (without its \n or \r\n); ok is false
// when there is no newline.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	line, rest, ok = bytes.Cut(b, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), rest, ok
}

// jsonValue converts a YAML node to the value encoding/json would decode
// from the equivalent JSON.
func jsonValue(n *yaml.Node, budget *int, depth int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("too many values (alias expansion?)")
	}
	if depth > 64 {
		return nil, errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return jsonValue(n.Alias, budget, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: mapping keys must be plain scalars", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			v, err := jsonValue(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := jsonValue(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!timestamp", "!!binary":
			return n.Value, nil
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			return f, nil
		}
		return nil, fmt.Errorf("line %d: unsupported tag %s", n.Line, n.Tag)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// CompareFrontmatter compares two frontmatters field by field, each field
// by its JSON encoding, and returns an error naming the fields that differ
// (a field present in one only differs), or nil.
func CompareFrontmatter(entry, file Frontmatter) error {
	keys := make([]string, 0, len(entry)+len(file))
	for k := range entry {
		keys = append(keys, k)
	}
	for k := range file {
		if _, ok := entry[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diff []string
	for _, k := range keys {
		a, inA := entry[k]
		b, inB := file[k]
		ja, errA := json.Marshal(a)
		jb, errB := json.Marshal(b)
		if inA != inB || errA != nil || errB != nil || !bytes.Equal(ja, jb) {
			diff = append(diff, k)
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("frontmatter differs from the entry in %q", diff)
	}
	return nil
}
