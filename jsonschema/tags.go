package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// jsonKind is the JSON type a Go type encodes to; it decides how tag values
// such as enum and default are typed and which keywords apply.
type jsonKind int

const (
	kindAny jsonKind = iota // unknown shape: interface, json.RawMessage, custom schemas
	kindString
	kindInteger
	kindNumber
	kindBoolean
	kindArray
	kindObject
)

func (k jsonKind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindInteger:
		return "integer"
	case kindNumber:
		return "number"
	case kindBoolean:
		return "boolean"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return "any"
}

// tagItem is one key[=value] item of a jsonschema struct tag.
type tagItem struct {
	key    string
	val    string
	hasVal bool
}

// splitTag splits a jsonschema tag into items. Items are separated by
// commas; `\,` stands for a literal comma inside a value. Any other
// backslash is kept as is, so regular expressions need no double escaping
// beyond what Go struct tag quoting requires.
func splitTag(tag string) ([]tagItem, error) {
	if tag == "" {
		return nil, nil
	}
	var items []tagItem
	var cur strings.Builder
	flush := func() error {
		s := cur.String()
		cur.Reset()
		key, val, hasVal := strings.Cut(s, "=")
		key = strings.TrimSpace(key)
		if key == "" {
			return fmt.Errorf("empty item in %q", tag)
		}
		items = append(items, tagItem{key: key, val: val, hasVal: hasVal})
		return nil
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		switch {
		case c == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case c == ',':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			cur.WriteByte(c)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return items, nil
}

// splitEnum splits an enum value on '|'; `\|` stands for a literal '|'.
func splitEnum(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '|':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

// tagKey describes one item a jsonschema tag may hold.
type tagKey struct {
	value   bool // takes a value: key=value
	flag    bool // stands alone: key
	invopop bool // only invopop's convention has it: its use marks the struct invopop-style
	repeat  bool // may appear more than once
}

// tagKeys are the items of the two item conventions: gomcp's own and that
// of github.com/invopop/jsonschema (mcp-grafana, older mcp-go). Any other
// tag is free text (see readTag).
var tagKeys = map[string]tagKey{
	"optional": {flag: true}, "required": {flag: true},
	"title": {value: true}, "format": {value: true}, "default": {value: true, repeat: true},
	"enum":    {value: true, repeat: true},
	"minimum": {value: true}, "maximum": {value: true},
	"exclusiveMinimum": {value: true}, "exclusiveMaximum": {value: true}, "multipleOf": {value: true},
	"minLength": {value: true}, "maxLength": {value: true}, "pattern": {value: true},
	"minItems": {value: true}, "maxItems": {value: true},
	"description": {value: true, invopop: true},
	"example":     {value: true, invopop: true, repeat: true},
	"nullable":    {flag: true, invopop: true},
	"uniqueItems": {flag: true, value: true, invopop: true},
	"readOnly":    {value: true, invopop: true}, "writeOnly": {value: true, invopop: true},
}

// wordPrefix matches what google/jsonschema-go refuses as a description:
// text beginning with WORD=.
var wordPrefix = regexp.MustCompile("^[^ \t\n]*=")

// fieldTag is a field's jsonschema tag, read in the convention it is
// written in.
type fieldTag struct {
	items   []tagItem // comma-separated items (gomcp's and invopop's conventions)
	text    string    // free text: the description (go-sdk's convention)
	hasText bool
	enums   []string // mcp-go's enum= items beside free text
	skip    bool     // "-": the field is left out of the schema
	invopop bool     // uses an item only invopop's convention has
}

// readTag reads a jsonschema tag. A tag made only of known items is read
// as items; any other tag is free text, the description, as go-sdk
// (google/jsonschema-go) reads it, unless it begins with WORD=, which
// google/jsonschema-go refuses too: then it is an item with a mistake,
// reported as such. Free text holding enum=X items is mcp-go's
// convention: those are enum values, the rest the description.
func readTag(tag string) (fieldTag, error) {
	var ft fieldTag
	switch tag {
	case "":
		return ft, nil
	case "-":
		ft.skip = true
		return ft, nil
	}
	items, err := splitTag(tag)
	if err == nil {
		err = checkItems(items)
	}
	if err == nil {
		ft.items = items
		for _, it := range items {
			ft.invopop = ft.invopop || tagKeys[it.key].invopop
		}
		return ft, nil
	}
	if wordPrefix.MatchString(tag) {
		return ft, err
	}
	ft.text, ft.hasText = tag, true
	var text []string
	for part := range strings.SplitSeq(tag, ",") {
		part = strings.TrimSpace(part)
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			ft.enums = append(ft.enums, v)
		} else if part != "" {
			text = append(text, part)
		}
	}
	if ft.enums != nil {
		ft.text, ft.hasText = strings.Join(text, ", "), len(text) > 0
	}
	return ft, nil
}

// checkItems checks that every item is a known one, with a value where it
// takes one and without where it does not, and that only repeatable items
// repeat.
func checkItems(items []tagItem) error {
	seen := map[string]bool{}
	for _, it := range items {
		k, ok := tagKeys[it.key]
		switch {
		case !ok:
			return unknownItem(it.key)
		case it.hasVal && !k.value:
			return fmt.Errorf("%s takes no value", it.key)
		case !it.hasVal && !k.flag:
			return fmt.Errorf("keyword %q needs a value (%s=...)", it.key, it.key)
		case seen[it.key] && !k.repeat:
			return fmt.Errorf("duplicate keyword %q", it.key)
		}
		seen[it.key] = true
	}
	return nil
}

// unknownItem explains an item no convention has, and what to do instead.
func unknownItem(key string) error {
	switch key {
	case "type", "anchor", "oneof_required", "anyof_required", "oneof_ref", "oneof_type", "anyof_ref", "anyof_type":
		return fmt.Errorf("%s: invopop's %[1]s= is not supported; give the field's type a JSONSchema() json.RawMessage method (jsonschema.Schemer) or set the tool's schema yourself", key)
	}
	if strings.ContainsAny(key, " \t") {
		return fmt.Errorf(`%q is not an item: write a comma inside a value as \\, in the Go source (the tag then holds \,)`, key)
	}
	return fmt.Errorf("%s: unknown keyword (a description written as free text must not begin with WORD=)", key)
}

// fieldTags holds the parsed schema-related tags of one struct field.
type fieldTags struct {
	keywords []member // keywords to set on the field schema, in tag order
	items    []member // keywords to set on its items (invopop's array fields)
	optional bool     // jsonschema:"optional"
	required bool     // jsonschema:"required"
	nullable bool     // jsonschema:"nullable" (invopop)
}

// keywordOrder lists the keywords a tag can set, in the order they are
// written in an inferred schema.
var keywordOrder = map[string]int{
	"$ref": 0, "type": 1, "title": 2, "description": 3, "enum": 4, "default": 5, "examples": 6,
	"format": 7, "contentEncoding": 8,
	"minimum": 9, "exclusiveMinimum": 10, "maximum": 11, "exclusiveMaximum": 12, "multipleOf": 13,
	"minLength": 14, "maxLength": 15, "pattern": 16,
	"items": 17, "minItems": 18, "maxItems": 19, "uniqueItems": 20, "readOnly": 21, "writeOnly": 22,
	"properties": 23, "required": 24, "additionalProperties": 25, "$defs": 26,
}

// itemKeywords are the keywords invopop applies to the items of an array
// field rather than to the array.
var itemKeywords = map[string]bool{
	"enum": true, "example": true, "format": true, "pattern": true, "minLength": true, "maxLength": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
}

// parseFieldTags interprets the description, jsonschema_description and
// jsonschema tags (read by readTag into ft) of a field whose value encodes
// as JSON kind k; goType is used for range checks of numeric enum and
// default values. invopop says the field's struct is invopop-style: a
// single enum= is then one value, not values separated by '|', and the
// keywords of an array field apply to its items, as invopop does.
func parseFieldTags(tag reflect.StructTag, ft fieldTag, invopop bool, k jsonKind, goType reflect.Type) (fieldTags, error) {
	var out fieldTags
	desc, hasDesc := tag.Lookup("description")
	if d, ok := tag.Lookup("jsonschema_description"); ok {
		desc, hasDesc = d, true
	} else if ft.hasText {
		desc, hasDesc = ft.text, true
	}
	if _, ok := tag.Lookup("jsonschema_extras"); ok {
		return out, errors.New("the jsonschema_extras tag is not supported; give the field's type a JSONSchema() json.RawMessage method (jsonschema.Schemer) or set the tool's schema yourself")
	}
	if len(ft.enums) > 0 {
		ft.items = append(ft.items, tagItem{key: "enum", val: strings.Join(ft.enums, "|"), hasVal: true})
	}
	itemKind, itemType := kindAny, reflect.Type(nil)
	if t := derefType(goType); invopop && k == kindArray && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		itemType = t.Elem()
		itemKind = scalarKind(itemType)
	}
	counts := map[string]int{}
	for _, it := range ft.items {
		counts[it.key]++
	}
	var enum, examples, defaults []json.RawMessage
	for _, it := range ft.items {
		kind, typ := k, goType
		if itemType != nil && (itemKeywords[it.key] || it.key == "default") {
			kind, typ = itemKind, itemType
		}
		switch it.key {
		case "optional":
			out.optional = true
		case "required":
			out.required = true
		case "nullable":
			out.nullable = true
		case "description":
			desc, hasDesc = it.val, true
		case "enum":
			vals := []string{it.val}
			if counts["enum"] == 1 && !invopop && len(ft.enums) == 0 {
				vals = splitEnum(it.val)
			} else if len(ft.enums) > 0 {
				vals = ft.enums
			}
			for _, v := range vals {
				raw, err := typedValue(v, kind, typ)
				if err != nil {
					return out, fmt.Errorf("enum: %w", err)
				}
				enum = append(enum, raw)
			}
		case "example", "default":
			if it.key == "default" && counts["default"] > 1 && itemType == nil {
				return out, errors.New(`duplicate keyword "default"`)
			}
			raw, err := typedValue(it.val, kind, typ)
			if err != nil {
				return out, fmt.Errorf("%s: %w", it.key, err)
			}
			if it.key == "example" {
				examples = append(examples, raw)
			} else {
				defaults = append(defaults, raw)
			}
		case "uniqueItems", "readOnly", "writeOnly":
			if it.key == "uniqueItems" && k != kindArray && k != kindAny {
				return out, fmt.Errorf("uniqueItems: not applicable to a %s", k)
			}
			v := it.val
			if !it.hasVal {
				v = "true"
			}
			if v != "true" && v != "false" {
				return out, fmt.Errorf("%s: %q is not a boolean", it.key, v)
			}
			out.keywords = append(out.keywords, member{it.key, json.RawMessage(v)})
		default:
			val, err := keywordValue(it.key, it.val, kind, typ)
			if err != nil {
				return out, fmt.Errorf("%s: %w", it.key, err)
			}
			if kind != k || typ != goType {
				out.items = append(out.items, member{it.key, val})
			} else {
				out.keywords = append(out.keywords, member{it.key, val})
			}
		}
		if out.optional && out.required {
			return out, errors.New("both optional and required")
		}
	}
	if hasDesc {
		out.keywords = append([]member{{"description", rawString(desc)}}, out.keywords...)
	}
	put := func(key string, vals []json.RawMessage, onItems bool) {
		if len(vals) == 0 {
			return
		}
		raw := json.RawMessage{'['}
		for i, v := range vals {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = append(raw, v...)
		}
		raw = append(raw, ']')
		if key == "default" && !onItems {
			raw = vals[0]
		}
		if onItems && key != "default" {
			out.items = append(out.items, member{key, raw})
		} else {
			out.keywords = append(out.keywords, member{key, raw})
		}
	}
	put("enum", enum, itemType != nil)
	put("examples", examples, itemType != nil)
	put("default", defaults, itemType != nil)
	return out, nil
}

// scalarKind is the JSON kind of the values of t, as far as tag values
// need it: the scalar kinds, and any for everything else.
func scalarKind(t reflect.Type) jsonKind {
	t = derefType(t)
	switch {
	case t == numberType:
		return kindNumber
	case implements(t, marshalerType) || t.Implements(schemerType) || reflect.PointerTo(t).Implements(schemerType):
		return kindAny
	case implements(t, textMarshalerType):
		return kindString
	}
	switch t.Kind() {
	case reflect.Bool:
		return kindBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindInteger
	case reflect.Float32, reflect.Float64:
		return kindNumber
	case reflect.String:
		return kindString
	}
	return kindAny
}

// keywordValue validates and encodes the value of one tag keyword.
func keywordValue(key, val string, k jsonKind, goType reflect.Type) (json.RawMessage, error) {
	switch key {
	case "title", "format":
		if val == "" {
			return nil, errors.New("empty value")
		}
		return rawString(val), nil
	case "enum":
		parts := splitEnum(val)
		b := []byte{'['}
		for i, p := range parts {
			v, err := typedValue(p, k, goType)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
		return append(b, ']'), nil
	case "default":
		return typedValue(val, k, goType)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if k != kindInteger && k != kindNumber && k != kindAny {
			return nil, fmt.Errorf("not applicable to a %s", k)
		}
		if !isJSONNumber(val) {
			return nil, fmt.Errorf("%q is not a JSON number", val)
		}
		if key == "multipleOf" && (val[0] == '-' || strings.Trim(val, "0.eE+-") == "") {
			return nil, fmt.Errorf("%q is not greater than 0", val)
		}
		return json.RawMessage(val), nil
	case "minLength", "maxLength", "pattern":
		if k != kindString && k != kindAny {
			return nil, fmt.Errorf("not applicable to a %s", k)
		}
		if key == "pattern" {
			if _, err := regexp.Compile(val); err != nil {
				return nil, err
			}
			return rawString(val), nil
		}
		return nonNegative(val)
	case "minItems", "maxItems":
		if k != kindArray && k != kindAny {
			return nil, fmt.Errorf("not applicable to a %s", k)
		}
		return nonNegative(val)
	}
	return nil, errors.New("unknown keyword")
}

func nonNegative(val string) (json.RawMessage, error) {
	n, err := strconv.ParseUint(val, 10, 31)
	if err != nil {
		return nil, fmt.Errorf("%q is not a non-negative integer", val)
	}
	return strconv.AppendUint(nil, n, 10), nil
}

// typedValue converts the text of an enum or default value to JSON of kind
// k. Strings take the text literally; numbers and booleans must be valid
// JSON literals in range of the Go type; other kinds take any JSON text of
// the right type.
func typedValue(text string, k jsonKind, goType reflect.Type) (json.RawMessage, error) {
	switch k {
	case kindString:
		return rawString(text), nil
	case kindBoolean:
		if text != "true" && text != "false" {
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
		return json.RawMessage(text), nil
	case kindInteger:
		t := derefType(goType)
		var err error
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			_, err = strconv.ParseInt(text, 10, t.Bits())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			_, err = strconv.ParseUint(text, 10, t.Bits())
		}
		if err != nil || !isJSONNumber(text) {
			return nil, fmt.Errorf("%q is not a valid %s", text, t)
		}
		return json.RawMessage(text), nil
	case kindNumber:
		if !isJSONNumber(text) {
			return nil, fmt.Errorf("%q is not a JSON number", text)
		}
		if t := derefType(goType); t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 {
			if _, err := strconv.ParseFloat(text, t.Bits()); err != nil {
				return nil, fmt.Errorf("%q is out of range for %s", text, t)
			}
		}
		return json.RawMessage(text), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, fmt.Errorf("%q is not valid JSON", text)
	}
	b := buf.Bytes()
	switch {
	case k == kindArray && b[0] != '[':
		return nil, fmt.Errorf("%q is not a JSON array", text)
	case k == kindObject && b[0] != '{':
		return nil, fmt.Errorf("%q is not a JSON object", text)
	}
	return b, nil
}

// isJSONNumber reports whether s is a number in JSON syntax (RFC 8259).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func derefType(t reflect.Type) reflect.Type {
	for i := 0; t.Kind() == reflect.Pointer && i < maxPointerDepth; i++ {
		t = t.Elem()
	}
	return t
}
