package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// maxFileSize bounds what is read: ~/.claude.json grows with its history,
// but a config file of more than this is not one.
const maxFileSize = 32 << 20

// Change is one planned edit of one host's file: its content before and
// after. Nothing is written until Apply.
type Change struct {
	Host   *Host
	Scope  Scope
	Path   string // the file, symbolic links followed
	Name   string // the entry
	Action string // added, updated, unchanged, removed, absent
	Old    []byte // nil when the file does not exist
	New    []byte
	exists bool
	mode   fs.FileMode
}

// Changed reports whether Apply would write anything.
func (c *Change) Changed() bool {
	return c.Action == "added" || c.Action == "updated" || c.Action == "removed"
}

// read loads the host's file of scope s into a Change.
func read(h *Host, s Scope, env Env, name string) (*Change, error) {
	p, err := h.Path(s, env)
	if err != nil {
		return nil, err
	}
	c := &Change{Host: h, Scope: s, Path: p, Name: name, mode: 0o600}
	if s == Project {
		c.mode = 0o644
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		c.Path = r // a dotfile manager's link stays a link
	}
	f, err := os.Open(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: not a regular file of at most %d MiB", c.Path, maxFileSize>>20)
	}
	c.Old, err = io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err == nil && len(c.Old) > maxFileSize {
		err = fmt.Errorf("%s: larger than %d MiB", c.Path, maxFileSize>>20)
	}
	c.exists, c.mode = true, st.Mode().Perm()
	return c, err
}

// unparsable wraps a refusal to edit a file.
func unparsable(path string, err error) error {
	return fmt.Errorf("%s cannot be read (%v): left as it is; fix or move it, then run again", path, err)
}

// Plan computes the edit that installs e into the host's file of scope s.
func Plan(h *Host, s Scope, env Env, e Entry) (*Change, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	fields, err := h.render(h, e)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.Title, err)
	}
	c, err := read(h, s, env, e.Name)
	if err != nil {
		return nil, err
	}
	var want any
	if h.format == tomlFile {
		c.New, err = tomlSet(c.Old, h.key, e.Name, fields)
		doc, _ := decodeTOML([]byte(renderTOML(h.key, e.Name, fields)))
		want = tomlEntry(doc, h.key, e.Name)
	} else {
		c.New, err = jsonSet(c.Old, h.key, e.Name, fields)
		want, _ = decodeJSONC(renderJSON(fields, "", ""))
	}
	if err != nil {
		return nil, unparsable(c.Path, err)
	}
	if doc, err := c.decode(c.Old); err == nil {
		servers, _ := doc[h.key].(map[string]any)
		if old, ok := servers[e.Name]; ok && !bytes.Equal(c.Old, c.New) {
			want = keepUnmanaged(want, old)
		} else if ok {
			want = old
		}
	}
	if err := c.verify(want); err != nil {
		return nil, err
	}
	switch {
	case bytes.Equal(c.Old, c.New) && c.exists:
		c.Action = "unchanged"
	case c.had():
		c.Action = "updated"
	default:
		c.Action = "added"
	}
	return c, nil
}

// PlanRemove computes the edit that removes entry name from the host's
// file of scope s.
func PlanRemove(h *Host, s Scope, env Env, name string) (*Change, error) {
	c, err := read(h, s, env, name)
	if err != nil {
		return nil, err
	}
	c.Action = "absent"
	if !c.exists {
		return c, nil
	}
	if h.format == tomlFile {
		c.New, err = tomlRemove(c.Old, h.key, name)
	} else {
		c.New, err = jsonRemove(c.Old, h.key, name)
	}
	if err != nil {
		return nil, unparsable(c.Path, err)
	}
	if !bytes.Equal(c.Old, c.New) {
		if err := c.verify(nil); err != nil {
			return nil, err
		}
		c.Action = "removed"
	}
	return c, nil
}

