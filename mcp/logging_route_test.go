package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// TestLogsOnTheRequestStream: at 2025-11-25 over Streamable HTTP, what a
// handler logs through its request (Logger, Log) and its progress go on
// the request's own SSE stream, before the result, whatever context they
// are given, so that a client that opened no GET stream gets them, in
// order (issue 31, bug 2).
func TestLogsOnTheRequestStream(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "chatty"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		req.Logger().Info("through the logger") // slog passes context.Background
		if err := req.Log(context.Background(), mcp.LevelInfo, "log", "through Log"); err != nil {
			return "", err
		}
		if err := req.NotifyProgress(context.Background(), 1, 2, "half"); err != nil {
			return "", err
		}
		return "done", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcphttp.NewHandler(s, nil))
	defer hs.Close()

	post := func(sid, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if sid == "" {
		t.Fatalf("initialize: %s, no session id", resp.Status)
	}
	resp = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	// No GET stream is ever opened.
	resp = post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{},"_meta":{"progressToken":"p"}}}`)
	defer resp.Body.Close()
	var got []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := sc.Text(), true // a JSON answer: the result alone
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			data, ok = strings.CutPrefix(data, "data: ")
		}
		if !ok || data == "" { // an event without data primes the stream
			continue
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		switch {
		case m.Method == "notifications/message":
			var p struct {
				Data any `json:"data"`
			}
			_ = json.Unmarshal(m.Params, &p)
			b, _ := json.Marshal(p.Data)
			got = append(got, "log "+string(b))
		case m.Method != "":
			got = append(got, m.Method)
		case m.Result != nil:
			got = append(got, "result")
		}
	}
	want := []string{`log {"msg":"through the logger"}`, `log "through Log"`, "notifications/progress", "result"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the POST's stream carried\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
