package mcp

import (
	"encoding/json"
	"fmt"
)

// MaxCompletionValues is the most values one completion result may hold.
const MaxCompletionValues = 100

// RefType is what a completion reference names: a prompt or a resource
// template.
type RefType string

// Completion reference types.
const (
	RefTypePrompt   RefType = "ref/prompt"
	RefTypeResource RefType = "ref/resource" // a resource template
)

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Ref is the prompt or resource template whose argument is completed.
	Ref CompleteReference `json:"ref"`
	// Argument is the argument being completed.
	Argument CompleteArgument `json:"argument"`
	// Context holds arguments already resolved (2025-06-18+).
	Context *CompleteContext `json:"context,omitempty"`
}

// CompleteReference names a prompt (Type RefTypePrompt, Name) or a resource
// template (Type RefTypeResource, URI).
type CompleteReference struct {
	Type RefType `json:"type"`
	// Name is the prompt name (ref/prompt).
	Name string `json:"name,omitempty"`
	// Title is the prompt's display name (ref/prompt, 2025-06-18+).
	Title string `json:"title,omitempty"`
	// URI is the template's URI template (ref/resource).
	URI string `json:"uri,omitempty"`
}

// UnmarshalJSON refuses unknown reference types and references without
// their name or uri.
func (r *CompleteReference) UnmarshalJSON(data []byte) error {
	type wire CompleteReference
	if err := json.Unmarshal(data, (*wire)(r)); err != nil {
		return err
	}
	switch r.Type {
	case RefTypePrompt:
		if r.Name == "" {
			return fmt.Errorf("mcp: %s reference needs a name", r.Type)
		}
	case RefTypeResource:
		if r.URI == "" {
			return fmt.Errorf("mcp: %s reference needs a uri", r.Type)
		}
	default:
		return fmt.Errorf("mcp: unknown completion reference type %q", r.Type)
	}
	return nil
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries already-resolved arguments (2025-06-18+).
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	Completion Completion `json:"completion"`
}

// Completion is the completion values offered.
type Completion struct {
	// Values are at most MaxCompletionValues suggestions; nil is written
	// as [].
	Values []string `json:"values"`
	// Total is the number of matches, which may exceed len(Values).
	Total int `json:"total,omitempty"`
	// HasMore reports that more matches exist than were returned.
	HasMore bool `json:"hasMore,omitempty"`
}

// MarshalJSON writes a nil Values as [].
func (c Completion) MarshalJSON() ([]byte, error) {
	type wire Completion
	c.Values = nonNilSlice(c.Values)
	return marshalJSONNoEscape(wire(c))
}
