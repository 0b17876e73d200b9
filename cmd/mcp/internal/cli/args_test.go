package cli

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// TestMissingEquals: an argument that lost its "=" is taken for the
// server's command, which is then not found: mcp says what it looks like,
// and so does the shell (issue 31, bug 8).
func TestMissingEquals(t *testing.T) {
	code, _, errs := mcpRun(t, context.Background(), "call", "echo", "nameAda", everythingBin)
	if code != ExitConnect || !strings.Contains(errs, `is "nameAda" a KEY=VALUE argument missing its "="?`) {
		t.Errorf("call: exit %d, stderr %q", code, errs)
	}
	code, _, errs = mcpRunInput(t, context.Background(), "call echo nameAda\n", "shell", "--exit-on-error", everythingBin)
	if code != ExitUsage || !strings.Contains(errs, `unexpected argument "nameAda": is its "=" missing?`) {
		t.Errorf("shell: exit %d, stderr %q", code, errs)
	}
}

// TestUnknownArgument: a KEY=VALUE the tool's input schema does not name
// is refused, with the names it does (issue 31, bug 8).
func TestUnknownArgument(t *testing.T) {
	url := serveHTTP(t, typedServer(t, nil, nil), nil)
	code, _, errs := mcpRun(t, context.Background(), "call", "echo", "n=1", "nmae=2", url)
	if code != ExitUsage || !strings.Contains(errs, "nmae: tool echo has no such argument; it takes b, f, l, n, o, path, s") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	v := runJSON(t, "call", "--json", "echo", "n=1", "s=x", url)
	wantField(t, v, float64(1), "structuredContent", "n")
}

// TestOutputOnce: mcp read prints no trailing space for a resource without
// a MIME type, and a result whose text is its structured content as JSON
// prints it once (issue 31, bug 8).
func TestOutputOnce(t *testing.T) {
	s := typedServer(t, nil, nil)
	err := s.AddResource(&mcp.Resource{URI: "mem://plain", Name: "plain"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: "mem://plain", Text: "hi"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	url := serveHTTP(t, s, nil)
	code, out, errs := mcpRun(t, context.Background(), "read", "mem://plain", url)
	if code != ExitOK || out != "[resource mem://plain]\nhi\n" {
		t.Errorf("read: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = mcpRun(t, context.Background(), "call", "echo", "n=3", url)
	if code != ExitOK || out != "{\"n\":3}\n" {
		t.Errorf("call: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestVersion: mcp version and mcp --version print the module's version
// (issue 31, bug 8).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"help", "version"}} {
		code, out, errs := mcpRun(t, context.Background(), args...)
		want := "mcp (devel)" // a test binary is built from a checkout
		if args[0] == "help" {
			want = "usage: mcp version"
		}
		if code != ExitOK || !strings.HasPrefix(out, want) || (args[0] != "help" && !strings.Contains(out, "go1.")) {
			t.Errorf("mcp %q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: "github.com/gomcp/sdk", Version: "v1.2.3"}}
	if got, want := moduleVersion(bi), "v1.2.3 (github.com/gomcp/sdk, go1.25.0)"; got != want {
		t.Errorf("installed: %q, want %q", got, want)
	}
	bi.Main.Version = "(devel)"
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}
	if got, want := moduleVersion(bi), "(devel) 0123456789ab+dirty (github.com/gomcp/sdk, go1.25.0)"; got != want {
		t.Errorf("from a checkout: %q, want %q", got, want)
	}
}

// TestTaskIDWithDash: a task id may start with '-' (base64url): where mcp
// tasks wants one, it is not taken for a flag (seen as a flaky
// TestTasksCommands).
func TestTaskIDWithDash(t *testing.T) {
	inv := &invocation{}
	if err := inv.parse("tasks", 0, []string{"get", "-hfJla60_FiLUd0T2DlUzg", "--json", "http://h/mcp"}, new(bool)); err != nil {
		t.Fatal(err)
	}
	if len(inv.pos) != 2 || inv.pos[1] != "-hfJla60_FiLUd0T2DlUzg" || !inv.json || inv.target[0] != "http://h/mcp" {
		t.Errorf("pos %q, json %v, target %q", inv.pos, inv.json, inv.target)
	}
	inv = &invocation{}
	if err := inv.parse("tasks", 0, []string{"get", "--json", "abc", "http://h/mcp"}, new(bool)); err != nil || len(inv.pos) != 2 || inv.pos[1] != "abc" || !inv.json {
		t.Errorf("a flag before the id: pos %q, json %v, %v", inv.pos, inv.json, err)
	}
	inv = &invocation{}
	if err := inv.parse("tasks", 0, []string{"get", "--json", "-hfJla60", "http://h/mcp"}, new(bool)); err != nil || len(inv.pos) != 2 || inv.pos[1] != "-hfJla60" || !inv.json {
		t.Errorf("a flag before an id with a dash: pos %q, json %v, %v", inv.pos, inv.json, err)
	}
}
