// Package realistic_test migrates the two realistic servers beside it with
// cmd/mcp-migrate and runs the migrated copies' own tests, unchanged: the
// proof, on code written the way large go-sdk and mcp-go servers are, that a
// migration keeps every tool snapshot byte for byte.
package realistic_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// peers are the import paths that must be gone from migrated code.
var peers = []string{`"github.com/modelcontextprotocol/go-sdk/`, `"github.com/mark3labs/mcp-go/`}

func TestMigratedServersKeepTheirTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/mcp-migrate and two migrated modules; not in -short")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	toolDir := filepath.Join(root, "cmd", "mcp-migrate")
	if _, err := os.Stat(filepath.Join(toolDir, "go.mod")); err != nil {
		t.Skipf("cmd/mcp-migrate is not in this tree: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mcp-migrate")
	run(t, toolDir, "go", "build", "-o", bin, ".")

	for _, name := range []string{"gosdk", "mcpgo"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mod := newModule(t, root)
			copyDir(t, name, filepath.Join(mod, name))
			out := run(t, mod, bin, "-C", mod, "./...")
			t.Logf("mcp-migrate on %s:\n%s", name, out)
			checkNoPeerImports(t, filepath.Join(mod, name))
			// Idempotent: a second run has nothing to change.
			if again := run(t, mod, bin, "-C", mod, "-diff", "./..."); strings.Contains(again, "\n+++ ") || strings.HasPrefix(again, "--- ") {
				t.Errorf("a second run of mcp-migrate on %s changes more:\n%s", name, again)
			}
			run(t, mod, "go", "test", "-count=1", "./...")
			compareSnapshots(t, filepath.Join(name, "testdata", "toolsnaps"), filepath.Join(mod, name, "testdata", "toolsnaps"))
		})
	}
}

// newModule makes an empty module that requires what the compat module
// requires, with github.com/gomcp/sdk replaced by the tree at root.
func newModule(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(gomod), "module github.com/gomcp/sdk/compat", "module example.com/realistic", 1)
	s = strings.Replace(s, "github.com/gomcp/sdk => ../", "github.com/gomcp/sdk => "+root, 1)
	if !strings.Contains(s, "=> "+root) {
		t.Fatalf("compat/go.mod has no replace of github.com/gomcp/sdk:\n%s", gomod)
	}
	gosum, err := os.ReadFile(filepath.Join("..", "..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.mod"), []byte(s))
	write(t, filepath.Join(dir, "go.sum"), gosum)
	return dir
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir, without UPDATE_TOOLSNAPS, and fails the test
// with its output if it fails.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "UPDATE_TOOLSNAPS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func checkNoPeerImports(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peers {
			if bytes.Contains(data, []byte(p)) {
				t.Errorf("%s still imports %s...", filepath.Base(f), p)
			}
		}
	}
}

// compareSnapshots checks that the migrated copy's snapshots are the
// originals, byte for byte, and that none went missing.
func compareSnapshots(t *testing.T, want, got string) {
	t.Helper()
	entries, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 25 {
		t.Fatalf("only %d snapshots in %s", len(entries), want)
	}
	for _, e := range entries {
		w, err := os.ReadFile(filepath.Join(want, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(got, e.Name()))
		if err != nil {
			t.Errorf("migrated copy lost %s: %v", e.Name(), err)
			continue
		}
		if !bytes.Equal(w, g) {
			t.Errorf("%s differs after migration:\n%s\nwant:\n%s", e.Name(), g, w)
		}
	}
}
