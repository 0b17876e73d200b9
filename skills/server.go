package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// Options configures a Server. The zero value serves every skill of the
// tree with digests, 100 entries a page, without resources/directory/read.
type Options struct {
	// DirectoryRead declares directoryRead and answers
	// resources/directory/read for every directory of the served skills
	// (and the prefix directories above them).
	DirectoryRead bool
	// Dynamic, if set, names the skills whose content is generated, so that
	// their digests cannot be stable: it is given the skill directory's
	// slash-separated path in the tree. Their entries say
	// "resources":"dynamic", and their files are served as they are when
	// read rather than as they were indexed (the set of files is still the
	// indexed one: Refresh picks up new files).
	Dynamic func(skillPath string) bool
	// PageSize is how many entries a page of skills/list, and how many
	// children a page of resources/directory/read, holds. Default 100.
	PageSize int
	// CacheTTL and CacheScope are the ttlMs and cacheScope of skills/list,
	// skills/get and resources/directory/read results. Defaults 0 and
	// mcp.CacheScopePrivate.
	CacheTTL   time.Duration
	CacheScope mcp.CacheScope
	// MaxFiles bounds the regular files the tree may hold; a larger tree is
	// an error, not an unbounded index. Default 10000.
	MaxFiles int
}

// A Server serves the skills of a directory tree: every directory holding a
// SKILL.md is a skill, addressed skill://<path>/SKILL.md, and every regular
// file below it is one of its files. Symbolic links and other irregular
// files are never served, and nothing outside the skills is. The tree is
// indexed (read and hashed) by NewServer and Refresh; a file is served only
// while its bytes still match its indexed digest, unless its skill is
// dynamic.
type Server struct {
	fsys fs.FS
	opts Options
	idx  atomic.Pointer[index]

	mu         sync.Mutex
	registered []*mcp.Server
}

type index struct {
	skills []*skillEntry          // sorted by URI
	byURI  map[string]*skillEntry // SKILL.md URI → skill
	byDir  map[string]*skillEntry // skill directory URI → skill
	files  map[string]*fileEntry  // file URI → file
	dirs   map[string][]*mcp.Resource
}

type skillEntry struct {
	skill    *Skill
	resource *mcp.Resource // the SKILL.md resource, for resources/list
}

type fileEntry struct {
	path    string
	digest  string
	size    int64
	dynamic bool
	text    bool
	mime    string
}

// NewServer indexes the skills of fsys. It fails when a skill is invalid:
// a SKILL.md without frontmatter holding a name (equal to its directory's
// name, and following the Agent Skills naming rules) and a description,
// or a skill over the extension's limits (MaxResources, MaxTotalSize).
// For a directory on disk use NewDirServer, which keeps every open inside
// it.
func NewServer(fsys fs.FS, opts *Options) (*Server, error) {
	s := &Server{fsys: fsys}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	if s.opts.MaxFiles <= 0 {
		s.opts.MaxFiles = 10000
	}
	if s.opts.CacheScope == "" {
		s.opts.CacheScope = mcp.CacheScopePrivate
	}
	idx, err := s.build()
	if err != nil {
		return nil, err
	}
	s.idx.Store(idx)
	return s, nil
}

// NewDirServer is NewServer for the directory dir on disk, read through an
// os.Root: no file outside dir is ever opened, even while symbolic links
// are being swapped into its tree. Prefer it to NewServer(os.DirFS(dir)),
// whose opens follow links, so that a link swapped in between the
// server's check and its open (a dynamic skill's generator, another user
// with write access to the tree) could serve a file from elsewhere. The
// directory stays open for the life of the Server.
func NewDirServer(dir string, opts *Options) (*Server, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	s, err := NewServer(root.FS(), opts)
	if err != nil {
		root.Close()
		return nil, err
	}
	return s, nil
}

// Skills returns the entries of the served skills, sorted by URI.
func (s *Server) Skills() []*Skill {
	idx := s.idx.Load()
	out := make([]*Skill, len(idx.skills))
	for i, e := range idx.skills {
		out[i] = e.skill
	}
	return out
}

