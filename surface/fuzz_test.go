package surface

import (
	"encoding/json"
	"os"
	"testing"
)

// FuzzDiff checks that Parse and Diff never panic, whatever the
// snapshots hold, and that a snapshot has no changes against itself. The
// seeds are the pairs of testdata/diff.json.
func FuzzDiff(f *testing.F) {
	raw, err := os.ReadFile("testdata/diff.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []diffCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add([]byte(c.Old), []byte(c.New))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := Parse(withFormat(a))
		if err != nil {
			return
		}
		new, err := Parse(withFormat(b))
		if err != nil {
			return
		}
		Diff(old, new)
		Diff(new, old)
		if d := Diff(new, new); len(d) != 0 {
			t.Errorf("Diff of a snapshot with itself: %v", d)
		}
		if _, err := Marshal(new); err != nil {
			t.Errorf("Marshal: %v", err)
		}
	})
}

// withFormat adds the format field to a JSON object's text.
func withFormat(b []byte) []byte {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return b
	}
	m["format"] = Format
	out, _ := json.Marshal(m)
	return out
}
