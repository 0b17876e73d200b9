package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// FixModule makes the module require gomcp, if it does not yet.
func (r *Result) FixModule(dir string) error {
	out, err := exec.Command("go", "-C", dir, "list", "-m", "github.com/gomcp/sdk").CombinedOutput()
	if err == nil && len(bytes.TrimSpace(out)) > 0 {
		return nil
	}
	out, err = exec.Command("go", "-C", dir, "get", "github.com/gomcp/sdk@latest").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go get github.com/gomcp/sdk: %v: %s", err, out)
	}
	return nil
}

// Check runs go build and go vet on the patterns and prints what is left;
// it reports whether both pass.
func Check(dir string, patterns []string, w io.Writer) bool {
	ok := true
	for _, cmd := range [][]string{{"build"}, {"vet"}} {
		args := append([]string{"-C", dir}, cmd...)
		args = append(args, patterns...)
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			ok = false
			fmt.Fprintf(w, "mcp-migrate: go %s reports what is left to do:\n%s\n", strings.Join(cmd, " "), out)
			if cmd[0] == "build" {
				break // vet repeats the build's errors
			}
		}
	}
	if ok {
		fmt.Fprintln(w, "mcp-migrate: go build and go vet pass")
	}
	return ok
}
