package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The official example Apps of @modelcontextprotocol/ext-apps 2.0.x (the
// server-* packages scripts/tools.sh installs), each run over stdio with
// Node in the inspector: its view renders in the sandbox as it does in
// the reference host (examples/basic-host), and a button of it calls the
// server through the bridge. Only examples that need no network at run
// time are here.

// startExample runs mcp inspect on the example server pkg (a package
// name under @modelcontextprotocol) and opens the page once the server
// is connected.
func startExample(t *testing.T, pkg string, args ...string) context.Context {
	t.Helper()
	node, modules := os.Getenv("NODE22"), os.Getenv("MCP_TS_SDK_DIR")
	if node == "" || modules == "" {
		t.Fatal("NODE22 or MCP_TS_SDK_DIR is not set: run the browser stage via scripts/test.sh, or `source scripts/tools.sh` first")
	}
	js := filepath.Join(modules, "@modelcontextprotocol", pkg, "dist/index.js")
	url := startInspector(t, append([]string{node, js, "--stdio"}, args...)...)
	return browser(t, url)
}

// callWithView calls tool from its form (its defaults as they are) and
// returns a context on the view that the call renders.
func callWithView(t *testing.T, ctx context.Context, tool string) context.Context {
	t.Helper()
	sel := fmt.Sprintf(`button.tool[data-name=%q]`, tool)
	do(t, ctx,
		waitText(sel, "(app)"),
		chromedp.Click(css(sel)),
		chromedp.Click(css("#run")),
	)
	doFor(t, ctx, 90*time.Second, chromedp.WaitVisible(css("#result .call-result")))
	vctx, _ := viewTarget(t, ctx, "")
	return vctx
}

// pressText clicks the button of the view whose text is label.
func pressText(label string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := viewEval[bool](fmt.Sprintf(`(() => {
			const b = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === %q);
			if (b) b.click();
			return !!b;
		})()`, label))(ctx, t)
		if err == nil && !ok {
			err = fmt.Errorf("no button %q in the view", label)
		}
		return err
	})
}

