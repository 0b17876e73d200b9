package hostconfig

import (
	"strings"
	"testing"
)

// TestPaths resolves every host's files on the rules of Linux, macOS and
// Windows, from the environment given.
func TestPaths(t *testing.T) {
	envs := map[string]Env{
		"linux": {GOOS: "linux", Home: "/home/ada", ProjectDir: "/src/shop"},
		"linux-xdg": {GOOS: "linux", ProjectDir: "/src/shop", Getenv: vars(map[string]string{
			"HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/.xdg", "CODEX_HOME": "/home/ada/.codex-alt", "CLAUDE_CONFIG_DIR": "/home/ada/.cc"})},
		"darwin": {GOOS: "darwin", Home: "/Users/ada", ProjectDir: "/Users/ada/src/shop"},
		"windows": {GOOS: "windows", ProjectDir: `C:\src\shop`, Getenv: vars(map[string]string{
			"USERPROFILE": `C:\Users\ada`, "APPDATA": `C:\Users\ada\AppData\Roaming`})},
		"windows-no-appdata": {GOOS: "windows", ProjectDir: `C:\src\shop`, Getenv: vars(map[string]string{"USERPROFILE": `C:\Users\ada`})},
	}
	want := map[string]map[string]string{
		"linux": {
			"claude-desktop user": "/home/ada/.config/Claude/claude_desktop_config.json",
			"claude-code user":    "/home/ada/.claude.json",
			"claude-code project": "/src/shop/.mcp.json",
			"cursor user":         "/home/ada/.cursor/mcp.json",
			"cursor project":      "/src/shop/.cursor/mcp.json",
			"vscode user":         "/home/ada/.config/Code/User/mcp.json",
			"vscode project":      "/src/shop/.vscode/mcp.json",
			"windsurf user":       "/home/ada/.codeium/windsurf/mcp_config.json",
			"codex user":          "/home/ada/.codex/config.toml",
			"codex project":       "/src/shop/.codex/config.toml",
			"gemini user":         "/home/ada/.gemini/settings.json",
			"gemini project":      "/src/shop/.gemini/settings.json",
		},
		"linux-xdg": {
			"claude-desktop user": "/home/ada/.xdg/Claude/claude_desktop_config.json",
			"claude-code user":    "/home/ada/.cc/.claude.json",
			"vscode user":         "/home/ada/.xdg/Code/User/mcp.json",
			"codex user":          "/home/ada/.codex-alt/config.toml",
			"cursor user":         "/home/ada/.cursor/mcp.json",
		},
		"darwin": {
			"claude-desktop user": "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
			"claude-code user":    "/Users/ada/.claude.json",
			"claude-code project": "/Users/ada/src/shop/.mcp.json",
			"cursor user":         "/Users/ada/.cursor/mcp.json",
			"vscode user":         "/Users/ada/Library/Application Support/Code/User/mcp.json",
			"vscode project":      "/Users/ada/src/shop/.vscode/mcp.json",
			"windsurf user":       "/Users/ada/.codeium/windsurf/mcp_config.json",
			"codex user":          "/Users/ada/.codex/config.toml",
			"gemini user":         "/Users/ada/.gemini/settings.json",
		},
		"windows": {
			"claude-desktop user": `C:\Users\ada\AppData\Roaming\Claude\claude_desktop_config.json`,
			"claude-code user":    `C:\Users\ada\.claude.json`,
			"claude-code project": `C:\src\shop\.mcp.json`,
			"cursor user":         `C:\Users\ada\.cursor\mcp.json`,
			"cursor project":      `C:\src\shop\.cursor\mcp.json`,
			"vscode user":         `C:\Users\ada\AppData\Roaming\Code\User\mcp.json`,
			"vscode project":      `C:\src\shop\.vscode\mcp.json`,
			"windsurf user":       `C:\Users\ada\.codeium\windsurf\mcp_config.json`,
			"codex user":          `C:\Users\ada\.codex\config.toml`,
			"codex project":       `C:\src\shop\.codex\config.toml`,
			"gemini user":         `C:\Users\ada\.gemini\settings.json`,
			"gemini project":      `C:\src\shop\.gemini\settings.json`,
		},
		"windows-no-appdata": {
			"claude-desktop user": `C:\Users\ada\AppData\Roaming\Claude\claude_desktop_config.json`,
			"vscode user":         `C:\Users\ada\AppData\Roaming\Code\User\mcp.json`,
		},
	}
	for osName, cases := range want {
		for what, p := range cases {
			id, scope, _ := strings.Cut(what, " ")
			h, ok := LookupHost(id)
			if !ok {
				t.Fatalf("no host %s", id)
			}
			got, err := h.Path(Scope(scope), envs[osName])
			if err != nil || got != p {
				t.Errorf("%s %s: %q, %v; want %q", osName, what, got, err, p)
			}
		}
	}
	for _, id := range []string{"claude-desktop", "windsurf"} {
		h, _ := LookupHost(id)
		if h.HasScope(Project) {
			t.Errorf("%s has a project scope", id)
		}
		if _, err := h.Path(Project, envs["linux"]); err == nil {
			t.Errorf("%s: a project path", id)
		}
	}
	if _, err := Hosts[0].Path(User, Env{GOOS: "linux"}); err == nil {
		t.Error("a path without a home")
	}
}

