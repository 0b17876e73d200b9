package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/gomcp/sdk/gateway"
	"github.com/gomcp/sdk/internal/serverjson"
	"github.com/gomcp/sdk/jsonschema"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp/servercard"
)

// runRegistry runs mcp registry init|validate.
func runRegistry(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "init" && args[0] != "validate") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return help(stdout, stderr, []string{"registry"})
		}
		fmt.Fprintln(stderr, "mcp: usage: mcp registry init|validate ... (see mcp help registry)")
		return ExitUsage
	}
	if args[0] == "init" {
		return registryInit(ctx, args[1:], stdout, stderr)
	}
	return registryValidate(ctx, args[1:], stdin, stdout, stderr)
}

// initFlags are the flags of mcp registry init.
type initFlags struct {
	name, version, description, title, website, out string
	force                                           bool
	urls, oci                                       listFlag
}

func registryInit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("registry init", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f initFlags
	fs.StringVar(&f.name, "name", "", "")
	fs.StringVar(&f.version, "version", "", "")
	fs.StringVar(&f.description, "description", "", "")
	fs.StringVar(&f.title, "title", "", "")
	fs.StringVar(&f.website, "website", "", "")
	fs.StringVar(&f.out, "o", "server.json", "")
	fs.BoolVar(&f.force, "force", false, "")
	fs.Var(&f.urls, "url", "")
	fs.Var(&f.oci, "oci", "")
	dirs, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"registry"})
	}
	if err != nil || len(dirs) > 1 {
		fmt.Fprintf(stderr, "mcp: registry init: %v (see mcp help registry)\n", orUsage(err, "at most one DIR"))
		return ExitUsage
	}
	dir := "."
	if len(dirs) == 1 {
		dir = dirs[0]
	}
	s, notes, err := buildServerJSON(ctx, dir, &f)
	for _, n := range notes {
		fmt.Fprintln(stderr, "mcp: note:", n)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp: registry init:", err)
		return ExitUsage
	}
	doc, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "mcp: registry init:", err)
		return ExitUsage
	}
	doc = append(doc, '\n')
	if err := serverjson.Validate(doc); err != nil {
		fmt.Fprintf(stderr, "mcp: registry init: the generated server.json is invalid (fix it with the flags):\n%s\n", indent(err))
		return ExitUsage
	}
	if f.out == "-" {
		_, _ = stdout.Write(doc)
		return ExitOK
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if f.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	file, err := os.OpenFile(f.out, flags, 0o644)
	if err == nil {
		_, err = file.Write(doc)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if errors.Is(err, os.ErrExist) {
		err = fmt.Errorf("%s exists (--force replaces it)", f.out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp: registry init:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "wrote %s: %s %s\n", f.out, s.Name, s.Version)
	return ExitOK
}

func orUsage(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// parseInterspersed parses flags wherever they are among the positional
// arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// goModule is what go list tells of the module in a directory.
type goModule struct {
	Path string // the module path
	Dir  string
	Doc  string // the package's doc synopsis
}

// maxGoOutput bounds what is read from go list and git.
const maxGoOutput = 1 << 20

func runTool(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedBuffer{&out, maxGoOutput}, &limitedBuffer{&errb, 4096}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func readModule(ctx context.Context, dir string) (*goModule, error) {
	out, err := runTool(ctx, dir, "go", "list", "-m", "-json")
	if err != nil {
		return nil, err
	}
	var m goModule
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go list -m: %v", err)
	}
	if doc, err := runTool(ctx, dir, "go", "list", "-e", "-f", "{{.Doc}}", "."); err == nil {
		m.Doc = strings.TrimSpace(string(doc))
	}
	return &m, nil
}

// gitTagVersion is the version of the tag on HEAD: v1.2.3, or
// sub/v1.2.3 for a module in a subdirectory, as 1.2.3.
func gitTagVersion(ctx context.Context, dir string) (string, error) {
	out, err := runTool(ctx, dir, "git", "describe", "--tags", "--exact-match", "HEAD")
	if err != nil {
		return "", errors.New("no version: HEAD has no tag (vX.Y.Z); give --version")
	}
	tag := strings.TrimSpace(string(out))
	tag = tag[strings.LastIndex(tag, "/")+1:]
	return strings.TrimPrefix(tag, "v"), nil
}

var (
	majorSuffix = regexp.MustCompile(`^v[0-9]+$`)
	nameUnsafe  = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)
)

// registryName turns a module path into a registry name: github.com/o/r
// becomes io.github.o/r (the namespace GitHub login proves), and
// example.com/x/y com.example/y (proved by DNS or HTTP).
func registryName(modPath string) string {
	elems := strings.Split(modPath, "/")
	if n := len(elems); n > 1 && majorSuffix.MatchString(elems[n-1]) {
		elems = elems[:n-1]
	}
	host := elems[0]
	last := nameUnsafe.ReplaceAllString(elems[len(elems)-1], "-")
	if (host == "github.com" || host == "gitlab.com") && len(elems) >= 3 {
		return "io." + strings.TrimSuffix(host, ".com") + "." + elems[1] + "/" + nameUnsafe.ReplaceAllString(elems[2], "-")
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ".") + "/" + last
}

// repositoryOf is the source repository of a module hosted on GitHub or
// GitLab, with the module's subfolder.
func repositoryOf(modPath string) *serverjson.Repository {
	elems := strings.Split(modPath, "/")
	if len(elems) < 3 || (elems[0] != "github.com" && elems[0] != "gitlab.com") {
		return nil
	}
	r := &serverjson.Repository{URL: "https://" + path.Join(elems[:3]...), Source: strings.TrimSuffix(elems[0], ".com")}
	sub := elems[3:]
	if n := len(sub); n > 0 && majorSuffix.MatchString(sub[n-1]) {
		sub = sub[:n-1]
	}
	r.Subfolder = path.Join(sub...)
	return r
}

// buildServerJSON fills a server.json from the module in dir and the flags.
func buildServerJSON(ctx context.Context, dir string, f *initFlags) (*serverjson.Server, []string, error) {
	m, err := readModule(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	s := &serverjson.Server{
		Schema:      serverjson.SchemaURL,
		Name:        f.name,
		Title:       f.title,
		Description: f.description,
		Version:     f.version,
		WebsiteURL:  f.website,
		Repository:  repositoryOf(m.Path),
	}
	if s.Name == "" {
		s.Name = registryName(m.Path)
	}
	if s.Description == "" {
		s.Description = m.Doc
	}
	if s.Description == "" {
		return nil, nil, errors.New("no description: the package has no doc comment; give --description")
	}
	if s.Version == "" {
		if s.Version, err = gitTagVersion(ctx, dir); err != nil {
			return nil, nil, err
		}
	}
	for _, u := range f.urls {
		s.Remotes = append(s.Remotes, serverjson.Transport{Type: "streamable-http", URL: u})
	}
	for _, img := range f.oci {
		s.Packages = append(s.Packages, serverjson.Package{RegistryType: "oci", Identifier: img, Transport: serverjson.Transport{Type: "stdio"}})
	}
	notes := []string{fmt.Sprintf("no package entry for go install %s@v%s: the registry's %s schema has no Go package type yet (proposed); add one when it does", m.Path, s.Version, path.Base(path.Dir(serverjson.SchemaURL)))}
	if len(s.Remotes) == 0 && len(s.Packages) == 0 {
		notes = append(notes, "no --url and no --oci: the entry says how to find the server, not how to run it")
	}
	return s, notes, nil
}

// indent writes err's lines (a ValidationError has one per problem)
// indented under a heading.
func indent(err error) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(err.Error(), "\n"), "\n", "\n  ")
}

// problem is one failed check, for --json.
type problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func problemsOf(err error) []problem {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		out := make([]problem, len(ve.Problems))
		for i, p := range ve.Problems {
			out[i] = problem{p.Location, p.Message}
		}
		return out
	}
	return []problem{{"", err.Error()}}
}

