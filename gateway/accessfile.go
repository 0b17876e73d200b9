package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on access rules read from a file (ParseAccess, and the "access"
// array of a configuration file).
const (
	MaxAccessSize  = 1 << 20 // bytes of an access file
	maxRules       = 4096    // rules in one file
	maxRuleListLen = 1024    // names, principals or scopes of one rule
	maxRuleString  = 1024    // bytes of one of them
)

// ParseAccess reads access rules (see Rule) from the JSON of an access
// file, as mcp gateway --access reads it:
//
//	{"access": [
//	  {"upstream": "github", "scopes": ["github:use"]},
//	  {"upstream": "db", "names": ["query"], "principals": ["\"https://as.example.com\" sub \"alice\""]}
//	]}
//
// The same array may be the "access" field of a configuration file
// (ParseConfig). Parsing is strict, since a mistaken rule would show
// someone what it should hide: a field other than upstream, names,
// principals and scopes is refused, as is one given twice, a wrong type,
// an empty string, a scope that is not a scope token, or a file over
// MaxAccessSize bytes, each error naming the rule and its line. Comments and trailing commas
// are allowed, as in configuration files. That every rule names a
// configured upstream is checked by New.
func ParseAccess(data []byte) ([]Rule, error) {
	if len(data) > MaxAccessSize {
		return nil, fmt.Errorf("gateway access: larger than %d bytes", MaxAccessSize)
	}
	data = stripJSONC(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`gateway access: want an object: {"access": [RULE, ...]}`)
	}
	var rules []Rule
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("gateway access: %w", describe(err))
		}
		key := t.(string) // an object's keys are strings
		if key != "access" || seen {
			return nil, fmt.Errorf("gateway access: line %d: unexpected field %q: the file holds one field, \"access\"",
				lineAt(data, int(dec.InputOffset())), key)
		}
		seen = true
		start := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("gateway access: %w", describe(err))
		}
		if rules, err = parseRules(data, start, raw); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("gateway access: %w", describe(err))
	}
	if dec.More() {
		return nil, errors.New("gateway access: more than one JSON value")
	}
	if !seen {
		return nil, errors.New(`gateway access: no "access" field: want {"access": [RULE, ...]}`)
	}
	return rules, nil
}

// ruleFields is a Rule as written in a file.
type ruleFields struct {
	Upstream   string   `json:"upstream"`
	Names      []string `json:"names"`
	Principals []string `json:"principals"`
	Scopes     []string `json:"scopes"`
}

// parseRules reads the array raw, found in data at or after offset from,
// rule by rule, so that each error names its rule's line.
func parseRules(data []byte, from int, raw json.RawMessage) ([]Rule, error) {
	if i := bytes.Index(data[from:], raw); i >= 0 {
		from += i
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("gateway access: line %d: \"access\" must be an array of rules", lineAt(data, from))
	}
	var rules []Rule
	for n := 1; dec.More(); n++ {
		at := from + int(dec.InputOffset())
		var body json.RawMessage
		if err := dec.Decode(&body); err != nil {
			return nil, fmt.Errorf("gateway access: rule %d: %w", n, describe(err))
		}
		line := lineAt(data, at+skipSeparators(raw[at-from:]))
		if n > maxRules {
			return nil, fmt.Errorf("gateway access: line %d: more than %d rules", line, maxRules)
		}
		r, err := parseRule(body)
		if err != nil {
			return nil, fmt.Errorf("gateway access: rule %d (line %d): %w", n, line, err)
		}
		r.line = line
		rules = append(rules, r)
	}
	return rules, nil
}

// parseRule reads and checks one rule.
func parseRule(body json.RawMessage) (Rule, error) {
	if !bytes.HasPrefix(body, []byte("{")) {
		return Rule{}, errors.New("want an object with upstream, and names, principals or scopes")
	}
	if err := uniqueKeys(body); err != nil {
		return Rule{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var f ruleFields
	if err := dec.Decode(&f); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return Rule{}, fmt.Errorf("unknown field %s: want upstream, names, principals or scopes", field)
		}
		return Rule{}, describe(err)
	}
	if f.Upstream == "" {
		return Rule{}, errors.New("no upstream: every rule names the upstream it covers")
	}
	for _, l := range []struct {
		field string
		list  []string
		scope bool
	}{{"upstream", []string{f.Upstream}, false}, {"names", f.Names, false}, {"principals", f.Principals, false}, {"scopes", f.Scopes, true}} {
		if err := checkRuleList(l.list, l.scope); err != nil {
			return Rule{}, fmt.Errorf("%s: %w", l.field, err)
		}
	}
	return Rule{Upstream: f.Upstream, Names: f.Names, Principals: f.Principals, Scopes: f.Scopes}, nil
}

// uniqueKeys refuses an object giving a field twice, which JSON would
// let the last one win silently ("scopes" twice, the second empty).
func uniqueKeys(obj json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return describe(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return describe(err)
		}
		key, _ := t.(string)
		if seen[key] {
			return fmt.Errorf("field %q is given twice", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return describe(err)
		}
	}
	return nil
}

// checkRuleList refuses too many entries, and entries that are empty, too
// long, not UTF-8 or with control characters; scopes must be RFC 6749
// scope tokens, which a token's space-separated scope claim can hold.
func checkRuleList(list []string, scope bool) error {
	if len(list) > maxRuleListLen {
		return fmt.Errorf("more than %d entries", maxRuleListLen)
	}
	for _, s := range list {
		switch {
		case s == "":
			return errors.New("an empty string")
		case len(s) > maxRuleString:
			return fmt.Errorf("an entry longer than %d bytes", maxRuleString)
		case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
			return fmt.Errorf("%q is not UTF-8 text without control characters", s)
		case scope && strings.ContainsFunc(s, func(c rune) bool { return c <= ' ' || c >= 0x7f || c == '"' || c == '\\' }):
			return fmt.Errorf("%q is not a scope token (no spaces, quotes or backslashes)", s)
		}
	}
	return nil
}

// skipSeparators returns how many bytes of b are blanks and commas.
func skipSeparators(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n,"))
}

// lineAt is the line (from 1) of byte offset off of data.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
