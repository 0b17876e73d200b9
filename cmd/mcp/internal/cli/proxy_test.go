package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/gomcp/sdk/conformance/everything"
	"github.com/gomcp/sdk/mcp"
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

// serveCrash serves, on stdio, a tool that writes a line on stderr and
// exits with status 3 in the middle of the call.
func serveCrash() {
	s := mcp.NewServer(&mcp.Implementation{Name: "crash", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		fmt.Fprintln(os.Stderr, "crash: the database is gone")
		os.Exit(3)
		return "", nil
	})
	serveStdio(s, err)
}

// TestServerExitsMidCall: a stdio server that exits during a call is
// reported with its exit status and its last stderr line, by mcp call and
// through mcp proxy (issue 31, bug 5).
func TestServerExitsMidCall(t *testing.T) {
	const want = "the server exited (exit status 3); its stderr ended with: crash: the database is gone"
	code, _, errs := mcpRun(t, context.Background(), "call", "crash", "-e", "MCP_CLI_TEST_SERVER=crash", os.Args[0])
	if code == ExitOK || !strings.Contains(errs, want) {
		t.Errorf("mcp call: exit %d, stderr %q, want it to say %q", code, errs, want)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}` + "\n"
	clientIn, clientOut := io.Pipe()
	go func() {
		_, _ = io.WriteString(clientOut, req)
		// stdin stays open: the proxy ends because the server did.
	}()
	defer clientOut.Close()
	var out, errb bytes.Buffer
	code = Run(context.Background(), []string{"proxy", "-e", "MCP_CLI_TEST_SERVER=crash", os.Args[0]}, clientIn, &out, &errb)
	if code != ExitConnect || !strings.Contains(errb.String(), want) {
		t.Errorf("mcp proxy: exit %d, stderr %q, want it to say %q", code, errb.String(), want)
	}
}
