package mcpgoserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// rpcClient speaks MCP's stateless revision (2026-07-28) over Streamable
// HTTP by hand, as a deployment's smoke tests do: one POST per request,
// the revision and the client in each request's _meta, the standard
// headers beside them.
type rpcClient struct {
	t      *testing.T
	url    string
	header http.Header
	id     int
}

const protocolVersion = "2026-07-28"

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// call sends method with params (a map, or nil) and decodes the result into
// result. It fails the test on a transport problem and returns a JSON-RPC
// error as an error.
func (c *rpcClient) call(method string, params map[string]any, result any) error {
	c.t.Helper()
	c.id++
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocolVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "observability-test", "version": "1.0.0"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Mcp-Method", method)
	switch method {
	case "tools/call", "prompts/get":
		req.Header.Set("Mcp-Name", params["name"].(string))
	case "resources/read":
		req.Header.Set("Mcp-Name", params["uri"].(string))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := readResponse(resp)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		c.t.Fatalf("%s: HTTP %d: %v: %s", method, resp.StatusCode, err, data)
	}
	if msg.Error != nil {
		return msg.Error
	}
	if err := json.Unmarshal(msg.Result, result); err != nil {
		c.t.Fatalf("%s: %v: %s", method, err, msg.Result)
	}
	return nil
}

// readResponse returns the JSON-RPC response of a POST, which comes as a
// JSON body or as the last data line of an SSE stream.
func readResponse(resp *http.Response) ([]byte, error) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return io.ReadAll(resp.Body)
	}
	var last []byte
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			last = bytes.TrimSpace(data)
		}
	}
	if last == nil {
		return nil, fmt.Errorf("SSE stream without data (%v)", sc.Err())
	}
	return last, sc.Err()
}

type listedTools struct {
	Tools []json.RawMessage `json:"tools"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r toolResult) text(t *testing.T) string {
	t.Helper()
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("result content = %+v", r.Content)
	}
	return r.Content[0].Text
}

func toolNames(t *testing.T, raw []json.RawMessage) []string {
	t.Helper()
	var names []string
	for _, r := range raw {
		var tool struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(r, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestHTTPToolsMatchSnapshots(t *testing.T) {
	b := NewBackend()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	c := &rpcClient{t: t, url: srv.URL}
	var res listedTools
	if err := c.call("tools/list", nil, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(allTools(b)) {
		t.Fatalf("listed %d tools, want %d", len(res.Tools), len(allTools(b)))
	}
	names := toolNames(t, res.Tools)
	for i, raw := range res.Tools {
		var tool struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		testToolSnap(t, tool.Name, res.Tools[i])
	}
	if len(names) != len(slices.Compact(slices.Clone(names))) {
		t.Errorf("a tool is listed twice: %v", names)
	}
}

func TestHTTPPerRequestServer(t *testing.T) {
	b := NewBackend()
	m := NewMetrics()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, m))
	defer srv.Close()

	c := &rpcClient{t: t, url: srv.URL, header: http.Header{"X-Mcp-Toolsets": {"admin,oncall"}, "X-Org-Id": {"2"}}}
	var listed listedTools
	if err := c.call("tools/list", nil, &listed); err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(t, listed.Tools), []string{"get_current_oncall_users", "list_oncall_schedules", "list_teams", "list_users_by_org"}; !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	var out toolResult
	if err := c.call("tools/call", map[string]any{"name": "list_users_by_org", "arguments": map[string]any{}}, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.text(t); got != `["bob"]` {
		t.Errorf("users of org 2 = %s", got)
	}
	if m.Calls("list_users_by_org") != 1 {
		t.Errorf("middleware counted %d calls", m.Calls("list_users_by_org"))
	}

	// A tool outside the request's toolsets does not exist for it.
	out = toolResult{}
	if err := c.call("tools/call", map[string]any{"name": "list_datasources", "arguments": map[string]any{}}, &out); err == nil && !out.IsError {
		t.Errorf("list_datasources outside its toolset succeeded: %+v", out)
	}
}

func TestHTTPToolErrors(t *testing.T) {
	b := NewBackend()
	m := NewMetrics()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, m))
	defer srv.Close()
	c := &rpcClient{t: t, url: srv.URL}

	// The call fails, naming what is missing (mcp-go sends a handler's
	// error as a JSON-RPC error).
	var out toolResult
	err := c.call("tools/call", map[string]any{"name": "get_alert_rule", "arguments": map[string]any{"uid": "nope"}}, &out)
	var msg string
	switch {
	case err != nil:
		msg = err.Error()
	case out.IsError:
		msg = out.text(t)
	default:
		t.Fatalf("get_alert_rule(nope) succeeded: %+v", out)
	}
	if !strings.Contains(msg, `alert rule "nope": not found`) {
		t.Errorf("get_alert_rule(nope) failed with %q", msg)
	}
	if m.Calls("get_alert_rule:error") != 1 {
		t.Errorf("middleware counted %d errors", m.Calls("get_alert_rule:error"))
	}
}

func TestHTTPResourcesAndPrompts(t *testing.T) {
	b := NewBackend()
	srv := httptest.NewServer(NewHTTPHandler(Config{Version: "1.0.0"}, b, NewMetrics()))
	defer srv.Close()
	c := &rpcClient{t: t, url: srv.URL}

	type contents struct {
		Contents []struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		} `json:"contents"`
	}
	var res contents
	if err := c.call("resources/read", map[string]any{"uri": "observability://dashboards/node"}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"title":"Node exporter"`) {
		t.Errorf("dashboard resource = %+v", res.Contents)
	}
	res = contents{}
	if err := c.call("resources/read", map[string]any{"uri": "observability://datasources"}, &res); err != nil ||
		len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"uid":"loki"`) {
		t.Errorf("datasources resource = %+v, %v", res, err)
	}
	if err := c.call("resources/read", map[string]any{"uri": "observability://dashboards/nope"}, &res); err == nil {
		t.Error("reading a missing dashboard succeeded")
	}

	var prompts struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	if err := c.call("prompts/list", nil, &prompts); err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 2 {
		t.Errorf("prompts = %+v", prompts.Prompts)
	}
	var p struct {
		Messages []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := c.call("prompts/get", map[string]any{"name": "investigate_alert", "arguments": map[string]any{"ruleUid": "high-cpu"}}, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.Text, "last 1h") {
		t.Errorf("prompt = %+v", p.Messages)
	}
	if err := c.call("prompts/get", map[string]any{"name": "investigate_alert"}, &p); err == nil {
		t.Error("prompt without its required argument succeeded")
	}
}
