package mcp

import "github.com/gomcp/sdk/jsonrpc"

// InitializeParams are the params of initialize (stateful revisions only).
type InitializeParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ProtocolVersion is the newest revision the client supports.
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities is written as {} when nil.
	Capabilities *ClientCapabilities `json:"capabilities"`
	ClientInfo   *Implementation     `json:"clientInfo"`
}

// MarshalJSON writes a nil Capabilities as {}.
func (p InitializeParams) MarshalJSON() ([]byte, error) {
	type wire InitializeParams
	if p.Capabilities == nil {
		p.Capabilities = &ClientCapabilities{}
	}
	return marshalJSONNoEscape(wire(p))
}

// InitializeResult is the result of initialize (stateful revisions only).
type InitializeResult struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ProtocolVersion is the revision the server chose (see the version
	// negotiation rule).
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities is written as {} when nil.
	Capabilities *ServerCapabilities `json:"capabilities"`
	ServerInfo   *Implementation     `json:"serverInfo"`
	// Instructions tell the client (and its model) how to use the server.
	Instructions string `json:"instructions,omitempty"`
}

// MarshalJSON writes a nil Capabilities as {}.
func (r InitializeResult) MarshalJSON() ([]byte, error) {
	type wire InitializeResult
	if r.Capabilities == nil {
		r.Capabilities = &ServerCapabilities{}
	}
	return marshalJSONNoEscape(wire(r))
}

// initializedNotificationParams are the params of notifications/initialized.
type initializedNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}

// PingParams are the params of ping (stateful revisions only); the result is an
// EmptyResult.
type PingParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}

// CancelledNotificationParams are the params of notifications/cancelled.
type CancelledNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// RequestID is the request to cancel. It is required except in
	// 2025-11-25, where tasks are cancelled with tasks/cancel instead.
	RequestID jsonrpc.ID `json:"requestId,omitzero"`
	// Reason may be logged or shown to the user.
	Reason string `json:"reason,omitempty"`
}

// ProgressNotificationParams are the params of notifications/progress.
type ProgressNotificationParams struct {
	Meta *Meta `json:"_meta,omitempty"`
	// ProgressToken is the token from the request's Meta.ProgressToken.
	ProgressToken ProgressToken `json:"progressToken"`
	// Progress only increases; it may be fractional.
	Progress float64 `json:"progress"`
	// Total is the expected final Progress, if known.
	Total float64 `json:"total,omitempty"`
	// Message describes the progress (2025-03-26+).
	Message string `json:"message,omitempty"`
}

// DiscoverParams are the params of server/discover (2026-07-28).
type DiscoverParams struct {
	Meta *Meta `json:"_meta,omitempty"`
}

// DiscoverResult is the result of server/discover (2026-07-28).
type DiscoverResult struct {
	Meta       *Meta      `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	CacheHints
	// SupportedVersions lists the revisions the server implements; nil is
	// written as [].
	SupportedVersions []string `json:"supportedVersions"`
	// Capabilities is written as {} when nil.
	Capabilities *ServerCapabilities `json:"capabilities"`
	Instructions string              `json:"instructions,omitempty"`
}

// MarshalJSON writes a nil SupportedVersions as [] and a nil Capabilities
// as {}.
func (r DiscoverResult) MarshalJSON() ([]byte, error) {
	type wire DiscoverResult
	r.SupportedVersions = nonNilSlice(r.SupportedVersions)
	if r.Capabilities == nil {
		r.Capabilities = &ServerCapabilities{}
	}
	return marshalJSONNoEscape(wire(r))
}
