package mcp

import (
	"encoding/json"
	"errors"
)

// Prompt describes a prompt template the server offers.
type Prompt struct {
	Meta *Meta  `json:"_meta,omitempty"`
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Arguments   []*PromptArgument `json:"arguments,omitempty"`
	// Icons are 2025-11-25+.
	Icons []Icon `json:"icons,omitempty"`
}

// PromptArgument describes one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role Role `json:"role"`
	// Content is one ContentBlock (text, image, audio, resource_link or
	// resource).
	Content Content `json:"content"`
}

// MarshalJSON refuses a nil Content (the field is required).
func (m PromptMessage) MarshalJSON() ([]byte, error) {
	if m.Content == nil {
		return nil, errors.New("mcp: PromptMessage.Content is nil")
	}
	type wire PromptMessage
	return marshalJSONNoEscape(wire(m))
}

// UnmarshalJSON decodes Content polymorphically.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	type wire PromptMessage
	var w struct {
		*wire
		Content json.RawMessage `json:"content"`
	}
	w.wire = (*wire)(m)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if isNullOrAbsent(w.Content) {
		return errors.New("mcp: prompt message has no content")
	}
	c, err := unmarshalContent(w.Content, blockKinds)
	if err != nil {
		return err
	}
	m.Content = c
	return nil
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams struct {
	Meta   *Meta  `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListPromptsResult is the result of prompts/list.
type ListPromptsResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	Prompts    []*Prompt `json:"prompts"`
	NextCursor string    `json:"nextCursor,omitempty"`
}

// MarshalJSON writes a nil Prompts as [].
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	type wire ListPromptsResult
	r.Prompts = nonNilSlice(r.Prompts)
	return marshalJSONNoEscape(wire(r))
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Meta      *Meta             `json:"_meta,omitempty"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	// InputResponses and RequestState retry a request that returned an
	// InputRequiredResult (2026-07-28).
	InputResponses map[string]*InputResponse `json:"inputResponses,omitempty"`
	RequestState   string                    `json:"requestState,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Meta        *Meta            `json:"_meta,omitempty"`
	ResultType  ResultType       `json:"resultType,omitempty"`
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
}

// MarshalJSON writes a nil Messages as [].
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	type wire GetPromptResult
	r.Messages = nonNilSlice(r.Messages)
	return marshalJSONNoEscape(wire(r))
}

// promptListChangedNotificationParams are the params of
// notifications/prompts/list_changed.
type promptListChangedNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}
