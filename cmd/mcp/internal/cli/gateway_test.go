package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// writeGatewayConfig writes a gateway configuration of two upstreams, the
// everything-server ("ev") and the test binary serving a progress tool
// ("prog"), plus extra servers, and returns its path.
func writeGatewayConfig(t *testing.T, extra map[string]any) string {
	t.Helper()
	servers := map[string]any{
		"ev":   map[string]any{"command": everythingBin},
		"prog": map[string]any{"command": os.Args[0], "env": map[string]string{"MCP_CLI_TEST_SERVER": "progress"}},
	}
	for k, v := range extra {
		servers[k] = v
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkGateway checks that cs reaches both upstreams under their prefixes.
func checkGateway(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	tools, err := collect(cs.Tools(ctx, nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"ev_test_simple_text", "ev_test_tool_with_progress", "prog_tick"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %q", want, names)
		}
	}
	for _, unprefixed := range []string{"test_simple_text", "tick"} {
		if slices.Contains(names, unprefixed) {
			t.Errorf("tools/list has %s without its upstream's prefix", unprefixed)
		}
	}
	for _, c := range []struct {
		tool string
		args string
		want string
	}{
		{"ev_test_simple_text", `{}`, "This is a simple text response for testing."},
		{"prog_tick", `{"delay_ms": 1}`, "done"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("call %s: %v", c.tool, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("call %s: %+v", c.tool, res)
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != c.want {
			t.Errorf("call %s: content %+v, want text %q", c.tool, res.Content[0], c.want)
		}
	}
	// A tool no upstream has is the error a missing tool gets.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ev_nope"}); err == nil {
		t.Error("calling ev_nope succeeded")
	}
}

// TestGatewayStdio serves two upstreams on stdio and drives the gateway
// with the SDK's client.
func TestGatewayStdio(t *testing.T) {
	file := writeGatewayConfig(t, nil)
	clientIn, gwOut := io.Pipe()
	gwIn, clientOut := io.Pipe()
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		done <- Run(context.Background(), []string{"gateway", file}, gwIn, gwOut, &errb)
		gwOut.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), transport.NewLineStream(clientIn, clientOut, clientOut, nil))
	if err != nil {
		t.Fatal(err)
	}
	checkGateway(t, cs)
	cs.Close() // closes the gateway's stdin: it ends, and its upstreams with it
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("gateway exit %d; stderr %q", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the gateway did not end when its stdin closed")
	}
}

// startGatewayHTTP runs mcp gateway --http on a free port, with flags
// more, and returns its endpoint; the gateway is stopped, and must exit 0,
// when the test ends.
func startGatewayHTTP(t *testing.T, file string, more ...string) string {
	t.Helper()
	url, _ := mcpServe(t, append(append([]string{"gateway", "--http", "127.0.0.1:0"}, more...), file)...)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("gateway --http listens on %q", url)
	}
	return url
}

// getProbe GETs a probe of the gateway at base and returns its status and
// body.
func getProbe(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(base, "/mcp") + path)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readBody(t, resp)
}

