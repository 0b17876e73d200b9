package jsonschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// Schemer is implemented by types that describe their own JSON encoding.
// For and ForType use the returned schema verbatim (compacted) instead of
// inferring one, so types with custom MarshalJSON methods can still have a
// precise schema. JSONSchema is called on the zero value.
type Schemer interface {
	JSONSchema() json.RawMessage
}

// Limits of inference. They bound the work done for pathological types; no
// ordinary Go type comes close.
const (
	// maxPointerDepth bounds chains of pointer types (type P *P is legal Go).
	maxPointerDepth = 32
	// maxSchemaNodes bounds the number of subschemas of one inferred schema;
	// deeply nested non-recursive types are inlined and could otherwise
	// grow exponentially.
	maxSchemaNodes = 1 << 16
)

var (
	schemerType       = reflect.TypeFor[Schemer]()
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

type cacheEntry struct {
	schema json.RawMessage
	err    error
}

// cacheKey is one inference: a type, with open or closed structs.
type cacheKey struct {
	t      reflect.Type
	closed bool
}

var cache sync.Map // cacheKey -> cacheEntry

// For returns the JSON Schema (draft 2020-12) inferred for the Go type T.
// See ForType.
func For[T any]() (json.RawMessage, error) {
	return ForType(reflect.TypeFor[T]())
}

// ForType returns the JSON Schema (draft 2020-12) describing the JSON that
// encoding/json produces for, and accepts into, values of type t.
//
// The result is computed once per type and cached; each call returns a
// fresh copy the caller may modify. Output is deterministic: properties
// appear in struct field order. The package documentation describes the
// mapping from Go types and the struct tags that refine it. Types that
// cannot be encoded as JSON (channels, functions, complex numbers, maps
// with unsupported key types) and malformed tags yield an error.
func ForType(t reflect.Type) (json.RawMessage, error) {
	return forType(t, false)
}

// ForTypeClosed is ForType with "additionalProperties": false in the
// schema of every struct type (after its "required"), as go-sdk
// (google/jsonschema-go) and invopop/jsonschema write them: an instance
// with a member the struct has no field for is invalid, where ForType's
// schema accepts it as encoding/json would (and ignores it). Maps stay
// open. MCP servers use it for tool schemas, so that a misspelled
// optional argument is refused rather than silently dropped.
func ForTypeClosed(t reflect.Type) (json.RawMessage, error) {
	return forType(t, true)
}

func forType(t reflect.Type, closed bool) (json.RawMessage, error) {
	if t == nil {
		return nil, errors.New("jsonschema: nil type")
	}
	key := cacheKey{t, closed}
	e, ok := cache.Load(key)
	if !ok {
		var ce cacheEntry
		ce.schema, ce.err = infer(t, closed)
		e, _ = cache.LoadOrStore(key, ce)
	}
	ce := e.(cacheEntry)
	if ce.err != nil {
		return nil, ce.err
	}
	return bytes.Clone(ce.schema), nil
}

func infer(t reflect.Type, closed bool) (schema json.RawMessage, err error) {
	g := &generator{
		closed:     closed,
		root:       derefType(t),
		inProgress: map[reflect.Type]bool{},
		defNames:   map[reflect.Type]string{},
		usedNames:  map[string]bool{},
	}
	s, _, err := g.gen(t)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: inferring schema for %s: %w", t, err)
	}
	if o, ok := s.(*object); ok {
		if len(g.defs.members) > 0 {
			o.set("$defs", &g.defs)
		}
		return o.appendJSON(nil), nil
	}
	return s.(json.RawMessage), nil
}

// generator infers one schema document. Named types that refer back to
// themselves are emitted once under $defs and referenced with $ref; the
// root type refers to itself with "#". All other types are inlined.
type generator struct {
	closed     bool // structs get "additionalProperties": false
	root       reflect.Type
	inProgress map[reflect.Type]bool   // named composite types being generated
	defNames   map[reflect.Type]string // recursive types and their $defs names
	usedNames  map[string]bool
	defs       object // completed $defs, in completion order
	nodes      int
}

