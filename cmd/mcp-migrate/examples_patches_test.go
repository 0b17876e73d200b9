package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// addRootRequirements adds to the examples' module the requirements of
// gomcp's own module that it lacks, with their sums: a patch may use a
// package of gomcp (oauth) whose dependencies compat's go.mod, which the
// module copies, never needed. They are in the module cache, since this
// checkout builds.
func addRootRequirements(t *testing.T, dir string) {
	t.Helper()
	modJSON := func(d string) (m struct {
		Require []struct{ Path, Version string }
	}) {
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = d
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go mod edit -json in %s: %v", d, err)
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	root := repoRoot(t)
	have := map[string]bool{}
	for _, r := range modJSON(dir).Require {
		have[r.Path] = true
	}
	args := []string{"mod", "edit"}
	for _, r := range modJSON(root).Require {
		if !have[r.Path] {
			args = append(args, "-require="+r.Path+"@"+r.Version)
		}
	}
	if len(args) > 2 {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "go.sum"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(sum)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
