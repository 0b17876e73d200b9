package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// maxRoots bounds the roots offered, against a page or a script adding
// without end.
const maxRoots = 256

// rootFor turns a directory (or a file:// URI, kept as it is) into a root:
// the file:// URI of its absolute path, named after its last element. The
// directory must exist, so that a typo is not offered to the server.
func rootFor(dir string) (*mcp.Root, error) {
	if strings.HasPrefix(dir, "file://") {
		u, err := url.Parse(dir)
		if err != nil || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
			return nil, fmt.Errorf("root %q: not a file:// URI of an absolute path", dir)
		}
		return &mcp.Root{URI: dir, Name: filepath.Base(u.Path)}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %q: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("root %q: %v", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("root %q: not a directory", dir)
	}
	return &mcp.Root{URI: fileURI(abs), Name: filepath.Base(abs)}, nil
}

// fileURI is the file:// URI of an absolute path.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") { // C:/x on Windows
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// How long a command given --root waits for a stateful server to ask for
// the roots after the handshake, and then for it to take them in.
const (
	rootsAskWait   = 300 * time.Millisecond
	rootsApplyWait = 100 * time.Millisecond
)

// rootsWatch tells when the server has been answered a roots/list: after
// the handshake, and after each change the shell made, a stateful server
// that keeps the roots asks for them again, and the next command must wait
// for that (awaitRootsList) or the server answers it with the old roots.
type rootsWatch struct {
	mu      sync.Mutex
	waiters []chan struct{}
}

// middleware returns the client middleware that wakes the waiters once a
// roots/list has been answered.
func (w *rootsWatch) middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			res, err := next(ctx, r)
			if r.Method == mcp.MethodRootsList {
				w.mu.Lock()
				for _, c := range w.waiters {
					close(c)
				}
				w.waiters = nil
				w.mu.Unlock()
			}
			return res, err
		}
	}
}

// next returns a channel closed once the next roots/list is answered.
func (w *rootsWatch) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := make(chan struct{})
	w.waiters = append(w.waiters, c)
	return c
}

// awaitRootsList gives a stateful server that asks for the roots when the
// session starts (as @modelcontextprotocol/server-filesystem does, to
// decide what it may touch) time to ask and to apply the answer before the
// command's request, which it would otherwise answer as if there were
// none. A server that does not ask costs rootsAskWait, and only with
// --root.
func awaitRootsList(ctx context.Context, asked <-chan struct{}) {
	t := time.NewTimer(rootsAskWait)
	defer t.Stop()
	select {
	case <-asked:
	case <-t.C:
		return
	case <-ctx.Done():
		return
	}
	t.Reset(rootsApplyWait)
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// rootSet holds the roots offered to the server, which mcp shell and the
// inspector's page may change while the session lives.
type rootSet struct {
	mu     sync.Mutex
	client *mcp.Client // told of each change; nil before a connection
	roots  []*mcp.Root
	seen   rootsWatch // the server's roots/list requests
}

// newRootSet makes the roots of --root directories.
func newRootSet(dirs []string) (*rootSet, error) {
	rs := &rootSet{roots: []*mcp.Root{}}
	return rs, rs.add(dirs...)
}

// list returns the roots, never nil. A nil set has none.
func (rs *rootSet) list() []*mcp.Root {
	if rs == nil {
		return []*mcp.Root{}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.roots)
}

// attach makes client the one told of changes (none for a nil set).
func (rs *rootSet) attach(client *mcp.Client) {
	if rs == nil {
		return
	}
	rs.mu.Lock()
	rs.client = client
	rs.mu.Unlock()
}

// add offers the directories (or file:// URIs) as roots too; those offered
// already are left as they are.
func (rs *rootSet) add(dirs ...string) error {
	var add []*mcp.Root
	for _, d := range dirs {
		r, err := rootFor(d)
		if err != nil {
			return err
		}
		add = append(add, r)
	}
	rs.mu.Lock()
	next := slices.Clone(rs.roots)
	for _, r := range add {
		if !slices.ContainsFunc(next, func(x *mcp.Root) bool { return x.URI == r.URI }) {
			next = append(next, r)
		}
	}
	if len(next) > maxRoots {
		rs.mu.Unlock()
		return fmt.Errorf("at most %d roots", maxRoots)
	}
	rs.set(next)
	return nil
}

// remove stops offering the roots named by directory or by URI.
func (rs *rootSet) remove(names ...string) error {
	rs.mu.Lock()
	next := slices.Clone(rs.roots)
	for _, n := range names {
		uri := n
		if !strings.HasPrefix(n, "file://") {
			if abs, err := filepath.Abs(n); err == nil {
				uri = fileURI(abs)
			}
		}
		i := slices.IndexFunc(next, func(x *mcp.Root) bool { return x.URI == uri })
		if i < 0 {
			rs.mu.Unlock()
			return fmt.Errorf("%s is not a root", n)
		}
		next = slices.Delete(next, i, i+1)
	}
	rs.set(next)
	return nil
}

// set replaces the roots, with rs.mu held, which it releases, and tells
// the client, which announces the change (notifications/roots/list_changed).
func (rs *rootSet) set(roots []*mcp.Root) {
	rs.roots = roots
	client := rs.client
	rs.mu.Unlock()
	if client != nil {
		client.SetRoots(roots...)
	}
}

// shellRoots runs the shell's roots command: roots [list] [--json],
// roots add DIR..., roots remove DIR|URI....
func (inv *invocation) shellRoots(ctx context.Context, stateful bool, words []string, out io.Writer) error {
	args := slices.DeleteFunc(slices.Clone(words[1:]), func(w string) bool { return w == "--json" })
	asJSON := len(args) != len(words)-1
	verb := "list"
	if len(args) > 0 {
		verb, args = args[0], args[1:]
	}
	switch {
	case inv.roots == nil:
		return errors.New("roots: not connected")
	case verb == "list" && len(args) == 0:
		roots := inv.roots.list()
		if asJSON {
			b, _ := json.MarshalIndent(map[string]any{"roots": roots}, "", "  ")
			fmt.Fprintf(out, "%s\n", b)
			return nil
		}
		if len(roots) == 0 {
			fmt.Fprintln(out, "no roots (roots add DIR offers one)")
		}
		for _, r := range roots {
			fmt.Fprintln(out, r.URI)
		}
		return nil
	case verb == "add" && len(args) > 0:
		return inv.rootsChanged(ctx, stateful, inv.roots.add, args)
	case verb == "remove" && len(args) > 0:
		return inv.rootsChanged(ctx, stateful, inv.roots.remove, args)
	}
	return errors.New("usage: roots [list] | roots add DIR | roots remove DIR (one or more)")
}

// rootsChanged applies change to the roots and, on a stateful session,
// gives the server the time to ask for them and take them in before the
// shell's next command (see awaitRootsList): the change is announced with
// notifications/roots/list_changed, which the server answers when it will.
// A 2026-07-28 session sends the roots with each request that needs them.
func (inv *invocation) rootsChanged(ctx context.Context, stateful bool, change func(...string) error, args []string) error {
	asked := inv.roots.seen.next()
	if err := change(args...); err != nil {
		return err
	}
	if stateful {
		awaitRootsList(ctx, asked)
	}
	return nil
}
