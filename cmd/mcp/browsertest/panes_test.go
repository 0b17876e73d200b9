package browsertest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// eval runs a script in the page and returns its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// choose sets a select of the page and tells its listeners.
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change")); return true; })()`, sel, value))(ctx, t)
		return err
	})
}

// typeIn sets a field of the page and tells its listeners.
func typeIn(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("input")); return true; })()`, sel, value))(ctx, t)
		return err
	})
}

// waitContent waits until the text content of sel, shown or not,
// contains want.
func waitContent(sel, want string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			s, err := chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))(ctx, t)
			if err == nil && strings.Contains(s, want) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: waiting for %q, have %q: %w", sel, want, s, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// key sends a key press to the page (to the focused element).
func key(k string) chromedp.Action[chromedp.Void] { return chromedp.KeyEvent(k) }

// TestInspectPanes drives the side panes with the SDK's everything
// server: the log level the server is asked for, its log messages in the
// Notifications pane, the message log's search, filters, timings and
// pretty-printing, the history with its re-run and copies, the themes and
// the keyboard.
func TestInspectPanes(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "everything-server"))
	ctx := browser(t, url)
	const tool = `button.tool[data-name="test_logging_tool"]`
	do(t, ctx,
		waitText("#status", "gomcp-everything-server"),
		waitText(tool, "test_logging_tool"),
		waitContent("#prompts", "test_simple_prompt"),
	)
	// Every item shows its text, and nothing for what it lacks (no
	// "null" or "undefined" for a missing description or title).
	shown := eval[[]string](t, ctx, `[...document.querySelectorAll("nav ul button")].map((b) => { b.click(); return document.querySelector("#detail").innerText; })`)
	for _, s := range shown {
		if strings.Contains(s, "null") || strings.Contains(s, "undefined") {
			t.Errorf("detail shows %q", s)
		}
	}
	// The roots field is wide enough to type in.
	if w := eval[int](t, ctx, `document.querySelector("#root-dir").offsetWidth`); w < 80 {
		t.Errorf("roots field %d px wide", w)
	}
	do(t, ctx,
		// debug and above: both of the tool's lines come
		chromedp.Click(css("#tab-notes")),
		choose("#log-level", "debug"),
		waitText("#level-status", "set to debug"),
		chromedp.Click(css("#tab-log")),
		chromedp.Click(css(tool)),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "Logging tool completed"),
		waitText("#notes-count", "2"),
		chromedp.Click(css("#tab-notes")),
		waitText("#notes", "[debug] everything: logging tool: debug"),
		waitText("#notes", "[info] everything: logging tool: info"),
	)
	if n := eval[string](t, ctx, `document.querySelector("#notes-count").textContent`); n != "" {
		t.Errorf("%q notifications unseen after a look at them", n)
	}
	screenshot(t, ctx, "panes-notifications")
	// warning and above: none of them
	do(t, ctx,
		choose("#log-level", "warning"),
		waitText("#level-status", "set to warning"),
		chromedp.Click(css("#clear-notes")),
		chromedp.Click(css("#run")),
		waitContent("#history li:first-child .outcome", "ok"),
	)
	if s := text(t, ctx, "#pane-notes"); strings.Contains(s, "logging tool") {
		t.Errorf("a message below the level: %s", s)
	}

	// The log: searched, filtered by method and direction, timed.
	do(t, ctx, chromedp.Click(css("#tab-log")), typeIn("#log-search", "test_logging_tool"))
	visible := eval[[]string](t, ctx, `[...document.querySelectorAll("#log li:not([hidden])")].map((li) => li.entry.json || li.textContent)`)
	if len(visible) < 2 {
		t.Fatalf("search: %d lines", len(visible))
	}
	for _, s := range visible {
		if !strings.Contains(s, "test_logging_tool") {
			t.Errorf("search shows %q", s)
		}
	}
	do(t, ctx, typeIn("#log-search", ""), typeIn("#log-method", "tools/call"), choose("#log-dir", "in"))
	visible = eval[[]string](t, ctx, `[...document.querySelectorAll("#log li:not([hidden]) .dir")].map((s) => s.parentElement.textContent)`)
	if len(visible) < 2 {
		t.Fatalf("method and direction: %d lines", len(visible))
	}
	for _, s := range visible {
		if !strings.Contains(s, "← result") || !strings.Contains(s, " tools/call") || !strings.Contains(s, " ms") {
			t.Errorf("the answers of tools/call show %q", s)
		}
	}
	// A line opens into its message, pretty-printed.
	do(t, ctx, chromedp.Click(css("#log li.msg:not([hidden])")), chromedp.WaitVisible(css("#log li.msg pre.pretty")))
	if s := text(t, ctx, "#log li.msg pre.pretty"); !strings.Contains(s, "\n  \"result\": {") {
		t.Errorf("pretty-printed as %q", s)
	}
	screenshot(t, ctx, "panes-log")
	do(t, ctx, choose("#log-dir", ""), typeIn("#log-method", ""))

	// The history: run again, copied as a command line and as JSON.
	do(t, ctx, chromedp.Click(css("#tab-history")), waitText("#history", "call test_logging_tool"))
	if n := eval[int](t, ctx, `document.querySelectorAll("#history li").length`); n != 2 {
		t.Errorf("%d calls in the history", n)
	}
	do(t, ctx,
		chromedp.Click(css("#history li:last-child button.rerun")),
		waitText("#history li:first-child .outcome", "ok"),
		chromedp.Click(css("#history li:nth-child(2) button.copy-mcp")),
		chromedp.Click(css("#history li:nth-child(2) button.copy-json")),
	)
	if n := eval[int](t, ctx, `document.querySelectorAll("#history li").length`); n != 3 {
		t.Errorf("%d calls in the history after a re-run", n)
	}
	target := filepath.Join(bin, "everything-server")
	if s := eval[string](t, ctx, `document.querySelector("#history li:nth-child(2) button.copy-mcp").dataset.copied`); s != "mcp call test_logging_tool "+target {
		t.Errorf("copied %q", s)
	}
	if s := eval[string](t, ctx, `document.querySelector("#history li:nth-child(2) button.copy-json").dataset.copied`); !strings.Contains(s, `"method": "tools/call"`) || !strings.Contains(s, `"name": "test_logging_tool"`) {
		t.Errorf("copied %q", s)
	}
	screenshot(t, ctx, "panes-history")

	// The keyboard: through the lists, to the search, the shortcuts.
	eval[bool](t, ctx, `document.activeElement.blur(), true`)
	do(t, ctx, key("j"), key("j"))
	if s := eval[string](t, ctx, `document.activeElement.dataset.name || ""`); s == "" {
		t.Error("j moved the focus to no item")
	}
	do(t, ctx, key("\r"), chromedp.WaitVisible(css("#detail h2")), key("/"))
	if s := eval[string](t, ctx, `document.activeElement.id`); s != "log-search" {
		t.Errorf("/ focused %q", s)
	}
	do(t, ctx, key("\x1b"), key("?"), chromedp.WaitVisible(css("#keys")), key("\x1b"), chromedp.WaitNotVisible(css("#keys")))

	// The themes: auto, light, dark, and again.
	for _, want := range []string{"light", "dark"} {
		do(t, ctx, chromedp.Click(css("#theme")), waitText("#theme", want))
		if s := eval[string](t, ctx, `document.documentElement.dataset.theme + " " + getComputedStyle(document.body).backgroundColor`); !strings.HasPrefix(s, want+" ") {
			t.Errorf("theme %q", s)
		}
	}
	bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`)
	if bg != "rgb(13, 17, 23)" {
		t.Errorf("dark background %s", bg)
	}
	screenshot(t, ctx, "panes-dark")
}
