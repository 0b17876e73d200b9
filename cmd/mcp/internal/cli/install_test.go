package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installHome makes a scratch home with Cursor's and Codex's example
// files in it (from hostconfig's testdata) and points the environment at
// it. The test must not be parallel.
func installHome(t *testing.T) (home string, cursor, codex []byte) {
	t.Helper()
	home = t.TempDir()
	for _, k := range []string{"XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	copyTo := func(sample, rel string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "hostconfig", "testdata", sample))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return data
	}
	return home, copyTo("mcp.json.cursor", ".cursor/mcp.json"), copyTo("config.toml", ".codex/config.toml")
}

func fileText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallCommand runs mcp install, list-installed and uninstall on
// Cursor's and Codex's files in a scratch home: dry run, install, the
// same again, a refusal that writes nothing anywhere, and uninstall back
// to the original bytes.
func TestInstallCommand(t *testing.T) {
	ctx := context.Background()
	home, cursor, codex := installHome(t)
	cursorPath, codexPath := filepath.Join(home, ".cursor", "mcp.json"), filepath.Join(home, ".codex", "config.toml")
	install := []string{"install", "--host", "cursor,codex", "--env-ref", "WEATHER_API_KEY", "--name", "weather", "--", "/opt/w/bin/weather", "--units", "metric"}

	code, out, errs := mcpRun(t, ctx, append([]string{"install", "--dry-run"}, install[1:]...)...)
	if code != ExitOK || !strings.Contains(out, `+    "weather": {`) || !strings.Contains(out, "+[mcp_servers.weather]") || !strings.Contains(out, "nothing written") {
		t.Fatalf("dry run: %d\n%s\n%s", code, out, errs)
	}
	if fileText(t, cursorPath) != string(cursor) || fileText(t, codexPath) != string(codex) {
		t.Fatal("the dry run wrote")
	}

	code, out, errs = mcpRun(t, ctx, install...)
	if code != ExitOK || strings.Count(out, "added \"weather\" to") != 2 {
		t.Fatalf("install: %d\n%s\n%s", code, out, errs)
	}
	if got := fileText(t, cursorPath); !strings.Contains(got, `"WEATHER_API_KEY": "${env:WEATHER_API_KEY}"`) || !strings.Contains(got, `"context7": {`) {
		t.Fatalf("cursor:\n%s", got)
	}
	if got := fileText(t, codexPath); !strings.Contains(got, "[mcp_servers.weather]\ncommand = \"/opt/w/bin/weather\"\nargs = [\"--units\", \"metric\"]\nenv_vars = [\"WEATHER_API_KEY\"]\n") {
		t.Fatalf("codex:\n%s", got)
	}
	if fileText(t, cursorPath+".bak") != string(cursor) {
		t.Fatal("no backup")
	}
	code, out, _ = mcpRun(t, ctx, install...)
	if code != ExitOK || strings.Count(out, "already there, unchanged") != 2 {
		t.Fatalf("again: %d\n%s", code, out)
	}

	// A host whose file does not parse: nothing is written anywhere.
	gemini := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(gemini), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileText(t, cursorPath)
	code, _, errs = mcpRun(t, ctx, "install", "--host", "cursor", "--host", "gemini", "--name", "other", "https://other.example.com/mcp")
	if code != ExitToolError || !strings.Contains(errs, gemini) || !strings.Contains(errs, "nothing written") {
		t.Fatalf("broken file: %d %s", code, errs)
	}
	if fileText(t, cursorPath) != before || fileText(t, gemini) != `{"mcpServers": {` {
		t.Fatal("written despite the refusal")
	}

	code, out, errs = mcpRun(t, ctx, "list-installed", "--json")
	var list struct {
		Servers []struct{ Host, Scope, Name, Command, URL string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != ExitToolError || !strings.Contains(errs, gemini) {
		t.Fatalf("list-installed: %d %v\n%s\n%s", code, err, out, errs)
	}
	seen := map[string]bool{}
	for _, s := range list.Servers {
		seen[s.Host+"/"+s.Scope+"/"+s.Name] = true
	}
	for _, k := range []string{"cursor/user/weather", "cursor/user/context7", "cursor/user/postgres", "codex/user/weather", "codex/user/context7", "codex/user/figma"} {
		if !seen[k] {
			t.Errorf("list-installed misses %s: %s", k, out)
		}
	}
	if err := os.Remove(gemini); err != nil {
		t.Fatal(err)
	}
	code, out, _ = mcpRun(t, ctx, "list-installed", "--host", "codex")
	if code != ExitOK || !strings.Contains(out, "HOST") || !strings.Contains(out, "/opt/w/bin/weather --units metric") || strings.Contains(out, "cursor") {
		t.Fatalf("table: %d\n%s", code, out)
	}

	code, out, errs = mcpRun(t, ctx, "uninstall", "weather")
	if code != ExitOK || strings.Count(out, "removed") != 2 {
		t.Fatalf("uninstall: %d\n%s\n%s", code, out, errs)
	}
	if fileText(t, cursorPath) != string(cursor) || fileText(t, codexPath) != string(codex) {
		t.Fatal("uninstall did not give back the original files")
	}
	if code, _, _ := mcpRun(t, ctx, "uninstall", "weather"); code != ExitToolError {
		t.Fatalf("uninstalling what is not there: %d", code)
	}
}

// TestInstallProjectScope writes a remote server with a bearer reference
// into a new .mcp.json of a project given with --project.
func TestInstallProjectScope(t *testing.T) {
	installHome(t)
	proj := t.TempDir()
	code, out, errs := mcpRun(t, context.Background(), "install", "--host", "claude-code", "--scope", "project", "--project", proj,
		"https://mcp.weather.example.com/mcp", "--bearer-env", "WEATHER_TOKEN", "--header", "X-Region: eu")
	if code != ExitOK || !strings.Contains(out, `added "weather"`) {
		t.Fatalf("%d\n%s\n%s", code, out, errs)
	}
	want := "{\n  \"mcpServers\": {\n    \"weather\": {\n      \"type\": \"http\",\n      \"url\": \"https://mcp.weather.example.com/mcp\",\n" +
		"      \"headers\": {\n        \"X-Region\": \"eu\",\n        \"Authorization\": \"Bearer ${WEATHER_TOKEN}\"\n      }\n    }\n  }\n}\n"
	if got := fileText(t, filepath.Join(proj, ".mcp.json")); got != want {
		t.Fatalf("%s", got)
	}
	if !strings.Contains(errs, "--header-ref") {
		t.Errorf("no note about the pasted header: %q", errs)
	}
}

// TestInstallUsage refuses command lines that name no host, no server, or
// a scope a host lacks.
func TestInstallUsage(t *testing.T) {
	installHome(t)
	ctx := context.Background()
	for _, args := range [][]string{
		{"install", "https://x.example.com/mcp"},
		{"install", "--host", "nope", "https://x.example.com/mcp"},
		{"install", "--host", "cursor"},
		{"install", "--host", "cursor", "--", "npx", "-y", "server"},
		{"install", "--host", "cursor", "--scope", "team", "https://x.example.com/mcp"},
		{"install", "--host", "cursor", "--all", "https://x.example.com/mcp"},
		{"install", "--host", "cursor", "--env", "NOVALUE", "--", "srv"},
		{"install", "--host", "cursor", "https://x.example.com/mcp", "extra"},
		{"uninstall"},
		{"list-installed", "extra"},
	} {
		if code, _, errs := mcpRun(t, ctx, args...); code != ExitUsage || errs == "" {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
	if code, _, errs := mcpRun(t, ctx, "install", "--all", "--scope", "project", "--project", t.TempDir(), "https://x.example.com/mcp"); code != ExitUsage || !strings.Contains(errs, "no host found") {
		t.Errorf("--all with no host: %d %s", code, errs)
	}
	if code, _, errs := mcpRun(t, ctx, "install", "--host", "windsurf", "--scope", "project", "https://x.example.com/mcp"); code != ExitToolError || !strings.Contains(errs, "no project scope") {
		t.Errorf("windsurf project: %d %s", code, errs)
	}
	if code, out, _ := mcpRun(t, ctx, "help", "install"); code != ExitOK || !strings.Contains(out, "--env-ref") {
		t.Errorf("help install: %d", code)
	}
}

// TestInstallAllSkips installs a URL with --all into the hosts found,
// skipping Claude Desktop, which takes no URL in its file.
func TestInstallAllSkips(t *testing.T) {
	home, _, _ := installHome(t)
	if err := os.MkdirAll(filepath.Join(home, ".config", "Claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := mcpRun(t, context.Background(), "install", "--all", "https://mcp.weather.example.com/mcp")
	if code != ExitOK || !strings.Contains(errs, "skipped Claude Desktop") || !strings.Contains(out, "Cursor (user): added") || !strings.Contains(out, "Codex (user): added") {
		t.Fatalf("%d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")); err == nil {
		t.Fatal("Claude Desktop's file written")
	}
}
