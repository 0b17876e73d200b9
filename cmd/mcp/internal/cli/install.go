package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/gomcp/sdk/cmd/mcp/internal/hostconfig"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// installFlags are the flags of mcp install, uninstall and list-installed.
type installFlags struct {
	hosts                         multi
	all, dryRun, json             bool
	scope, project, name, bearer  string
	env, envRefs, headers, hdrRef multi
}

func (f *installFlags) flagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&f.hosts, "host", "")
	fs.StringVar(&f.scope, "scope", "", "")
	fs.StringVar(&f.project, "project", "", "")
	fs.BoolVar(&f.dryRun, "dry-run", false, "")
	switch cmd {
	case "install":
		fs.BoolVar(&f.all, "all", false, "")
		fs.StringVar(&f.name, "name", "", "")
		fs.Var(&f.env, "env", "")
		fs.Var(&f.env, "e", "")
		fs.Var(&f.envRefs, "env-ref", "")
		fs.Var(&f.headers, "header", "")
		fs.Var(&f.headers, "H", "")
		fs.Var(&f.hdrRef, "header-ref", "")
		fs.StringVar(&f.bearer, "bearer-env", "", "")
	case "list-installed":
		fs.BoolVar(&f.json, "json", false, "")
	}
	return fs
}

// parse reads flags and positional arguments; flags may follow a URL or a
// NAME, but everything after a command (or after --) is the command's.
func (f *installFlags) parse(cmd string, args []string) ([]string, error) {
	fs := f.flagSet(cmd)
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		a := fs.Arg(0)
		dashdash := len(args) > fs.NArg() && args[len(args)-fs.NArg()-1] == "--"
		if cmd == "install" && (dashdash || !isURL(a)) {
			return append(rest, fs.Args()...), nil
		}
		rest = append(rest, a)
		args = fs.Args()[1:]
	}
}

func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

// runInstall is mcp install, mcp uninstall and mcp list-installed.
func runInstall(cmd string, args []string, stdout, stderr io.Writer) int {
	var f installFlags
	rest, err := f.parse(cmd, args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{cmd})
	}
	if err == nil {
		err = f.check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp: %v (see mcp help %s)\n", err, cmd)
		return ExitUsage
	}
	dir := f.project
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if dir, err = filepath.Abs(dir); err != nil {
		fmt.Fprintf(stderr, "mcp: %v\n", err)
		return ExitUsage
	}
	env := hostconfig.OSEnv(runtime.GOOS, dir)
	switch cmd {
	case "install":
		return f.install(rest, env, stdout, stderr)
	case "uninstall":
		return f.uninstall(rest, env, stdout, stderr)
	}
	return f.list(rest, env, stdout, stderr)
}

// check validates the flags that every command shares.
func (f *installFlags) check() error {
	if f.scope != "" && f.scope != "user" && f.scope != "project" {
		return fmt.Errorf("--scope %s: user or project", f.scope)
	}
	var ids []string
	for _, h := range f.hosts {
		ids = append(ids, strings.Split(h, ",")...)
	}
	f.hosts = nil
	for _, id := range ids {
		if _, ok := hostconfig.LookupHost(id); !ok {
			return fmt.Errorf("unknown host %q (one of %s)", id, hostIDs())
		}
		f.hosts = append(f.hosts, id)
	}
	if f.all && len(f.hosts) > 0 {
		return errors.New("--all or --host, not both")
	}
	return nil
}

func hostIDs() string {
	var ids []string
	for _, h := range hostconfig.Hosts {
		ids = append(ids, h.ID)
	}
	return strings.Join(ids, ", ")
}

// scopes are the scopes named, or both.
func (f *installFlags) scopes() []hostconfig.Scope {
	if f.scope != "" {
		return []hostconfig.Scope{hostconfig.Scope(f.scope)}
	}
	return []hostconfig.Scope{hostconfig.User, hostconfig.Project}
}

// selected are the hosts named, or every host.
func (f *installFlags) selected() []*hostconfig.Host {
	if len(f.hosts) == 0 {
		return hostconfig.Hosts
	}
	var hs []*hostconfig.Host
	for _, id := range f.hosts {
		h, _ := hostconfig.LookupHost(id)
		hs = append(hs, h)
	}
	return hs
}