// decode reads a document of the host's format as a map.
func (c *Change) decode(b []byte) (map[string]any, error) {
	if c.Host.format == tomlFile {
		return decodeTOML(b)
	}
	v, err := decodeJSONC(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// had reports whether the old file holds the entry.
func (c *Change) had() bool {
	doc, err := c.decode(c.Old)
	if err != nil {
		return false
	}
	servers, _ := doc[c.Host.key].(map[string]any)
	_, ok := servers[c.Name]
	return ok
}

// verify parses the new content and checks that it holds want as the
// entry (none when want is nil) and that everything else decodes as the
// old content did. A splice that did anything else is refused here.
func (c *Change) verify(want any) error {
	before, err := c.decode(c.Old)
	if err != nil {
		return unparsable(c.Path, err)
	}
	after, err := c.decode(c.New)
	if err != nil {
		return fmt.Errorf("%s: the edit would not parse (%v): nothing written; please report this", c.Path, err)
	}
	servers, _ := after[c.Host.key].(map[string]any)
	if got := servers[c.Name]; !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: the edit would not hold the entry as intended: nothing written; please report this", c.Path)
	}
	if !reflect.DeepEqual(without(before, c.Host.key, c.Name), without(after, c.Host.key, c.Name)) {
		return fmt.Errorf("%s: the edit would change other settings: nothing written; please report this", c.Path)
	}
	return nil
}

// without is doc without entry name of its servers (and without the
// servers key when that leaves it empty).
func without(doc map[string]any, key, name string) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	servers, ok := doc[key].(map[string]any)
	if !ok {
		return out
	}
	rest := make(map[string]any, len(servers))
	for k, v := range servers {
		if k != name {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		delete(out, key)
	} else {
		out[key] = rest
	}
	return out
}

// Apply writes the new content: the old file is copied to FILE.bak first,
// and the new one is written to a temporary file in the same directory and
// renamed over it, keeping its mode. It refuses when the file changed since
// it was read (a host rewriting it meanwhile).
func (c *Change) Apply() error {
	if !c.Changed() {
		return nil
	}
	cur, err := os.ReadFile(c.Path)
	switch {
	case c.exists && (err != nil || !bytes.Equal(cur, c.Old)):
		return fmt.Errorf("%s changed while mcp was editing it: nothing written; run again", c.Path)
	case !c.exists && err == nil:
		return fmt.Errorf("%s appeared while mcp was editing it: nothing written; run again", c.Path)
	}
	if c.exists {
		if err := writeAtomic(c.Path+".bak", c.Old, c.mode); err != nil {
			return fmt.Errorf("backing up %s: %w", c.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return err
	}
	return writeAtomic(c.Path, c.New, c.mode)
}

// writeAtomic replaces path with data through a temporary file.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// Diff is the change as a unified diff of one hunk.
func (c *Change) Diff() string {
	a, b := splitLines(c.Old), splitLines(c.New)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	from := max(0, p-3)
	tail := min(s, 3)
	var out strings.Builder
	old := c.Path
	if !c.exists {
		old = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", old, c.Path)
	fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", from+1, len(a)-s+tail-from, from+1, len(b)-s+tail-from)
	for _, l := range a[from:p] {
		out.WriteString(" " + l)
	}
	for _, l := range a[p : len(a)-s] {
		out.WriteString("-" + l)
	}
	for _, l := range b[p : len(b)-s] {
		out.WriteString("+" + l)
	}
	for _, l := range a[len(a)-s : len(a)-s+tail] {
		out.WriteString(" " + l)
	}
	return out.String()
}

// splitLines splits b into lines that keep their newline; a last line
// without one gets it, so that a diff reads well.
func splitLines(b []byte) []string {
	var ls []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			ls = append(ls, string(b)+"\n")
			break
		}
		ls = append(ls, string(b[:i+1]))
		b = b[i+1:]
	}
	return ls
}

// Installed is one entry found in a host's file.
type Installed struct {
	Host    string   `json:"host"`
	Scope   Scope    `json:"scope"`
	Name    string   `json:"name"`
	File    string   `json:"file"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
}

// List reads the entries of the host's file of scope s; a missing file has
// none.
func List(h *Host, s Scope, env Env) ([]Installed, error) {
	c, err := read(h, s, env, "")
	if err != nil || !c.exists {
		return nil, err
	}
	doc, err := c.decode(c.Old)
	if err != nil {
		return nil, unparsable(c.Path, err)
	}
	servers, _ := doc[h.key].(map[string]any)
	var out []Installed
	for name, v := range servers {
		m, _ := v.(map[string]any)
		in := Installed{Host: h.ID, Scope: s, Name: name, File: c.Path}
		in.Command, _ = m["command"].(string)
		args, _ := m["args"].([]any)
		for _, a := range args {
			if s, ok := a.(string); ok {
				in.Args = append(in.Args, s)
			}
		}
		for _, k := range []string{"url", "serverUrl", "httpUrl"} {
			if u, ok := m[k].(string); ok && in.URL == "" {
				in.URL = u
			}
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