// Refresh indexes the tree again, after its files changed, and updates the
// SKILL.md resources of the servers the Server is registered with. On
// error the previous index stays in use.
func (s *Server) Refresh() error {
	idx, err := s.build()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.idx.Swap(idx)
	for _, ms := range s.registered {
		var gone []string
		for _, e := range old.skills {
			if idx.byURI[e.skill.URI] == nil {
				gone = append(gone, e.skill.URI)
			}
		}
		ms.RemoveResources(gone...)
		if err := s.addResources(ms, idx); err != nil {
			return err
		}
	}
	return nil
}

// Register adds the extension to ms (one Server per mcp.Server: the
// skill:// template of a second would replace the first's): its capability (with directoryRead
// when Options.DirectoryRead is set), skills/list, skills/get, optionally
// resources/directory/read, each skill's SKILL.md as a listed resource
// (mimeType text/markdown, name and description from the frontmatter), and
// the template skill://{+path} through which the other files are read. A
// read of a URI that names no served file fails with -32602.
func (s *Server) Register(ms *mcp.Server) error {
	settings, err := json.Marshal(Settings{DirectoryRead: s.opts.DirectoryRead})
	if err != nil {
		return err
	}
	method := func(h func(view, *mcp.Request) (any, error)) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) { return h(s.viewOf(ctx, ms, r.Caller()), r) }
	}
	ext := &mcp.Extension{ID: ExtensionID, Settings: settings, Methods: []mcp.Method{
		{Name: MethodList, Handler: method(s.handleList)},
		{Name: MethodGet, Handler: method(s.handleGet)},
	}}
	if s.opts.DirectoryRead {
		ext.Methods = append(ext.Methods, mcp.Method{Name: MethodDirectoryRead, Handler: method(s.handleDirectory)})
	}
	if err := ms.AddExtension(ext); err != nil {
		return err
	}
	if err := ms.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: Scheme + "://{+path}",
		Name:        "skill-file",
		Description: "A file of a skill; skills/list names them all.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return s.read(s.viewOf(ctx, ms, req), req)
	}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.addResources(ms, s.idx.Load()); err != nil {
		return err
	}
	s.registered = append(s.registered, ms)
	return nil
}

func (s *Server) addResources(ms *mcp.Server, idx *index) error {
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return s.read(s.viewOf(ctx, ms, req), req)
	}
	for _, e := range idx.skills {
		if err := ms.AddResource(e.resource, read); err != nil {
			return err
		}
	}
	return nil
}

// invalidParams is the -32602 error the extension uses for URIs it does not
// serve.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...)
}

// cacheHints are the caching hints of every result of the extension.
func (s *Server) cacheHints() mcp.CacheHints {
	ms := s.opts.CacheTTL.Milliseconds()
	return mcp.CacheHints{TTLMs: &ms, CacheScope: s.opts.CacheScope}
}

func (s *Server) handleList(v view, r *mcp.Request) (any, error) {
	var p ListParams
	if err := decode(r.Params, &p); err != nil {
		return nil, err
	}
	skills := v.idx.skills
	start, err := pageStart(p.Cursor, skills, func(e *skillEntry) string { return e.skill.URI })
	if err != nil {
		return nil, err
	}
	page, more := visiblePage(skills[start:], s.opts.PageSize, func(e *skillEntry) bool { return v.visible(e.skill.URI) })
	res := &ListResult{Skills: make([]*Skill, len(page)), CacheHints: s.cacheHints()}
	for i, e := range page {
		res.Skills[i] = e.skill
	}
	if more {
		res.NextCursor = encodeCursor(page[len(page)-1].skill.URI)
	}
	return res, nil
}

func (s *Server) handleGet(v view, r *mcp.Request) (any, error) {
	var p GetParams
	if err := decode(r.Params, &p); err != nil {
		return nil, err
	}
	e := v.idx.byURI[p.URI]
	if e == nil || !v.visible(p.URI) {
		return nil, invalidParams("No skill is served at %s", p.URI)
	}
	return &GetResult{Skill: e.skill, CacheHints: s.cacheHints()}, nil
}

