package main

import (
	"encoding/json"
	"net/http"
)

// The floor's handler for the stateless revision (2026-07-28): every POST
// is a complete request whose params._meta carries the client's protocol
// version and capabilities, mirrored in the SEP-2243 headers. It does the
// checks the revision asks of every server, in the spec's order (header
// present, _meta complete, headers equal to the body, version supported),
// and stamps every result with resultType and the server's identity; it
// keeps nothing between requests.

const statelessVersion = "2026-07-28"

// statelessRequest is the part of a stateless request the floor reads.
type statelessRequest struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		toolCall
		Meta struct {
			ProtocolVersion    *string         `json:"io.modelcontextprotocol/protocolVersion"`
			ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
}

var serverInfoMeta = json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"bench-floor","version":"1.0.0"}}`)

var discoverResult = json.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-floor","version":"1.0.0"}}}`)

// statelessResult is a tool result of the stateless revision.
type statelessResult struct {
	ResultType string `json:"resultType"`
	toolResult
	Meta json.RawMessage `json:"_meta"`
}

// serveStateless answers one stateless request; body is the whole POST.
func serveStateless(w http.ResponseWriter, r *http.Request, body []byte) {
	var req statelessRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "parse error"}})
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	fail := func(status, code int, msg string) {
		writeJSON(w, status, &response{JSONRPC: "2.0", ID: req.ID, Error: &rpcError{code, msg}})
	}
	m := &req.Params.Meta
	switch {
	case m.ProtocolVersion == nil || m.ClientCapabilities == nil:
		fail(http.StatusBadRequest, -32602, "_meta lacks protocolVersion or clientCapabilities")
		return
	case r.Header.Get("Mcp-Protocol-Version") != *m.ProtocolVersion || r.Header.Get("Mcp-Method") != req.Method ||
		req.Method == "tools/call" && r.Header.Get("Mcp-Name") != req.Params.Name:
		fail(http.StatusBadRequest, -32020, "header mismatch")
		return
	case *m.ProtocolVersion != statelessVersion:
		fail(http.StatusBadRequest, -32022, "unsupported protocol version")
		return
	}
	resp := &response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "server/discover":
		resp.Result = discoverResult
	case "tools/call":
		res, rerr := req.Params.call()
		if rerr != nil {
			resp.Error = rerr
			break
		}
		resp.Result = statelessResult{ResultType: "complete", toolResult: res, Meta: serverInfoMeta}
	default:
		fail(http.StatusNotFound, -32601, "method not found")
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