// gen returns the schema for t (an *object, or a json.RawMessage for custom
// schemas) and the JSON kind t encodes to.
func (g *generator) gen(t reflect.Type) (any, jsonKind, error) {
	g.nodes++
	if g.nodes > maxSchemaNodes {
		return nil, kindAny, fmt.Errorf("schema exceeds %d subschemas", maxSchemaNodes)
	}
	for i := 0; t.Kind() == reflect.Pointer; i++ {
		if i == maxPointerDepth {
			return nil, kindAny, fmt.Errorf("pointer chain of %s too deep", t)
		}
		t = t.Elem()
	}

	if t.Kind() == reflect.Interface {
		// Encoded according to the dynamic type: anything is possible.
		return &object{}, kindAny, nil
	}
	// Types that control their own encoding.
	if t.Implements(schemerType) || reflect.PointerTo(t).Implements(schemerType) {
		raw, err := customSchema(t)
		return raw, kindAny, err
	}
	switch {
	case t == timeType:
		return keywords("type", `"string"`, "format", `"date-time"`), kindString, nil
	case t == numberType:
		return keywords("type", `"number"`), kindNumber, nil
	case t == rawMessageType, implements(t, marshalerType):
		// The encoding is up to MarshalJSON: anything is possible.
		return &object{}, kindAny, nil
	case implements(t, textMarshalerType):
		return keywords("type", `"string"`), kindString, nil
	}

	if t.Name() != "" && isComposite(t.Kind()) {
		if name, ok := g.defNames[t]; ok && !g.inProgress[t] {
			// A recursive type completed earlier in this document.
			return g.ref(name), kindOf(t), nil
		}
		if g.inProgress[t] {
			return g.ref(g.defName(t)), kindOf(t), nil
		}
		g.inProgress[t] = true
		s, err := g.genComposite(t)
		delete(g.inProgress, t)
		if err != nil {
			return nil, kindAny, err
		}
		name, recursive := g.defNames[t]
		if !recursive || t == g.root {
			return s, kindOf(t), nil
		}
		g.defs.set(name, s)
		return g.ref(name), kindOf(t), nil
	}

	switch t.Kind() {
	case reflect.Bool:
		return keywords("type", `"boolean"`), kindBoolean, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return keywords("type", `"integer"`), kindInteger, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return keywords("type", `"integer"`, "minimum", "0"), kindInteger, nil
	case reflect.Float32, reflect.Float64:
		return keywords("type", `"number"`), kindNumber, nil
	case reflect.String:
		return keywords("type", `"string"`), kindString, nil
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		s, err := g.genComposite(t)
		return s, kindOf(t), err
	}
	return nil, kindAny, fmt.Errorf("unsupported type %s (kind %s)", t, t.Kind())
}

func isComposite(k reflect.Kind) bool {
	switch k {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Struct:
		return true
	}
	return false
}

// kindOf returns the JSON kind of a composite type.
func kindOf(t reflect.Type) jsonKind {
	switch t.Kind() {
	case reflect.Slice:
		if isByteSlice(t) {
			return kindString
		}
		return kindArray
	case reflect.Array:
		return kindArray
	}
	return kindObject
}

// isByteSlice reports whether encoding/json encodes t as a base64 string.
func isByteSlice(t reflect.Type) bool {
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Uint8 {
		return false
	}
	e := t.Elem()
	return !implements(e, marshalerType) && !implements(e, textMarshalerType)
}

// implements reports whether t or *t implements iface, as encoding/json
// would use the method for an addressable value.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