func (s *Server) handleDirectory(v view, r *mcp.Request) (any, error) {
	var p DirectoryParams
	if err := decode(r.Params, &p); err != nil {
		return nil, err
	}
	children, ok := v.idx.dirs[p.URI]
	if !v.visible(p.URI) {
		ok = false // a hidden skill's directories are absent, as are its files
	} else if !ok && v.idx.files[p.URI] != nil {
		return nil, invalidParams("%s is not a directory resource", p.URI)
	}
	if !ok {
		return nil, invalidParams("No directory is served at %s", p.URI)
	}
	start, err := pageStart(p.Cursor, children, func(c *mcp.Resource) string { return c.URI })
	if err != nil {
		return nil, err
	}
	page, more := visiblePage(children[start:], s.opts.PageSize, func(c *mcp.Resource) bool { return v.visible(c.URI) })
	res := &DirectoryResult{Resources: page, CacheHints: s.cacheHints()}
	if more {
		res.NextCursor = encodeCursor(page[len(page)-1].URI)
	}
	return res, nil
}

// pageStart returns the index in items, sorted by key, of the first item
// after the one cursor names (0 without a cursor).
func pageStart[T any](cursor string, items []T, key func(T) string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return 0, err
	}
	i, _ := slices.BinarySearchFunc(items, after, func(it T, k string) int {
		if key(it) <= k {
			return -1
		}
		return 1
	})
	return i, nil
}

// visiblePage returns the first size items the caller sees (walking past
// hidden ones, so that a page is full whenever more can be seen), and
// whether the caller sees any item after them.
func visiblePage[T any](items []T, size int, visible func(T) bool) (page []T, more bool) {
	page = make([]T, 0, min(size, len(items)))
	for _, it := range items {
		if !visible(it) {
			continue
		}
		if len(page) == size {
			return page, true
		}
		page = append(page, it)
	}
	return page, false
}

func decode(raw json.RawMessage, p any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// Cursors name the last item of the previous page, so that a page boundary
// stays meaningful across a Refresh.
func encodeCursor(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

func decodeCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !utf8.Valid(b) {
		return "", invalidParams("invalid cursor")
	}
	return string(b), nil
}

// read answers resources/read for the skill files.
func (s *Server) read(v view, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	f := v.idx.files[uri]
	if f == nil || !v.visible(uri) {
		return nil, invalidParams("No skill file is served at %s", uri)
	}
	data, err := s.readFile(f)
	if err != nil {
		return nil, err
	}
	var c mcp.ResourceContents
	if f.text && utf8.Valid(data) {
		c = &mcp.TextResourceContents{URI: uri, MIMEType: f.mime, Text: string(data)}
	} else {
		c = mcp.NewBlobResourceContents(uri, f.mime, data)
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}, nil
}

// readFile reads an indexed file, refusing it if a symbolic link has taken
// the place of the file or of a directory above it, if it is no longer a
// regular file, or (unless dynamic) if its bytes no longer match the index.
//
// The links are looked for before the open and again after it, when the
// file opened must be the one the path names without links: a link
// swapped in just for the open is caught. Only an os.Root (NewDirServer)
// makes that certain, since the two looks are not one atomic step.
func (s *Server) readFile(f *fileEntry) ([]byte, error) {
	notServed := invalidParams("No skill file is served at %s", pathURI(f.path))
	if _, err := s.linkFree(f.path); err != nil {
		return nil, notServed
	}
	file, err := s.fsys.Open(f.path)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "reading %s: %v", pathURI(f.path), err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, notServed
	}
	if named, err := s.linkFree(f.path); err != nil || named != nil && !sameFile(fi, named) {
		return nil, notServed
	}
	limit := f.size
	if f.dynamic {
		limit = MaxTotalSize
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "reading %s: %v", pathURI(f.path), err)
	}
	if int64(len(data)) > limit || !f.dynamic && digestOf(data) != f.digest {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s changed since the skills were indexed", pathURI(f.path))
	}
	return data, nil
}

// linkFree checks that no element of p is a symbolic link, where the file
// system can tell (fs.ReadLinkFS), and returns what p names (nil where it
// cannot tell).
func (s *Server) linkFree(p string) (fs.FileInfo, error) {
	lfs, ok := s.fsys.(fs.ReadLinkFS)
	if !ok {
		return nil, nil
	}
	var named fs.FileInfo
	for q := p; q != "."; q = path.Dir(q) {
		fi, err := lfs.Lstat(q)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fs.ErrInvalid
		}
		if named == nil {
			named = fi
		}
	}
	return named, nil
}