func registryValidate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var against []string
	for i, a := range args {
		if a == "--against" || a == "-against" {
			args, against = args[:i], args[i+1:]
			if len(against) == 0 {
				fmt.Fprintln(stderr, "mcp: registry validate: --against needs a TARGET")
				return ExitUsage
			}
			break
		}
	}
	fs := flag.NewFlagSet("registry validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return help(stdout, stderr, []string{"registry"})
	}
	if err != nil || len(files) > 1 {
		fmt.Fprintf(stderr, "mcp: registry validate: %v (see mcp help registry)\n", orUsage(err, "at most one FILE"))
		return ExitUsage
	}
	file := "server.json"
	if len(files) == 1 {
		file = files[0]
	}
	doc, err := readBounded(file, stdin, serverjson.MaxSize)
	if err != nil {
		fmt.Fprintln(stderr, "mcp: registry validate:", err)
		return ExitUsage
	}
	res := validation{File: file, Schema: serverjson.SchemaURL}
	s, err := serverjson.Parse(doc)
	if err == nil && s.Schema != serverjson.SchemaURL {
		err = &jsonschema.ValidationError{Problems: []jsonschema.Problem{{Location: "/$schema", Message: fmt.Sprintf("%q is not the schema this command checks against (%s)", s.Schema, serverjson.SchemaURL)}}}
	}
	if err != nil {
		res.Problems = problemsOf(err)
		return res.print(stdout, stderr, *asJSON, ExitToolError)
	}
	if against == nil {
		res.Valid = true
		return res.print(stdout, stderr, *asJSON, ExitOK)
	}
	inv := &invocation{stdout: stdout, stderr: &lockedWriter{w: stderr}}
	noInput := true
	if err := inv.parse("registry validate --against", 0, against, &noInput); err != nil {
		return inv.report(ctx, err)
	}
	err = inv.run(ctx, func(ctx context.Context, inv *invocation, cs *mcp.ClientSession) error {
		res.Against = strings.Join(inv.target, " ")
		res.Problems = compareLive(s, cs.InitializeResult().ServerInfo, inv)
		return nil
	})
	if err != nil {
		return inv.report(ctx, err)
	}
	res.Valid = len(res.Problems) == 0
	code := ExitOK
	if !res.Valid {
		code = ExitToolError
	}
	return res.print(stdout, stderr, *asJSON, code)
}

