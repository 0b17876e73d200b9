// Command mcp-migrate rewrites a Go module written against the official
// go-sdk (github.com/modelcontextprotocol/go-sdk) or mark3labs/mcp-go to
// gomcp (github.com/gomcp/sdk). It loads the packages with full type
// information and rewrites their syntax trees, so a rule fires only where a
// name really refers to the peer's API, never on text that merely looks
// like it.
//
// What it cannot rewrite safely it marks with a comment
//
//	// TODO(mcp-migrate): <why, and what to do>
//
// above the statement concerned, and the summary at the end lists every such
// comment. Running it again over migrated code changes nothing.
//
// Usage:
//
//	go run github.com/gomcp/sdk/cmd/mcp-migrate@latest ./...
//
// Flags:
//
//	-diff    print a unified diff of the changes and write nothing
//	-build   run go build and go vet on the packages afterwards (default true)
//	-C dir   run in dir (the module to migrate) instead of the current directory
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it parses args, migrates, reports on
// stdout and stderr, and returns the exit status (0: migrated and, when
// checked, building; 1: something is left to do; 2: usage or load error).
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	diff := fs.Bool("diff", false, "print a unified diff of the changes instead of writing them")
	build := fs.Bool("build", true, "run go build and go vet on the migrated packages")
	dir := fs.String("C", ".", "the directory to run in (the module to migrate)")
	verbose := fs.Bool("v", false, "list every rewritten site")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcp-migrate [-diff] [-build=false] [-C dir] [packages]\n\n"+
			"Rewrites go-sdk and mcp-go code to gomcp in place; default packages: ./...\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	res, err := Migrate(Config{Dir: *dir, Patterns: patterns})
	if err != nil {
		fmt.Fprintln(stderr, "mcp-migrate:", err)
		return 2
	}
	if *diff {
		for _, f := range res.Files {
			fmt.Fprint(stdout, UnifiedDiff(f.Path, f.Old, f.New))
		}
		res.Summary(stderr, *verbose)
		return 0
	}
	if err := res.Write(); err != nil {
		fmt.Fprintln(stderr, "mcp-migrate:", err)
		return 2
	}
	res.Summary(stderr, *verbose)
	if !*build || len(res.Files) == 0 {
		return 0
	}
	if err := res.FixModule(*dir); err != nil {
		fmt.Fprintln(stderr, "mcp-migrate: go.mod:", err)
	}
	if ok := Check(*dir, patterns, stderr); !ok {
		return 1
	}
	return 0
}
