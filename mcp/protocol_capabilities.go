package mcp

import "encoding/json"

// Capability objects. A nil pointer means "not supported" and is left out; a
// non-nil pointer to an empty struct (often a plain *struct{}, set with
// &struct{}{}) is written as {} ("supported, no settings"), so both forms
// survive a round trip.

// ClientCapabilities are what a client supports. Clients of stateful revisions declare them
// once in initialize; 2026-07-28 clients send them with every request in
// Meta.ClientCapabilities.
type ClientCapabilities struct {
	// Experimental holds non-standard capabilities, each a JSON object.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Extensions maps extension ids (e.g. "io.modelcontextprotocol/ui")
	// to their settings objects. 2026-07-28 defines it; peers of the
	// earlier revisions exchange it in initialize too, and it is kept
	// there.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
	// Roots: the client answers roots/list.
	Roots *RootCapabilities `json:"roots,omitempty"`
	// Sampling: the client answers sampling/createMessage.
	Sampling *SamplingCapabilities `json:"sampling,omitempty"`
	// Elicitation: the client answers elicitation/create (2025-06-18+).
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
	// Tasks: the client supports task-augmented requests (2025-11-25
	// only), as JSON: package tasks has its type (tasks.ClientCapabilities)
	// and decodes it (tasks.ClientCapabilitiesOf).
	Tasks json.RawMessage `json:"tasks,omitempty"`
}

// RootCapabilities is the client's roots capability.
type RootCapabilities struct {
	// ListChanged: the client sends notifications/roots/list_changed
	// (stateful revisions only).
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapabilities is the client's sampling capability.
type SamplingCapabilities struct {
	// Context: the client honours includeContext other than "none"
	// (2025-11-25+).
	Context *struct{} `json:"context,omitempty"`
	// Tools: the client accepts tools and toolChoice (2025-11-25+).
	Tools *struct{} `json:"tools,omitempty"`
}

// ElicitationCapabilities is the client's elicitation capability. From
// 2025-11-25 it names the modes; an empty object means form mode only.
type ElicitationCapabilities struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// ServerCapabilities are what a server supports. Servers of stateful revisions return them
// from initialize; 2026-07-28 servers from server/discover.
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities, each a JSON object.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Extensions maps extension ids to their settings objects; in every
	// revision, as ClientCapabilities.Extensions.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
	// Logging: the server sends log messages.
	Logging *LoggingCapabilities `json:"logging,omitempty"`
	// Completions: the server answers completion/complete (2025-03-26+).
	Completions *CompletionCapabilities `json:"completions,omitempty"`
	Prompts     *PromptCapabilities     `json:"prompts,omitempty"`
	Resources   *ResourceCapabilities   `json:"resources,omitempty"`
	Tools       *ToolCapabilities       `json:"tools,omitempty"`
	// Tasks: the server supports task-augmented requests (2025-11-25
	// only), as JSON: package tasks has its type (tasks.ServerCapabilities),
	// sets it on a server with a tasks.Manager and decodes it
	// (tasks.ServerCapabilitiesOf).
	Tasks json.RawMessage `json:"tasks,omitempty"`
}

// LoggingCapabilities marks the logging capability.
type LoggingCapabilities struct{}

// CompletionCapabilities marks the completions capability.
type CompletionCapabilities struct{}

// PromptCapabilities is the server's prompts capability.
type PromptCapabilities struct {
	// ListChanged: the server sends notifications/prompts/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourceCapabilities is the server's resources capability.
type ResourceCapabilities struct {
	// Subscribe: clients may subscribe to resource updates.
	Subscribe bool `json:"subscribe,omitempty"`
	// ListChanged: the server sends notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolCapabilities is the server's tools capability.
type ToolCapabilities struct {
	// ListChanged: the server sends notifications/tools/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}
