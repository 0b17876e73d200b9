// Package specschema validates MCP messages against the official JSON schemas
// of each protocol revision. It exists for tests: every package can check
// that what it puts on the wire is what the specification allows.
//
// The schemas are embedded copies of schema/<rev>/schema.json from the
// specification repository (see schema/README.md for their source and
// licence). Each revision is parsed and compiled once, on first use;
// compiled definitions are cached. They are compiled with the SDK's own
// validator (package jsonschema), for which "format" is an annotation:
// uri, date-time and the like are not checked.
package specschema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/gomcp/sdk/jsonschema"
)

// schemas holds schema/<rev>/schema.json for every revision.
//
//go:embed schema/*/schema.json
var schemas embed.FS

// ErrUnknownMethod is wrapped by ValidateMessage errors for a request or
// notification whose method the revision does not define as a JSON-RPC
// message (for example ping in 2026-07-28).
var ErrUnknownMethod = errors.New("method not defined by this revision")

// ValidateMessage validates one complete JSON-RPC message (or, in revisions
// that allow them, a batch) as sent on the wire in revision rev:
//
//   - a request or notification against the JSONRPCMessage envelope and the
//     definition whose "method" constant matches; the method must be one the
//     revision sends as a JSON-RPC message, and requests must carry an id
//     while notifications must not;
//   - a result response against the envelope and the result definition of
//     requestMethod (the method of the request it answers): the
//     <X>ResultResponse definition when the revision has one, else
//     <X>Result, else EmptyResult. In revisions with tasks, a
//     task-augmentable request may also be answered by CreateTaskResult.
//     An empty or unknown requestMethod checks the envelope only;
//   - an error response against JSONRPCError (JSONRPCErrorResponse from
//     2025-11-25), and against the specific error definition whose code
//     constant matches (e.g. UnsupportedProtocolVersionError).
func ValidateMessage(rev string, msg []byte, requestMethod string) error {
	s, err := load(rev)
	if err != nil {
		return err
	}
	inst, err := decode(msg)
	if err != nil {
		return err
	}
	if err := s.validate("JSONRPCMessage", inst); err != nil {
		return err
	}
	if arr, ok := inst.([]any); ok {
		for i, el := range arr {
			if err := s.validateOne(el, ""); err != nil {
				return fmt.Errorf("batch element %d: %w", i, err)
			}
		}
		return nil
	}
	return s.validateOne(inst, requestMethod)
}

// ValidateDef validates v against the definition defName of revision rev,
// e.g. ValidateDef("2025-06-18", "CallToolResult", raw).
func ValidateDef(rev, defName string, v []byte) error {
	s, err := load(rev)
	if err != nil {
		return err
	}
	inst, err := decode(v)
	if err != nil {
		return err
	}
	return s.validate(defName, inst)
}

// HasDef reports whether revision rev defines defName.
func HasDef(rev, defName string) (bool, error) {
	s, err := load(rev)
	if err != nil {
		return false, err
	}
	_, ok := s.defs[defName]
	return ok, nil
}

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("specschema: invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("specschema: invalid JSON: data after the message")
	}
	return v, nil
}

// revSchema is one loaded revision.
type revSchema struct {
	rev       string
	data      []byte                     // the document
	ptr       string                     // "definitions" or "$defs"
	defs      map[string]json.RawMessage // raw definitions, by name
	methods   map[string]string          // method -> request or notification definition
	wire      map[string]bool            // definitions sent as JSON-RPC messages
	errorDefs map[int64]string           // error code -> error response definition

	mu       sync.Mutex
	doc      *jsonschema.Validator // the whole document, compiled on first use
	compiled map[string]*jsonschema.Validator
}

var (
	revsMu sync.Mutex
	revs   = map[string]*revSchema{}
)

