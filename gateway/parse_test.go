package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testEnv is the environment the table's files are expanded from.
var testEnv = map[string]string{
	"API_KEY":            "k-123",
	"AIRTABLE_API_KEY":   "air-456",
	"PERPLEXITY_API_KEY": "pplx-789",
	"AUTH_TOKEN":         "tok",
	"EMPTY":              "",
	"NEWLINE":            "a\r\nX-Injected: yes",
}

func lookupTest(name string) (string, bool) {
	v, ok := testEnv[name]
	return v, ok
}

func ptr[T any](v T) *T { return &v }

// TestParseConfigHostFiles reads the configuration files of the hosts, as
// their documentation shows them, unchanged.
func TestParseConfigHostFiles(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want *Config
	}{
		{"claude_desktop_config.json", &Config{Servers: map[string]*Upstream{
			"filesystem": {Type: TransportStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/Users/username/Downloads"}},
			"github": {Type: TransportStdio, Command: "docker", Args: []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
				Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"}},
		}}},
		{"cursor_mcp.json", &Config{Servers: map[string]*Upstream{
			"server-name":   {Type: TransportStdio, Command: "npx", Args: []string{"-y", "mcp-server"}, Env: map[string]string{"API_KEY": "k-123"}},
			"remote-server": {Type: TransportHTTP, URL: "http://localhost:3000/mcp", Headers: map[string]string{"API_KEY": "value"}},
			"legacy-sse":    {Type: TransportSSE, URL: "https://example.com/sse"},
		}}},
		{"claude_code_mcp.json", &Config{Servers: map[string]*Upstream{
			"api-server":    {Type: TransportHTTP, URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer k-123"}},
			"shared-server": {Type: TransportStdio, Command: "/path/to/server", Args: []string{}, Env: map[string]string{}},
			"airtable":      {Type: TransportStdio, Command: "npx", Args: []string{"-y", "airtable-mcp-server"}, Env: map[string]string{"AIRTABLE_API_KEY": "air-456"}},
		}}},
		{"vscode_mcp.json", &Config{Servers: map[string]*Upstream{
			"Perplexity": {Type: TransportStdio, Command: "npx", Args: []string{"-y", "server-perplexity-ask"}, Env: map[string]string{"PERPLEXITY_API_KEY": "pplx-789"}},
			"github":     {Type: TransportHTTP, URL: "https://api.githubcopilot.com/mcp/"},
			"fetch":      {Type: TransportStdio, Command: "uvx", Args: []string{"mcp-server-fetch", "--ignore-robots-txt=//not-a-comment"}},
		}}},
		{"windsurf_mcp_config.json", &Config{Servers: map[string]*Upstream{
			"remote-http-mcp": {Type: TransportHTTP, URL: "https://your-server-url/mcp", Headers: map[string]string{"API_KEY": "tok"}},
			"git":             {Type: TransportStdio, Command: "uvx", Args: []string{"mcp-server-git", "--repository", home + "/src/project"}},
		}}},
		{"gateway.json", &Config{Separator: "__", Servers: map[string]*Upstream{
			"everything": {Type: TransportStdio, Command: "everything-server", Prefix: ptr(""), Timeout: 30 * time.Second, MaxConcurrency: 8},
			"search":     {Type: TransportHTTP, URL: "http://127.0.0.1:8080/mcp", Prefix: ptr("web")},
			"old":        {Command: "${NOT_SET_ANYWHERE}", Disabled: true},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "config", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseConfig(data, lookupTest)
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", dump(got), dump(tt.want))
			}
		})
	}
}

// dump shows a Config field by field, for a readable difference.
func dump(c *Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "separator %q\n", c.Separator)
	for name, u := range c.Servers {
		p := "<nil>"
		if u.Prefix != nil {
			p = fmt.Sprintf("%q", *u.Prefix)
		}
		fmt.Fprintf(&b, "%s: %+v prefix=%s\n", name, *u, p)
	}
	return b.String()
}

// TestParseConfigErrors: every mistake is refused with an error naming
// the server and what is wrong with it.
func TestParseConfigErrors(t *testing.T) {
	many := `{"mcpServers": {` + strings.TrimSuffix(strings.Repeat(`"s": {"command": "x"},`, 1), ",")
	for i := range maxServers {
		many += fmt.Sprintf(`, "s%d": {"command": "x"}`, i)
	}
	many += `}}`
	tests := []struct {
		name, json string
		want       []string // substrings of the error
	}{
		{"not JSON", `{"mcpServers": `, []string{"not JSON"}},
		{"array at the top", `[]`, []string{"want an object, not array"}},
		{"no servers", `{"globalShortcut": "x"}`, []string{"no servers"}},
		{"servers not an object", `{"mcpServers": []}`, []string{"must be an object"}},
		{"server not an object", `{"mcpServers": {"a": "npx"}}`, []string{`server "a"`, "want an object"}},
		{"server null", `{"mcpServers": {"a": null}}`, []string{`server "a"`, "want an object"}},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, []string{"needs a name"}},
		{"control in name", `{"mcpServers": {"a\nb": {"command": "x"}}}`, []string{"control character"}},
		{"long name", `{"mcpServers": {"` + strings.Repeat("n", maxNameLen+1) + `": {"command": "x"}}}`, []string{"longer than 128"}},
		{"twice in one object", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, []string{`server "a" is given twice`}},
		{"in mcpServers and servers", `{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`, []string{`server "a" is given twice`}},
		{"too many servers", many, []string{"more than 256 servers"}},
		{"neither command nor url", `{"mcpServers": {"a": {"args": ["x"]}}}`, []string{`server "a"`, "neither command nor url"}},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, []string{`server "a"`, "both command and url"}},
		{"unknown type", `{"mcpServers": {"a": {"type": "websocket", "url": "ws://h"}}}`, []string{`server "a"`, `type "websocket"`}},
		{"http type with a command", `{"mcpServers": {"a": {"type": "http", "command": "x"}}}`, []string{`server "a"`, "needs a url"}},
		{"stdio type with a url", `{"mcpServers": {"a": {"type": "stdio", "url": "http://h/mcp"}}}`, []string{`server "a"`, "needs a command"}},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h/mcp"}}}`, []string{`server "a"`, "want an http:// or https:// URL"}},
		{"url without host", `{"mcpServers": {"a": {"url": "http:///mcp"}}}`, []string{`server "a"`, "want an http"}},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, []string{`server "a"`, "args", "want a string, not number"}},
		{"env not an object", `{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}`, []string{`server "a"`, "env", "want an object, not array"}},
		{"headers on a command", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "1"}}}}`, []string{`server "a"`, "headers apply to a url"}},
		{"env on a url", `{"mcpServers": {"a": {"url": "http://h/mcp", "env": {"A": "1"}}}}`, []string{`server "a"`, "apply to a command"}},
		{"unset variable", `{"mcpServers": {"a": {"command": "x", "env": {"T": "${NOPE}"}}}}`, []string{`server "a"`, "env T", "NOPE is not set"}},
		{"unset env: variable", `{"mcpServers": {"a": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${env:NOPE}"}}}}`, []string{`server "a"`, "header Authorization", "NOPE is not set"}},
		{"input variable", `{"servers": {"p": {"command": "x", "env": {"K": "${input:perplexity-key}"}}}}`, []string{`server "p"`, "${input:perplexity-key}", "needs a host"}},
		{"workspaceFolder", `{"servers": {"p": {"command": "x", "cwd": "${workspaceFolder}"}}}`, []string{`server "p"`, "cwd"}},
		{"bad variable name", `{"mcpServers": {"a": {"command": "${A B}"}}}`, []string{`server "a"`, "not a variable name"}},
		{"a line break smuggled into a header", `{"mcpServers": {"a": {"url": "http://h/mcp", "headers": {"X": "${NEWLINE}"}}}}`, []string{`server "a"`, `header "X"`}},
		{"bad header name", `{"mcpServers": {"a": {"url": "http://h/mcp", "headers": {"X Y": "1"}}}}`, []string{`server "a"`, `header "X Y"`}},
		{"envFile", `{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}`, []string{`server "a"`, "envFile is not supported"}},
		{"bad timeout", `{"mcpServers": {"a": {"command": "x", "timeout": "soon"}}}`, []string{`server "a"`, `timeout "soon"`}},
		{"negative timeout", `{"mcpServers": {"a": {"command": "x", "timeout": "-1s"}}}`, []string{`server "a"`, "timeout"}},
		{"negative maxConcurrency", `{"mcpServers": {"a": {"command": "x", "maxConcurrency": -1}}}`, []string{`server "a"`, "maxConcurrency"}},
		{"two different urls", `{"mcpServers": {"a": {"url": "http://h/mcp", "serverUrl": "http://i/mcp"}}}`, []string{`server "a"`, "url is given twice"}},
		{"separator not a string", `{"separator": 1, "mcpServers": {"a": {"command": "x"}}}`, []string{"separator", "want a string"}},
		{"too large", `{"mcpServers": {}, "pad": "` + strings.Repeat("x", MaxConfigSize) + `"}`, []string{"larger than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(tt.json), lookupTest)
			if err == nil {
				t.Fatalf("no error; got %s", dump(cfg))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestParseConfigExpansion: the variables' forms, from the process's
// environment through ParseConfig.
func TestParseConfigExpansion(t *testing.T) {
	t.Setenv("GW_TEST_TOKEN", "s3cret")
	t.Setenv("GW_TEST_EMPTY", "")
	t.Setenv("GW_TEST_NESTED", "${GW_TEST_TOKEN}")
	cfg, err := ParseConfig([]byte(`{"mcpServers": {"a": {
		"command": "srv",
		"args": ["--a=${GW_TEST_TOKEN}", "--b=${env:GW_TEST_TOKEN}", "--c=${GW_UNSET:-dflt}", "--d=${GW_TEST_EMPTY:-dflt}",
			"--e=${GW_TEST_NESTED}", "$GW_TEST_TOKEN", "${unclosed", "${GW_TEST_TOKEN}${GW_TEST_TOKEN}"]
	}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--a=s3cret", "--b=s3cret", "--c=dflt", "--d=", "--e=${GW_TEST_TOKEN}", "$GW_TEST_TOKEN", "${unclosed", "s3crets3cret"}
	if got := cfg.Servers["a"].Args; !reflect.DeepEqual(got, want) {
		t.Errorf("args = %q, want %q", got, want)
	}
}

// TestParseServer: one server of a file, read as ParseConfig reads it,
// with ${workspaceFolder} from the file's place, whatever is wrong with
// the other servers, and disabled or not.
func TestParseServer(t *testing.T) {
	t.Setenv("GW_TEST_TOKEN", "s3cret")
	dir := t.TempDir()
	file := filepath.Join(dir, ".vscode", "mcp.json")
	data := []byte(`{
		// VS Code's own file: comments, trailing commas
		"servers": {
			"a": {"type": "stdio", "command": "${workspaceFolder}/srv", "args": ["${env:GW_TEST_TOKEN}", "${GW_UNSET:-dflt}",], "disabled": true},
			"b": {"command": "x", "env": {"K": "${input:key}"}},
			"c": {"type": "streamableHttp", "url": "http://h/mcp", "headers": {"T": "${NOPE_UNSET}"}},
			"d": {"type": "SSE", "serverUrl": "http://h/sse"},
		},
	}`)
	up, found, err := ParseServer(data, "a", file)
	want := &Upstream{Type: TransportStdio, Command: dir + "/srv", Args: []string{"s3cret", "dflt"}, Disabled: true}
	if err != nil || !found || !reflect.DeepEqual(up, want) {
		t.Errorf("a: %+v, %v, %v; want %+v", up, found, err, want)
	}
	if up, _, err := ParseServer(data, "d", file); err != nil || up.Type != TransportSSE || up.URL != "http://h/sse" {
		t.Errorf("d: %+v, %v", up, err)
	}
	for name, wantErr := range map[string]string{"b": `server "b": env K: ${input:key} needs a host`, "c": `server "c": header T: ${NOPE_UNSET}: NOPE_UNSET is not set`} {
		if _, _, err := ParseServer(data, name, file); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: error %v, want %q", name, err, wantErr)
		}
	}
	if up, found, err := ParseServer(data, "e", file); up != nil || found || err != nil {
		t.Errorf("e, absent: %+v, %v, %v", up, found, err)
	}
	twice := []byte(`{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}`)
	if _, _, err := ParseServer(twice, "a", file); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a name given twice: %v", err)
	}
	if _, err := ParseConfig(data); err == nil || !strings.Contains(err.Error(), "${input:key}") {
		t.Errorf("ParseConfig reads every server: %v", err)
	}
	if _, _, err := ParseServer(data, "a", ""); err == nil || !strings.Contains(err.Error(), "${workspaceFolder} needs a host") {
		t.Errorf("${workspaceFolder} of a file whose place is not known: %v", err)
	}
}

// TestStripJSONC: comments and trailing commas go, strings keep theirs,
// and offsets are kept.
func TestStripJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`{"a": 1, // c` + "\n}", `{"a": 1      ` + "\n}"},
		{`{"a": "//x", "b": "/*y*/", "c": "\",}"}`, `{"a": "//x", "b": "/*y*/", "c": "\",}"}`},
		{`[1, /* x */ 2,]`, `[1,         2 ]`},
		{"{/*\n*/}", "{  \n  }"},
		{`[1, 2, /* never closed`, `[1, 2, /* never closed`},
	}
	for _, tt := range tests {
		if got := string(stripJSONC([]byte(tt.in))); got != tt.want {
			t.Errorf("stripJSONC(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(stripJSONC([]byte(tt.in))) != len(tt.in) {
			t.Errorf("stripJSONC(%q) changed the length", tt.in)
		}
	}
}