// validation is the outcome of mcp registry validate.
type validation struct {
	File     string    `json:"file"`
	Schema   string    `json:"schema"`
	Against  string    `json:"against,omitempty"`
	Valid    bool      `json:"valid"`
	Problems []problem `json:"problems,omitempty"`
}

func (v *validation) print(stdout, stderr io.Writer, asJSON bool, code int) int {
	if asJSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
		return code
	}
	if v.Valid {
		fmt.Fprintf(stdout, "%s: valid (%s)\n", v.File, v.Schema)
		if v.Against != "" {
			fmt.Fprintf(stdout, "%s: matches the live server %s (name, version, transport)\n", v.File, v.Against)
		}
		return code
	}
	what := "invalid against " + v.Schema
	if v.Against != "" {
		what = "does not match the live server " + v.Against
	}
	fmt.Fprintf(stderr, "mcp: %s: %s\n", v.File, what)
	for _, p := range v.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(document)"
		}
		fmt.Fprintf(stderr, "  %s: %s\n", ptr, p.Message)
	}
	return code
}

// compareLive checks that the server reached matches server.json: its
// serverInfo name (the registry name, or the part after its slash, since
// a server often introduces itself by its short name), its version, and
// that server.json lists the transport it was reached by.
func compareLive(s *serverjson.Server, info *mcp.Implementation, inv *invocation) []problem {
	var out []problem
	if _, short, _ := strings.Cut(s.Name, "/"); info.Name != s.Name && info.Name != short {
		out = append(out, problem{"/name", fmt.Sprintf("server.json says %q, the server's serverInfo.name is %q", s.Name, info.Name)})
	}
	if strings.TrimPrefix(info.Version, "v") != strings.TrimPrefix(s.Version, "v") {
		out = append(out, problem{"/version", fmt.Sprintf("server.json says %q, the server's serverInfo.version is %q", s.Version, info.Version)})
	}
	url, typ, err := targetEndpoint(inv.target, inv.tf.config)
	switch {
	case err != nil:
		out = append(out, problem{"", err.Error()})
	case url == "":
		if !hasStdioPackage(s) {
			out = append(out, problem{"/packages", "the server was run as a command (stdio), but no package has transport stdio"})
		}
	default:
		if !hasRemote(s, typ, url) {
			out = append(out, problem{"/remotes", fmt.Sprintf("no remote of type %s with URL %s (remotes: %s)", typ, url, remotesOf(s))})
		}
	}
	return out
}

