// Package hostconfig edits the MCP server lists of the hosts (Claude
// Desktop, Claude Code, Cursor, VS Code, Windsurf, Codex, Gemini CLI) in
// each host's own file and format, for mcp install, mcp uninstall and
// mcp list-installed.
//
// An edit is a splice: the bytes of the one entry are replaced, inserted
// or removed, and every other byte of the file (other entries, comments,
// key order, indentation) stays as it was. A file that does not parse is
// refused and left untouched, and every edit is checked by parsing the
// result: everything but the entry must decode as before, and the entry as
// intended, or nothing is written.
//
// The formats and paths, as the hosts document them (checked 2026-11):
//
//   - Claude Desktop: claude_desktop_config.json in ~/Library/Application
//     Support/Claude (macOS), %APPDATA%\Claude (Windows), ~/.config/Claude
//     (Linux); "mcpServers": {NAME: {command, args, env}}; stdio only (remote
//     servers are added in its Connectors settings) and no variable
//     expansion (modelcontextprotocol.io/quickstart/user).
//   - Claude Code: .mcp.json in the project (project scope) and the
//     top-level "mcpServers" of ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json
//     when set; user scope); {type: "stdio", command, args, env} or
//     {type: "http", url, headers}; ${VAR} is expanded in command, args, env,
//     url and headers (code.claude.com/docs/en/mcp).
//   - Cursor: ~/.cursor/mcp.json (global) and .cursor/mcp.json (project);
//     "mcpServers": {command, args, env} or {url, headers}; ${env:NAME} is
//     interpolated (cursor.com/docs/context/mcp).
//   - VS Code: .vscode/mcp.json (workspace) and mcp.json in the user profile
//     (Code/User beside settings.json); "servers": {type: "stdio", command,
//     args, env} or {type: "http", url, headers}, JSON with comments and
//     trailing commas; ${env:NAME} is expanded
//     (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
//   - Windsurf: ~/.codeium/windsurf/mcp_config.json; "mcpServers":
//     {command, args, env} or {serverUrl, headers}; ${env:NAME} is
//     interpolated (docs.windsurf.com/windsurf/cascade/mcp).
//   - Codex: $CODEX_HOME/config.toml, default ~/.codex/config.toml (user),
//     .codex/config.toml (a trusted project); [mcp_servers.NAME] with
//     command, args, env, env_vars (names of variables forwarded from the
//     user's environment), or url, http_headers, env_http_headers (header =
//     variable name), bearer_token_env_var (developers.openai.com/codex/mcp).
//   - Gemini CLI: ~/.gemini/settings.json (user) and .gemini/settings.json
//     (project), JSON with comments; "mcpServers": {command, args, env} or
//     {httpUrl, headers} for Streamable HTTP; $VAR and ${VAR} are expanded in
//     settings strings (geminicli.com/docs/tools/mcp-server).
package hostconfig

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// Scope says whose file an entry goes into: the user's, for every project,
// or one project's, shared with its repository.
type Scope string

// The scopes.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// Env is what path resolution reads: the operating system's rules, the
// environment and the home directory, given rather than read so that a
// test resolves the paths of Windows or macOS on Linux in a scratch home.
type Env struct {
	GOOS       string              // "linux", "darwin", "windows", ...
	Getenv     func(string) string // nil: no variables
	Home       string              // empty: $HOME, or %USERPROFILE% on Windows
	ProjectDir string              // the project of project scope
}

// OSEnv is the Env of this process, with dir as the project.
func OSEnv(goos, dir string) Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: goos, Getenv: os.Getenv, Home: home, ProjectDir: dir}
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// home is the user's home directory.
func (e Env) home() (string, error) {
	h := e.Home
	if h == "" && e.GOOS == "windows" {
		h = e.getenv("USERPROFILE")
	}
	if h == "" {
		h = e.getenv("HOME")
	}
	if h == "" {
		return "", errors.New("no home directory (set HOME)")
	}
	return h, nil
}

