package jsonschema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrExternalRef is wrapped by the error Compile returns for a schema that
// references a document outside itself ($ref to an http, https or file
// URL, to an unknown $id or to a draft meta-schema, or a "$schema" of an
// unknown dialect). Such references are never loaded:
// the MCP specification forbids automatic network dereferencing, and a
// schema read from a peer must not make the process open files.
var ErrExternalRef = errors.New("references outside the schema are not loaded")

// schemaLocation is the base URI given to compiled schemas without an
// absolute $id.
const schemaLocation = "mem:///schema.json"

// maxProblems bounds the lines of ValidationError.Error.
const maxProblems = 20

// maxMessageLen bounds the length of one problem message, which may quote
// (part of) the instance.
const maxMessageLen = 200

// Validator validates JSON instances against one compiled schema. It is
// safe for concurrent use; compile once and keep it.
type Validator struct {
	c        *compiler // the document, kept for Ref
	root     *node
	needEval bool          // the document uses unevaluatedItems or unevaluatedProperties
	defaults *defaultsNode // nil if the schema declares no usable defaults
	fast     *fastNode     // nil if the schema is outside the fast subset
}

// Compile compiles a JSON Schema. The dialect is taken from "$schema"
// (draft-04, -06, -07, 2019-09 and 2020-12 are known; http and https
// spellings alike) and defaults to 2020-12 when absent; an embedded
// resource with its own $id may name another. References are resolved
// only within the schema document itself ($defs and definitions, JSON
// pointers, $anchor, $dynamicAnchor, embedded $id); anything else — an
// http, https or file URL, an unknown $id, a draft meta-schema, an unknown
// "$schema" — fails with an error wrapping ErrExternalRef. Format is an
// annotation in every dialect. An invalid schema fails with an error
// naming the JSON pointer of the offending keyword.
func Compile(schema json.RawMessage) (v *Validator, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("jsonschema: compiling schema: internal error: %v", r)
		}
	}()
	c, root, err := compileSchema(schema)
	if err != nil {
		return nil, err
	}
	return &Validator{c: c, root: root, needEval: c.needEval, defaults: buildDefaults(root), fast: compileFast(c.doc)}, nil
}

// Ref returns a Validator for the schema that ref, a reference resolved
// against the root schema's base URI, designates inside the compiled
// document: "#/$defs/address", "#/definitions/Request", "#anchor" or the
// $id of an embedded resource. A bundled document such as the MCP
// specification's schema.json is thus compiled once and validated
// against any of its definitions; references outside the document fail
// with an error wrapping ErrExternalRef, as in Compile.
func (v *Validator) Ref(ref string) (*Validator, error) {
	n, needEval, err := v.c.lookup(v.root.res.base, ref)
	if err != nil {
		return nil, err
	}
	return &Validator{c: v.c, root: n, needEval: needEval, defaults: buildDefaults(n)}, nil
}

// Validate validates a JSON document. Numbers are decoded without loss of
// precision. It returns a *ValidationError if the instance does not
// conform, or another error if instance is not valid JSON.
func (v *Validator) Validate(instance json.RawMessage) error {
	if v.fast != nil && json.Valid(instance) {
		if i := skipSpace(instance, 0); i < len(instance) {
			if _, ok := v.fast.valid(instance, i); ok {
				return nil
			}
		}
	}
	doc, err := decodeJSON(instance)
	if err != nil {
		return fmt.Errorf("jsonschema: instance is not valid JSON: %w", err)
	}
	return v.validate(doc)
}

// ValidateDecoded validates instance and returns it with the schema's
// defaults filled in: Validate followed by ApplyDefaults, for an instance
// cut out of a message that was already checked to be JSON as a whole
// (jsonrpc.Decode and encoding/json do so). It makes no pass over the
// bytes only to check their syntax, which on a 1 MiB argument is most of
// the work the two methods do; the result is theirs for valid JSON. Bytes
// that are not JSON never make it panic: it then falls back to Validate
// and ApplyDefaults, or, where the schema's checks cannot tell, leaves the
// syntax error for the decoding that follows to report.
func (v *Validator) ValidateDecoded(instance json.RawMessage) (out json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = v.validateSlow(instance)
		}
	}()
	i := skipSpace(instance, 0)
	if i == len(instance) {
		return v.validateSlow(instance)
	}
	if v.fast != nil {
		if _, ok := v.fast.valid(instance, i); ok {
			return v.applyDefaults(instance), nil
		}
	}
	doc, err := decodeJSON(instance)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: instance is not valid JSON: %w", err)
	}
	if err := v.validate(doc); err != nil {
		return nil, err
	}
	return v.applyDefaults(instance), nil
}

