package apps

import (
	"encoding/json"

	"github.com/gomcp/sdk/mcp"
)

// A Caller is what knows the capabilities of the client behind a request:
// *mcp.Request (what middleware sees), every typed request
// (*mcp.CallToolRequest, *mcp.ReadResourceRequest, ...), an mcp.Caller
// (what a VisibleFunc gets) and *mcp.ServerSession. At 2026-07-28 the
// capabilities are those of the request's _meta; before, those the client
// declared in initialize.
type Caller interface {
	ClientCapabilities() *mcp.ClientCapabilities
}

// HostCapability returns the client's extensions["io.modelcontextprotocol/ui"]
// value, or nil when the client did not declare the extension or declared
// something that is not an object with a list of MIME types (a client that
// sends a malformed capability is treated as one that sent none).
func HostCapability(caps *mcp.ClientCapabilities) *ClientCapability {
	if caps == nil {
		return nil
	}
	raw, ok := caps.Extensions[ExtensionID]
	if !ok {
		return nil
	}
	c := new(ClientCapability)
	if err := json.Unmarshal(raw, c); err != nil || c.MIMETypes == nil {
		return nil
	}
	return c
}

// HostRenders reports whether the client behind r renders HTML views
// (declares MIMEType), so a tool handler can tell whether to rely on its
// view or answer with a complete text fallback. It looks at the
// capabilities of this very request, so it is right at every revision,
// including 2026-07-28, where each request carries its own.
func HostRenders(r Caller) bool {
	if r == nil {
		return false
	}
	return HostCapability(r.ClientCapabilities()).Renders(MIMEType)
}