func (g *generator) genComposite(t reflect.Type) (*object, error) {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if isByteSlice(t) {
			return keywords("type", `"string"`, "contentEncoding", `"base64"`), nil
		}
		items, _, err := g.gen(t.Elem())
		if err != nil {
			return nil, err
		}
		s := keywords("type", `"array"`)
		s.set("items", items)
		if t.Kind() == reflect.Array {
			n := json.RawMessage(fmt.Sprint(t.Len()))
			s.set("minItems", n)
			s.set("maxItems", n)
		}
		return s, nil
	case reflect.Map:
		if !validMapKey(t.Key()) {
			return nil, fmt.Errorf("unsupported map key type %s in %s", t.Key(), t)
		}
		elem, _, err := g.gen(t.Elem())
		if err != nil {
			return nil, err
		}
		s := keywords("type", `"object"`)
		s.set("additionalProperties", elem)
		return s, nil
	}
	return g.genStruct(t)
}

// validMapKey reports whether encoding/json can encode map keys of type k.
func validMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return k.Implements(textMarshalerType)
}

func (g *generator) genStruct(t reflect.Type) (*object, error) {
	fields := typeFields(t)
	s := keywords("type", `"object"`)
	// The struct's convention decides what is required: invopop-style
	// structs (see readTag) require only the fields tagged required.
	tags := make([]fieldTag, len(fields))
	invopop := false
	for i, f := range fields {
		var err error
		if tags[i], err = readTag(f.tag.Get("jsonschema")); err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", t, f.goName, err)
		}
		invopop = invopop || tags[i].invopop
	}
	props := &object{}
	var required []string
	for i, f := range fields {
		if tags[i].skip {
			continue
		}
		fs, req, err := g.genField(f, tags[i], invopop)
		if err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", t, f.goName, err)
		}
		props.set(f.name, fs)
		if req {
			required = append(required, f.name)
		}
	}
	if len(props.members) > 0 {
		s.set("properties", props)
	}
	if len(required) > 0 {
		s.set("required", rawStrings(required))
	}
	if g.closed || len(props.members) == 0 {
		s.set("additionalProperties", json.RawMessage("false"))
	}
	return s, nil
}

// genField returns the schema of one struct field and whether it is
// required; ft is its jsonschema tag, invopop whether its struct is
// invopop-style.
func (g *generator) genField(f field, ft fieldTag, invopop bool) (any, bool, error) {
	var (
		s    any
		kind jsonKind
		err  error
	)
	if f.quoted {
		// `json:",string"` encodes scalars inside a JSON string.
		s, kind = keywords("type", `"string"`), kindString
	} else if s, kind, err = g.gen(f.typ); err != nil {
		return nil, false, err
	}
	tags, err := parseFieldTags(f.tag, ft, invopop, kind, f.typ)
	if err != nil {
		return nil, false, err
	}
	required := !f.omit && !invopop
	switch {
	case tags.optional:
		required = false
	case tags.required:
		required = true
	}
	_, generated := s.(*object)
	if len(tags.keywords) > 0 {
		if s, err = withKeywords(s, tags.keywords); err != nil {
			return nil, false, err
		}
	}
	if len(tags.items) > 0 {
		items, _ := s.(*object).get("items") // invopop's array keywords: s is a generated array schema
		if items, err = withKeywords(items, tags.items); err != nil {
			return nil, false, fmt.Errorf("items: %w", err)
		}
		s.(*object).set("items", items)
	}
	if tags.nullable || !f.omit && canBeNull(f.typ) {
		s = nullable(s, generated)
	}
	return s, required, nil
}

// withKeywords sets keywords on schema s: an inferred one keeps its
// keywords in keywordOrder, a custom one (raw JSON) its own order, the new
// keywords last.
func withKeywords(s any, kws []member) (*object, error) {
	o, generated := s.(*object)
	if !generated {
		var err error
		if o, err = parseObject(s.(json.RawMessage)); err != nil {
			return nil, fmt.Errorf("cannot apply tags to custom schema: %w", err)
		}
	}
	for _, kw := range kws {
		o.set(kw.key, kw.val)
	}
	if generated {
		slices.SortStableFunc(o.members, func(a, b member) int {
			return keywordOrder[a.key] - keywordOrder[b.key]
		})
	}
	return o, nil
}

