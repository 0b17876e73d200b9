package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// TestRootFlag: --root offers directories as file:// roots, on both kinds
// of session (a roots/list request, an input request of 2026-07-28), over
// stdio, HTTP and both kinds of proxy; without it no roots are declared.
func TestRootFlag(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	want := "Roots: " + fileURI(dir) + "," + fileURI(other)
	for _, w := range taskWays(t) {
		t.Run(w.name, func(t *testing.T) {
			args := append([]string{"--root", dir, "call", "--json", "--root=" + other, "test_input_required_result_list_roots"}, w.target...)
			wantField(t, runJSON(t, args...), want, "content", 0, "text")
			code, out, errs := mcpRun(t, context.Background(), append([]string{"call", "test_input_required_result_list_roots"}, w.target...)...)
			if code == ExitOK || strings.Contains(out+errs, "Roots: file") {
				t.Errorf("without --root: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
	code, _, errs := mcpRun(t, context.Background(), "--root", filepath.Join(dir, "missing"), "ping", everythingBin)
	if code != ExitUsage || !strings.Contains(errs, "missing") {
		t.Errorf("--root of a missing directory: exit %d, stderr %q", code, errs)
	}
}

func TestRootURIs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/a b/c", "file:///a%20b/c"},
		{"/", "file:///"},
		{"/x/#?", "file:///x/%23%3F"},
	} {
		if got := fileURI(c.in); got != c.want {
			t.Errorf("fileURI(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"file://host/x", "file://"} {
		if _, err := rootFor(bad); err == nil {
			t.Errorf("rootFor(%q): no error", bad)
		}
	}
}

// TestHoistCommand: flags before the command are moved after it.
func TestHoistCommand(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"call", "x"}, []string{"call", "x"}},
		{[]string{"--root", ".", "call", "x", "srv"}, []string{"call", "--root", ".", "x", "srv"}},
		{[]string{"--json", "-v", "tools", "srv"}, []string{"tools", "--json", "-v", "srv"}},
		{[]string{"--root=.", "--timeout", "1s", "ping", "srv"}, []string{"ping", "--root=.", "--timeout", "1s", "srv"}},
		{[]string{"--bogus", "ping"}, []string{"--bogus", "ping"}},
		{[]string{"--help"}, []string{"--help"}},
	} {
		if got := hoistCommand(c.in); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("hoistCommand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestShellRoots: roots add and remove change what roots/list answers and
// send notifications/roots/list_changed, on a 2025-11-25 session over HTTP.
func TestShellRoots(t *testing.T) {
	changed := make(chan struct{}, 16)
	s := mcp.NewServer(&mcp.Implementation{Name: "rooted", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.ServerSession) { changed <- struct{}{} },
	})
	err := mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		res, err := req.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return "roots=[" + strings.Join(uris, " ") + "]", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	url := serveHTTP(t, s, nil)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	input := strings.Join([]string{
		"call roots",
		"roots add " + dir + " " + sub,
		"call roots",
		"roots remove " + dir,
		"roots",
		"call roots",
		"roots remove " + dir, // not a root any more
		"roots add " + filepath.Join(dir, "nope"),
	}, "\n")
	code, out, errs := mcpRunInput(t, context.Background(), input, "shell", "--protocol-version", "2025-11-25", url)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "roots=[]\nroots=[" + fileURI(dir) + " " + fileURI(sub) + "]\n" + fileURI(sub) + "\nroots=[" + fileURI(sub) + "]\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr:\n%s", out, want, errs)
	}
	if !strings.Contains(errs, "is not a root") || !strings.Contains(errs, "nope") {
		t.Errorf("stderr: %s", errs)
	}
	for i := range 2 {
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d notifications/roots/list_changed, want 2", i)
		}
	}
}

// TestShellRootsAwaited: after roots add, the shell's next command waits
// for a server that keeps the roots (as server-filesystem does) to ask for
// them again and take them in, so that the command sees the new roots
// (issue 31, bug 6).
func TestShellRootsAwaited(t *testing.T) {
	var (
		mu     sync.Mutex
		cached []string
	)
	s := mcp.NewServer(&mcp.Implementation{Name: "caching", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(_ context.Context, ss *mcp.ServerSession) {
			// Asked after a moment, and applied when the answer comes.
			go func() {
				time.Sleep(50 * time.Millisecond)
				res, err := ss.ListRoots(context.Background(), nil)
				if err != nil {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				cached = cached[:0]
				for _, r := range res.Roots {
					cached = append(cached, r.URI)
				}
			}()
		},
	})
	err := mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		return "roots=[" + strings.Join(cached, " ") + "]", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	input := "roots add " + dir + "\ncall roots\n"
	code, out, errs := mcpRunInput(t, context.Background(), input, "shell", "--protocol-version", "2025-11-25", serveHTTP(t, s, nil))
	if want := "roots=[" + fileURI(dir) + "]\n"; code != ExitOK || out != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %q", code, out, want, errs)
	}
}