// entry builds the entry of mcp install from its flags and target.
func (f *installFlags) entry(target []string, scope hostconfig.Scope) (hostconfig.Entry, error) {
	e := hostconfig.Entry{Name: f.name, BearerEnv: f.bearer}
	if len(target) == 0 {
		return e, errors.New("give the server: mcp install [flags] URL, or mcp install [flags] -- COMMAND [ARG...]")
	}
	if isURL(target[0]) {
		if len(target) > 1 {
			return e, errors.New("a URL takes no arguments (flags may follow it)")
		}
		e.URL = target[0]
	} else {
		e.Command, e.Args = target[0], target[1:]
		// The user's hosts start servers in a directory of their own.
		if scope == hostconfig.User && strings.ContainsAny(e.Command, `/\`) && !filepath.IsAbs(e.Command) {
			abs, err := filepath.Abs(e.Command)
			if err != nil {
				return e, err
			}
			e.Command = abs
		}
	}
	if e.Name == "" {
		e.Name = defaultName(e)
		if e.Name == "" {
			return e, errors.New("name the server with --name")
		}
	}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return e, fmt.Errorf("--env %q: KEY=VALUE", kv)
		}
		e.Env = append(e.Env, hostconfig.KV{Key: k, Value: v})
	}
	for _, r := range f.envRefs {
		k, v, ok := strings.Cut(r, "=")
		if !ok {
			v = k
		}
		e.EnvRefs = append(e.EnvRefs, hostconfig.Ref{Name: k, Var: v})
	}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			k, v, ok = strings.Cut(h, "=")
		}
		if !ok || strings.TrimSpace(k) == "" {
			return e, fmt.Errorf("--header %q: 'Name: value'", h)
		}
		e.Headers = append(e.Headers, hostconfig.KV{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	for _, r := range f.hdrRef {
		k, v, ok := strings.Cut(r, "=")
		if !ok || k == "" || v == "" {
			return e, fmt.Errorf("--header-ref %q: NAME=VARIABLE", r)
		}
		e.HeaderRefs = append(e.HeaderRefs, hostconfig.Ref{Name: k, Var: v})
	}
	return e, e.Check()
}

// launchers are commands whose name says nothing of the server they run.
var launchers = map[string]bool{"go": true, "npx": true, "uvx": true, "uv": true, "node": true, "python": true,
	"python3": true, "docker": true, "podman": true, "bunx": true, "bun": true, "deno": true, "pipx": true,
	"java": true, "dotnet": true, "mcp": true, "sh": true, "bash": true, "cmd": true}

// defaultName names an entry after its command (not a launcher such as
// npx or go, which needs --name) or its URL's host (mcp.example.com:
// example).
func defaultName(e hostconfig.Entry) string {
	var n string
	if e.URL != "" {
		u, err := url.Parse(e.URL)
		if err != nil {
			return ""
		}
		labels := strings.Split(u.Hostname(), ".")
		for len(labels) > 1 && (labels[0] == "www" || labels[0] == "mcp" || labels[0] == "api") {
			labels = labels[1:]
		}
		n = labels[0]
	} else {
		n = filepath.Base(strings.ReplaceAll(e.Command, `\`, "/"))
		n = strings.TrimSuffix(n, filepath.Ext(n))
		if launchers[strings.ToLower(n)] {
			return ""
		}
	}
	n = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, n)
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// install plans every host's edit first and writes only when all of them
// can be made.
func (f *installFlags) install(target []string, env hostconfig.Env, stdout, stderr io.Writer) int {
	scope := hostconfig.User
	if f.scope != "" {
		scope = hostconfig.Scope(f.scope)
	}
	e, err := f.entry(target, scope)
	if err != nil {
		fmt.Fprintf(stderr, "mcp: %v (see mcp help install)\n", err)
		return ExitUsage
	}
	var hosts []*hostconfig.Host
	switch {
	case f.all:
		for _, h := range hostconfig.Hosts {
			if h.HasScope(scope) && h.Detected(scope, env) {
				hosts = append(hosts, h)
			}
		}
		if len(hosts) == 0 {
			fmt.Fprintf(stderr, "mcp: no host found with a %s config here; name one with --host (%s)\n", scope, hostIDs())
			return ExitUsage
		}
	case len(f.hosts) == 0:
		fmt.Fprintf(stderr, "mcp: name the hosts with --host (%s), or --all for those found here\n", hostIDs())
		return ExitUsage
	default:
		hosts = f.selected()
	}
	var changes []*hostconfig.Change
	failed := false
	for _, h := range hosts {
		if !h.HasScope(scope) {
			fmt.Fprintf(stderr, "mcp: %s has no %s scope\n", h.Title, scope)
			failed = true
			continue
		}
		if err := h.Accepts(e); err != nil && f.all {
			fmt.Fprintf(stderr, "mcp: skipped %s: %v\n", h.Title, err)
			continue
		}
		c, err := hostconfig.Plan(h, scope, env, e)
		if err != nil {
			fmt.Fprintf(stderr, "mcp: %v\n", err)
			failed = true
			continue
		}
		changes = append(changes, c)
	}
	if failed {
		fmt.Fprintln(stderr, "mcp: nothing written")
		return ExitToolError
	}
	if len(changes) == 0 {
		fmt.Fprintln(stderr, "mcp: none of the hosts found can take this server")
		return ExitToolError
	}
	if code := f.apply(changes, stdout, stderr); code != ExitOK {
		return code
	}
	if len(e.Env) > 0 || len(e.Headers) > 0 {
		fmt.Fprintln(stderr, "note: --env and --header values are written into the files as given; for secrets, --env-ref, --header-ref and --bearer-env write a reference to a variable of the host's environment instead")
	}
	return ExitOK
}

// apply writes the changes (or shows them, with --dry-run) and reports each.
func (f *installFlags) apply(changes []*hostconfig.Change, stdout, stderr io.Writer) int {
	code := ExitOK
	for _, c := range changes {
		where := fmt.Sprintf("%s (%s)", c.Host.Title, c.Scope)
		switch {
		case !c.Changed():
			fmt.Fprintf(stdout, "%s: %q %s in %s\n", where, c.Name, map[string]string{"unchanged": "already there, unchanged", "absent": "not there"}[c.Action], c.Path)
		case f.dryRun:
			fmt.Fprintf(stdout, "%s: would be %s:\n%s", where, c.Action, c.Diff())
		default:
			if err := c.Apply(); err != nil {
				fmt.Fprintf(stderr, "mcp: %v\n", err)
				code = ExitToolError
				continue
			}
			prep := map[string]string{"added": "to", "updated": "in", "removed": "from"}[c.Action]
			fmt.Fprintf(stdout, "%s: %s %q %s %s\n", where, c.Action, c.Name, prep, c.Path)
		}
	}
	if f.dryRun {
		fmt.Fprintln(stdout, "(dry run: nothing written)")
	}
	return code
}

// uninstall removes NAME from every file of the hosts and scopes named
// that holds it.
func (f *installFlags) uninstall(rest []string, env hostconfig.Env, stdout, stderr io.Writer) int {
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "mcp: usage: mcp uninstall [--host H] [--scope S] [--dry-run] NAME (see mcp help uninstall)")
		return ExitUsage
	}
	var changes []*hostconfig.Change
	failed := false
	for _, h := range f.selected() {
		for _, s := range f.scopes() {
			if !h.HasScope(s) {
				continue
			}
			c, err := hostconfig.PlanRemove(h, s, env, rest[0])
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "mcp: %v\n", err)
				failed = true
			case c.Changed():
				changes = append(changes, c)
			}
		}
	}
	if len(changes) == 0 && !failed {
		fmt.Fprintf(stderr, "mcp: %q is not installed in any host's file (see mcp list-installed)\n", rest[0])
		return ExitToolError
	}
	code := f.apply(changes, stdout, stderr)
	if failed {
		code = ExitToolError
	}
	return code
}

// list is mcp list-installed.
func (f *installFlags) list(rest []string, env hostconfig.Env, stdout, stderr io.Writer) int {
	if len(rest) != 0 {
		fmt.Fprintln(stderr, "mcp: usage: mcp list-installed [--host H] [--scope S] [--json]")
		return ExitUsage
	}
	code := ExitOK
	all := []hostconfig.Installed{}
	for _, h := range f.selected() {
		for _, s := range f.scopes() {
			if !h.HasScope(s) {
				continue
			}
			in, err := hostconfig.List(h, s, env)
			if err != nil {
				fmt.Fprintf(stderr, "mcp: %v\n", err)
				code = ExitToolError
			}
			all = append(all, in...)
		}
	}
	if f.json {
		b, _ := json.MarshalIndent(map[string]any{"servers": all}, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return code
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSCOPE\tNAME\tSERVER")
	for _, in := range all {
		server := in.URL
		if server == "" {
			server = shellJoin(append([]string{in.Command}, in.Args...))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Host, in.Scope, in.Name, server)
	}
	_ = tw.Flush()
	return code
}

// shellJoin quotes the words that need it, for reading.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\"'\\$`") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		q[i] = w
	}
	return strings.Join(q, " ")
}
