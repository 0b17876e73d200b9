package mcp

import (
	"encoding/json"
)

// IncludeContext says which MCP servers' context a sampling request asks
// the client to include in the prompt.
type IncludeContext string

// IncludeContext values for CreateMessageParams. "thisServer" and
// "allServers" are soft-deprecated from 2025-11-25 and need the client's
// sampling.context capability.
const (
	IncludeContextNone       IncludeContext = "none"
	IncludeContextThisServer IncludeContext = "thisServer"
	IncludeContextAllServers IncludeContext = "allServers"
)

// StopReason is why a sampled completion ended. The set is open: clients
// may report reasons of their own.
type StopReason string

// Stop reasons in CreateMessageResult.
const (
	StopReasonEndTurn      StopReason = "endTurn"
	StopReasonStopSequence StopReason = "stopSequence"
	StopReasonMaxTokens    StopReason = "maxTokens"
	StopReasonToolUse      StopReason = "toolUse" // 2025-11-25+
)

// CreateMessageParams are the params of sampling/createMessage: the server
// asks the client's model for a completion.
type CreateMessageParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// Messages is the conversation; nil is written as [].
	Messages         []*SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences  `json:"modelPreferences,omitempty"`
	SystemPrompt     string             `json:"systemPrompt,omitempty"`
	// IncludeContext is "" or one of the IncludeContext constants.
	IncludeContext IncludeContext `json:"includeContext,omitempty"`
	// Temperature is a pointer because 0 is a meaningful temperature.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is required.
	MaxTokens     int64    `json:"maxTokens"`
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is a provider-specific object, passed through raw.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Tools and ToolChoice let the model call tools (2025-11-25+; the
	// client must declare sampling.tools).
	Tools      []*Tool     `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Task asks for the request to run as a task (2025-11-25 only).
	Task *TaskMetadata `json:"task,omitempty"`
}

// MarshalJSON writes a nil Messages as [].
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	type wire CreateMessageParams
	p.Messages = nonNilSlice(p.Messages)
	return marshalJSONNoEscape(wire(p))
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Meta *Meta `json:"_meta,omitempty"`
	Role Role  `json:"role"`
	// Content holds sampling content blocks (text, image, audio, tool_use,
	// tool_result). One block is written as a bare object, which every
	// revision accepts; other lengths as an array (2025-11-25+).
	Content []Content `json:"content"`
}

// MarshalJSON writes one content block bare and others as an array.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	type wire SamplingMessage
	return marshalJSONNoEscape(struct {
		wire
		Content any `json:"content"`
	}{wire(m), marshalContentOneOrMany(m.Content)})
}

// UnmarshalJSON accepts one content block or an array of them.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	type wire SamplingMessage
	var w struct {
		*wire
		Content json.RawMessage `json:"content"`
	}
	w.wire = (*wire)(m)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	m.Content, err = unmarshalContentOneOrMany(w.Content, samplingKinds)
	return err
}

// ModelPreferences are the server's hints for choosing a model. The
// priorities run from 0 to 1; they are pointers because 0 is meaningful.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (partial) name, e.g. "claude-3-5-sonnet".
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoiceMode says whether the model may, must or must not call tools.
type ToolChoiceMode string

// ToolChoice modes (2025-11-25+).
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceNone     ToolChoiceMode = "none"
)

// ToolChoice says whether the model may, must or must not call tools
// (2025-11-25+).
type ToolChoice struct {
	// Mode is "" (the client decides) or one of the ToolChoice constants.
	Mode ToolChoiceMode `json:"mode,omitempty"`
}

// CreateMessageResult is the result of sampling/createMessage.
type CreateMessageResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	Role Role  `json:"role"`
	// Content holds sampling content blocks, written as for
	// SamplingMessage.
	Content []Content `json:"content"`
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason is one of the StopReason constants, or another string.
	StopReason StopReason `json:"stopReason,omitempty"`
}

// MarshalJSON writes one content block bare and others as an array.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	type wire CreateMessageResult
	return marshalJSONNoEscape(struct {
		wire
		Content any `json:"content"`
	}{wire(r), marshalContentOneOrMany(r.Content)})
}

// UnmarshalJSON accepts one content block or an array of them.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	type wire CreateMessageResult
	var w struct {
		*wire
		Content json.RawMessage `json:"content"`
	}
	w.wire = (*wire)(r)
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	r.Content, err = unmarshalContentOneOrMany(w.Content, samplingKinds)
	return err
}
