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

// fieldTags holds the parsed schema-related tags of one struct field.
type fieldTags struct {
	keywords []member // keywords to set on the field schema, in tag order
	optional bool     // jsonschema:"optional"
	required bool     // jsonschema:"required"
}

// keywordOrder lists the keywords a tag can set, in the order they are
// written in an inferred schema.
var keywordOrder = map[string]int{
	"$ref": 0, "type": 1, "title": 2, "description": 3, "enum": 4, "default": 5,
	"format": 6, "contentEncoding": 7,
	"minimum": 8, "exclusiveMinimum": 9, "maximum": 10, "exclusiveMaximum": 11,
	"minLength": 12, "maxLength": 13, "pattern": 14,
	"items": 15, "minItems": 16, "maxItems": 17,
	"properties": 18, "required": 19, "additionalProperties": 20, "$defs": 21,
}

// parseFieldTags interprets the description and jsonschema tags of a field
// whose value encodes as JSON kind k; goType is used for range checks of
// numeric enum and default values.
func parseFieldTags(tag reflect.StructTag, k jsonKind, goType reflect.Type) (fieldTags, error) {
	var ft fieldTags
	if d, ok := tag.Lookup("description"); ok {
		ft.keywords = append(ft.keywords, member{"description", rawString(d)})
	}
	items, err := splitTag(tag.Get("jsonschema"))
	if err != nil {
		return ft, err
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.key] {
			return ft, fmt.Errorf("duplicate keyword %q", it.key)
		}
		seen[it.key] = true
		switch it.key {
		case "optional", "required":
			if it.hasVal {
				return ft, fmt.Errorf("%s takes no value", it.key)
			}
			if it.key == "optional" {
				ft.optional = true
			} else {
				ft.required = true
			}
			continue
		}
		if !it.hasVal {
			return ft, fmt.Errorf("keyword %q needs a value (%s=...)", it.key, it.key)
		}
		val, err := keywordValue(it.key, it.val, k, goType)
		if err != nil {
			return ft, fmt.Errorf("%s: %w", it.key, err)
		}
		ft.keywords = append(ft.keywords, member{it.key, val})
	}
	if ft.optional && ft.required {
		return ft, errors.New("both optional and required")
	}
	return ft, nil
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
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if k != kindInteger && k != kindNumber && k != kindAny {
			return nil, fmt.Errorf("not applicable to a %s", k)
		}
		if !isJSONNumber(val) {
			return nil, fmt.Errorf("%q is not a JSON number", val)
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