func load(rev string) (*revSchema, error) {
	revsMu.Lock()
	defer revsMu.Unlock()
	if s := revs[rev]; s != nil {
		return s, nil
	}
	path := "schema/" + rev + "/schema.json"
	data, err := fs.ReadFile(schemas, path)
	if err != nil {
		return nil, fmt.Errorf("specschema: unknown revision %q", rev)
	}
	s, err := newRevSchema(rev, data)
	if err != nil {
		return nil, fmt.Errorf("specschema: %s: %w", path, err)
	}
	revs[rev] = s
	return s, nil
}

func newRevSchema(rev string, data []byte) (*revSchema, error) {
	var top struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
		Defs        map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	s := &revSchema{
		rev:       rev,
		ptr:       "definitions",
		defs:      top.Definitions,
		methods:   map[string]string{},
		wire:      map[string]bool{},
		errorDefs: map[int64]string{},
		compiled:  map[string]*jsonschema.Validator{},
	}
	if top.Defs != nil {
		s.ptr, s.defs = "$defs", top.Defs
	}
	if len(s.defs) == 0 {
		return nil, errors.New("no definitions")
	}
	s.data = data
	s.index()
	return s, nil
}

// unionNames are the definitions that group messages by direction; the
// methods they reference are the ones sent as JSON-RPC messages.
var unionNames = []string{"ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification"}

// defShape is the part of a definition the index reads.
type defShape struct {
	Ref        string                     `json:"$ref"`
	AnyOf      []json.RawMessage          `json:"anyOf"`
	Properties map[string]json.RawMessage `json:"properties"`
}

type constShape struct {
	Const json.RawMessage `json:"const"`
	AllOf []struct {
		Properties map[string]struct {
			Const json.RawMessage `json:"const"`
		} `json:"properties"`
	} `json:"allOf"`
}

// index builds the method, wire and error-code tables.
func (s *revSchema) index() {
	isUnion := func(name string) bool {
		for _, u := range unionNames {
			if u == name {
				return true
			}
		}
		return false
	}
	for name, raw := range s.defs {
		var d defShape
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		if m := constString(d.Properties["method"]); m != "" && !isUnion(name) {
			s.methods[m] = name
		}
		// Error response definitions: {error: {allOf: [Error, {code: const}]}}.
		if e, ok := d.Properties["error"]; ok {
			var es constShape
			if json.Unmarshal(e, &es) == nil {
				for _, part := range es.AllOf {
					var code int64
					if c := part.Properties["code"].Const; c != nil && json.Unmarshal(c, &code) == nil {
						s.errorDefs[code] = name
					}
				}
			}
		}
	}
	for _, u := range unionNames {
		raw, ok := s.defs[u]
		if !ok {
			continue
		}
		var d defShape
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		if m := constString(d.Properties["method"]); m != "" {
			// A union of one message is written inline (2026 ClientNotification).
			if def, ok := s.methods[m]; ok {
				s.wire[def] = true
			}
		}
		for _, raw := range d.AnyOf {
			var alt defShape
			if json.Unmarshal(raw, &alt) == nil && alt.Ref != "" {
				s.wire[refName(alt.Ref)] = true
			}
		}
	}
}

func constString(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var c constShape
	if json.Unmarshal(raw, &c) != nil || c.Const == nil {
		return ""
	}
	var str string
	if json.Unmarshal(c.Const, &str) != nil {
		return ""
	}
	return str
}

func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// schema returns the compiled definition defName.
func (s *revSchema) schema(defName string) (*jsonschema.Validator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch := s.compiled[defName]; sch != nil {
		return sch, nil
	}
	if _, ok := s.defs[defName]; !ok {
		return nil, fmt.Errorf("specschema: revision %s has no definition %q", s.rev, defName)
	}
	if s.doc == nil {
		doc, err := jsonschema.Compile(s.data)
		if err != nil {
			return nil, fmt.Errorf("specschema: compiling %s: %w", s.rev, err)
		}
		s.doc = doc
	}
	sch, err := s.doc.Ref("#/" + s.ptr + "/" + defName)
	if err != nil {
		return nil, fmt.Errorf("specschema: compiling %s %s: %w", s.rev, defName, err)
	}
	s.compiled[defName] = sch
	return sch, nil
}

