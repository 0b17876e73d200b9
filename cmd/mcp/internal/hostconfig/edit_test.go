package hostconfig

import (
	"strings"
	"testing"
)

var small = []field{{"command", "srv"}}

// TestJSONSplice covers the shapes of JSON files: each case installs
// "new" and checks the exact result, then uninstalls it and checks that
// the original comes back.
func TestJSONSplice(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty file", "", "{\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"empty object", "{}\n", "{\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"no servers key", "{\n  \"theme\": \"dark\"\n}\n",
			"{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"empty servers", "{\n  \"mcpServers\": {}\n}\n",
			"{\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"four spaces", "{\n    \"mcpServers\": {\n        \"a\": {\"command\": \"a\"}\n    }\n}\n",
			"{\n    \"mcpServers\": {\n        \"a\": {\"command\": \"a\"},\n        \"new\": {\n            \"command\": \"srv\"\n        }\n    }\n}\n"},
		{"line comment after the last", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"} // mine\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}, // mine\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"comment only", "{\n  \"mcpServers\": {\n    // none yet\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    // none yet\n    \"new\": {\n      \"command\": \"srv\"\n    }\n  }\n}\n"},
		{"CRLF and BOM", "\xEF\xBB\xBF{\r\n  \"mcpServers\": {\r\n    \"a\": {\"command\": \"a\"}\r\n  }\r\n}\r\n",
			"\xEF\xBB\xBF{\r\n  \"mcpServers\": {\r\n    \"a\": {\"command\": \"a\"},\r\n    \"new\": {\r\n      \"command\": \"srv\"\r\n    }\r\n  }\r\n}\r\n"},
		{"one line", `{"mcpServers": {"a": {"command": "a"}}}`,
			"{\"mcpServers\": {\"a\": {\"command\": \"a\"}, \"new\": {\n    \"command\": \"srv\"\n  }}}"},
	} {
		out, err := jsonSet([]byte(tc.in), "mcpServers", "new", small)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(out) != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, out, tc.want)
			continue
		}
		if _, err := decodeJSONC(out); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		back, err := jsonRemove(out, "mcpServers", "new")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(tc.in) != "" && strings.Contains(tc.in, "mcpServers") && tc.name != "one line" && string(back) != tc.in {
			t.Errorf("%s: uninstall gave\n%q", tc.name, back)
		}
	}
}

// TestJSONRemove removes the first, a middle and the last entry, with
// comments and trailing commas around them.
func TestJSONRemove(t *testing.T) {
	in := "{\n  \"mcpServers\": {\n    // a is first\n    \"a\": {\"command\": \"a\"}, // about a\n    \"b\": {\"command\": \"b\"},\n    \"c\": {\"command\": \"c\"} // about c\n  }\n}\n"
	for name, want := range map[string]string{
		"a": "{\n  \"mcpServers\": {\n    // a is first\n    \"b\": {\"command\": \"b\"},\n    \"c\": {\"command\": \"c\"} // about c\n  }\n}\n",
		"b": "{\n  \"mcpServers\": {\n    // a is first\n    \"a\": {\"command\": \"a\"}, // about a\n    \"c\": {\"command\": \"c\"} // about c\n  }\n}\n",
		"c": "{\n  \"mcpServers\": {\n    // a is first\n    \"a\": {\"command\": \"a\"}, // about a\n    \"b\": {\"command\": \"b\"}\n  }\n}\n",
		"z": in,
	} {
		out, err := jsonRemove([]byte(in), "mcpServers", name)
		if err != nil || string(out) != want {
			t.Errorf("remove %s: %v\n%s", name, err, out)
		}
	}
	one := "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"}\n  },\n  \"x\": 1\n}\n"
	if out, _ := jsonRemove([]byte(one), "mcpServers", "a"); string(out) != "{\n  \"mcpServers\": {},\n  \"x\": 1\n}\n" {
		t.Errorf("remove the only one:\n%s", out)
	}
}

// TestTOMLSplice covers Codex files: none, one without servers, one whose
// last line has no newline, one with the entry's sub-tables, and the
// headers a naive reader would take for tables.
func TestTOMLSplice(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "[mcp_servers.new]\ncommand = \"srv\"\n"},
		{"no servers", "model = \"o3\"\n", "model = \"o3\"\n\n[mcp_servers.new]\ncommand = \"srv\"\n"},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n[mcp_servers.new]\ncommand = \"srv\"\n"},
		{"replace with sub-tables", "[mcp_servers.new]\ncommand = \"old\"\n\n[mcp_servers.new.env]\nA = \"1\"\n\n# next\n[other]\nx = 1\n",
			"[mcp_servers.new]\ncommand = \"srv\"\n\n# next\n[other]\nx = 1\n"},
		{"CRLF", "model = \"o3\"\r\n", "model = \"o3\"\r\n\r\n[mcp_servers.new]\r\ncommand = \"srv\"\r\n"},
		{"quoted header", "[mcp_servers.\"new\"]\ncommand = \"old\"\n", "[mcp_servers.new]\ncommand = \"srv\"\n"},
		{"tables in strings and arrays", "x = \"\"\"\n[mcp_servers.new]\n\"\"\"\ny = [\n  [1],\n]\n",
			"x = \"\"\"\n[mcp_servers.new]\n\"\"\"\ny = [\n  [1],\n]\n\n[mcp_servers.new]\ncommand = \"srv\"\n"},
	} {
		out, err := tomlSet([]byte(tc.in), "mcp_servers", "new", small)
		if err != nil || string(out) != tc.want {
			t.Errorf("%s: %v\n%q\nwant\n%q", tc.name, err, out, tc.want)
		}
		if back, err := tomlRemove(out, "mcp_servers", "new"); err != nil || !strings.Contains(tc.in, "new") && tc.name != "no final newline" && string(back) != tc.in {
			t.Errorf("%s: uninstall gave %q, %v", tc.name, back, err)
		}
	}
	// Tables of one entry that are not together are refused.
	apart := "[mcp_servers.new]\ncommand = \"a\"\n[other]\nx = 1\n[mcp_servers.new.env]\nA = \"1\"\n"
	if _, err := tomlSet([]byte(apart), "mcp_servers", "new", small); err == nil {
		t.Error("scattered tables edited")
	}
}

