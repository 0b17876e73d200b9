package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// applyPatches applies the manual edits of testdata/patches to the
// migrated examples in dir: testdata/patches/<peer>/<program, "/" as
// "_">.patch, each a unified diff of one program with a/ and b/ prefixes
// relative to dir (the program is the directory of the files it changes),
// made of only the edits the program's TODO(mcp-migrate) comments name. It checks that every patched program then builds and
// vets, removes those from fails, and reports the edits per peer.
func applyPatches(t *testing.T, dir string, fails map[string]string, report *bytes.Buffer) {
	t.Helper()
	for _, p := range peers {
		files, err := filepath.Glob(filepath.Join("testdata", "patches", p.dir, "*.patch"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		var progs []string
		lines := 0
		for _, f := range files {
			patch, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			abs, err := filepath.Abs(f)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "apply", "-p1", abs)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("git apply %s: %v\n%s", f, err, out)
				continue
			}
			for _, l := range strings.Split(string(patch), "\n") {
				if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
					lines++
				}
			}
			// The program is the directory of the first file the patch changes.
			prog := ""
			for _, l := range strings.Split(string(patch), "\n") {
				if rest, ok := strings.CutPrefix(l, "+++ b/"); ok {
					prog = filepath.ToSlash(filepath.Dir(rest))
					break
				}
			}
			if prog == "" || !strings.HasPrefix(prog, p.dir+"/") {
				t.Errorf("%s: changes no program of %s", f, p.dir)
				continue
			}
			progs = append(progs, prog)
		}
		if len(progs) == 0 {
			continue
		}
		// A peer with patches has one for every program that does not
		// build (but those its build constraints exclude, as the original).
		for prog, msg := range fails {
			if strings.HasPrefix(prog, p.dir+string(filepath.Separator)) && !slices.Contains(progs, filepath.ToSlash(prog)) &&
				!strings.Contains(msg, "build constraints exclude") {
				t.Errorf("%s does not build after migration and has no patch in testdata/patches: %s", prog, msg)
			}
		}
		addRootRequirements(t, dir) // a patch may use a package of gomcp whose requirements the examples' module lacks
		still := vetFailures(t, dir, progs)
		for _, prog := range progs {
			if msg, bad := still[prog]; bad {
				t.Errorf("%s does not build after its patch: %s", prog, msg)
				continue
			}
			delete(fails, prog)
		}
		fmt.Fprintf(report, "%s %s: %d programs edited by hand as their TODOs say (%s), %d lines changed; %d of them build after the edits\n",
			p.module, p.version, len(progs), strings.Join(progs, ", "), lines, len(progs)-len(still))
	}
}