// readBody reads resp's body to its end and closes it.
func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// upstreamStates decodes /readyz's body into each upstream's state.
func upstreamStates(t *testing.T, body string) map[string]string {
	t.Helper()
	var v struct {
		Upstreams []struct {
			Name  string `json:"name"`
			State string `json:"state"`
			Error string `json:"error"`
		} `json:"upstreams"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("/readyz body %q: %v", body, err)
	}
	states := map[string]string{}
	for _, u := range v.Upstreams {
		states[u.Name] = u.State
	}
	return states
}

// TestGatewayHTTP serves two upstreams over Streamable HTTP, drives the
// gateway at 2025-11-25 and 2026-07-28, and reads its probes.
func TestGatewayHTTP(t *testing.T) {
	url := startGatewayHTTP(t, writeGatewayConfig(t, nil))
	if code, body := getProbe(t, url, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %q", code, body)
	}
	code, body := getProbe(t, url, "/readyz")
	if code != http.StatusOK {
		t.Errorf("/readyz: %d %q", code, body)
	}
	if got := upstreamStates(t, body); got["ev"] != "up" || got["prog"] != "up" || len(got) != 2 {
		t.Errorf("/readyz upstreams %v, want ev and prog up", got)
	}
	for _, version := range []string{"2025-11-25", ""} {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
		cs, err := client.Connect(context.Background(), mcphttp.NewClientStream(url, nil))
		if err != nil {
			t.Fatal(err)
		}
		if version == "" && cs.ProtocolVersion() != "2026-07-28" {
			t.Errorf("default client negotiated %s", cs.ProtocolVersion())
		}
		checkGateway(t, cs)
		cs.Close()
	}
}

// TestGatewayUpstreamDown: an upstream that cannot be started leaves the
// gateway serving the others, and /readyz says which one is down.
func TestGatewayUpstreamDown(t *testing.T) {
	file := writeGatewayConfig(t, map[string]any{"gone": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")}})
	url := startGatewayHTTP(t, file)
	code, body := getProbe(t, url, "/readyz")
	if code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with an upstream down: %d %q", code, body)
	}
	if got := upstreamStates(t, body); got["gone"] == "up" || got["ev"] != "up" || got["prog"] != "up" {
		t.Errorf("/readyz upstreams %v, want gone not up, ev and prog up", got)
	}
	if code, _ := getProbe(t, url, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz with an upstream down: %d", code)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), mcphttp.NewClientStream(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkGateway(t, cs)
}

// TestGatewayRefuses: mistakes in the command line or the configuration
// are usage errors (exit status 2) saying what is wrong, before anything
// is served.
func TestGatewayRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeGatewayConfig(t, nil)
	// Two upstreams without prefixes offering the same tools: refused at
	// start, naming the tool and both upstreams.
	clash := write("clash.json", `{"mcpServers": {"one": {"command": "`+everythingBin+`", "prefix": ""}, "two": {"command": "`+everythingBin+`", "prefix": ""}}}`)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"gateway"}, []string{"want one configuration file"}},
		{[]string{"gateway", good, good}, []string{"want one configuration file"}},
		{[]string{"gateway", "--allow-remote", good}, []string{"go with --http"}},
		{[]string{"gateway", filepath.Join(dir, "missing.json")}, []string{"missing.json"}},
		{[]string{"gateway", write("bad.json", `{"mcpServers": {"x": {"command": "a", "url": "http://h/mcp"}}}`)}, []string{"bad.json", `server "x"`, "both command and url"}},
		{[]string{"gateway", write("unset.json", `{"mcpServers": {"x": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${GOMCP_GATEWAY_TEST_UNSET}"}}}}`)}, []string{`server "x"`, "GOMCP_GATEWAY_TEST_UNSET is not set"}},
		{[]string{"gateway", "--http", "0.0.0.0:0", good}, []string{"loopback"}},
		{[]string{"gateway", write("huge.json", `{"mcpServers": {}}`+strings.Repeat(" ", gateway.MaxConfigSize))}, []string{"huge.json: larger than 4194304 bytes"}},
		{[]string{"gateway", clash}, []string{"one", "two", "test_simple_text"}},
	} {
		code, _, errs := mcpRunInput(t, context.Background(), "", c.args...)
		if code != ExitUsage {
			t.Errorf("mcp %q: exit %d, want %d; stderr %q", c.args, code, ExitUsage, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("mcp %q: stderr %q lacks %q", c.args, errs, w)
			}
		}
	}
	if code, out, _ := mcpRun(t, context.Background(), "help", "gateway"); code != ExitOK || !strings.Contains(out, "mcpServers") {
		t.Errorf("mcp help gateway: exit %d:\n%s", code, out)
	}
}

// TestGatewayHTTPAnswerType: mcp gateway --http answers a quick call with
// JSON (one write, nothing stored) and one that waits past
// gatewaySSEAfter on a primed, resumable SSE stream.
func TestGatewayHTTPAnswerType(t *testing.T) {
	url := startGatewayHTTP(t, writeGatewayConfig(t, nil))
	post := func(sid, body string) (*http.Response, string) {
		t.Helper()
		resp := postTo(t, url, sid, body, "MCP-Protocol-Version", "2025-11-25")
		return resp, readBody(t, resp)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s %q", resp.Status, body)
	}
	if resp, body := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s %q", resp.Status, body)
	}
	for _, tt := range []struct {
		delayMS  int // twice: the tool sleeps before and after its (unsent) progress
		wantType string
	}{
		{0, "application/json"},
		{int(gatewaySSEAfter/time.Millisecond) + 50, "text/event-stream"},
	} {
		resp, body := post(sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"prog_tick","arguments":{"delay_ms":%d}}}`, tt.delayMS))
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, tt.wantType) || !strings.Contains(body, `"done"`) {
			t.Fatalf("a call of %d ms: %s %q %q, want %s with the answer", 2*tt.delayMS, resp.Status, ct, body, tt.wantType)
		}
		if tt.wantType == "text/event-stream" && !strings.HasPrefix(body, "id:") {
			t.Errorf("the SSE stream starts %q, want a priming event (an id to resume from)", body)
		}
	}
}
