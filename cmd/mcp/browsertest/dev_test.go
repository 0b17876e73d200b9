package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// devMain is the tiny server the mcp dev test builds: one tool, whose
// description is in desc.go, which the test rewrites.
const devMain = `package main

import (
	"context"
	"log"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

type In struct {
	Text string ` + "`json:\"text\"`" + `
}

type Out struct {
	Echo string ` + "`json:\"echo\"`" + `
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "devserver", Version: "1"}, nil)
	err := mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: description},
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
			return Out{Echo: "echo: " + in.Text}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background(), transport.Stdio()); err != nil {
		log.Fatal(err)
	}
}
`

func devDesc(description string) string {
	return fmt.Sprintf("package main\n\nconst description = %q\n", description)
}

// devModule writes a module holding the tiny server, with the SDK
// through a replace directive (and its requirements and go.sum, so that
// the build needs no network), and returns its directory.
func devModule(t *testing.T, description string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	_, reqs, _ := strings.Cut(string(gomod), "\nrequire")
	// No DWARF: the links, most of a build's time, are quicker.
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -ldflags=-w"))
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod": "module example.com/devserver\n\ngo 1.26.0\n\nrequire github.com/gomcp/sdk v0.0.0\n\nrequire" + reqs +
			"\nreplace github.com/gomcp/sdk => " + filepath.ToSlash(root) + "\n",
		"go.sum":  string(gosum),
		"main.go": devMain,
		"desc.go": devDesc(description),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startDev runs mcp dev on the package in dir and returns the page's URL.
func startDev(t *testing.T, dir string) string {
	t.Helper()
	return startPage(t, 10*time.Second, "dev", "--no-open", dir)
}

// TestDevInBrowser runs mcp dev on a tiny server and edits it while the
// page is open: after a change of the tool's description, the page
// reconnects to the rebuilt server and shows the new description in the
// tool's form, which still holds the argument typed before; a change that
// does not compile shows the compiler's output in the page, and the last
// server built still answers the form.
func TestDevInBrowser(t *testing.T) {
	dir := devModule(t, "echoes v1")
	ctx := browser(t, startDev(t, dir))
	const build = 3 * time.Minute // a Go build, on a busy machine
	field := `#tool-form input[name="text"]`
	doFor(t, ctx, build, waitText("#dev-banner", "(#1, "), waitText("#dev-banner", "server restarted"))
	do(t, ctx,
		waitText("#status", "devserver"),
		chromedp.Click(css(`button.tool[data-name="echo"]`)),
		waitText("#detail .desc", "echoes v1"),
		chromedp.SendKeys(css(field), "typed before"),
	)

	if err := os.WriteFile(filepath.Join(dir, "desc.go"), []byte(devDesc("echoes v2")), 0o600); err != nil {
		t.Fatal(err)
	}
	doFor(t, ctx, build, waitText("#dev-banner", "(#2, "), waitText("#detail .desc", "echoes v2"))
	if v := eval[string](t, ctx, `document.querySelector('`+field+`').value`); v != "typed before" {
		t.Errorf("after the rebuild the field holds %q", v)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('button.tool.selected[data-name="echo"]').length`); n != 1 {
		t.Errorf("the tool is not shown as picked after the rebuild (%d)", n)
	}
	screenshot(t, ctx, "dev-rebuilt")

	if err := os.WriteFile(filepath.Join(dir, "desc.go"), []byte("package main\n\nconst description = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doFor(t, ctx, build, waitText("#dev-banner.dev-failed .build-output", "desc.go:"))
	screenshot(t, ctx, "dev-build-error")
	do(t, ctx,
		chromedp.Click(css("#run")),
		waitText("#result", "echo: typed before"),
	)
	if s := text(t, ctx, "#status"); !strings.Contains(s, "devserver") {
		t.Errorf("status %q during the failed build", s)
	}
}
