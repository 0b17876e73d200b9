package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

var css = func(s string) chromedp.CSS { return chromedp.CSS(s) }

// viewWorld is the context key of the execution context in which a
// view's actions (press, viewText, waitView, viewEval) run.
type viewWorld struct{}

// viewTarget returns a context on the frame of the view on show, other
// than the frame old. The view shares the sandbox proxy's origin, so
// Chromium runs it in the page's process, as a frame of the page's
// target; a view of another origin (an opaque one) would be a target
// of its own, which is searched too. Its actions run in an isolated
// world of that frame, which shares its DOM (a click runs the view's own
// handlers).
func viewTarget(t *testing.T, ctx context.Context, old cdp.FrameID) (context.Context, cdp.FrameID) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	attached := map[target.ID]context.Context{}
	for {
		for _, tctx := range append([]context.Context{ctx}, frameTargets(t, ctx, attached)...) {
			tree, err := chromedp.Run(tctx, chromedp.Action[*page.FrameTree](func(ctx context.Context, tg *chromedp.Target) (*page.FrameTree, error) {
				r, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
				return r.FrameTree, err
			}))
			if err != nil {
				continue // a frame target that went away
			}
			if f := srcdocFrame(tree, old); f != "" {
				id, err := chromedp.Run(tctx, chromedp.Action[runtime.ExecutionContextID](func(ctx context.Context, tg *chromedp.Target) (runtime.ExecutionContextID, error) {
					r, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f, WorldName: "browsertest"})
					return r.ExecutionContextID, err
				}))
				if err != nil {
					t.Fatal(err)
				}
				return context.WithValue(tctx, viewWorld{}, id), f
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no view frame")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// frameTargets returns contexts on the frames that Chromium runs as
// targets of their own, attaching to the new ones (kept in attached).
func frameTargets(t *testing.T, ctx context.Context, attached map[target.ID]context.Context) []context.Context {
	t.Helper()
	ts, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []context.Context
	for _, x := range ts {
		if x.Type != "iframe" {
			continue
		}
		tctx, ok := attached[x.TargetID]
		if !ok {
			var cancel context.CancelFunc
			tctx, cancel = chromedp.NewContext(ctx, chromedp.WithTargetID(x.TargetID))
			t.Cleanup(cancel)
			attached[x.TargetID] = tctx
		}
		out = append(out, tctx)
	}
	return out
}

// srcdocFrame finds the frame of a view (about:srcdoc) in tree, other
// than old.
func srcdocFrame(tree *page.FrameTree, old cdp.FrameID) cdp.FrameID {
	if tree == nil {
		return ""
	}
	if tree.Frame != nil && tree.Frame.URL == "about:srcdoc" && tree.Frame.ID != old {
		return tree.Frame.ID
	}
	for _, c := range tree.ChildFrames {
		if f := srcdocFrame(c, old); f != "" {
			return f
		}
	}
	return ""
}

// viewEval evaluates expr in the view of ctx (see viewTarget).
func viewEval[T any](expr string) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		id, _ := ctx.Value(viewWorld{}).(runtime.ExecutionContextID)
		if id == 0 {
			var zero T
			return zero, errors.New("not a view's context: see viewTarget")
		}
		return chromedp.Evaluate[T](expr, func(p *runtime.EvaluateParams) { p.ContextID = id })(ctx, t)
	}
}

// press clicks the button sel of a view.
func press(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ok, err := viewEval[bool](fmt.Sprintf(`(() => { const b = document.querySelector(%q); if (b) b.click(); return !!b; })()`, sel))(ctx, t)
		if err == nil && !ok {
			err = fmt.Errorf("no %s in the view", sel)
		}
		return err
	})
}

