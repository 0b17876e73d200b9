package cli

import (
	"testing"
	"time"
)

// TestChangedDuring: a file that changed, went or came (in a directory
// watched before) while a build ran is built next; a file of a directory
// watched only since is not a change. (A removal during the build was
// missed: TestDevRebuilds, whose fix adds text.go and removes desc.go,
// hung when a loaded machine started the build between the two.)
func TestChangedDuring(t *testing.T) {
	at := time.Unix(1, 0)
	before := map[string]stamp{"/m/desc.go": {10, at}, "/m/main.go": {20, at}, "/m/go.mod": {5, at}}
	with := func(changes func(map[string]stamp)) map[string]stamp {
		out := map[string]stamp{}
		for k, v := range before {
			out[k] = v
		}
		changes(out)
		return out
	}
	for _, c := range []struct {
		name  string
		after map[string]stamp
		want  bool
	}{
		{"unchanged", with(func(map[string]stamp) {}), false},
		{"edited", with(func(m map[string]stamp) { m["/m/main.go"] = stamp{21, at} }), true},
		{"touched", with(func(m map[string]stamp) { m["/m/main.go"] = stamp{20, at.Add(time.Second)} }), true},
		{"removed", with(func(m map[string]stamp) { delete(m, "/m/desc.go") }), true},
		{"added beside", with(func(m map[string]stamp) { m["/m/text.go"] = stamp{7, at} }), true},
		{"newly watched directory", with(func(m map[string]stamp) { m["/m/pkg/new.go"] = stamp{7, at} }), false},
	} {
		if got := changedDuring(before, c.after); got != c.want {
			t.Errorf("%s: changedDuring = %v, want %v", c.name, got, c.want)
		}
	}
}
