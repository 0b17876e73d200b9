package sdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// codeBlock is one fenced Go block of a Markdown file.
type codeBlock struct {
	line int    // the line of its first line of code, counted from 1
	code []byte // its text, without the fences
}

// goBlocks returns the ```go blocks (any case) of a Markdown document, in
// order. A block left open at the end of the document is an error.
func goBlocks(md []byte) ([]codeBlock, error) {
	var (
		blocks []codeBlock
		cur    *codeBlock
		fence  string
	)
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = "```"
			if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), "go") {
				cur = &codeBlock{line: n + 1}
			}
		case fence != "" && trimmed == fence:
			if cur != nil {
				blocks = append(blocks, *cur)
			}
			cur, fence = nil, ""
		case cur != nil:
			cur.code = append(cur.code, line...)
			cur.code = append(cur.code, '\n')
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if fence != "" {
		return nil, fmt.Errorf("a code block is not closed")
	}
	return blocks, nil
}

// TestReadmeBuilds checks that every Go block of README.md is a complete,
// gofmt-formatted program that builds against the code of this module (a
// block that does not parse is left to the build to report), and then runs
// them (runReadme): every server on stdio against a client at 2026-07-28
// and at 2025-11-25, the client against the first server. The blocks are
// built in one go build run, each as a package of its own in a directory of
// the module that exists only in an overlay, with line directives so that
// errors name README.md lines.
func TestReadmeBuilds(t *testing.T) {
	const readme = "README.md"
	md, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(md)
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no Go blocks", readme)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	addr := freeLoopbackAddr(t) // where the blocks serving HTTP listen here
	replace := make(map[string]string)
	var pkgs []string
	bins := make([]string, len(blocks)) // the built program of each block
	binDir := filepath.Join(tmp, "bin")
	for i, b := range blocks {
		f, err := parser.ParseFile(token.NewFileSet(), readme, b.code, parser.PackageClauseOnly)
		if err != nil || f.Name.Name != "main" {
			t.Errorf("%s:%d: a Go block must be a complete program, starting with package main", readme, b.line)
			continue
		}
		if src, err := format.Source(b.code); err == nil && !bytes.Equal(src, b.code) {
			t.Errorf("%s:%d: the Go block is not gofmt-formatted", readme, b.line)
		}
		backing := filepath.Join(tmp, fmt.Sprintf("block%d.go", i+1))
		src := fmt.Appendf(nil, "//line %s:%d\n%s", filepath.Join(root, readme), b.line, localAddrs(b.code, addr))
		if err := os.WriteFile(backing, src, 0o644); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf("readme_block%d", i+1)
		replace[filepath.Join(root, pkg, "main.go")] = backing
		if err := embedOverlay(replace, filepath.Join(root, pkg), filepath.Join(tmp, pkg), b.code); err != nil {
			t.Errorf("%s:%d: %v", readme, b.line, err)
		}
		pkgs = append(pkgs, "./"+pkg)
		bins[i] = filepath.Join(binDir, pkg)
	}
	if len(pkgs) == 0 {
		return
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	// -s -w: the binaries are thrown away, so the linker writes no symbol
	// tables.
	args := append([]string{"build", "-ldflags=-s -w", "-overlay", overlayFile, "-o", binDir + string(filepath.Separator)}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Go blocks of %s do not build: %v\n%s", readme, err, out)
	}
	runReadme(t, readme, blocks, bins, addr)
}

// embedOverlay adds to replace the files a block embeds (//go:embed
// NAME...), from readmeFiles, written under dir, as if they were in the
// block's package directory pkgDir.
func embedOverlay(replace map[string]string, pkgDir, dir string, code []byte) error {
	for _, line := range strings.Split(string(code), "\n") {
		names, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:embed ")
		if !ok {
			continue
		}
		for _, name := range strings.Fields(names) {
			text, ok := readmeFiles[name]
			if !ok {
				return fmt.Errorf("it embeds %s, which the test does not provide (readmeFiles)", name)
			}
			file := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				return err
			}
			replace[filepath.Join(pkgDir, filepath.FromSlash(name))] = file
		}
	}
	return nil
}

func TestGoBlocks(t *testing.T) {
	md := "# T\n\n```sh\ngo run .\n```\n\n```go\npackage main\n\nfunc main() {}\n```\n\n```text\npackage main\n```\n\n```Go\npackage x\n```\n"
	blocks, err := goBlocks([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].line != 8 || string(blocks[0].code) != "package main\n\nfunc main() {}\n" ||
		blocks[1].line != 18 || string(blocks[1].code) != "package x\n" {
		t.Errorf("goBlocks = %+v, want the go blocks at lines 8 and 18", blocks)
	}
	if _, err := goBlocks([]byte("```go\npackage main\n")); err == nil {
		t.Error("an unclosed block is not an error")
	}
}