func hasStdioPackage(s *serverjson.Server) bool {
	for _, p := range s.Packages {
		if p.Transport.Type == "stdio" {
			return true
		}
	}
	return false
}

// hasRemote reports whether s lists a remote of type typ at url; a remote
// whose URL holds {variables} matches any URL of its type.
func hasRemote(s *serverjson.Server, typ, url string) bool {
	for _, r := range s.Remotes {
		if r.Type == typ && (strings.TrimSuffix(r.URL, "/") == strings.TrimSuffix(url, "/") || strings.Contains(r.URL, "{")) {
			return true
		}
	}
	return false
}

func remotesOf(s *serverjson.Server) string {
	if len(s.Remotes) == 0 {
		return "none"
	}
	var l []string
	for _, r := range s.Remotes {
		l = append(l, r.Type+" "+r.URL)
	}
	return strings.Join(l, ", ")
}

// targetEndpoint is the URL and transport type a target reaches, or ""
// for a command.
func targetEndpoint(target []string, config string) (url, typ string, err error) {
	first := target[0]
	switch {
	case isCardTarget(first):
		r, err := resolveCard(first)
		return r.URL, r.Type, err
	case strings.HasPrefix(first, "http://"), strings.HasPrefix(first, "https://"):
		return first, "streamable-http", nil
	case strings.HasPrefix(first, "@"):
		sc, err := lookupServer(first[1:], config)
		if err != nil || sc.URL == "" {
			return "", "", err
		}
		if sc.Type == gateway.TransportSSE {
			return sc.URL, "sse", nil
		}
		return sc.URL, "streamable-http", nil
	}
	return "", "", nil
}

// isCardTarget reports whether a target names a server by its card:
// card:URL, or an http(s) URL of the location cards are served at.
func isCardTarget(s string) bool {
	if strings.HasPrefix(s, "card:") {
		return true
	}
	return (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) &&
		strings.HasSuffix(strings.SplitN(strings.SplitN(s, "?", 2)[0], "#", 2)[0], servercard.Suffix)
}

// resolveCard fetches the card (or a catalog listing one card) a target
// names and returns the remote to connect to.
func resolveCard(target string) (servercard.Remote, error) {
	u := strings.TrimPrefix(target, "card:")
	ctx, cancel := context.WithTimeout(context.Background(), servercard.FetchTimeout)
	defer cancel()
	doc, err := servercard.Fetch(ctx, nil, u)
	if err != nil {
		return servercard.Remote{}, err
	}
	if doc.Catalog != nil {
		cards := doc.Catalog.Cards()
		if len(cards) != 1 {
			var ids []string
			for _, c := range cards {
				ids = append(ids, c.Identifier+" "+c.URL)
			}
			return servercard.Remote{}, fmt.Errorf("%s is a catalog of %d servers; name one card: %s", u, len(cards), strings.Join(ids, ", "))
		}
		if cards[0].URL == "" {
			c, err := servercard.ParseCard(cards[0].Data)
			if err != nil {
				return servercard.Remote{}, err
			}
			return c.Endpoint()
		}
		if doc, err = servercard.Fetch(ctx, nil, cards[0].URL); err != nil {
			return servercard.Remote{}, err
		}
		if doc.Card == nil {
			return servercard.Remote{}, fmt.Errorf("%s: not a Server Card", cards[0].URL)
		}
	}
	return doc.Card.Endpoint()
}
