package mcp

// MCP error codes. The JSON-RPC codes (-32700 to -32603) are in package
// jsonrpc. Since 2026-07-28 the range -32020 to -32099 belongs to the
// specification, and -32000 to -32019 must be neither allocated nor
// interpreted (except CodeResourceNotFound, which clients still accept).
const (
	// CodeResourceNotFound answers resources/read for an unknown URI up to
	// 2025-11-25; 2026-07-28 servers use jsonrpc.CodeInvalidParams instead
	// (see the version table).
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired says the request needs URL-mode
	// elicitations first (2025-11-25 only); data is URLElicitationRequiredData.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch: a standard or Mcp-Param-* HTTP header is missing,
	// malformed or differs from the body (2026-07-28, HTTP 400).
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: the request needs a client
	// capability the request did not declare (2026-07-28, HTTP 400); data is
	// MissingRequiredClientCapabilityData.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the server does not implement the
	// request's protocol version (2026-07-28, HTTP 400); data is
	// UnsupportedProtocolVersionData.
	CodeUnsupportedProtocolVersion = -32022
)

// UnsupportedProtocolVersionData is the data of a
// CodeUnsupportedProtocolVersion error. The initialize handshake documents the
// same shape for a -32602 version error.
type UnsupportedProtocolVersionData struct {
	// Supported lists the versions the server implements.
	Supported []string `json:"supported"`
	// Requested is the version the client asked for.
	Requested string `json:"requested"`
}

// MarshalJSON writes a nil Supported as [] (the field is required).
func (d UnsupportedProtocolVersionData) MarshalJSON() ([]byte, error) {
	type wire UnsupportedProtocolVersionData
	d.Supported = nonNilSlice(d.Supported)
	return marshalJSONNoEscape(wire(d))
}

// MissingRequiredClientCapabilityData is the data of a
// CodeMissingRequiredClientCapability error.
type MissingRequiredClientCapabilityData struct {
	// RequiredCapabilities is the capabilities the request needs, as a
	// ClientCapabilities object (e.g. {"sampling":{}}), not a list of names.
	RequiredCapabilities *ClientCapabilities `json:"requiredCapabilities"`
}

// MarshalJSON writes a nil RequiredCapabilities as {} (the field is required).
func (d MissingRequiredClientCapabilityData) MarshalJSON() ([]byte, error) {
	type wire MissingRequiredClientCapabilityData
	if d.RequiredCapabilities == nil {
		d.RequiredCapabilities = &ClientCapabilities{}
	}
	return marshalJSONNoEscape(wire(d))
}

// URLElicitationRequiredData is the data of a CodeURLElicitationRequired
// error: the URL-mode elicitations the client must complete first.
type URLElicitationRequiredData struct {
	Elicitations []*ElicitParams `json:"elicitations"`
}

// MarshalJSON writes a nil Elicitations as [] (the field is required).
func (d URLElicitationRequiredData) MarshalJSON() ([]byte, error) {
	type wire URLElicitationRequiredData
	d.Elicitations = nonNilSlice(d.Elicitations)
	return marshalJSONNoEscape(wire(d))
}
