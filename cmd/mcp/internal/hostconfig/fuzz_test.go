package hostconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzJSONSplice checks, on any file that parses, that installing an
// entry gives a file that parses, holds the entry, and decodes as before
// everywhere else, and that uninstalling it again does the same.
func FuzzJSONSplice(f *testing.F) {
	for _, s := range []string{"claude_desktop_config.json", "mcp.json.vscode", "settings.json.gemini", "claude.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"{}", `{"mcpServers":{}}`, "{\n\t\"mcpServers\": { // x\n\t\t\"a\": 1, /* y */\n\t},\n}", `{"mcpServers":{"new":1}}`} {
		f.Add([]byte(s))
	}
	want := map[string]any{"command": "srv"}
	f.Fuzz(func(t *testing.T, src []byte) {
		before, err := decodeJSONC(src)
		if err != nil {
			return
		}
		if _, ok := before.(map[string]any); !ok {
			return
		}
		h, _ := LookupHost("cursor")
		out, err := jsonSet(src, "mcpServers", "new", small)
		if err != nil {
			return // refused: fine, as long as nothing else happens
		}
		c := &Change{Host: h, Name: "new", Path: "f", Old: src, New: out}
		servers, _ := before.(map[string]any)["mcpServers"].(map[string]any)
		if err := c.verify(keepUnmanaged(want, servers["new"])); err != nil {
			t.Fatalf("%v\n%q\n->\n%q", err, src, out)
		}
		back, err := jsonRemove(out, "mcpServers", "new")
		if err != nil {
			t.Fatalf("remove: %v\n%q", err, out)
		}
		c = &Change{Host: h, Name: "new", Path: "f", Old: out, New: back}
		if err := c.verify(nil); err != nil {
			t.Fatalf("remove: %v\n%q\n->\n%q", err, out, back)
		}
		after, _ := decodeJSONC(back)
		if !reflect.DeepEqual(without(before.(map[string]any), "mcpServers", "new"), without(after.(map[string]any), "mcpServers", "new")) {
			t.Fatalf("round trip changed the file:\n%q\n%q", src, back)
		}
	})
}

// FuzzTOMLSplice is FuzzJSONSplice for Codex's TOML.
func FuzzTOMLSplice(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "config.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{"", "a = 1", "[mcp_servers.new]\nx = 1\n[mcp_servers.new.env]\n", "x = '''\n[mcp_servers.new]\n'''\n", "[t]\na = [\n[1],\n]\n",
		"[ mcp_servers . \"new\" ] # ] [\ncommand = \"old\"\n\n[[arr]]\nx = 1\n", "[mcp_servers.a]\r\nx = \"\"\"\r\n[no]\r\n\"\"\"\r\n",
		"[mcp_servers.a]\nx = [ { y = \"]\" },\n  { z = '[' } ]\n# c\n[b]\n", "[mcp_servers.new.env]\nA = \"1\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		before, err := decodeTOML(src)
		if err != nil {
			return
		}
		h, _ := LookupHost("codex")
		out, err := tomlSet(src, "mcp_servers", "new", small)
		if err != nil {
			return
		}
		doc, _ := decodeTOML([]byte(renderTOML("mcp_servers", "new", small)))
		c := &Change{Host: h, Name: "new", Path: "f", Old: src, New: out}
		if err := c.verify(keepUnmanaged(tomlEntry(doc, "mcp_servers", "new"), tomlEntry(before, "mcp_servers", "new"))); err != nil {
			t.Fatalf("%v\n%q\n->\n%q", err, src, out)
		}
		back, err := tomlRemove(out, "mcp_servers", "new")
		if err != nil {
			t.Fatalf("remove: %v\n%q", err, out)
		}
		c = &Change{Host: h, Name: "new", Path: "f", Old: out, New: back}
		if err := c.verify(nil); err != nil {
			t.Fatalf("remove: %v\n%q\n->\n%q", err, out, back)
		}
	})
}
