package surface

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// diffCase is one before/after pair of testdata/diff.json: snapshots
// (without their format field) and the changes expected, each written
// "class path".
type diffCase struct {
	Name string          `json:"name"`
	Old  json.RawMessage `json:"old"`
	New  json.RawMessage `json:"new"`
	Want []string        `json:"want"`
}

// snapshotOf parses a snapshot without its format field.
func snapshotOf(t *testing.T, doc json.RawMessage) *Snapshot {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	m["format"] = Format
	b, _ := json.Marshal(m)
	s, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDiffCorpus runs Diff on every before/after pair of testdata/diff.json
// and checks the class and path of each change, and that Diff of a
// snapshot with itself is empty.
func TestDiffCorpus(t *testing.T) {
	raw, err := os.ReadFile("testdata/diff.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []diffCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases read", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			old, new := snapshotOf(t, c.Old), snapshotOf(t, c.New)
			changes := Diff(old, new)
			var got []string
			for _, ch := range changes {
				got = append(got, ch.Class.String()+" "+ch.Path)
				if ch.Message == "" {
					t.Errorf("%s has no message", ch.Path)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.Want))
			if !slices.Equal(got, want) {
				t.Errorf("Diff:\n got %q\nwant %q\nchanges:\n%s", got, want, lines(changes))
			}
			if same := Diff(new, new); len(same) != 0 {
				t.Errorf("Diff(new, new) = %s", lines(same))
			}
		})
	}
}

func lines(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString("  " + c.String() + "\n")
	}
	return b.String()
}
