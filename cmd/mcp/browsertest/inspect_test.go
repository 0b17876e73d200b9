package browsertest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// bin holds the mcp and everything-server binaries, built by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-browsertest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	for _, pkg := range []string{"./cmd/mcp", "./conformance/everything-server", "./examples/appserver", "./cmd/mcp/browsertest/appview"} {
		cmd := exec.Command("go", "build", "-o", dir, pkg)
		cmd.Dir = filepath.Join("..", "..", "..") // the SDK module
		if strings.HasPrefix(pkg, "./cmd/mcp/browsertest/") {
			cmd = exec.Command("go", "build", "-o", dir, "./"+strings.TrimPrefix(pkg, "./cmd/mcp/browsertest/"))
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// chromium finds the browser: $CHROMIUM, or chromium on $PATH
// (scripts/test.sh installs Debian's).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on $PATH: install it (apt-get install -y chromium) or set $CHROMIUM")
	return ""
}

// startInspector runs mcp inspect on target and returns the page's URL.
func startInspector(t *testing.T, target ...string) string {
	t.Helper()
	return startPage(t, 5*time.Second, append([]string{"inspect"}, target...)...)
}

// startPage runs mcp with args, a command that serves the inspector's
// page and prints "inspector at URL" first, and returns the URL. At the
// test's end the command is interrupted, and killed after grace.
func startPage(t *testing.T, grace time.Duration, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "mcp"), args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("mcp %s printed no address: %v", args[0], err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "inspector at ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	return url
}

// browser opens a headless Chromium for the test on the page at url.
func browser(t *testing.T, url string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first run starts the browser, which lives as long as its context:
	// no timeout on that one.
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// do runs steps in the browser, failing the test after 30 seconds.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	doFor(t, ctx, 30*time.Second, steps...)
}

// doFor runs steps in the browser, failing the test after d: for the
// slow ones, such as rendering a view of megabytes on a busy machine.
func doFor(t *testing.T, ctx context.Context, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%v\n%s", err, pageState(ctx))
	}
}