// canBeNull reports whether encoding/json writes null for some values of t
// (nil pointers, slices and maps). Fields of such types that are not
// omitted when empty must accept null, or a handler's own output would
// fail validation and a recursive pointer field would demand an infinite
// instance.
func canBeNull(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

// nullable returns a schema accepting null as well as whatever s accepts.
// A generated schema with a single "type" gets "null" added to its type
// (and enum); anything else is wrapped in anyOf, with its annotations
// moved to the wrapper where readers look for them.
func nullable(s any, generated bool) any {
	if raw, ok := s.(json.RawMessage); ok {
		if string(raw) == "true" {
			return s
		}
		return keywords("anyOf", "["+string(raw)+`,{"type":"null"}]`)
	}
	o := s.(*object)
	if len(o.members) == 0 {
		return o // {} accepts null already
	}
	if t, ok := o.get("type"); ok && generated {
		if raw := t.(json.RawMessage); raw[0] == '"' {
			o.set("type", json.RawMessage("["+string(raw)+`,"null"]`))
			if e, ok := o.get("enum"); ok {
				raw := e.(json.RawMessage)
				o.set("enum", json.RawMessage(string(raw[:len(raw)-1])+",null]"))
			}
			return o
		}
	}
	outer := &object{}
	for _, key := range []string{"title", "description", "default"} {
		if v, ok := o.get(key); ok {
			outer.set(key, v)
			o.remove(key)
		}
	}
	outer.set("anyOf", json.RawMessage(string(o.appendJSON([]byte{'['}))+`,{"type":"null"}]`))
	return outer
}

// ref returns a $ref schema to the named definition ("" is the root).
func (g *generator) ref(name string) *object {
	if name == "" {
		return keywords("$ref", `"#"`)
	}
	return keywords("$ref", string(rawString("#/$defs/"+escapePointer(name))))
}

// defName returns the $defs name of a recursive type, assigning one on
// first use. The root type refers to itself as "#", named "".
func (g *generator) defName(t reflect.Type) string {
	if t == g.root {
		g.defNames[t] = ""
		return ""
	}
	if name, ok := g.defNames[t]; ok {
		return name
	}
	base := sanitizeName(t.Name())
	name := base
	for i := 2; g.usedNames[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	g.usedNames[name] = true
	g.defNames[t] = name
	return name
}

// sanitizeName makes a Go type name (possibly with type arguments) a
// readable $defs key.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// keywords builds a schema object from key, raw JSON value pairs.
func keywords(kv ...string) *object {
	o := &object{members: make([]member, 0, len(kv)/2+2)}
	for i := 0; i < len(kv); i += 2 {
		o.members = append(o.members, member{kv[i], json.RawMessage(kv[i+1])})
	}
	return o
}

// customSchema calls JSONSchema on the zero value of t (or *t).
func customSchema(t reflect.Type) (raw json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s.JSONSchema panicked: %v", t, r)
		}
	}()
	v := reflect.New(t)
	var s Schemer
	if t.Implements(schemerType) {
		s = v.Elem().Interface().(Schemer)
	} else {
		s = v.Interface().(Schemer)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, s.JSONSchema()); err != nil {
		return nil, fmt.Errorf("%s.JSONSchema returned invalid JSON: %w", t, err)
	}
	b := buf.Bytes()
	if b[0] != '{' && !bytes.Equal(b, []byte("true")) && !bytes.Equal(b, []byte("false")) {
		return nil, fmt.Errorf("%s.JSONSchema returned %s, want an object or boolean", t, b)
	}
	return b, nil
}

// parseObject decodes a JSON object into an ordered object whose values
// are raw JSON, keeping member order.
func parseObject(raw json.RawMessage) (*object, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("schema %s is not an object", raw)
	}
	o := &object{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		o.set(tok.(string), v)
	}
	return o, nil
}