// sameFile reports whether a and b are one file; file systems whose
// FileInfos carry no identity (in memory) have nothing to compare, and
// pass.
func sameFile(a, b fs.FileInfo) bool {
	if !os.SameFile(a, a) {
		return true
	}
	return os.SameFile(a, b)
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// build reads and hashes the tree.
func (s *Server) build() (*index, error) {
	var paths []string
	err := fs.WalkDir(s.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// Only regular files: a symbolic link (even to a directory) or a
		// device is never part of a skill.
		if d.Type().IsRegular() {
			if len(paths) == s.opts.MaxFiles {
				return fmt.Errorf("skills: the tree holds more than %d files", s.opts.MaxFiles)
			}
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var skillDirs []string
	for _, p := range paths {
		if path.Base(p) == SkillFile {
			dir := path.Dir(p)
			if dir == "." {
				return nil, fmt.Errorf("skills: %s at the root of the tree: a skill is a directory", SkillFile)
			}
			skillDirs = append(skillDirs, dir)
		}
	}
	idx := &index{byURI: map[string]*skillEntry{}, byDir: map[string]*skillEntry{}, files: map[string]*fileEntry{}, dirs: map[string][]*mcp.Resource{}}
	// owners: file path → the skill directories above it; members: skill
	// directory → its files, in walk order.
	isSkill := make(map[string]bool, len(skillDirs))
	for _, d := range skillDirs {
		isSkill[d] = true
	}
	owners := map[string][]string{}
	members := map[string][]string{}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if isSkill[d] {
				owners[p] = append(owners[p], d)
				members[d] = append(members[d], p)
			}
		}
	}
	dynamic := func(dir string) bool { return s.opts.Dynamic != nil && s.opts.Dynamic(dir) }
	contents := map[string][]byte{}
	for _, p := range paths {
		ds := owners[p]
		if len(ds) == 0 {
			continue
		}
		data, err := s.readAll(p)
		if err != nil {
			return nil, err
		}
		f := &fileEntry{path: p, digest: digestOf(data), size: int64(len(data)), dynamic: true, mime: mimeType(p, data)}
		f.text = utf8.Valid(data) && isText(f.mime)
		for _, d := range ds {
			f.dynamic = f.dynamic && dynamic(d)
		}
		idx.files[pathURI(p)] = f
		if path.Base(p) == SkillFile {
			contents[p] = data
		}
	}
	for _, dir := range skillDirs {
		e, err := s.skill(dir, contents[dir+"/"+SkillFile], idx, members[dir], dynamic(dir))
		if err != nil {
			return nil, err
		}
		idx.skills = append(idx.skills, e)
		idx.byURI[e.skill.URI] = e
		idx.byDir[pathURI(dir)] = e
	}
	slices.SortFunc(idx.skills, func(a, b *skillEntry) int { return strings.Compare(a.skill.URI, b.skill.URI) })
	// Directories: every directory holding a served file, and the ones above.
	seen := map[string]bool{}
	add := func(parent string, r *mcp.Resource) {
		u := pathURI(parent)
		idx.dirs[u] = append(idx.dirs[u], r)
	}
	for u, f := range idx.files {
		add(path.Dir(f.path), &mcp.Resource{URI: u, Name: path.Base(f.path), MIMEType: f.mime, Size: &f.size})
		for d := path.Dir(f.path); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if _, ok := idx.dirs[pathURI(d)]; !ok {
				idx.dirs[pathURI(d)] = nil
			}
			if parent := path.Dir(d); parent != "." {
				add(parent, &mcp.Resource{URI: pathURI(d), Name: path.Base(d), MIMEType: DirectoryMIMEType})
			}
		}
	}
	for u, c := range idx.dirs {
		slices.SortFunc(c, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
		if c == nil {
			idx.dirs[u] = []*mcp.Resource{}
		}
	}
	return idx, nil
}

// readAll reads a file of the tree, up to the size limit of a skill.
func (s *Server) readAll(p string) ([]byte, error) {
	f, err := s.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTotalSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxTotalSize {
		return nil, fmt.Errorf("skills: %s is larger than a skill may be (%d bytes)", p, MaxTotalSize)
	}
	return data, nil
}

// skill makes the entry of the skill in dir.
func (s *Server) skill(dir string, content []byte, idx *index, files []string, dynamic bool) (*skillEntry, error) {
	fm, err := ParseFrontmatter(content)
	if err != nil {
		return nil, fmt.Errorf("skills: %s/%s: %w", dir, SkillFile, err)
	}
	name := fm.Name()
	switch {
	case name == "" || fm.Description() == "":
		return nil, fmt.Errorf("skills: %s/%s: %w: needs a string name and description", dir, SkillFile, ErrFrontmatter)
	case name != path.Base(dir):
		return nil, fmt.Errorf("skills: %s/%s: %w: name %q is not the directory's name", dir, SkillFile, ErrFrontmatter, name)
	case !validName(name):
		return nil, fmt.Errorf("skills: %s/%s: %w: name %q breaks the naming rules (1-64 of a-z, 0-9 and single inner hyphens)", dir, SkillFile, ErrFrontmatter, name)
	}
	uri := pathURI(dir + "/" + SkillFile)
	sk := &Skill{URI: uri, Frontmatter: fm, Dynamic: dynamic}
	var total int64
	for _, p := range files {
		f := idx.files[pathURI(p)]
		total += f.size
		if !dynamic {
			sk.Resources = append(sk.Resources, File{URI: pathURI(p), Digest: f.digest, Size: f.size})
		}
	}
	if n := len(sk.Resources); n > MaxResources || total > MaxTotalSize {
		return nil, fmt.Errorf("skills: %s: %d files of %d bytes exceed the limits (%d files, %d bytes)", dir, n, total, MaxResources, MaxTotalSize)
	}
	// SKILL.md first, then the others by URI.
	slices.SortStableFunc(sk.Resources, func(a, b File) int {
		if (a.URI == uri) != (b.URI == uri) {
			if a.URI == uri {
				return -1
			}
			return 1
		}
		return strings.Compare(a.URI, b.URI)
	})
	sk.resourcesSet = true
	size := int64(len(content))
	return &skillEntry{skill: sk, resource: &mcp.Resource{
		URI: uri, Name: name, Description: fm.Description(), MIMEType: "text/markdown", Size: &size,
	}}, nil
}

// mimeTypes are the types of common skill files by extension; others are
// text/plain when they are UTF-8 and application/octet-stream otherwise.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".js": "text/javascript",
	".ts": "text/x-typescript", ".json": "application/json", ".yaml": "application/yaml",
	".yml": "application/yaml", ".toml": "application/toml", ".html": "text/html",
	".css": "text/css", ".csv": "text/csv", ".xml": "application/xml",
	".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg",
	".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml",
}