func (s *revSchema) validate(defName string, inst any) error {
	sch, err := s.schema(defName)
	if err != nil {
		return err
	}
	if err := sch.ValidateValue(inst); err != nil {
		return fmt.Errorf("%s %s: %w", s.rev, defName, err)
	}
	return nil
}

func (s *revSchema) has(defName string) bool {
	_, ok := s.defs[defName]
	return ok
}

// validateOne validates one (non-batch) message that already passed the
// envelope check.
func (s *revSchema) validateOne(inst any, requestMethod string) error {
	obj, ok := inst.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: message is not an object", s.rev)
	}
	_, hasID := obj["id"]
	if m, ok := obj["method"].(string); ok {
		def, ok := s.methods[m]
		if !ok || !s.wire[def] {
			return fmt.Errorf("%s: %q: %w", s.rev, m, ErrUnknownMethod)
		}
		switch {
		case strings.HasSuffix(def, "Notification") && hasID:
			return fmt.Errorf("%s: %s is a notification but the message has an id", s.rev, m)
		case strings.HasSuffix(def, "Request") && !hasID:
			return fmt.Errorf("%s: %s is a request but the message has no id", s.rev, m)
		}
		return s.validate(def, inst)
	}
	if e, ok := obj["error"].(map[string]any); ok {
		env := "JSONRPCError"
		if !s.has(env) {
			env = "JSONRPCErrorResponse"
		}
		if err := s.validate(env, inst); err != nil {
			return err
		}
		if code, ok := e["code"].(json.Number); ok {
			if n, err := code.Int64(); err == nil {
				if def, ok := s.errorDefs[n]; ok {
					return s.validate(def, inst)
				}
			}
		}
		return nil
	}
	if _, ok := obj["result"]; ok {
		env := "JSONRPCResponse"
		if s.has("JSONRPCResultResponse") {
			env = "JSONRPCResultResponse"
		}
		if err := s.validate(env, inst); err != nil {
			return err
		}
		return s.validateResult(obj, requestMethod)
	}
	return fmt.Errorf("%s: message is neither a request, a notification nor a response", s.rev)
}

func (s *revSchema) validateResult(obj map[string]any, requestMethod string) error {
	reqDef, ok := s.methods[requestMethod]
	if !ok || !strings.HasSuffix(reqDef, "Request") {
		return nil // unknown method: the envelope is all we can check
	}
	base := strings.TrimSuffix(reqDef, "Request")
	if def := base + "ResultResponse"; s.has(def) {
		return s.validate(def, obj)
	}
	def := base + "Result"
	if !s.has(def) {
		def = "EmptyResult"
	}
	err := s.validate(def, obj["result"])
	if err != nil && s.has("CreateTaskResult") && s.taskAugmentable(reqDef) {
		if s.validate("CreateTaskResult", obj["result"]) == nil {
			return nil
		}
	}
	return err
}

// taskAugmentable reports whether the request definition's params accept a
// "task" member (2025-11-25 task-augmented requests).
func (s *revSchema) taskAugmentable(reqDef string) bool {
	var d defShape
	if json.Unmarshal(s.defs[reqDef], &d) != nil {
		return false
	}
	return s.hasProperty(d.Properties["params"], "task", 0)
}

// hasProperty reports whether the schema raw, or one of its $ref or anyOf
// alternatives, declares the property name.
func (s *revSchema) hasProperty(raw json.RawMessage, name string, depth int) bool {
	var d defShape
	if depth > 8 || json.Unmarshal(raw, &d) != nil {
		return false
	}
	if _, ok := d.Properties[name]; ok {
		return true
	}
	if d.Ref != "" && s.hasProperty(s.defs[refName(d.Ref)], name, depth+1) {
		return true
	}
	for _, alt := range d.AnyOf {
		if s.hasProperty(alt, name, depth+1) {
			return true
		}
	}
	return false
}
