// Package jsonschema infers JSON Schemas (draft 2020-12) from Go types and
// validates JSON instances against schemas. It knows nothing about MCP;
// the mcp package uses it for tool input and output schemas and for
// elicitation.
//
// # Inference
//
// For and ForType describe the JSON that encoding/json produces for a Go
// type:
//
//	bool                      {"type":"boolean"}
//	int, int8 … int64         {"type":"integer"}
//	uint, uint8 … uintptr     {"type":"integer","minimum":0}
//	float32, float64          {"type":"number"}
//	string                    {"type":"string"}
//	[]byte                    {"type":"string","contentEncoding":"base64"}
//	[]T                       {"type":"array","items":T}
//	[N]T                      {"type":"array","items":T,"minItems":N,"maxItems":N}
//	map[K]T                   {"type":"object","additionalProperties":T}
//	                          (K a string or integer kind, or an encoding.TextMarshaler)
//	struct                    {"type":"object","properties":{…},"required":[…]}
//	struct{} (no fields)      {"type":"object","additionalProperties":false}
//	*T                        the schema of T
//	time.Time                 {"type":"string","format":"date-time"}
//	json.Number               {"type":"number"}
//	json.RawMessage,
//	interfaces, other
//	json.Marshalers           {} (any value)
//	encoding.TextMarshalers   {"type":"string"}
//	Schemer implementations   the schema they return, verbatim
//
// A struct field of pointer, slice or map type without omitempty or
// omitzero also accepts null, because encoding/json writes null for nil
// values: its "type" gains "null" (and its "enum", if any), or, for $ref
// and custom schemas, the schema is wrapped as {"anyOf":[…,{"type":"null"}]}.
// Otherwise a handler's own output could fail validation, and a recursive
// pointer field would demand an infinite instance. Slice items and map
// values are not made nullable.
//
// Channels, functions, complex numbers and maps with other key types are
// errors. Struct fields follow encoding/json: json tag names, "-",
// unexported fields skipped, embedded structs flattened with the same
// precedence rules, and `json:",string"` scalars become strings. ForType's
// structs do not get "additionalProperties": false, since encoding/json
// ignores unknown members; ForTypeClosed's do, as go-sdk's and invopop's
// inferred schemas have them (an MCP server infers tool schemas with it,
// so that a misspelled argument is refused rather than ignored). Named
// types that contain themselves are written once under "$defs" and
// referenced with "$ref" ("#" for the root type); all other types are
// inlined.
//
// # Struct tags
//
// A field is listed in "required" unless its json tag has omitempty or
// omitzero; the jsonschema tag's optional and required items override
// that. The description tag sets "description" to its text:
//
//	Path string `json:"path" description:"File to read, relative to the root."`
//
// The jsonschema tag holds comma-separated items; write `\\,` in the Go
// tag source for a comma inside a value (the tag value then contains `\,`):
//
//	optional, required        presence in "required"
//	title=TEXT                "title"
//	format=NAME               "format" (an annotation in 2020-12)
//	enum=A|B|C                "enum"; `\|` for a literal '|'
//	default=VALUE             "default"
//	minimum=N, maximum=N,
//	exclusiveMinimum=N,
//	exclusiveMaximum=N        numeric bounds (JSON numbers; numeric fields)
//	minLength=N, maxLength=N  string length (string fields)
//	pattern=REGEXP            "pattern" (string fields)
//	minItems=N, maxItems=N    array length (slice and array fields)
//
// Enum and default values are typed by the field: string fields take the
// text literally, integer, number and boolean fields take a JSON literal of
// that type (checked against the Go type's range), and other fields take
// JSON text. Unknown keywords in a tag beginning with WORD= (any other tag
// is a description: see below), repeated keywords (but enum, example and
// an array's default), values of the wrong type and keywords that do not
// apply to the field's type make For return an error.
//
//	Unit  string `json:"unit,omitempty" jsonschema:"enum=celsius|fahrenheit,default=celsius"`
//	Count int    `json:"count" jsonschema:"minimum=1,maximum=100"`
//
// # Other SDKs' tags
//
// Structs written for the other Go MCP SDKs keep working:
//
//   - go-sdk (google/jsonschema-go): a tag that is not a list of the items
//     above and below is free text, the description, kept verbatim:
//     `jsonschema:"the city, e.g. Paris"`. As in google/jsonschema-go, it
//     must not begin with WORD=, which is read as an item (a misspelled
//     one is an error). A lone word that is an item (required,
//     optional) is that item.
//   - mcp-go: free text with enum=X items gives those enum values and the
//     rest (joined with ", ") as the description; a jsonschema_description
//     tag is the description too.
//   - invopop/jsonschema (mcp-grafana): the items description=TEXT,
//     example=V (repeatable, into "examples"), enum=A,enum=B (repeated:
//     one value each, no '|' splitting), multipleOf=N, uniqueItems,
//     readOnly=BOOL, writeOnly=BOOL, nullable (the field also accepts
//     null), default=V (repeatable on array fields) and "-" (the field is
//     left out of the schema). On an array field of an invopop-style
//     struct, enum, example, format, pattern, length and numeric bounds
//     apply to the items, as invopop applies them.
//
// A struct is invopop-style when any of its fields uses an item only
// invopop has: description=, example=, nullable, uniqueItems, readOnly=,
// writeOnly=. Such a struct requires only the fields tagged required
// (omitempty does not matter), as invopop's Reflector with
// RequiredFromJSONSchemaTags, which MCP servers such as mcp-grafana use;
// fields that code written for invopop's default reflector needed because
// they lack omitempty must be tagged required. Invopop items with no
// counterpart (oneof_required=, anyof_required=, type=, the
// jsonschema_extras tag, ...) are errors that say to give the type a
// JSONSchema method instead.
//
// # Validation
//
// Compile turns a schema (inferred or supplied by a user, in any dialect
// from draft-04 to 2020-12) into a Validator; the validator is this
// package's own and does no work at program start. Validators never load
// anything from the network or the file system: references outside the
// schema document, including references to the draft meta-schemas, fail
// with ErrExternalRef. "format" (and contentEncoding, contentMediaType,
// contentSchema) are annotations in every dialect, as 2020-12 specifies
// and earlier drafts allowed: "format":"email" accepts any string.
// Regular expressions use Go's RE2 syntax, which shares ECMA-262's common
// subset; patterns with lookaround or backreferences are refused. Numbers
// are compared exactly, whatever their size.
//
// Validate and ValidateValue report failures as a *ValidationError listing
// every problem, one per instance location (the messages of one location
// joined with "; "). When no branch of an anyOf or oneOf matches, the
// problems of the branches whose "type" admits the instance are listed
// (for {"anyOf":[{"$ref":"#/$defs/point"},{"type":"null"}]} and an object,
// only the point's problems), or of every branch if none or all do; an
// instance matching several oneOf branches gets "valid against more than
// one of the oneOf schemas (0 and 1)". A
// schema whose evaluation would not end (a $ref cycle that consumes no
// instance) or would explode (allOf: [a, a] nested many times) yields a
// problem saying so rather than a crash or a hang. ApplyDefaults fills in
// declared defaults so that handlers decoding the instance see them.
//
// # The validator
//
// The validator is the SDK's own. The library it replaced compiled the
// meta-schemas of every draft in its package init (12 ms, 1.7 MB at every
// program start, whether or not a schema was ever compiled), which alone made
// a server start 2.4 times slower than a hand-written one; it is gone, and
// jsonschema does no work at init.
//
//   - Compile decodes the schema once and builds a graph of nodes with the
//     keywords pre-parsed: numbers as exact decimals, regular expressions
//     compiled (Go's RE2 syntax), enums and consts decoded, $ref, $dynamicRef
//     and $recursiveRef linked to their targets (cycles are fine). Base URIs
//     follow $id (id in draft-04), anchors and JSON pointers (with ~0, ~1 and
//     percent-decoding). Invalid schemas are refused naming the JSON pointer
//     of the bad keyword.
//   - Dialects: draft-04, -06, -07, 2019-09 and 2020-12 (the default), from
//     the root's $schema or that of an embedded resource with its own $id.
//     format and the content* keywords are annotations in every dialect.
//   - Nothing is ever loaded: a reference outside the document, including one
//     to a draft meta-schema, and an unknown $schema fail with ErrExternalRef.
//     Validator.Ref gives a validator for one definition of a compiled bundle
//     (internal/specschema compiles each MCP revision's schema.json once and
//     validates against its definitions).
//   - Validation walks the graph over the decoded instance. Numbers compare
//     exactly (digits and an exponent; 1e400000 costs five bytes, integers
//     beyond 2^53 compare and divide exactly, 1.0 is an integer). Annotations
//     for unevaluated* are collected only when the document uses them. Every
//     problem is reported, one Problem per instance location; when no branch
//     of anyOf/oneOf matches, the problems of the branches whose type admits
//     the instance are reported (all branches' if none does). Work is bounded:
//     200 references at one instance location (a $ref cycle ends in a
//     problem), and a budget of schema evaluations per instance value
//     (exponential schemas end in a problem).
//   - The byte-level fast path (fast.go) runs first for the keyword subset
//     inferred schemas use and only ever answers "valid"; ValidateDecoded on
//     it does not allocate.
//   - The official JSON-Schema-Test-Suite (taken from two Go modules in the
//     module cache) runs for all five dialects; only cases that need remote
//     documents are excluded, and those are checked to fail with
//     ErrExternalRef.
package jsonschema
