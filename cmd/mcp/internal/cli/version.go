package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

// printVersion is mcp version (and --version): the version of the module
// the binary was built from, as go install MODULE@VERSION records it
// ("(devel)" for a build from a checkout, with its commit when the build
// recorded one), and the Go version.
func printVersion(stdout io.Writer) int {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "mcp (no build information)")
		return ExitOK
	}
	fmt.Fprintln(stdout, "mcp "+moduleVersion(bi))
	return ExitOK
}

// moduleVersion describes the build: the module's path and version, the
// commit of a build from a checkout, and the Go version.
func moduleVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if v == "(devel)" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + modified
	}
	path := bi.Main.Path
	if path == "" {
		path = bi.Path
	}
	return fmt.Sprintf("%s (%s, %s)", v, path, bi.GoVersion)
}
