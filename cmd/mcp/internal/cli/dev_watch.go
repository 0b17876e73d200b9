package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// mcp dev polls the files it watches (every devPoll) rather than asking
// the system to report changes (inotify, kqueue, ReadDirectoryChangesW,
// through fsnotify): polling works the same on every system and every
// file system (network mounts, containers' bind mounts), needs no watch
// per directory nor a new dependency, sees editors' save-by-rename as any
// other change, and for the few directories of a server costs next to
// nothing.

// stamp is what a poll notes of one file.
type stamp struct {
	size    int64
	modTime time.Time
}

// same reports whether s and t say the file is unchanged.
func (s stamp) same(t stamp) bool { return s.size == t.size && s.modTime.Equal(t.modTime) }

// listedPackage is the part of go list -json that says where a package's
// sources are.
type listedPackage struct {
	Dir        string
	Standard   bool
	EmbedFiles []string
	Module     *struct {
		Main    bool
		Dir     string
		GoMod   string
		Replace *struct {
			Version string
			Dir     string
			GoMod   string
		}
	}
}

// watchList asks go list which sources the server is built from: the
// directories of its packages in its own module and in modules replaced
// by a local directory (not those of the module cache or the standard
// library), the directories of their embedded files, and the modules'
// go.mod and go.sum. When go list fails (go.mod being edited, say), the
// last list stays.
func (d *devServer) watchList(ctx context.Context) {
	cmd := exec.CommandContext(ctx, d.goTool, "list", "-e", "-deps", "-json=Dir,Standard,EmbedFiles,Module", ".")
	cmd.Dir = d.dir
	cmd.Stderr = io.Discard
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return
	}
	dirs := map[string]bool{d.dir: true}
	files := map[string]bool{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for len(dirs)+len(files) < devMaxFiles {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			break
		}
		m := p.Module
		if p.Standard || m == nil || p.Dir == "" {
			continue
		}
		modDir, goMod := m.Dir, m.GoMod
		if r := m.Replace; r != nil {
			if r.Version != "" { // another version from a proxy: not the user's
				continue
			}
			modDir, goMod = r.Dir, r.GoMod
		} else if !m.Main {
			continue
		}
		dirs[p.Dir] = true
		for _, f := range p.EmbedFiles {
			dirs[filepath.Dir(filepath.Join(p.Dir, f))] = true
		}
		if goMod != "" {
			files[goMod] = true
		}
		if modDir != "" {
			files[filepath.Join(modDir, "go.sum")] = true
		}
	}
	d.dirs, d.files = sortedKeys(dirs), sortedKeys(files)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// stamp notes the size and modification time of every file watched: the
// files of the directories watched, but for editors' temporary files and
// tests, and the single files watched. A file that is gone is left out,
// so that its removal is a change too.
func (d *devServer) stamp() map[string]stamp {
	out := map[string]stamp{}
	note := func(path string) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			out[path] = stamp{fi.Size(), fi.ModTime()}
		}
	}
	for _, f := range d.files {
		note(f)
	}
	for _, dir := range d.dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			out[dir] = stamp{size: -1} // a directory gone: a change, then nothing
			continue
		}
		for _, e := range entries {
			if len(out) >= devMaxFiles {
				return out
			}
			if e.Type().IsRegular() && watched(e.Name()) {
				if fi, err := e.Info(); err == nil {
					out[filepath.Join(dir, e.Name())] = stamp{fi.Size(), fi.ModTime()}
				}
			}
		}
	}
	return out
}

// watched reports whether a file named name may change the server: not
// an editor's backup, swap or lock file, nor a test.
func watched(name string) bool {
	switch {
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#"),
		strings.HasSuffix(name, "~") || strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".tmp"),
		strings.HasSuffix(name, "_test.go"):
		return false
	}
	return true
}

// changedDuring reports whether, between the polls before and after a
// build, a watched file changed or went, or a file came in a directory
// watched before: the build may not have seen it. Files of directories
// watched only since (a package the build just imported) do not count.
func changedDuring(before, after map[string]stamp) bool {
	dirs := make(map[string]bool, len(before))
	for k, v := range before {
		dirs[filepath.Dir(k)] = true
		if w, ok := after[k]; !ok || !w.same(v) {
			return true
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok && dirs[filepath.Dir(k)] {
			return true
		}
	}
	return false
}

// sameStamps reports whether two polls found the same files unchanged.
func sameStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.same(v) {
			return false
		}
	}
	return true
}
