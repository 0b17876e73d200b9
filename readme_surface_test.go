package sdk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeSurface runs the README's program that diffs two versions of
// a server (the Go block calling surface.Diff), which TestReadmeBuilds
// only builds, and checks the change it prints.
func TestReadmeSurface(t *testing.T) {
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	var block *codeBlock
	for i := range blocks {
		if bytes.Contains(blocks[i].code, []byte("surface.Diff(")) {
			block = &blocks[i]
		}
	}
	if block == nil {
		t.Fatal("README.md has no Go block calling surface.Diff")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	backing := filepath.Join(tmp, "main.go")
	src := fmt.Appendf(nil, "//line %s:%d\n%s", filepath.Join(root, "README.md"), block.line, block.code)
	if err := os.WriteFile(backing, src, 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, "readme_surface", "main.go"): backing}})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-ldflags=-s -w", "-overlay", overlayFile, "./readme_surface")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	want := `breaking: /tools/convert/inputSchema/properties/units/enum: tool "convert": argument "units": enum narrowed: "kelvin" removed`
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("README.md:%d: %v; output:\n%s\nwant:\n%s", block.line, err, out, want)
	}
}
