package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/surface"
)

// versionedServer is a server whose tool "convert" takes the units of
// the enum units, and, if extra, a second tool.
func versionedServer(t *testing.T, units string, extra bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "conv", Version: "1"}, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	schema := json.RawMessage(`{"type":"object","properties":{"units":{"enum":[` + units + `]}},"required":["units"]}`)
	if err := s.AddTool(&mcp.Tool{Name: "convert", InputSchema: schema}, h); err != nil {
		t.Fatal(err)
	}
	if extra {
		if err := s.AddTool(&mcp.Tool{Name: "round"}, h); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestSnapshot takes the everything server's snapshot twice, over HTTP
// and over stdio, and checks it is stable, complete and parses.
func TestSnapshot(t *testing.T) {
	url := everythingURL(t)
	file := filepath.Join(t.TempDir(), "surface.json")
	code, out, errs := mcpRun(t, context.Background(), "snapshot", "-o", file, "--protocol-version", mcp.Version20251125, url)
	if code != ExitOK || out != "" || !strings.Contains(errs, "wrote "+file) {
		t.Fatalf("snapshot -o: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.Parse(written)
	if err != nil {
		t.Fatal(err)
	}
	if s.ProtocolVersion != mcp.Version20251125 || len(s.Tools) < 5 || len(s.Prompts) == 0 || len(s.Resources) == 0 || len(s.ResourceTemplates) == 0 {
		t.Errorf("snapshot: revision %s, %d tools, %d prompts, %d resources, %d templates",
			s.ProtocolVersion, len(s.Tools), len(s.Prompts), len(s.Resources), len(s.ResourceTemplates))
	}
	if _, ok := s.ServerInfo["version"]; ok || s.ServerInfo["name"] == nil {
		t.Errorf("serverInfo %v: want the name, not the version", s.ServerInfo)
	}
	// The same bytes again, from another server process over stdio.
	code, out, errs = mcpRun(t, context.Background(), "snapshot", "--protocol-version", mcp.Version20251125, everythingBin)
	if code != ExitOK || out != string(written) {
		t.Errorf("snapshot over stdio: exit %d, stderr %q; differs from over HTTP:\n%s", code, errs, out)
	}
	// Against the live server the file has no changes.
	code, out, errs = mcpRun(t, context.Background(), "diff", "--protocol-version", mcp.Version20251125, file, url)
	if code != ExitOK || out != "no changes\n" {
		t.Errorf("diff FILE URL: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDiff compares servers and files, and checks the classes, the
// grouped and JSON output, and the exit codes.
func TestDiff(t *testing.T) {
	v1 := serveHTTP(t, versionedServer(t, `"c","f"`, false), nil)
	narrowed := serveHTTP(t, versionedServer(t, `"c"`, true), nil)
	widened := serveHTTP(t, versionedServer(t, `"f","c","k"`, false), nil)
	file := filepath.Join(t.TempDir(), "v1.json")
	if code, _, errs := mcpRun(t, context.Background(), "snapshot", "-o", file, v1); code != ExitOK {
		t.Fatalf("snapshot: exit %d, %s", code, errs)
	}

	code, out, errs := mcpRun(t, context.Background(), "diff", v1, narrowed)
	want := "1 breaking, 1 compatible\n\nbreaking:\n  tools:\n    tool \"convert\": argument \"units\": enum narrowed: \"f\" removed\n\ncompatible:\n  tools:\n    tool \"round\" added\n"
	if code != ExitBreaking || out != want {
		t.Errorf("diff URL URL: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errs, out, want)
	}

	code, out, errs = mcpRun(t, context.Background(), "diff", "--json", file, widened)
	var v struct {
		Breaking bool             `json:"breaking"`
		Changes  []surface.Change `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != ExitOK || err != nil || v.Breaking || len(v.Changes) != 1 ||
		v.Changes[0].Class != surface.Compatible || v.Changes[0].Path != "/tools/convert/inputSchema/properties/units/enum" {
		t.Errorf("diff --json FILE URL: exit %d, stderr %q, stdout %s (%v)", code, errs, out, err)
	}

	// NEW as a command with its arguments: the same server the file
	// came from, seen through the mock command.
	mockFile := writeMock(t, "conv.yaml", "server: {name: conv, version: \"9\"}\ntools:\n  - name: convert\n    inputSchema: {type: object, properties: {units: {enum: [c, f]}}, required: [units]}\n    text: ok\n")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The server is asked for the file's revision, 2026-07-28, not
	// 2025-11-25, unless --protocol-version says so.
	code, out, errs = mcpRun(t, context.Background(), "diff", file, "env", "MCP_CLI_TEST_SERVER=mcp", self, "mock", mockFile)
	if code != ExitOK || out != "no changes\n" {
		t.Errorf("diff FILE COMMAND: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// OLD as a command with its arguments, in one word.
	code, out, errs = mcpRun(t, context.Background(), "diff", "--protocol-version", mcp.Version20251125, "env MCP_CLI_TEST_SERVER=mcp "+self+" mock "+mockFile, file)
	if code != ExitOK || !strings.Contains(out, `protocol revision "2025-11-25" became "2026-07-28"`) {
		t.Errorf("diff COMMAND FILE: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	for _, args := range [][]string{
		{"diff", file},
		{"diff"},
		{"diff", "--no-such-flag", file, file},
		{"diff", file, v1, "extra"},
	} {
		if code, _, _ := mcpRun(t, context.Background(), args...); code != ExitUsage {
			t.Errorf("mcp %q: exit %d, want %d", args, code, ExitUsage)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mcpRun(t, context.Background(), "diff", bad, file); code != ExitUsage || !strings.Contains(errs, "format") {
		t.Errorf("a file of another format: exit %d, stderr %q", code, errs)
	}
}