func mimeType(p string, data []byte) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	if utf8.Valid(data) && !bytes.ContainsRune(data, 0) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// isText reports whether files of a MIME type are sent as text (when their
// bytes are UTF-8) rather than base64.
func isText(mime string) bool {
	switch mime {
	case "application/json", "application/yaml", "application/toml", "application/xml", "image/svg+xml":
		return true
	}
	return strings.HasPrefix(mime, "text/")
}

// A view is what one caller may see of the skills. A skill is hidden with
// its SKILL.md resource (by the mcp.Server's visibility rules), and with it
// every file and directory at or below its directory: a skill inside a
// hidden one too. Directories above skills stay, listing only what can be
// seen.
type view struct {
	ctx    context.Context
	ms     *mcp.Server
	caller mcp.Caller
	idx    *index
}

func (s *Server) viewOf(ctx context.Context, ms *mcp.Server, c mcp.Caller) view {
	return view{ctx: ctx, ms: ms, caller: c, idx: s.idx.Load()}
}

// visible reports whether the file or directory at uri lies in no skill
// the caller may not see.
func (v view) visible(uri string) bool {
	for u := uri; ; {
		if e := v.idx.byDir[u]; e != nil && !v.ms.Sees(v.ctx, v.caller, mcp.Feature{Kind: mcp.FeatureResource, Resource: e.resource}) {
			return false
		}
		i := strings.LastIndexByte(u, '/')
		if i < len(Scheme+"://") {
			return true
		}
		u = u[:i]
	}
}
