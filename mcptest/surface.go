package mcptest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/surface"
)

// Surface fails the test when what a client sees of s (its surface:
// server info, capabilities, instructions, tools with their schemas and
// annotations, prompts, resources, templates, extensions; see package
// surface) differs from the snapshot in the golden file at path,
// conventionally testdata/surface.json. The failure lists every change,
// each classified breaking or compatible, so that a breaking one is not
// taken in by accident. Arrays whose order carries no meaning (tools,
// required, enum, a prompt's arguments...) are compared as sets.
//
// As for Golden, MCPTEST_UPDATE=1 go test -run TestX (UpdateEnv) writes
// the snapshot to path instead. The client asks for the revision the
// golden file was taken at, so that a new revision of the SDK does not
// change it; a new file is taken at the client's default revision.
func Surface(t testing.TB, s *mcp.Server, path string) {
	t.Helper()
	raw, readErr := os.ReadFile(path)
	var want *surface.Snapshot
	opts := &Options{}
	if readErr == nil {
		var err error
		if want, err = surface.Parse(raw); err != nil && !updating() {
			t.Fatalf("mcptest: %s: %v (run the test with "+UpdateEnv+"=1 to rewrite it)", path, err)
		}
		if want != nil && slices.Contains(mcp.SupportedVersions(), want.ProtocolVersion) {
			opts.ProtocolVersion = want.ProtocolVersion
		}
	}
	cs := Connect(t, s, opts)
	got, err := surface.Take(t.Context(), cs)
	if err != nil {
		t.Fatalf("mcptest: %v", err)
	}
	gotJSON, err := surface.Marshal(got)
	if err != nil {
		t.Fatalf("mcptest: %v", err)
	}
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("mcptest: %v", err)
		}
		if err := os.WriteFile(path, gotJSON, 0o644); err != nil {
			t.Fatalf("mcptest: %v", err)
		}
		t.Logf("mcptest: wrote %s", path)
		return
	}
	if errors.Is(readErr, fs.ErrNotExist) {
		t.Fatalf("mcptest: %v (run the test with "+UpdateEnv+"=1 to create it)", readErr)
	} else if readErr != nil {
		t.Fatalf("mcptest: %v", readErr)
	}
	wantJSON, err := surface.Marshal(want)
	if err != nil {
		t.Fatalf("mcptest: %v", err)
	}
	if bytes.Equal(gotJSON, wantJSON) {
		return
	}
	t.Errorf("mcptest: the server's surface differs from %s (run the test with "+UpdateEnv+"=1 to accept it):\n%s",
		path, surfaceReport(surface.Diff(want, got)))
}

// surfaceReport lists changes, the breaking ones first.
func surfaceReport(changes []surface.Change) string {
	if len(changes) == 0 {
		return "  no change a client would see (an unused $defs entry, a capability turned from false to absent...), but the snapshots differ\n"
	}
	var b strings.Builder
	n := 0
	for _, c := range changes {
		if c.Class == surface.Breaking {
			n++
		}
	}
	fmt.Fprintf(&b, "  %d breaking, %d compatible:\n", n, len(changes)-n)
	for _, class := range []surface.Class{surface.Breaking, surface.Compatible} {
		for _, c := range changes {
			if c.Class == class {
				fmt.Fprintf(&b, "  %s %s: %s\n", c.Class, c.Path, c.Message)
			}
		}
	}
	return b.String()
}