// waitViewTrue waits until the expression cond is true in a view.
func waitViewTrue(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			ok, err := viewEval[bool](cond)(ctx, t)
			if err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("view: waiting for %s: %v, %w", cond, err, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// waitLogCount waits until the page's log holds want at least n times.
func waitLogCount(want string, n int) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			s, err := chromedp.TextContent(css("#log"))(ctx, t)
			if err == nil && strings.Count(s, want) >= n {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("log: waiting for %d of %q: %w", n, want, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// screenshot saves the page as a PNG in $BROWSERTEST_SHOTS, when set, to
// look at.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("BROWSERTEST_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// basic-vue: the view shows the tool's result, and its "Get Server
// Time" button calls get-time through the bridge. Vue reads
// window.parent, which an opaque origin forbids: the view needs
// allow-same-origin.
func TestExampleBasicVue(t *testing.T) {
	const pkg = "server-basic-vue"
	ctx := startExample(t, pkg)
	vctx := callWithView(t, ctx, "get-time")
	do(t, ctx, waitText("#result pre.text", "T"))
	called := text(t, ctx, "#result pre.text")
	do(t, vctx, waitView("code", called))
	do(t, vctx, pressText("Get Server Time"), waitChange("code", called))
	do(t, ctx, waitLogCount("view: → tools/call", 1))
	if s, _ := chromedp.Run(vctx, viewEval[string](`document.querySelector("code").textContent`)); strings.Contains(s, "ERROR") {
		t.Errorf("server time %q", s)
	}
	screenshot(t, ctx, pkg)
}

// threejs runs the tool's code, multi-line, with eval: the form keeps the
// newlines of the default, and the view's CSP allows 'unsafe-eval'.
func TestExampleThreeJS(t *testing.T) {
	ctx := startExample(t, "server-threejs")
	do(t, ctx,
		waitText(`button.tool[data-name="show_threejs_scene"]`, "(app)"),
		chromedp.Click(css(`button.tool[data-name="show_threejs_scene"]`)),
	)
	code, err := chromedp.Run(ctx, chromedp.Value(css(`#tool-form textarea[name="code"]`)))
	if err != nil || strings.Count(code, "\n") < 10 || !strings.Contains(code, "// Transparent background\n") {
		t.Fatalf("the code field lost its lines: %q (%v)", code, err)
	}
	do(t, ctx, chromedp.Click(css("#run")))
	doFor(t, ctx, 90*time.Second, chromedp.WaitVisible(css("#result .call-result")))
	vctx, _ := viewTarget(t, ctx, "")
	doFor(t, vctx, 90*time.Second, waitViewTrue(`!!document.querySelector("#threejs-canvas") && document.querySelector("#threejs-canvas").width > 0`))
	// The scene runs (an error would show in its overlay, and go to the
	// model context), and the fullscreen button goes through the bridge.
	do(t, vctx, press(".fullscreen-btn"))
	do(t, ctx, chromedp.WaitVisible(css("#view .app-view.fullscreen")))
	if s, _ := chromedp.Run(vctx, viewEval[string](`(document.querySelector(".error-overlay") || {}).textContent || ""`)); s != "" {
		t.Errorf("the scene failed: %s", s)
	}
	if log := text(t, ctx, "#log"); strings.Contains(log, "Three.js Scene Error") {
		t.Errorf("the scene failed:\n%s", log)
	}
	screenshot(t, ctx, "threejs")
}

// onePagePDF is a PDF of one page that shows text (ASCII, no
// parentheses or backslashes), with a valid cross-reference table.
func onePagePDF(text string) []byte {
	stream := "BT /F1 24 Tf 72 700 Td (" + text + ") Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// pdf: pdf.js loads the file in chunks through the bridge
// (read_pdf_bytes, an app-only tool) and parses it in a worker, which
// the view's CSP allows from blob: URLs; its text reaches the model
// context.
func TestExamplePDF(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hello.pdf")
	if err := os.WriteFile(file, onePagePDF("Hello from gomcp"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := startExample(t, "server-pdf", file)
	do(t, ctx,
		waitText(`button.tool[data-name="display_pdf"]`, "(app)"),
		chromedp.Click(css(`button.tool[data-name="display_pdf"]`)),
		chromedp.SetValue(css(`#tool-form input[name="url"]`), file),
		chromedp.Click(css("#run")),
	)
	doFor(t, ctx, 90*time.Second, chromedp.WaitVisible(css("#result .call-result")))
	vctx, _ := viewTarget(t, ctx, "")
	doFor(t, vctx, 90*time.Second,
		waitView("#total-pages", "of 1"),
		waitViewTrue(`(document.querySelector(".text-layer, .textLayer") || document.body).textContent.includes("Hello from gomcp")`),
	)
	do(t, ctx,
		waitText("#log", `"name":"read_pdf_bytes"`),
		waitText("#log", `Page content:\nHello from gomcp`),
	)
	// Zooming in re-renders the page with pdf.js, and tells the model.
	do(t, vctx, press("#zoom-in-btn"), waitChange("#zoom-level", "100%"))
	for _, line := range strings.Split(text(t, ctx, "#log"), "\n") {
		if strings.Contains(line, "Content Security Policy") {
			t.Errorf("a CSP violation: %.500s", line)
		}
	}
	screenshot(t, ctx, "pdf")
}

// system-monitor: Start polls the server (poll-system-stats, app only)
// through the bridge and shows the memory in use.
func TestExampleSystemMonitor(t *testing.T) {
	ctx := startExample(t, "server-system-monitor")
	vctx := callWithView(t, ctx, "get-system-info")
	do(t, vctx, waitChange("#info-hostname", "--"), press("#poll-toggle-btn"), waitChange("#memory-percent", "--%"))
	do(t, ctx, waitText("#log", `"name":"poll-system-stats"`))
	screenshot(t, ctx, "system-monitor")
}

// cohort-heatmap (React): a new metric is fetched from the server
// (get-cohort-data) through the bridge.
func TestExampleCohortHeatmap(t *testing.T) {
	ctx := startExample(t, "server-cohort-heatmap")
	vctx := callWithView(t, ctx, "get-cohort-data")
	do(t, vctx, waitView("h1", "Cohort Retention Analysis"), waitViewTrue(`document.querySelectorAll("select").length >= 2`))
	before := strings.Count(text(t, ctx, "#log"), `"name":"get-cohort-data"`)
	// React reads a select's value through its own setter: set it the
	// way a user's choice does, then tell it.
	do(t, vctx, waitViewTrue(`(() => {
		const s = document.querySelector("select");
		Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value").set.call(s, "revenue");
		s.dispatchEvent(new Event("change", {bubbles: true}));
		return true;
	})()`))
	do(t, ctx, waitLogCount(`"name":"get-cohort-data"`, before+1), waitText("#log", `"metric":"revenue"`))
	screenshot(t, ctx, "cohort-heatmap")
}
