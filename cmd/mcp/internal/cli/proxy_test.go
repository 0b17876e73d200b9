package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/gomcp/sdk/conformance/everything"
)

// sessionsOnly makes h answer as a 2025-era server does (the TypeScript
// SDK's examples, server-everything streamableHttp among them): a POST
// without a session that is not initialize gets HTTP 400 and a JSON-RPC
// error with the id null, the 2026-07-28 server/discover probe included.
func sessionsOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &m) != nil || m.Method != "initialize" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}

// TestProxyOldHTTPServer: mcp tools, through mcp proxy on stdio, reaches a
// 2025-era server over HTTP. The proxy passes the server's refusal of the
// server/discover probe back to the client, which falls back to
// initialize, instead of exiting (issue 31, bug 1).
func TestProxyOldHTTPServer(t *testing.T) {
	s, err := everything.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	url := serveHTTP(t, s, sessionsOnly)
	v := runJSON(t, "tools", "--json", "-e", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url)
	if tools, _ := v["tools"].([]any); len(tools) == 0 {
		t.Errorf("no tools listed: %v", v)
	}
	v = runJSON(t, "info", "--json", "-e", "MCP_CLI_TEST_SERVER=mcp", os.Args[0], "proxy", url)
	wantField(t, v, "2025-11-25", "protocolVersion")
}
