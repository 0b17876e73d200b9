package browsertest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestGatewayApps opens the inspector on mcp gateway, in front of the
// ext-apps example server-basic-react (over stdio, on Node) and the SDK's
// examples/appserver, whose names it prefixes (react_get-time,
// counter_counter). Each view renders through the gateway, and its buttons
// call their tools by the names their servers gave them (get-time,
// increment): the inspector passes them on, and the gateway finds the
// upstream tool of that name.
func TestGatewayApps(t *testing.T) {
	node, modules := os.Getenv("NODE22"), os.Getenv("MCP_TS_SDK_DIR")
	if node == "" || modules == "" {
		t.Fatal("NODE22 or MCP_TS_SDK_DIR is not set: run the browser stage via scripts/test.sh, or `source scripts/tools.sh` first")
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"react": map[string]any{"command": node,
			"args": []string{filepath.Join(modules, "@modelcontextprotocol", "server-basic-react", "dist", "index.js"), "--stdio"}},
		"counter": map[string]any{"command": filepath.Join(bin, "appserver")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, startInspector(t, filepath.Join(bin, "mcp"), "gateway", file))

	// basic-react's view shows the time the call returned, and its button
	// calls get-time again, through the gateway, for a later one.
	vctx := callWithView(t, ctx, "react_get-time")
	do(t, ctx, waitText("#result pre.text", "T"))
	called := text(t, ctx, "#result pre.text")
	do(t, vctx, waitView("code", called))
	do(t, vctx, pressText("Get Server Time"), waitChange("code", called))
	do(t, ctx, waitLogCount("view: → tools/call", 1))
	if s, _ := chromedp.Run(vctx, viewEval[string](`document.querySelector("code").textContent`)); strings.Contains(s, "ERROR") {
		t.Errorf("server time %q", s)
	}
	screenshot(t, ctx, "gateway-basic-react")

	// The counter's view, of the other upstream: its button calls the
	// app-only tool increment, listed as counter_increment.
	_, first := viewTarget(t, ctx, "")
	do(t, ctx,
		waitText(`button.tool.app-only[data-name="counter_increment"]`, "(app only)"),
		chromedp.Click(css(`button.tool[data-name="counter_counter"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="by"]`), "2"),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "The count is 2. The view shows it."),
	)
	cctx, _ := viewTarget(t, ctx, first)
	do(t, cctx, waitView("#count", "2"), press("#increment"), waitView("#count", "3"))
	do(t, ctx, waitText("#log", `"name":"increment"`))
	screenshot(t, ctx, "gateway-counter")
}