// validateSlow is ValidateDecoded with every check made.
func (v *Validator) validateSlow(instance json.RawMessage) (json.RawMessage, error) {
	if err := v.Validate(instance); err != nil {
		return nil, err
	}
	return v.ApplyDefaults(instance)
}

// ValidateValue validates an already decoded instance. Values produced by
// decoding JSON into an any (maps, slices, strings, float64 or
// json.Number, bool, nil) are validated directly; any other Go value, such
// as a struct, is first converted with encoding/json.
func (v *Validator) ValidateValue(instance any) error {
	if !isJSONValue(instance, 0) {
		b, err := json.Marshal(instance)
		if err != nil {
			return fmt.Errorf("jsonschema: encoding instance: %w", err)
		}
		return v.Validate(b)
	}
	return v.validate(instance)
}

func (v *Validator) validate(doc any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jsonschema: validation: internal error: %v", r)
		}
	}()
	if ve := v.validateDoc(doc, countValues(doc)); ve != nil {
		return ve
	}
	return nil
}

// countValues returns the number of values in a decoded instance.
func countValues(x any) int {
	switch x := x.(type) {
	case []any:
		n := 1
		for _, e := range x {
			n += countValues(e)
		}
		return n
	case map[string]any:
		n := 1
		for _, e := range x {
			n += countValues(e)
		}
		return n
	}
	return 1
}

// isJSONValue reports whether x consists only of the types the validator
// understands, within a nesting depth that keeps the check cheap; deeper
// values are re-encoded, which is always correct.
func isJSONValue(x any, depth int) bool {
	if depth > 1000 {
		return false
	}
	switch x := x.(type) {
	case nil, bool, string, float64, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float32:
		return true
	case []any:
		for _, e := range x {
			if !isJSONValue(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONValue(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// ValidationError reports the ways an instance fails to conform to a
// schema. Its message has one line per problem, "<pointer>: <message>",
// written to be shown to a person or a language model.
type ValidationError struct {
	Problems []Problem
}

// Problem is one failed constraint.
type Problem struct {
	// Location is the JSON Pointer (RFC 6901) of the failing value in the
	// instance; "" is the whole instance.
	Location string
	// Message says what is wrong.
	Message string
}

// Error returns one line per problem (at most 20 are listed).
func (e *ValidationError) Error() string {
	var sb strings.Builder
	for i, p := range e.Problems {
		if i == maxProblems {
			fmt.Fprintf(&sb, "\n(%d more problems)", len(e.Problems)-i)
			break
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		if p.Location == "" {
			sb.WriteString("(root)")
		} else {
			sb.WriteString(p.Location)
		}
		sb.WriteString(": ")
		sb.WriteString(p.Message)
	}
	return sb.String()
}

// comparePointers orders JSON pointers token by token, array indexes
// numerically, so problems are listed in a natural, stable order.
func comparePointers(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = nextToken(a)
		tb, b = nextToken(b)
		if ta == tb {
			continue
		}
		na, errA := strconv.ParseUint(ta, 10, 64)
		nb, errB := strconv.ParseUint(tb, 10, 64)
		if errA == nil && errB == nil {
			return cmp.Compare(na, nb)
		}
		return strings.Compare(ta, tb)
	}
	return cmp.Compare(len(a), len(b))
}

func nextToken(p string) (tok, rest string) {
	p = p[1:] // leading '/'
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// shorten limits a message to about maxMessageLen bytes; messages can
// quote arbitrarily long parts of the instance.
func shorten(s string) string {
	if len(s) <= maxMessageLen {
		return s
	}
	cut := maxMessageLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