// viewText returns the text of sel in a view.
func viewText(ctx context.Context, t *chromedp.Target, sel string) (string, error) {
	return viewEval[string](fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : ""; })()`, sel))(ctx, t)
}

// waitView waits until the text of sel in a view contains want.
func waitView(sel, want string) chromedp.Action[chromedp.Void] {
	return waitFor(sel, "contain "+strconv.Quote(want), func(s string) bool { return strings.Contains(s, want) })
}

// waitChange waits until the text of sel in a view is neither old nor
// empty.
func waitChange(sel, old string) chromedp.Action[chromedp.Void] {
	return waitFor(sel, "change from "+strconv.Quote(old), func(s string) bool { return s != old && s != "" })
}

func waitFor(sel, what string, ok func(string) bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var got string
		for {
			s, err := viewText(ctx, t, sel)
			if err == nil {
				got = s
				if ok(s) {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: waiting for it to %s, have %q: %w", sel, what, got, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// TestInspectAppBasicVanillaJS opens the official example server of MCP
// Apps (@modelcontextprotocol/server-basic-vanillajs, built on the
// ext-apps App class) in the inspector: its view renders in the sandbox,
// gets the tool's result, and each of its buttons works through the
// inspector's end of the bridge.
func TestInspectAppBasicVanillaJS(t *testing.T) {
	node, modules := os.Getenv("NODE22"), os.Getenv("MCP_TS_SDK_DIR")
	if node == "" || modules == "" {
		t.Fatal("NODE22 or MCP_TS_SDK_DIR is not set: run the browser stage via scripts/test.sh, or `source scripts/tools.sh` first")
	}
	url := startInspector(t, node, filepath.Join(modules, "@modelcontextprotocol/server-basic-vanillajs/dist/index.js"), "--stdio")
	ctx := browser(t, url)
	do(t, ctx,
		waitText("#status", "Basic MCP App Server"),
		waitText(`button.tool[data-name="get-time"]`, "(app)"),
		chromedp.Click(css(`button.tool[data-name="get-time"]`)),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "T"),
	)
	called := text(t, ctx, "#result pre.text")
	vctx, _ := viewTarget(t, ctx, "")
	// The result reached the view (ui/notifications/tool-result), after
	// its input.
	do(t, vctx, waitView("#server-time", called))
	do(t, ctx, waitText("#log", "view: ← ui/notifications/tool-result"))
	log := text(t, ctx, "#log")
	for _, want := range []string{"view: → ui/initialize", "view: → ui/notifications/initialized", `"protocolVersion":"2026-01-26"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if i, j := strings.Index(log, "← ui/notifications/tool-input\n"), strings.Index(log, "← ui/notifications/tool-result"); i < 0 || j < i {
		t.Errorf("tool-input (at %d) not before tool-result (at %d)", i, j)
	}

	// Its buttons: a tools/call through the bridge to the server, a
	// message, a log line, a link the user refuses.
	do(t, vctx, press("#get-time-btn"), waitChange("#server-time", called))
	do(t, ctx, waitText("#log", "view: → tools/call"))
	do(t, vctx, press("#send-message-btn"))
	do(t, ctx, waitText("#log", "message for the chat (user): This is message text."))
	do(t, vctx, press("#send-log-btn"))
	do(t, ctx, waitText("#log", "log [info]: This is log text."))
	do(t, vctx, press("#open-link-btn"))
	do(t, ctx,
		waitText(".question.open-link", "https://modelcontextprotocol.io/"),
		chromedp.Click(css(".question.open-link button.decline")),
		waitText("#log", "the user refused to open https://modelcontextprotocol.io/"),
		waitText("#log", "Link opening denied by user"),
		// Closing the view asks it first (ui/resource-teardown).
		chromedp.Click(css("#view .view-close")),
		waitText("#log", "teardown of the view of get-time: answered"),
	)
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#view iframe").length`)); err != nil || n != 0 {
		t.Errorf("%d frames left after the teardown (%v)", n, err)
	}
}

// TestInspectAppExample drives the SDK's own example, examples/appserver:
// its app-only tool is listed as such and not offered in a form, and the
// view's buttons work.
func TestInspectAppExample(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "appserver"))
	ctx := browser(t, url)
	do(t, ctx,
		waitText(`button.tool.app-only[data-name="increment"]`, "(app only)"),
		chromedp.Click(css(`button.tool[data-name="increment"]`)),
		chromedp.WaitVisible(css("#detail .app-only-note")),
		chromedp.Click(css(`button.tool[data-name="counter"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="by"]`), "2"),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "The count is 2. The view shows it."),
	)
	vctx, _ := viewTarget(t, ctx, "")
	do(t, vctx,
		waitView("#count", "2"),
		press("#increment"),
		waitView("#count", "3"),
		press("#context"),
	)
	do(t, ctx,
		waitText("#log", "model context updated"),
		waitText("#log", "The counter the user sees shows 3."),
	)
	do(t, vctx, press("#message"))
	do(t, ctx,
		waitText("#log", "message for the chat (user): The counter shows 3."),
		waitText("#log", "log [info] counter-view: Message"),
	)
	do(t, vctx, press("#link"))
	do(t, ctx, chromedp.Click(css(".question.open-link button.decline")))
	do(t, vctx, waitView("#status", "Open link failed"))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tool-form").length`)); err != nil || n != 1 {
		t.Errorf("%d tool forms (%v)", n, err)
	}
}

