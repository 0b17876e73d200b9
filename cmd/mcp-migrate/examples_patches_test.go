package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkPatches proves the second half of the examples' figure: the
// programs that do not build after migration build after only the edits
// their TODO(mcp-migrate) comments name. Those edits are kept as patches,
// testdata/patches/<peer dir>/<program>.patch, made with git diff against
// the migrated program (paths <peer dir>/<program>/...). For a peer that
// has patches, every program that does not build must have one, every
// patch must apply and its program must then build and vet, and a patch
// whose program builds without it is stale. It returns how many programs
// build after their patches.
func checkPatches(t *testing.T, dir string, fails map[string]string) int {
	t.Helper()
	patched := 0
	for _, p := range peers {
		files, err := filepath.Glob(filepath.Join("testdata", "patches", p.dir, "*.patch"))
		if err != nil || len(files) == 0 {
			continue
		}
		var progs []string
		have := map[string]bool{}
		for _, f := range files {
			prog := filepath.Join(p.dir, strings.TrimSuffix(filepath.Base(f), ".patch"))
			have[prog] = true
			if _, bad := fails[prog]; !bad {
				t.Errorf("%s: %s builds with no edit: delete the stale patch", f, prog)
				continue
			}
			abs, err := filepath.Abs(f)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "apply", abs)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s does not apply to the migrated %s (regenerate it with git diff): %v\n%s", f, prog, err, out)
				continue
			}
			progs = append(progs, prog)
		}
		for prog, msg := range fails {
			if strings.HasPrefix(prog, p.dir+string(filepath.Separator)) && !have[prog] && !strings.Contains(msg, "build constraints exclude") {
				t.Errorf("%s does not build after migration and has no patch in testdata/patches: %s", prog, msg)
			}
		}
		if len(progs) == 0 {
			continue
		}
		addRootRequirements(t, dir)
		still := vetFailures(t, dir, progs)
		for _, prog := range progs {
			if msg, bad := still[prog]; bad {
				t.Errorf("%s does not build after its patch: %s", prog, msg)
			} else {
				patched++
			}
		}
	}
	if path := os.Getenv("MCPMIGRATE_FIGURES"); path != "" && patched > 0 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "after the edits their TODOs name (testdata/patches): %d more programs build\n", patched)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			t.Error(err)
		}
	}
	return patched
}

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
