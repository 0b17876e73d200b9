package mcptest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updateFlag is the name of the flag that makes Golden rewrite its files.
const updateFlag = "update"

func init() {
	// Another package may have defined the same flag first; Golden reads
	// whichever is there.
	if flag.Lookup(updateFlag) == nil {
		flag.Bool(updateFlag, false, "rewrite the golden files of mcptest.Golden with what the tests produce")
	}
}

// updating reports whether the test binary runs with -update.
func updating() bool {
	f := flag.Lookup(updateFlag)
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the contents of the file at path (conventionally
// under testdata) and fails the test, showing the first line that differs,
// if they are not the same. Line endings in the file may be \r\n.
//
// When the test binary runs with the -update flag (go test -run TestX
// -update), Golden writes got to path instead, creating its directory if
// need be. Importing mcptest defines that flag, so a test package that
// imports mcptest must not define its own -update; Golden also honours an
// -update flag defined before it (by a package initialized earlier).
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("mcptest: %v", err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("mcptest: %v", err)
		}
		t.Logf("mcptest: wrote %s", path)
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("mcptest: %v (run the test with -update to create it)", err)
	}
	want := strings.ReplaceAll(string(raw), "\r\n", "\n")
	if got == want {
		return
	}
	gotLines := strings.SplitAfter(got, "\n")
	wantLines := strings.SplitAfter(want, "\n")
	i := 0
	for i < len(gotLines) && i < len(wantLines) && gotLines[i] == wantLines[i] {
		i++
	}
	t.Errorf("mcptest: the output differs from %s at line %d (run the test with -update to rewrite the file):\n got: %s\nwant: %s",
		path, i+1, line(gotLines, i), line(wantLines, i))
}

// line returns lines[i] without its newline, noting a missing one, or a
// note that there is no such line.
func line(lines []string, i int) string {
	switch {
	case i >= len(lines) || lines[i] == "":
		return "(end of text)"
	case !strings.HasSuffix(lines[i], "\n"):
		return lines[i] + " (no newline at end)"
	}
	return strings.TrimSuffix(lines[i], "\n")
}
