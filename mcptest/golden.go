package mcptest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// UpdateEnv is the environment variable that makes Golden rewrite its
// files: run MCPTEST_UPDATE=1 go test -run TestX. It is a variable, not a
// flag, so that importing mcptest adds nothing to the test binary's flags.
const UpdateEnv = "MCPTEST_UPDATE"

// updating reports whether UpdateEnv asks for golden files to be
// rewritten: it holds a true value of strconv.ParseBool ("1", "true").
func updating() bool {
	on, _ := strconv.ParseBool(os.Getenv(UpdateEnv))
	return on
}

// Golden compares got with the contents of the file at path (conventionally
// under testdata) and fails the test, showing the first line that differs,
// if they are not the same. Line endings in the file may be \r\n.
//
// When the environment variable MCPTEST_UPDATE (UpdateEnv) is 1
// (MCPTEST_UPDATE=1 go test -run TestX), Golden writes got to path
// instead, creating its directory if need be.
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
		t.Fatalf("mcptest: %v (run the test with "+UpdateEnv+"=1 to create it)", err)
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
	t.Errorf("mcptest: the output differs from %s at line %d (run the test with "+UpdateEnv+"=1 to rewrite the file):\n got: %s\nwant: %s",
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