// pageState returns what a failing step's page showed: its status and
// the tail of its live log, for the failure's message.
func pageState(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var b strings.Builder
	for _, sel := range []string{"#status", "#log"} {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.textContent : "(none)"; })()`, sel)))
		if err != nil {
			s = err.Error()
		}
		if len(s) > 4000 {
			s = "…" + s[len(s)-4000:]
		}
		fmt.Fprintf(&b, "page %s: %s\n", sel, s)
	}
	return b.String()
}

// text returns the text of the first element matching sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return s
}

// waitText waits until the text of the first element matching sel
// contains want; opts may name the frame (chromedp.FromNode).
func waitText(sel, want string, opts ...chromedp.QueryOption) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var got string
		for {
			s, err := chromedp.Text(chromedp.CSS(sel), opts...)(ctx, t)
			if err == nil {
				got = s
				if strings.Contains(got, want) {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: waiting for %q, have %q: %w", sel, want, got, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// TestInspectInBrowser opens the inspector on the demo server, calls a tool
// through its generated form, then connects to another server from the
// page and answers an elicitation and a sampling request there.
func TestInspectInBrowser(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "mcp"), "serve")
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	// A tool called through the form built from its input schema.
	do(t, ctx,
		waitText("#status", "gomcp demo server"),
		chromedp.Click(css(`button.tool[data-name="greet"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="name"]`), "Go"),
		chromedp.SetValue(css(`#tool-form select[name="style"]`), `"loud"`),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "HELLO, GO!"),
		// The live log has both directions of the call.
		waitText("#log", "tools/call"),
	)
	// The form's call, copied as a command line without running it.
	do(t, ctx, chromedp.Click(css("#tool-form button.copy-mcp")))
	if s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#tool-form button.copy-mcp").dataset.copied`)); err != nil || s != `mcp call greet --args '{"name":"Go","style":"loud"}' `+filepath.Join(bin, "mcp")+" serve" {
		t.Errorf("copied %q (%v)", s, err)
	}
	// The demo server runs no tasks (at 2026-07-28 too): the form does
	// not offer to run the call as one.
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#as-task").length`)); err != nil || n != 0 {
		t.Errorf(`"run as a task" offered to a server without tasks (%d, %v)`, n, err)
	}
	if s := text(t, ctx, "#result .structured-content"); !strings.Contains(s, `"greeting": "HELLO, GO!"`) {
		t.Errorf("structuredContent shown as %q", s)
	}
	if s := text(t, ctx, "#result .structured"); !strings.Contains(s, "outputSchema") || !strings.Contains(s, `"greeting"`) {
		t.Errorf("output schema not shown next to the structured output: %q", s)
	}
	log := text(t, ctx, "#log")
	for _, want := range []string{"→ tools/call", "← result", `"name":"greet"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	// Another target, without restarting: the everything server over stdio.
	do(t, ctx,
		chromedp.SetValue(css("#target"), filepath.Join(bin, "everything-server")),
		chromedp.Click(css("#connect")),
		waitText("#status", "gomcp-everything-server"),
		chromedp.Click(css(`button.tool[data-name="test_elicitation"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="message"]`), "Who are you?"),
		chromedp.Click(css("#run")),
		// The server's question, answered in the page.
		waitText(".question.elicit", "Who are you?"),
		chromedp.SendKeys(css(`.question.elicit input[name="username"]`), "alice"),
		chromedp.SendKeys(css(`.question.elicit input[name="email"]`), "alice@example.com"),
		chromedp.Click(css(".question.elicit button.accept")),
		waitText("#result pre.text", "action: accept"),
	)
	if s := text(t, ctx, "#result pre.text"); !strings.Contains(s, `"username":"alice"`) || !strings.Contains(s, `"email":"alice@example.com"`) {
		t.Errorf("elicitation result %q", s)
	}

	// Sampling: the user writes the model's reply.
	do(t, ctx,
		chromedp.Click(css(`button.tool[data-name="test_sampling"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="prompt"]`), "What is 2+2?"),
		chromedp.Click(css("#run")),
		waitText(".question.sample", "What is 2+2?"),
		chromedp.SendKeys(css(`.question.sample textarea[name="reply"]`), "four"),
		chromedp.Click(css(".question.sample button.accept")),
		waitText("#result pre.text", "LLM response: four"),
	)

	// Images are shown, embedded resources too.
	do(t, ctx,
		chromedp.Click(css(`button.tool[data-name="test_multiple_content_types"]`)),
		chromedp.Click(css("#run")),
		chromedp.WaitVisible(css("#result .block.image img")),
		chromedp.WaitVisible(css("#result .block.resource")),
	)
	src, err := chromedp.Run(ctx, chromedp.AttributeValue(css("#result .block.image img"), "src"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(src.Value, "data:image/png;base64,") {
		t.Errorf("image src %.40q", src.Value)
	}

	// Progress is shown while a tool runs.
	do(t, ctx,
		chromedp.Click(css(`button.tool[data-name="test_tool_with_progress"]`)),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "Progress test completed"),
		waitText("#progress-text", "100/100"),
	)

	// Without the token the browser gets nothing.
	base := url[:strings.LastIndex(strings.TrimSuffix(url, "/"), "/")+1]
	do(t, ctx, chromedp.Navigate(base), waitText("body", "has a token"))
}

// TestInspectWithoutServer: a target that cannot be reached leaves the page
// up, saying why, with the target in the box to fix and connect again.
func TestInspectWithoutServer(t *testing.T) {
	url := startInspector(t, "http://127.0.0.1:1/mcp")
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	// The status says why ("disconnected: ..." from the feed, or "not
	// connected: ..." from the state, whichever the page heard last).
	do(t, ctx, waitText("#status", "connection refused"))
	v, err := chromedp.Run(ctx, chromedp.Value(css("#target")))
	if err != nil {
		t.Fatal(err)
	}
	if v != "http://127.0.0.1:1/mcp" {
		t.Errorf("target box %q", v)
	}
	do(t, ctx,
		chromedp.SetValue(css("#target"), filepath.Join(bin, "mcp")+" serve"),
		chromedp.Click(css("#connect")),
		waitText("#status", "gomcp demo server"),
		chromedp.WaitVisible(css(`button.tool[data-name="greet"]`)),
	)
}

// TestInspectElicitationURL: the page makes a URL-mode elicitation's URL a
// link only when it is http or https. The mcp process already refuses the
// others; here the page is handed them directly, as if it had not.
func TestInspectElicitationURL(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "mcp"), "serve")
	ctx := browser(t, url)
	do(t, ctx, waitText("#status", "gomcp demo server"))
	const script = `(() => {
  const urls = {901: "javascript:document.title='pwned'", 902: " JavaScript:alert(1)",
    903: "data:text/html,<script>alert(1)</script>", 904: "file:///etc/passwd", 905: "https://example.com/login"};
  for (const [id, url] of Object.entries(urls)) showElicit(Number(id), {mode: "url", message: "m" + id, url});
  return JSON.stringify(Object.keys(urls).map((id) => {
    const c = document.querySelector('.question.elicit[data-id="' + id + '"]');
    return {id, links: [...c.querySelectorAll("a")].map((a) => a.getAttribute("href")),
      refused: !!c.querySelector(".refused-url"), done: !!c.querySelector("button.accept")};
  }));
})()`
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := chromedp.Run(ectx, chromedp.Evaluate[string](script))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"901","links":[],"refused":true,"done":false},` +
		`{"id":"902","links":[],"refused":true,"done":false},` +
		`{"id":"903","links":[],"refused":true,"done":false},` +
		`{"id":"904","links":[],"refused":true,"done":false},` +
		`{"id":"905","links":["https://example.com/login"],"refused":false,"done":true}]`
	if got != want {
		t.Errorf("cards:\n got %s\nwant %s", got, want)
	}
}