// TestInspectAppBridge drives every request of the bridge from a view
// written for it (appview): what a host must answer, and what it must
// refuse.
func TestInspectAppBridge(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "appview"))
	ctx := browser(t, url)
	do(t, ctx,
		waitText(`button.tool.app-only[data-name="bump"]`, "(app only)"),
		chromedp.Click(css(`button.tool[data-name="show"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="x"]`), "7"),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "shown 7"),
		// The undeclared-form origins of its CSP are refused, and said so.
		waitText("#log", "origins refused: 'unsafe-eval' *"),
	)
	vctx, first := viewTarget(t, ctx, "")
	click := func(id, want string) {
		t.Helper()
		do(t, vctx, press("#"+id), waitView("#out-"+id, want))
	}
	do(t, vctx,
		waitView("#host", "gomcp-inspector 2026-01-26 inline"),
		waitView("#partial", `{"x":7}`),
		waitView("#input", `{"x":7}`),
		waitView("#result", `{"x":7}`),
	)
	click("call-app", `ok {"x":1}`)
	click("call-model", `error -32602 tool "model_only" is not visible to apps`)
	click("call-unknown", `unknown tool "nope"`)
	click("read", `ok "text/html;profile=mcp-app"`)
	click("pip", `ok {"mode":"inline"}`)
	click("fullscreen", `ok {"mode":"fullscreen"}`)
	do(t, vctx, waitView("#context", "fullscreen"))
	do(t, ctx, chromedp.WaitVisible(css("#view .app-view.fullscreen")))
	click("inline", `ok {"mode":"inline"}`)
	click("bad-link", "error -32602 Invalid URL")
	click("message", "ok {}")
	click("model-context", "ok {}")
	click("unknown-method", "error -32601 method not found: sampling/createMessage")
	do(t, ctx,
		waitText("#log", "message for the chat (user): hello from the view"),
		waitText("#log", `model context updated: {"structuredContent":{"seen":42}}`),
	)
	do(t, vctx,
		press("#size"),
		press("#forge"),
		press("#log"), // after the forged message: messages keep their order
	)
	do(t, ctx, waitText("#log", "log [warning] appview: a log line from the view"))
	h, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#view iframe").style.height`))
	if err != nil || h != "432px" {
		t.Errorf("frame height %q after size-changed 432 (%v)", h, err)
	}
	if log := text(t, ctx, "#log"); strings.Contains(log, "→ ui/notifications/sandbox-resource-ready") {
		t.Error("the proxy passed on a view's ui/notifications/sandbox-* message")
	}
	// The view reaches its proxy and the sandbox origin's storage (it
	// shares their origin), but neither the page, nor the sandbox's
	// server, nor an origin its CSP did not declare (the declared one is
	// tried, and fails only for want of a server).
	click("escape", "parent.document:object top.document:blocked storage:number fetch:failed fetch:failed fetch:failed proxy-fetch:failed violations:connect-src,connect-src")
	if s, _ := chromedp.Run(vctx, viewEval[string](`document.querySelector("#out-escape").textContent`)); strings.Count(s, "connect-src") != 2 {
		t.Errorf("escape: %s", s)
	}
	do(t, ctx, waitText("#log", "appview: escape tried"))
	if log := text(t, ctx, "#log"); strings.Contains(log, "message for the chat (user): sneaked") || strings.Contains(log, "view: → ui/message #990") {
		t.Error("the page took a message from a window other than the sandbox proxy's")
	}

	// A call that fails: the new view hears of the cancellation, the old
	// one was torn down first. Its teardown begins with the pick of fail
	// and is answered 300 ms later (appview): the call's new view waits for
	// it, rather than removing the old one before it can answer.
	do(t, ctx,
		chromedp.Click(css(`button.tool[data-name="fail"]`)),
		chromedp.Click(css("#run")),
		waitText("#log", "teardown of the view of show: answered"),
		waitText("#result .error", "fail always fails"),
	)
	do(t, ctx, waitText("#log", "view: ← ui/notifications/tool-cancelled"))
	vctx, _ = viewTarget(t, ctx, first)
	do(t, vctx, waitView("#cancelled", "fail always fails"))

	// A link the user opens (last: the new tab may take the focus).
	do(t, vctx, press("#link"))
	do(t, ctx,
		waitText(".question.open-link", "http://127.0.0.1:1/from-the-view"),
		chromedp.Click(css(".question.open-link button.accept")),
		waitText("#log", "opened http://127.0.0.1:1/from-the-view"),
	)
	do(t, vctx, waitView("#out-link", "ok {}"))
}
