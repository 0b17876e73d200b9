package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/surface"
)

// runSnapshot writes the server's surface (package surface) on stdout, or
// to the file of -o.
func runSnapshot(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
	s, err := surface.Take(ctx, cs)
	if err != nil {
		return err
	}
	b, err := surface.Marshal(s)
	if err != nil {
		return err
	}
	if inv.snapshotFile != "" {
		if err := os.WriteFile(inv.snapshotFile, b, 0o644); err != nil {
			return usageError{err}
		}
		fmt.Fprintf(inv.stderr, "mcp: wrote %s (%d tools, %d prompts, %d resources, %d templates)\n",
			inv.snapshotFile, len(s.Tools), len(s.Prompts), len(s.Resources), len(s.ResourceTemplates))
		return nil
	}
	_, err = inv.stdout.Write(b)
	return err
}

// runDiff runs mcp diff OLD NEW: it takes or reads both snapshots, prints
// their changes grouped by class and area (or, under --json, {"breaking",
// "changes"}), and exits ExitBreaking if one is breaking.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	inv := &invocation{stdout: stdout, stderr: &lockedWriter{w: stderr}}
	noInput := true // nobody answers questions while snapshots are taken
	old, new, err := inv.parseDiff(args, &noInput)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"diff"})
	}
	if err != nil {
		return inv.report(ctx, err)
	}
	// Files first: a server is asked for the revision of the file it is
	// compared with, unless --protocol-version says otherwise.
	sides := [2][]string{old, new}
	var snaps [2]*surface.Snapshot
	for i, target := range sides {
		if snaps[i], sides[i], err = readSide(target); err != nil {
			return inv.report(ctx, fmt.Errorf("%s: %w", sideName[i], err))
		}
		if s := snaps[i]; s != nil && inv.version == "" && slices.Contains(mcp.SupportedVersions(), s.ProtocolVersion) {
			inv.version = s.ProtocolVersion
		}
	}
	for i, target := range sides {
		if snaps[i] == nil {
			if snaps[i], err = inv.takeSnapshot(ctx, target); err != nil {
				return inv.report(ctx, fmt.Errorf("%s %s: %w", sideName[i], strings.Join(target, " "), err))
			}
		}
	}
	before, after := snaps[0], snaps[1]
	changes := surface.Diff(before, after)
	breaking := surface.HasBreaking(changes)
	if inv.json {
		if changes == nil {
			changes = []surface.Change{}
		}
		err = inv.printJSON(map[string]any{"breaking": breaking, "changes": changes})
	} else {
		err = printChanges(inv.stdout, changes)
	}
	if err != nil {
		return inv.report(ctx, err)
	}
	if breaking {
		return ExitBreaking
	}
	return ExitOK
}

// parseDiff reads the flags and the two sides of mcp diff. OLD is one
// word: a snapshot file, a URL, @NAME, or a command (split at spaces, so
// a command with arguments is quoted). NEW is the rest: a snapshot file,
// a URL or @NAME (flags may follow them), or a command and its arguments.
func (inv *invocation) parseDiff(args []string, noInput *bool) (old, new []string, err error) {
	fs := inv.flagSet("diff", noInput)
	var pos []string
	rest, flags := args, true
	for len(rest) > 0 && len(pos) < 2 {
		if !flags || !strings.HasPrefix(rest[0], "-") || rest[0] == "-" {
			pos, rest = append(pos, rest[0]), rest[1:]
			continue
		}
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			return nil, nil, usageError{err}
		}
		after := fs.Args()
		if consumed := rest[:len(rest)-len(after)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			flags = false
		}
		rest = after
	}
	if len(pos) < 2 {
		return nil, nil, usageError{errors.New("diff: want OLD and NEW: snapshot files (mcp snapshot -o FILE) or servers")}
	}
	if flags && isTargetStart(pos[1]) && len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return nil, nil, usageError{err}
		}
		if fs.NArg() > 0 {
			return nil, nil, usageError{fmt.Errorf("diff: unexpected arguments after %s: %q", pos[1], fs.Args())}
		}
		rest = nil
	}
	return []string{pos[0]}, append([]string{pos[1]}, rest...), nil
}

// sideName names the sides of mcp diff in errors.
var sideName = [2]string{"OLD", "NEW"}

// readSide reads the snapshot file target names, if it names one: a
// single word, not a URL or @NAME, naming a file whose first byte, after
// white space, is '{'. Otherwise it returns the target to connect to: a
// single word with spaces is split into a command and its arguments.
func readSide(target []string) (*surface.Snapshot, []string, error) {
	if len(target) != 1 || isTargetStart(target[0]) {
		return nil, target, nil
	}
	b, ok := readSnapshotFile(target[0])
	if !ok {
		return nil, strings.Fields(target[0]), nil
	}
	s, err := surface.Parse(b)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("%s: %w", target[0], err)}
	}
	return s, target, nil
}

// takeSnapshot takes the snapshot of the server target names, with the
// flags of inv.
func (inv *invocation) takeSnapshot(ctx context.Context, target []string) (*surface.Snapshot, error) {
	sub := &invocation{stdout: inv.stdout, stderr: inv.stderr, json: inv.json, verbose: inv.verbose,
		timeout: inv.timeout, version: inv.version, level: inv.level, tf: inv.tf, target: target}
	var s *surface.Snapshot
	err := sub.run(ctx, func(ctx context.Context, _ *invocation, cs *mcp.ClientSession) error {
		var err error
		s, err = surface.Take(ctx, cs)
		return err
	})
	return s, err
}

// readSnapshotFile returns the contents of the file at path if it looks
// like a snapshot (JSON), bounded by surface.MaxSnapshotBytes.
func readSnapshotFile(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, surface.MaxSnapshotBytes+1))
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return nil, false
	}
	return b, true
}

// printChanges writes changes grouped by class, breaking first, then by
// area (tools, prompts...), in Diff's order within each.
func printChanges(w io.Writer, changes []surface.Change) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintln(w, "no changes")
		return err
	}
	n := 0
	for _, c := range changes {
		if c.Class == surface.Breaking {
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d breaking, %d compatible\n", n, len(changes)-n)
	for _, class := range []surface.Class{surface.Breaking, surface.Compatible} {
		area, started := "", false
		for _, c := range changes {
			if c.Class != class {
				continue
			}
			if !started {
				fmt.Fprintf(&b, "\n%s:\n", class)
				started = true
			}
			if c.Area() != area {
				area = c.Area()
				fmt.Fprintf(&b, "  %s:\n", area)
			}
			fmt.Fprintf(&b, "    %s\n", c.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