// TestInspectFailedSwitch: connecting to a command that does not exist
// leaves the page disconnected: the previous server's lists are gone, and
// nothing of it can be called.
func TestInspectFailedSwitch(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "mcp"), "serve")
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	missing := filepath.Join(t.TempDir(), "no-such-server")
	do(t, ctx,
		chromedp.WaitVisible(css(`button.tool[data-name="greet"]`)),
		chromedp.Click(css(`button.tool[data-name="greet"]`)),
		chromedp.SetValue(css("#target"), missing),
		chromedp.Click(css("#connect")),
		waitText("#status", "no-such-server"),
	)
	// The page shows the failed call's error as soon as it returns, and
	// clears the lists when the feed's "disconnected" event arrives: either
	// may come first, so the lists get a moment. (The roots are the
	// user's, kept across servers.)
	var n int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		n, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("nav ul:not(#roots) button, #tool-form").length`))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			break
		}
	}
	if n != 0 {
		t.Errorf("%d buttons and forms of the previous server are still shown", n)
	}
}

// TestInspectEnumTitles: the server's form shows each enum choice by its
// title, multi-select ones too, and sends its value.
func TestInspectEnumTitles(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "everything-server"))
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do(t, ctx,
		chromedp.Click(css(`button.tool[data-name="test_elicitation_sep1330_enums"]`)),
		chromedp.Click(css("#run")),
		waitText(".question.elicit", "Please choose your options"),
	)
	form := text(t, ctx, ".question.elicit")
	for _, want := range []string{"First Option", "Option Two", "First Choice", "Second Choice", "Third Choice"} {
		if !strings.Contains(form, want) {
			t.Errorf("the form lacks %q:\n%s", want, form)
		}
	}
	do(t, ctx,
		chromedp.Click(css(`.question.elicit input[name="titledMulti"][value="value2"]`)),
		chromedp.Click(css(".question.elicit button.accept")),
		waitText("#result pre.text", "action=accept"),
	)
	if s := text(t, ctx, "#result pre.text"); !strings.Contains(s, `"titledMulti":["value2"]`) {
		t.Errorf("result %q", s)
	}
}

// TestInspectTasksAndRoots: a tool run as a task from the page shows the
// task's status in the Tasks list and its result when done, and a task can
// be cancelled there; the Roots panel lists the roots of --root, and those
// added or removed on the page are what the server gets.
func TestInspectTasksAndRoots(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	url := startInspector(t, "--root", first, "--protocol-version", "2025-11-25", filepath.Join(bin, "everything-server"))
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do(t, ctx,
		waitText("#status", "2025-11-25"),
		waitText("#roots", "file://"+first),
		// An optional task, asked for with the box.
		chromedp.Click(css(`button.tool[data-name="slow_compute"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="seconds"]`), "0.3"),
		chromedp.SendKeys(css(`#tool-form input[name="label"]`), "b"),
		chromedp.Click(css("#as-task")),
		chromedp.Click(css("#run")),
		waitText("#result pre.text", "computed b after 0.3s"),
		waitText("#tasks", "completed"),
		// A long one, cancelled from the Tasks list.
		chromedp.Click(css(`button.tool[data-name="slow_compute"]`)),
		chromedp.SendKeys(css(`#tool-form input[name="seconds"]`), "60"),
		chromedp.Click(css("#as-task")),
		chromedp.Click(css("#run")),
		// (after its last status before the wait: a new status redraws
		// the entry, button included)
		waitText("#tasks li:first-child", "computing"),
		chromedp.Click(css("#tasks li:first-child button.task-cancel")),
		waitText("#tasks li:first-child", "cancelled"),
		waitText("#result .error", "cancel"),
		// A required task needs no box.
		chromedp.Click(css(`button.tool[data-name="failing_job"]`)),
		chromedp.Click(css("#run")),
		waitText("#result", "the job failed"),
	)

	// Roots: the server asks for them; the page changes them.
	listRoots := []chromedp.Action[chromedp.Void]{
		chromedp.Click(css(`button.tool[data-name="test_input_required_result_list_roots"]`)),
		chromedp.Click(css("#run")),
	}
	do(t, ctx, append(listRoots, waitText("#result pre.text", "Roots: file://"+first))...)
	do(t, ctx,
		chromedp.SetValue(css("#root-dir"), second),
		chromedp.Click(css("#root-add")),
		waitText("#roots", "file://"+second),
		chromedp.Click(css(`#roots li[data-uri="file://`+first+`"] button.root-remove`)),
	)
	do(t, ctx, append(listRoots, waitText("#result pre.text", "Roots: file://"+second))...)
	if s := text(t, ctx, "#roots"); strings.Contains(s, first) {
		t.Errorf("removed root still listed: %q", s)
	}
	do(t, ctx,
		chromedp.SetValue(css("#root-dir"), filepath.Join(second, "missing")),
		chromedp.Click(css("#root-add")),
		waitText("#root-error", "missing"),
	)
}

// TestInspectCompletion: typing in a prompt's argument field offers the
// server's completions for it.
func TestInspectCompletion(t *testing.T) {
	url := startInspector(t, filepath.Join(bin, "everything-server"))
	ctx := browser(t, url)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do(t, ctx,
		chromedp.Click(css(`button.prompt[data-name="test_prompt_with_arguments"]`)),
		chromedp.SendKeys(css(`#detail input[name="arg1"]`), "ab"),
	)
	const script = `[...document.querySelectorAll("#complete-arg1 option")].map((o) => o.value).join(",")`
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](script))
		if err != nil {
			t.Fatal(err)
		}
		if got == "ab-completed" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("suggestions %q, want ab-completed", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
