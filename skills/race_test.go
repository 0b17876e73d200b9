package skills

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSymlinkSwapRace: while links to files outside the tree are swapped
// in and out of a dynamic skill, in place of a file and of a directory
// above one, reads never serve anything from outside the tree. (It reads
// through readFile, the step every resources/read of a skill file takes,
// so that many reads fit in a short time.)
func TestSymlinkSwapRace(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	live := filepath.Join(root, "tree", "live")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "data.txt"), "SECRET")
	write(filepath.Join(outside, "x.txt"), "SECRET")
	write(filepath.Join(live, "SKILL.md"), "---\nname: live\ndescription: generated\n---\n")
	write(filepath.Join(live, "data.txt"), "inside")
	write(filepath.Join(live, "sub", "x.txt"), "inside")

	s, err := NewDirServer(filepath.Join(root, "tree"), &Options{Dynamic: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	files := []*fileEntry{s.idx.Load().files["skill://live/data.txt"], s.idx.Load().files["skill://live/sub/x.txt"]}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	p := func(name string) string { return filepath.Join(live, name) }
	swap := func(steps ...func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, step := range steps {
					step()
				}
			}
		}()
	}
	// A link out in place of the file, then the file again.
	swap(func() { _ = os.Symlink(filepath.Join(outside, "data.txt"), p("data.lnk")) },
		func() { _ = os.Rename(p("data.lnk"), p("data.txt")) },
		func() { _ = os.WriteFile(p("data.tmp"), []byte("inside"), 0o600) },
		func() { _ = os.Rename(p("data.tmp"), p("data.txt")) })
	// A link out in place of the directory, then the directory.
	swap(func() { _ = os.Rename(p("sub"), p("sub.real")) },
		func() { _ = os.Symlink(outside, p("sub")) },
		func() { _ = os.Remove(p("sub")) },
		func() { _ = os.Rename(p("sub.real"), p("sub")) })

	var escaped, served int
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 100000 && time.Now().Before(deadline); i++ {
		data, err := s.readFile(files[i%2])
		switch {
		case err != nil:
		case strings.Contains(string(data), "SECRET"):
			escaped++
		default:
			served++
		}
	}
	close(stop)
	wg.Wait()
	if escaped > 0 {
		t.Errorf("%d reads served a file from outside the tree (%d from inside)", escaped, served)
	}
	if served == 0 {
		t.Error("no read was served at all")
	}
}
