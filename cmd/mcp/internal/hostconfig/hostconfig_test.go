package hostconfig

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// scratch is a home and a project directory in t.TempDir, and the Env
// that resolves paths in them (on this machine's rules).
func scratch(t *testing.T) Env {
	t.Helper()
	dir := t.TempDir()
	home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "APPDATA": filepath.Join(home, "AppData", "Roaming")}
	return Env{GOOS: runtime.GOOS, Home: home, ProjectDir: proj, Getenv: func(k string) string { return vars[k] }}
}

// place copies testdata/sample to the host's file of scope s.
func place(t *testing.T, h *Host, s Scope, env Env, sample string, mode os.FileMode) (string, []byte) {
	t.Helper()
	p, err := h.Path(s, env)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", sample))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// samples are real host files that already hold entries of their own.
var samples = []struct {
	host   string
	scope  Scope
	sample string
	others []string
}{
	{"claude-desktop", User, "claude_desktop_config.json", []string{"filesystem", "github"}},
	{"claude-code", Project, "mcp.json.claude-code", []string{"sentry", "db"}},
	{"claude-code", User, "claude.json", []string{"linear"}},
	{"cursor", User, "mcp.json.cursor", []string{"context7", "postgres"}},
	{"cursor", Project, "mcp.json.cursor", []string{"context7", "postgres"}},
	{"vscode", Project, "mcp.json.vscode", []string{"perplexity", "github"}},
	{"vscode", User, "mcp.json.vscode", []string{"perplexity", "github"}},
	{"windsurf", User, "mcp_config.json", []string{"git", "tidewave"}},
	{"codex", User, "config.toml", []string{"context7", "figma"}},
	{"codex", Project, "config.toml", []string{"context7", "figma"}},
	{"gemini", User, "settings.json.gemini", []string{"pythonTools", "github"}},
	{"gemini", Project, "settings.json.gemini", []string{"pythonTools", "github"}},
}

// stdioEntry and remoteEntry are what the tests install.
func stdioEntry(h *Host) Entry {
	e := Entry{Name: "weather", Command: "/opt/weather/bin/weather-mcp", Args: []string{"--units", "metric", `C:\dir "quoted" <&>`},
		Env: []KV{{"LOG_LEVEL", "debug"}}}
	if h.ID != "claude-desktop" {
		e.EnvRefs = []Ref{{"WEATHER_API_KEY", "WEATHER_API_KEY"}}
	}
	return e
}

func remoteEntry() Entry {
	return Entry{Name: "weather-remote", URL: "https://weather.example.com/mcp", Headers: []KV{{"X-Region", "eu"}},
		HeaderRefs: []Ref{{"X-Api-Key", "WEATHER_API_KEY"}}, BearerEnv: "WEATHER_TOKEN"}
}

// otherSpans are the exact bytes of every other entry of the file, and the
// bytes before and after its servers object (JSON) or its first server
// table (TOML).
func otherSpans(t *testing.T, h *Host, src []byte, others []string) (spans []string, prefix string, suffix string) {
	t.Helper()
	if h.format == tomlFile {
		for _, name := range others {
			b, found, _, err := findTOMLEntry(src, h.key, name)
			if err != nil || !found {
				t.Fatalf("%s not found in the sample: %v", name, err)
			}
			spans = append(spans, string(src[b.start:b.end]))
		}
		first := bytes.Index(src, []byte("[mcp_servers."))
		return spans, string(src[:first]), ""
	}
	san, err := sanitize(src)
	if err != nil {
		t.Fatal(err)
	}
	_, servers, _, err := jsonServers(san, h.key)
	if err != nil || servers == nil {
		t.Fatalf("no servers in the sample: %v", err)
	}
	for _, name := range others {
		i, _ := servers.find(name)
		if i < 0 {
			t.Fatalf("%s not in the sample", name)
		}
		m := servers.members[i]
		spans = append(spans, string(src[m.keyStart:m.valEnd]))
	}
	return spans, string(src[:servers.start]), string(src[servers.end:])
}

func mustPlan(t *testing.T, h *Host, s Scope, env Env, e Entry) *Change {
	t.Helper()
	c, err := Plan(h, s, env, e)
	if err != nil {
		t.Fatalf("%s %s: %v", h.ID, s, err)
	}
	return c
}

func apply(t *testing.T, c *Change) {
	t.Helper()
	if err := c.Apply(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInstallEveryHost installs a command and a URL into each host's real
// example file in a scratch home, and checks that the other entries and
// the rest of the file survive byte for byte, that the result is the
// golden one, that a second install changes nothing, that the old file is
// backed up with its mode, that an update touches only the entry, that
// list-installed sees every entry, and that uninstalling gives back the
// original file, byte for byte.
func TestInstallEveryHost(t *testing.T) {
	for _, tc := range samples {
		t.Run(tc.host+"-"+string(tc.scope), func(t *testing.T) {
			h, _ := LookupHost(tc.host)
			env := scratch(t)
			p, orig := place(t, h, tc.scope, env, tc.sample, 0o640)
			spans, prefix, suffix := otherSpans(t, h, orig, tc.others)

			c := mustPlan(t, h, tc.scope, env, stdioEntry(h))
			if c.Action != "added" || !strings.Contains(c.Diff(), "+") {
				t.Fatalf("action %q, diff:\n%s", c.Action, c.Diff())
			}
			apply(t, c)
			if bak := readFile(t, p+".bak"); !bytes.Equal(bak, orig) {
				t.Fatalf("the backup is not the original:\n%s", bak)
			}
			installed := []string{"weather"}
			if h.ID != "claude-desktop" {
				apply(t, mustPlan(t, h, tc.scope, env, remoteEntry()))
				installed = append(installed, "weather-remote")
			}
			got := readFile(t, p)
			for _, s := range spans {
				if !bytes.Contains(got, []byte(s)) {
					t.Errorf("an entry did not survive byte for byte:\n%s\n--- in ---\n%s", s, got)
				}
			}
			if !bytes.HasPrefix(got, []byte(prefix)) || !bytes.HasSuffix(got, []byte(suffix)) {
				t.Errorf("the rest of the file changed:\n%s", got)
			}
			golden(t, tc.host+"-"+string(tc.scope)+".golden", got)
			if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("mode not kept: %v %v", st.Mode(), err)
			}

			// Idempotent: the same entry again changes nothing.
			again := mustPlan(t, h, tc.scope, env, stdioEntry(h))
			if again.Action != "unchanged" || again.Changed() {
				t.Fatalf("second install: %s", again.Action)
			}
			apply(t, again)
			if !bytes.Equal(readFile(t, p), got) {
				t.Fatal("a second install changed the file")
			}

			// Listed, with the other entries.
			list, err := List(h, tc.scope, env)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]Installed{}
			for _, in := range list {
				names[in.Name] = in
			}
			for _, n := range append(append([]string(nil), tc.others...), installed...) {
				if _, ok := names[n]; !ok {
					t.Errorf("list-installed misses %s: %+v", n, list)
				}
			}
			if w := names["weather"]; w.Command != "/opt/weather/bin/weather-mcp" || len(w.Args) != 3 || w.File != p {
				t.Errorf("weather listed as %+v", w)
			}
			if len(installed) > 1 && names["weather-remote"].URL != "https://weather.example.com/mcp" {
				t.Errorf("weather-remote listed as %+v", names["weather-remote"])
			}

			// A changed entry is updated in place, and nothing else.
			changed := stdioEntry(h)
			changed.Args = []string{"--units", "imperial"}
			up := mustPlan(t, h, tc.scope, env, changed)
			if up.Action != "updated" {
				t.Fatalf("update: %s", up.Action)
			}
			apply(t, up)
			after := readFile(t, p)
			if !bytes.Contains(after, []byte("imperial")) || bytes.Contains(after, []byte("metric")) {
				t.Fatalf("not updated:\n%s", after)
			}
			for _, s := range spans {
				if !bytes.Contains(after, []byte(s)) {
					t.Errorf("an update damaged another entry:\n%s", s)
				}
			}
			if !bytes.Equal(readFile(t, p+".bak"), got) {
				t.Error("the backup is not the file before the update")
			}

			// Uninstalling both gives the original back, byte for byte.
			for _, n := range installed {
				rm, err := PlanRemove(h, tc.scope, env, n)
				if err != nil || rm.Action != "removed" {
					t.Fatalf("uninstall %s: %v %v", n, rm, err)
				}
				apply(t, rm)
			}
			if final := readFile(t, p); !bytes.Equal(final, orig) {
				t.Fatalf("after uninstall:\n%s\n--- want ---\n%s", final, orig)
			}
			if rm, err := PlanRemove(h, tc.scope, env, "weather"); err != nil || rm.Action != "absent" {
				t.Fatalf("uninstalling again: %v %v", rm, err)
			}
		})
	}
}

// golden compares got with testdata/golden/name (-update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -run TestInstallEveryHost -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestInstallNewFile creates each host's file where there is none.
func TestInstallNewFile(t *testing.T) {
	for _, h := range Hosts {
		for _, s := range []Scope{User, Project} {
			if !h.HasScope(s) {
				continue
			}
			env := scratch(t)
			c := mustPlan(t, h, s, env, stdioEntry(h))
			if c.Action != "added" || !strings.HasPrefix(c.Diff(), "--- /dev/null") {
				t.Fatalf("%s %s: %s\n%s", h.ID, s, c.Action, c.Diff())
			}
			apply(t, c)
			p, _ := h.Path(s, env)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			want := os.FileMode(0o600)
			if s == Project {
				want = 0o644
			}
			if runtime.GOOS != "windows" && st.Mode().Perm() != want {
				t.Errorf("%s: mode %v", p, st.Mode())
			}
			if _, err := os.Stat(p + ".bak"); err == nil {
				t.Errorf("%s: a backup of nothing", p)
			}
			list, err := List(h, s, env)
			if err != nil || len(list) != 1 || list[0].Name != "weather" {
				t.Errorf("%s %s: %+v %v", h.ID, s, list, err)
			}
			if again := mustPlan(t, h, s, env, stdioEntry(h)); again.Action != "unchanged" {
				t.Errorf("%s %s: second install %s", h.ID, s, again.Action)
			}
		}
	}
}

// TestRefuseUnparsable leaves a file that does not parse as it is, with
// no backup, whether installing, uninstalling or listing.
func TestRefuseUnparsable(t *testing.T) {
	broken := map[format][]string{
		jsonFile: {`{"mcpServers": {"a": {"command": "x",}`, `{"mcpServers": {"a": 1} /* open`, `[1, 2]`,
			`{"mcpServers": []}`, `{"mcpServers": {}, "mcpServers": {}}`, "{\"mcpServers\": {\"weather\": {}, \"weather\": {}}}", `{"a": "unterminated}`},
		tomlFile: {"[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", "model = \n", "[mcp_servers.a\n",
			"mcp_servers = { weather = { command = \"x\" } }\n", "[mcp_servers]\nweather.command = \"x\"\n"},
	}
	for _, h := range Hosts {
		for _, content := range broken[h.format] {
			content = strings.ReplaceAll(content, "mcpServers", h.key)
			env := scratch(t)
			s := User
			p, err := h.Path(s, env)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if c, err := Plan(h, s, env, stdioEntry(h)); err == nil {
				t.Errorf("%s: installed into %q:\n%s", h.ID, content, c.New)
			} else if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: the error does not name the file: %v", h.ID, err)
			}
			if c, err := PlanRemove(h, s, env, "weather"); err == nil && c.Changed() {
				t.Errorf("%s: uninstall edits %q", h.ID, content)
			}
			if got := readFile(t, p); string(got) != content {
				t.Errorf("%s: the file changed", h.ID)
			}
			if _, err := os.Stat(p + ".bak"); err == nil {
				t.Errorf("%s: a backup was written", h.ID)
			}
		}
	}
}

// TestApplyRefusesConcurrentChange writes nothing when the file changed
// between reading and writing it.
func TestApplyRefusesConcurrentChange(t *testing.T) {
	h, _ := LookupHost("cursor")
	env := scratch(t)
	p, _ := place(t, h, User, env, "mcp.json.cursor", 0o600)
	c := mustPlan(t, h, User, env, stdioEntry(h))
	if err := os.WriteFile(p, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("Apply: %v", err)
	}
	if string(readFile(t, p)) != `{"mcpServers": {}}` {
		t.Fatal("overwritten")
	}
}

// TestSymlinkKept edits the target of a linked file, not the link.
func TestSymlinkKept(t *testing.T) {
	h, _ := LookupHost("cursor")
	env := scratch(t)
	target := filepath.Join(env.ProjectDir, "dotfiles-mcp.json")
	if err := os.WriteFile(target, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := h.Path(User, env)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	apply(t, mustPlan(t, h, User, env, stdioEntry(h)))
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if !bytes.Contains(readFile(t, target), []byte("weather-mcp")) {
		t.Fatal("the target was not edited")
	}
}
