package mcp

import (
	"github.com/gomcp/sdk/jsonrpc"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ElicitMode is how an elicitation asks the user: through a form or by
// sending them to a URL. The empty mode means ElicitModeForm.
type ElicitMode string

// Elicitation modes.
const (
	ElicitModeForm ElicitMode = "form"
	ElicitModeURL  ElicitMode = "url" // 2025-11-25+
)

// ElicitParams are the params of elicitation/create: the server asks the
// user for input, through a form (Mode "" or "form", RequestedSchema) or by
// sending them to a URL (Mode "url", URL; 2025-11-25+).
type ElicitParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Mode is "", ElicitModeForm or ElicitModeURL.
	Mode ElicitMode `json:"mode,omitempty"`
	// Message explains to the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the form (form mode).
	RequestedSchema *ElicitSchema `json:"requestedSchema,omitempty"`
	// ElicitationID identifies a URL-mode elicitation in
	// notifications/elicitation/complete (2025-11-25 only; 2026-07-28
	// dropped it).
	ElicitationID string `json:"elicitationId,omitempty"`
	// URL is where the user goes (URL mode).
	URL string `json:"url,omitempty"`
	// Task asks for the request to run as a task (2025-11-25 only).
	Task *TaskMetadata `json:"task,omitempty"`
}

// ElicitSchema is a form: a flat object schema whose properties are
// primitive schemas. Properties keep their order, which is the order a
// client shows the fields in.
type ElicitSchema struct {
	// Schema is the optional "$schema" dialect URI.
	Schema     string
	Properties []ElicitProperty
	Required   []string
}

// ElicitProperty is one field of a form.
type ElicitProperty struct {
	Name   string
	Schema *PrimitiveSchema
}

// MarshalJSON writes {"type":"object","properties":{...},...} with the
// properties in order.
func (s ElicitSchema) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	if s.Schema != "" {
		b = append(b, `"$schema":`...)
		b = jsonrpc.AppendString(b, s.Schema, false)
		b = append(b, ',')
	}
	b = append(b, `"type":"object","properties":{`...)
	for i, p := range s.Properties {
		if p.Schema == nil {
			return nil, fmt.Errorf("mcp: elicitation property %q has no schema", p.Name)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, p.Name, false)
		b = append(b, ':')
		raw, err := marshalJSONNoEscape(p.Schema)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	b = append(b, '}')
	if len(s.Required) > 0 {
		raw, err := marshalJSONNoEscape(s.Required)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"required":`...)
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a form schema, keeping property order. The root type,
// if given, must be "object", and property names must be unique.
func (s *ElicitSchema) UnmarshalJSON(data []byte) error {
	var w struct {
		Schema     string          `json:"$schema"`
		Type       *string         `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Type != nil && *w.Type != "object" {
		return fmt.Errorf(`mcp: requestedSchema type must be "object", not %q`, *w.Type)
	}
	*s = ElicitSchema{Schema: w.Schema, Required: w.Required}
	if isNullOrAbsent(w.Properties) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(w.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("mcp: requestedSchema properties must be an object")
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // object keys are always strings
		if seen[name] {
			return fmt.Errorf("mcp: requestedSchema property %q appears twice", name)
		}
		seen[name] = true
		ps := new(PrimitiveSchema)
		if err := dec.Decode(ps); err != nil {
			return fmt.Errorf("mcp: requestedSchema property %q: %w", name, err)
		}
		s.Properties = append(s.Properties, ElicitProperty{Name: name, Schema: ps})
	}
	return nil
}

// Property returns the schema of the named property, or nil.
func (s *ElicitSchema) Property(name string) *PrimitiveSchema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// SchemaType is the JSON Schema "type" of a form field.
type SchemaType string

// The types a form field may have.
const (
	SchemaString  SchemaType = "string"
	SchemaNumber  SchemaType = "number"
	SchemaInteger SchemaType = "integer"
	SchemaBoolean SchemaType = "boolean"
	SchemaArray   SchemaType = "array" // multi-select enums (2025-11-25+)
)

// StringFormat is the format a string form field must have.
type StringFormat string

// The formats a string form field may have.
const (
	FormatEmail    StringFormat = "email"
	FormatURI      StringFormat = "uri"
	FormatDate     StringFormat = "date"
	FormatDateTime StringFormat = "date-time"
)

// PrimitiveSchema is the schema of one form field: a string, number,
// integer or boolean, or an enum (SEP-1330, 2025-11-25+: untitled enum,
// titled oneOf, multi-select array; the legacy enumNames form is still
// read and written).
type PrimitiveSchema struct {
	// Type is SchemaString, SchemaNumber, SchemaInteger, SchemaBoolean or
	// SchemaArray (multi-select enums).
	Type        SchemaType `json:"type"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`

	// String constraints. Format is "" or one of the StringFormat
	// constants.
	Format    StringFormat `json:"format,omitempty"`
	MinLength *int         `json:"minLength,omitempty"`
	MaxLength *int         `json:"maxLength,omitempty"`

	// Number and integer bounds.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`

	// Single-select enums: Enum (untitled; EnumNames is the legacy way to
	// title them) or OneOf (titled).
	Enum      []string     `json:"enum,omitempty"`
	EnumNames []string     `json:"enumNames,omitempty"`
	OneOf     []EnumOption `json:"oneOf,omitempty"`

	// Multi-select enums (Type "array").
	Items    *EnumItems `json:"items,omitempty"`
	MinItems *int       `json:"minItems,omitempty"`
	MaxItems *int       `json:"maxItems,omitempty"`

	// Default is the initial value (SEP-1034, 2025-11-25+): a string,
	// number, boolean or []string matching Type.
	Default any `json:"default,omitempty"`
}

// EnumOption is one titled enum value.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// EnumItems is the item schema of a multi-select enum: untitled (Type
// SchemaString and Enum) or titled (AnyOf).
type EnumItems struct {
	Type  SchemaType   `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitempty"`
	AnyOf []EnumOption `json:"anyOf,omitempty"`
}

// ElicitAction is how the user answered an elicitation.
type ElicitAction string

// Elicitation actions.
const (
	ElicitActionAccept  ElicitAction = "accept"  // the user submitted the form or consented
	ElicitActionDecline ElicitAction = "decline" // the user explicitly declined
	ElicitActionCancel  ElicitAction = "cancel"  // the user dismissed the request
)

// ElicitResult is the result of elicitation/create.
type ElicitResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Action is one of the ElicitAction constants.
	Action ElicitAction `json:"action"`
	// Content is the submitted form (form mode, Action "accept"): values are
	// strings, numbers, booleans or (2025-11-25+) []string.
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationCompleteNotificationParams are the params of
// notifications/elicitation/complete (2025-11-25 only).
type ElicitationCompleteNotificationParams struct {
	Meta          *Meta  `json:"_meta,omitempty"`
	ElicitationID string `json:"elicitationId"`
}