func vars(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestReferences writes environment references in each host's syntax, and
// refuses them where the host has none or cannot rename a variable.
func TestReferences(t *testing.T) {
	e := Entry{Name: "s", Command: "srv", EnvRefs: []Ref{{"API_KEY", "MY_KEY"}}}
	for id, want := range map[string]string{
		"claude-code": `"API_KEY": "${MY_KEY}"`, "cursor": `"API_KEY": "${env:MY_KEY}"`, "vscode": `"API_KEY": "${env:MY_KEY}"`,
		"windsurf": `"API_KEY": "${env:MY_KEY}"`, "gemini": `"API_KEY": "${MY_KEY}"`,
	} {
		h, _ := LookupHost(id)
		fs, err := h.render(h, e)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(renderJSON(fs, "", "  ")); !strings.Contains(got, want) {
			t.Errorf("%s: %s", id, got)
		}
	}
	desktop, _ := LookupHost("claude-desktop")
	if _, err := desktop.render(desktop, e); err == nil || !strings.Contains(err.Error(), "--env") {
		t.Errorf("Claude Desktop took a reference: %v", err)
	}
	if _, err := desktop.render(desktop, Entry{Name: "s", URL: "https://x/mcp"}); err == nil || !strings.Contains(err.Error(), "mcp proxy") {
		t.Errorf("Claude Desktop took a URL: %v", err)
	}
	codex, _ := LookupHost("codex")
	if _, err := codex.render(codex, e); err == nil || !strings.Contains(err.Error(), "own name") {
		t.Errorf("Codex renamed a variable: %v", err)
	}
	fs, err := codex.render(codex, Entry{Name: "s", Command: "srv", EnvRefs: []Ref{{"API_KEY", "API_KEY"}}})
	if err != nil || !strings.Contains(renderTOML("mcp_servers", "s", fs), `env_vars = ["API_KEY"]`) {
		t.Errorf("Codex: %v %v", fs, err)
	}
}

// TestEntryCheck refuses entries no host could take.
func TestEntryCheck(t *testing.T) {
	for _, e := range []Entry{
		{Name: "", Command: "x"},
		{Name: "a b", Command: "x"},
		{Name: strings.Repeat("a", 65), Command: "x"},
		{Name: "a"},
		{Name: "a", Command: "x", URL: "https://x"},
		{Name: "a", URL: "https://x", Env: []KV{{"A", "1"}}},
		{Name: "a", Command: "x", Headers: []KV{{"A", "1"}}},
		{Name: "a", Command: "x", EnvRefs: []Ref{{"A", "1BAD"}}},
		{Name: "a", URL: "https://x", BearerEnv: "NO-DASH"},
	} {
		if err := e.Check(); err == nil {
			t.Errorf("%+v accepted", e)
		}
	}
}