// TestVerify refuses an edit that touches anything but the entry, or that
// does not hold the entry as intended: the net under every splice.
func TestVerify(t *testing.T) {
	h, _ := LookupHost("cursor")
	old := []byte(`{"mcpServers": {"a": {"command": "a"}}, "x": 1}`)
	want := map[string]any{"command": "srv"}
	for _, bad := range []string{
		`{"mcpServers": {"a": {"command": "A"}, "new": {"command": "srv"}}, "x": 1}`,
		`{"mcpServers": {"a": {"command": "a"}, "new": {"command": "srv"}}, "x": 2}`,
		`{"mcpServers": {"a": {"command": "a"}, "new": {"command": "other"}}, "x": 1}`,
		`{"mcpServers": {"a": {"command": "a"}, "new": {"command": "srv"}}, "x": 1`,
	} {
		c := &Change{Host: h, Name: "new", Path: "f", Old: old, New: []byte(bad)}
		if err := c.verify(want); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	c := &Change{Host: h, Name: "new", Path: "f", Old: old, New: []byte(`{"mcpServers": {"a": {"command": "a"}, "new": {"command": "srv"}}, "x": 1}`)}
	if err := c.verify(want); err != nil {
		t.Error(err)
	}
}

// TestJSONSameEntryOtherLayout leaves an entry that already says the same
// thing in another layout as it is.
func TestJSONSameEntryOtherLayout(t *testing.T) {
	in := "{\"mcpServers\": {\"new\": {\"command\" : \"srv\"} /* mine */}}"
	out, err := jsonSet([]byte(in), "mcpServers", "new", small)
	if err != nil || string(out) != in {
		t.Fatalf("%v\n%s", err, out)
	}
	toml := "[mcp_servers.new] # mine\ncommand='srv'\n"
	if out, err := tomlSet([]byte(toml), "mcp_servers", "new", small); err != nil || string(out) != toml {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestUpdateKeepsUserKeys replaces what mcp writes in an entry and keeps
// what the user added: Windsurf's disabled, Gemini's cwd, timeout and
// trust, Codex's timeout and tool approvals (but not an [env] sub-table,
// which mcp writes inline).
func TestUpdateKeepsUserKeys(t *testing.T) {
	for _, tc := range []struct {
		host, sample, name string
		e                  Entry
		keep, drop         []string
	}{
		{"windsurf", "mcp_config.json", "git", Entry{Name: "git", Command: "uvx", Args: []string{"mcp-server-git"}},
			[]string{`"disabled": false`, `"args": [`, `"mcp-server-git"`}, []string{`"--repository"`, `"env": {}`}},
		{"gemini", "settings.json.gemini", "pythonTools", Entry{Name: "pythonTools", URL: "https://py.example.com/mcp"},
			[]string{`"cwd": "./mcp-servers/python"`, `"timeout": 15000`, `"httpUrl": "https://py.example.com/mcp"`}, []string{`"command": "python"`, `DB_CONNECTION_STRING`}},
		{"codex", "config.toml", "figma", Entry{Name: "figma", URL: "http://127.0.0.1:3846/mcp"},
			[]string{"[mcp_servers.figma.tools.get_code]\napproval_mode = \"approve\"\n", `url = "http://127.0.0.1:3846/mcp"`}, []string{"FIGMA_OAUTH_TOKEN"}},
	} {
		h, _ := LookupHost(tc.host)
		env := scratch(t)
		place(t, h, User, env, tc.sample, 0o600)
		c, err := Plan(h, User, env, tc.e)
		if err != nil || c.Action != "updated" {
			t.Fatalf("%s: %v %v", tc.host, c, err)
		}
		for _, k := range tc.keep {
			if !strings.Contains(string(c.New), k) {
				t.Errorf("%s: lost %s:\n%s", tc.host, k, c.New)
			}
		}
		for _, k := range tc.drop {
			if strings.Contains(string(c.New), k) {
				t.Errorf("%s: kept %s:\n%s", tc.host, k, c.New)
			}
		}
		apply(t, c)
		if again, err := Plan(h, User, env, tc.e); err != nil || again.Action != "unchanged" {
			t.Errorf("%s: again: %v %v", tc.host, again, err)
		}
	}
	toml := "[mcp_servers.new]\ncommand = \"old\"\nstartup_timeout_sec = 20 # slow\n\n[mcp_servers.new.env]\nA = \"1\"\n\n[mcp_servers.new.tools.x]\napproval_mode = \"approve\"\n\n# next\n[other]\n"
	out, err := tomlSet([]byte(toml), "mcp_servers", "new", small)
	want := "[mcp_servers.new]\ncommand = \"srv\"\nstartup_timeout_sec = 20 # slow\n\n[mcp_servers.new.tools.x]\napproval_mode = \"approve\"\n\n# next\n[other]\n"
	if err != nil || string(out) != want {
		t.Errorf("%v\n%s", err, out)
	}
}