// join joins path elements with the separator of e.GOOS.
func (e Env) join(elem ...string) string {
	if e.GOOS != "windows" {
		return path.Join(elem...)
	}
	var parts []string
	for i, s := range elem {
		s = strings.ReplaceAll(s, "/", `\`)
		if i > 0 {
			s = strings.TrimLeft(s, `\`)
		}
		if i < len(elem)-1 {
			s = strings.TrimRight(s, `\`)
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, `\`)
}

// appConfig is the directory applications keep their settings in:
// %APPDATA% on Windows, ~/Library/Application Support on macOS,
// $XDG_CONFIG_HOME or ~/.config elsewhere.
func (e Env) appConfig() (string, error) {
	switch e.GOOS {
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d, nil
		}
		h, err := e.home()
		return e.join(h, "AppData", "Roaming"), err
	case "darwin":
		h, err := e.home()
		return e.join(h, "Library", "Application Support"), err
	}
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && path.IsAbs(d) {
		return d, nil
	}
	h, err := e.home()
	return e.join(h, ".config"), err
}

// inHome is a path under the home directory.
func inHome(elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		h, err := e.home()
		return e.join(append([]string{h}, elem...)...), err
	}
}

// inProject is a path under the project directory.
func inProject(elem ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		if e.ProjectDir == "" {
			return "", errors.New("no project directory")
		}
		return e.join(append([]string{e.ProjectDir}, elem...)...), nil
	}
}

// format is how a host's file is written.
type format int

const (
	jsonFile format = iota // JSON, with comments and trailing commas where the host allows them
	tomlFile               // TOML (Codex)
)

// Host is one application that runs MCP servers from a config file.
type Host struct {
	ID    string // the --host name: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini
	Title string // its name for people

	format  format
	key     string                    // the object or table of servers: mcpServers, servers, mcp_servers
	user    func(Env) (string, error) // the user scope's file; nil: none
	project func(Env) (string, error) // the project scope's file; nil: none
	ref     func(name string) string  // a reference to an environment variable; nil: none
	render  func(*Host, Entry) ([]field, error)
}

// Hosts lists every host mcp install knows, in the order they are shown.
var Hosts = []*Host{
	{ID: "claude-desktop", Title: "Claude Desktop", key: "mcpServers", render: renderPlain("url"),
		user: func(e Env) (string, error) {
			d, err := e.appConfig()
			return e.join(d, "Claude", "claude_desktop_config.json"), err
		}},
	{ID: "claude-code", Title: "Claude Code", key: "mcpServers", render: renderTyped("http"),
		ref: func(v string) string { return "${" + v + "}" },
		user: func(e Env) (string, error) {
			if d := e.getenv("CLAUDE_CONFIG_DIR"); d != "" {
				return e.join(d, ".claude.json"), nil
			}
			return inHome(".claude.json")(e)
		},
		project: inProject(".mcp.json")},
	{ID: "cursor", Title: "Cursor", key: "mcpServers", render: renderPlain("url"),
		ref:  func(v string) string { return "${env:" + v + "}" },
		user: inHome(".cursor", "mcp.json"), project: inProject(".cursor", "mcp.json")},
	{ID: "vscode", Title: "VS Code", key: "servers", render: renderTyped("http"),
		ref: func(v string) string { return "${env:" + v + "}" },
		user: func(e Env) (string, error) {
			d, err := e.appConfig()
			return e.join(d, "Code", "User", "mcp.json"), err
		},
		project: inProject(".vscode", "mcp.json")},
	{ID: "windsurf", Title: "Windsurf", key: "mcpServers", render: renderPlain("serverUrl"),
		ref:  func(v string) string { return "${env:" + v + "}" },
		user: inHome(".codeium", "windsurf", "mcp_config.json")},
	{ID: "codex", Title: "Codex", key: "mcp_servers", format: tomlFile, render: renderCodex,
		user: func(e Env) (string, error) {
			if d := e.getenv("CODEX_HOME"); d != "" {
				return e.join(d, "config.toml"), nil
			}
			return inHome(".codex", "config.toml")(e)
		},
		project: inProject(".codex", "config.toml")},
	{ID: "gemini", Title: "Gemini CLI", key: "mcpServers", render: renderPlain("httpUrl"),
		ref:  func(v string) string { return "${" + v + "}" },
		user: inHome(".gemini", "settings.json"), project: inProject(".gemini", "settings.json")},
}

// LookupHost finds a host by its ID.
func LookupHost(id string) (*Host, bool) {
	for _, h := range Hosts {
		if h.ID == id {
			return h, true
		}
	}
	return nil, false
}

// Accepts reports why the host cannot take e (a URL in Claude Desktop, a
// reference where it expands no variables), or nil.
func (h *Host) Accepts(e Entry) error {
	_, err := h.render(h, e)
	return err
}

// HasScope reports whether the host has a file of scope s.
func (h *Host) HasScope(s Scope) bool {
	if s == Project {
		return h.project != nil
	}
	return h.user != nil
}

// Path is the host's file of scope s.
func (h *Host) Path(s Scope, e Env) (string, error) {
	f := h.user
	if s == Project {
		f = h.project
	}
	if f == nil {
		return "", fmt.Errorf("%s has no %s scope", h.Title, s)
	}
	return f(e)
}

// Detected reports whether the host seems to be in use at scope s: its
// file, or the directory it would go in, exists (the project directory
// itself does not count, nor the home directory).
func (h *Host) Detected(s Scope, e Env) bool {
	p, err := h.Path(s, e)
	if err != nil {
		return false
	}
	if _, err := os.Stat(p); err == nil {
		return true
	}
	dir := path.Dir(strings.ReplaceAll(p, `\`, "/"))
	if dir == strings.ReplaceAll(e.ProjectDir, `\`, "/") || dir == strings.ReplaceAll(e.Home, `\`, "/") {
		return false
	}
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// Entry is one server as mcp install writes it: a command or a URL, with
// the environment or headers it is given.
type Entry struct {
	Name       string
	Command    string
	Args       []string
	Env        []KV  // variables with their values, written as given
	EnvRefs    []Ref // variables whose values the host takes from its own environment
	URL        string
	Headers    []KV  // headers with their values, written as given
	HeaderRefs []Ref // headers whose values the host takes from its environment
	BearerEnv  string
}

// KV is a name and its value.
type KV struct{ Key, Value string }

// Ref gives Name the value of the host's environment variable Var.
type Ref struct{ Name, Var string }

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	varPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

// Check reports what is wrong with e, for every host.
func (e Entry) Check() error {
	if !namePattern.MatchString(e.Name) {
		return fmt.Errorf("server name %q: use 1 to 64 letters, digits, - or _", e.Name)
	}
	if (e.Command == "") == (e.URL == "") {
		return errors.New("give either a command or a URL")
	}
	if e.URL != "" && (len(e.Env) > 0 || len(e.EnvRefs) > 0) {
		return errors.New("environment variables go with a command, not a URL")
	}
	if e.Command != "" && (len(e.Headers) > 0 || len(e.HeaderRefs) > 0 || e.BearerEnv != "") {
		return errors.New("headers go with a URL, not a command")
	}
	for _, r := range append(slicesClone(e.EnvRefs), e.HeaderRefs...) {
		if !varPattern.MatchString(r.Var) {
			return fmt.Errorf("%q is not an environment variable name", r.Var)
		}
	}
	if e.BearerEnv != "" && !varPattern.MatchString(e.BearerEnv) {
		return fmt.Errorf("%q is not an environment variable name", e.BearerEnv)
	}
	return nil
}

func slicesClone(r []Ref) []Ref { return append([]Ref(nil), r...) }

// field is one member of an entry as a host writes it; its value is a
// string, a []string, or a []KV (an object).
type field struct {
	key   string
	value any
}

// refsTo writes references with the host's syntax, or says that it has none.
func (h *Host) refsTo(kv []KV, refs []Ref, what string) ([]KV, error) {
	if len(refs) > 0 && h.ref == nil {
		return nil, fmt.Errorf("%s cannot take %s from the environment (no variable expansion): give the value with --env or --header instead", h.Title, what)
	}
	out := append([]KV(nil), kv...)
	for _, r := range refs {
		out = append(out, KV{r.Name, h.ref(r.Var)})
	}
	return out, nil
}

// headers are the entry's headers with references in the host's syntax.
func (h *Host) headers(e Entry) ([]KV, error) {
	hs, err := h.refsTo(e.Headers, e.HeaderRefs, "headers")
	if err != nil || e.BearerEnv == "" {
		return hs, err
	}
	if h.ref == nil {
		return nil, fmt.Errorf("%s cannot take headers from the environment", h.Title)
	}
	return append(hs, KV{"Authorization", "Bearer " + h.ref(e.BearerEnv)}), nil
}

// stdio is the command part of an entry, shared by the JSON hosts.
func (h *Host) stdio(e Entry) ([]field, error) {
	fs := []field{{"command", e.Command}}
	if len(e.Args) > 0 {
		fs = append(fs, field{"args", e.Args})
	}
	env, err := h.refsTo(e.Env, e.EnvRefs, "environment variables")
	if err != nil {
		return nil, err
	}
	if len(env) > 0 {
		fs = append(fs, field{"env", env})
	}
	return fs, nil
}

// renderPlain is the form of hosts that tell a remote server by its URL
// key (url, serverUrl, httpUrl) and carry no type.
func renderPlain(urlKey string) func(*Host, Entry) ([]field, error) {
	return func(h *Host, e Entry) ([]field, error) {
		if e.URL == "" {
			return h.stdio(e)
		}
		if h.ID == "claude-desktop" {
			return nil, errors.New("remote servers go in its Settings > Connectors, not in its file; or install a local bridge: mcp install --host claude-desktop --name " + e.Name + " -- mcp proxy " + e.URL)
		}
		fs := []field{{urlKey, e.URL}}
		hs, err := h.headers(e)
		if len(hs) > 0 {
			fs = append(fs, field{"headers", hs})
		}
		return fs, err
	}
}

// renderTyped is the form of hosts whose entries carry a type: stdio, or
// remoteType for Streamable HTTP.
func renderTyped(remoteType string) func(*Host, Entry) ([]field, error) {
	return func(h *Host, e Entry) ([]field, error) {
		if e.URL == "" {
			fs, err := h.stdio(e)
			return append([]field{{"type", "stdio"}}, fs...), err
		}
		fs := []field{{"type", remoteType}, {"url", e.URL}}
		hs, err := h.headers(e)
		if len(hs) > 0 {
			fs = append(fs, field{"headers", hs})
		}
		return fs, err
	}
}

// renderCodex is a [mcp_servers.NAME] table: Codex forwards variables by
// name (env_vars) and takes header values from variables by name
// (env_http_headers, bearer_token_env_var), so a reference that renames a
// variable cannot be written.
func renderCodex(h *Host, e Entry) ([]field, error) {
	if e.URL == "" {
		fs := []field{{"command", e.Command}}
		if len(e.Args) > 0 {
			fs = append(fs, field{"args", e.Args})
		}
		if len(e.Env) > 0 {
			fs = append(fs, field{"env", e.Env})
		}
		var names []string
		for _, r := range e.EnvRefs {
			if r.Name != r.Var {
				return nil, fmt.Errorf("a variable is forwarded only under its own name (env_vars): use --env-ref %s, not %s=%s", r.Name, r.Name, r.Var)
			}
			names = append(names, r.Var)
		}
		if len(names) > 0 {
			fs = append(fs, field{"env_vars", names})
		}
		return fs, nil
	}
	fs := []field{{"url", e.URL}}
	if e.BearerEnv != "" {
		fs = append(fs, field{"bearer_token_env_var", e.BearerEnv})
	}
	if len(e.Headers) > 0 {
		fs = append(fs, field{"http_headers", e.Headers})
	}
	if len(e.HeaderRefs) > 0 {
		var kv []KV
		for _, r := range e.HeaderRefs {
			kv = append(kv, KV{r.Name, r.Var})
		}
		fs = append(fs, field{"env_http_headers", kv})
	}
	return fs, nil
}
