package mcphttp

import (
	"net/http"

	"github.com/gomcp/sdk/mcp"
)

// NewSSEHandlerFor returns an SSEHandler that serves each session with the
// mcp.Server serverFor returns for the GET that opens it: one endpoint
// path per server, or servers built for the caller (go-sdk's
// NewSSEHandler(getServer, ...)). The session's later POSTs go to that
// server too, whatever their URL; serverFor is not called for them. A GET
// for which serverFor returns nil gets 400. opts may be nil.
func NewSSEHandlerFor(serverFor func(*http.Request) *mcp.Server, opts *SSEHandlerOptions) *SSEHandler {
	if serverFor == nil {
		panic("mcphttp: NewSSEHandlerFor with a nil serverFor")
	}
	h := NewSSEHandler(nil, opts)
	h.serverFor = serverFor
	return h
}

// serverOf returns the server for the GET r: NewSSEHandler's, or the one
// serverFor makes.
func (h *SSEHandler) serverOf(r *http.Request) *mcp.Server {
	if h.serverFor == nil {
		return h.server
	}
	return h.serverFor(r)
}
