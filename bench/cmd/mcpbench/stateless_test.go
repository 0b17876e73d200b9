package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestStatelessEchoBody: the request carries the _meta the revision
// requires, and parses.
func TestStatelessEchoBody(t *testing.T) {
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
			Meta      map[string]any    `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(statelessEchoBody(nil, 3, `a "quoted" text`), &req); err != nil {
		t.Fatal(err)
	}
	if req.Method != "tools/call" || req.Params.Name != "echo" || req.Params.Arguments["text"] != `a "quoted" text` {
		t.Errorf("request %+v", req)
	}
	for _, k := range []string{"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo"} {
		if req.Params.Meta[k] == nil {
			t.Errorf("_meta lacks %s", k)
		}
	}
	if req.Params.Meta["io.modelcontextprotocol/protocolVersion"] != statelessVersion {
		t.Errorf("protocol version %v", req.Params.Meta["io.modelcontextprotocol/protocolVersion"])
	}
}

// TestCheckStatelessEcho: beyond the echo, a result that asks for more
// input is refused; one without resultType (read as complete) is not.
func TestCheckStatelessEcho(t *testing.T) {
	want := func(id int64) string { return "m" + strconv.FormatInt(id, 10) }
	tests := []struct {
		name, result string
		ok           bool
	}{
		{"complete", `{"resultType":"complete","content":[{"type":"text","text":"m1"}]}`, true},
		{"no resultType", `{"content":[{"type":"text","text":"m1"}]}`, true},
		{"input required", `{"resultType":"input_required","content":[{"type":"text","text":"m1"}]}`, false},
		{"wrong text", `{"resultType":"complete","content":[{"type":"text","text":"m2"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := int64(1)
			r := &statelessReply{status: http.StatusOK, answer: &answer{ID: &id, Result: json.RawMessage(tt.result)}}
			if err := checkStatelessEcho(r, 1, want); (err == nil) != tt.ok {
				t.Errorf("checkStatelessEcho: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestProbes: a server of the revision passes every probe; a 2025-era
// server that ignores _meta and the headers but echoes fails all but the
// one about sessions.
func TestProbes(t *testing.T) {
	defer httpClient.CloseIdleConnections()
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	h := mcphttp.NewHandler(s, nil)
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	if got := runProbes(t.Context(), "gomcp", srv.URL); got != float64(len(statelessProbes)) {
		t.Errorf("gomcp passed %v probes, want %d", got, len(statelessProbes))
	}

	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int64 `json:"id"`
			Params struct {
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
			} `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"result": map[string]any{"content": []any{map[string]string{"type": "text", "text": req.Params.Arguments.Text}}}})
	}))
	defer fake.Close()
	if got := runProbes(t.Context(), "fake", fake.URL); got != 1 {
		t.Errorf("a server ignoring _meta passed %v probes, want 1", got)
	}
}
