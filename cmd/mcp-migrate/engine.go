package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
)

// Import paths of the peers and of gomcp.
const (
	gosdkMCP        = "github.com/modelcontextprotocol/go-sdk/mcp"
	gosdkRoot       = "github.com/modelcontextprotocol/go-sdk/"
	mcpgoRoot       = "github.com/mark3labs/mcp-go/"
	mcpgoMCP        = "github.com/mark3labs/mcp-go/mcp"
	mcpgoServer     = "github.com/mark3labs/mcp-go/server"
	mcpgoClient     = "github.com/mark3labs/mcp-go/client"
	mcpgoTransport  = "github.com/mark3labs/mcp-go/client/transport"
	gomcpMCP        = "github.com/gomcp/sdk/mcp"
	gomcpTransport  = "github.com/gomcp/sdk/transport"
	gomcpHTTP       = "github.com/gomcp/sdk/transport/mcphttp"
	gomcpHooks      = "github.com/gomcp/sdk/mcp/hooks"
	gomcpToolResult = "github.com/gomcp/sdk/mcp/toolresult"
)

// Config says what to migrate.
type Config struct {
	Dir      string   // the directory the patterns are relative to
	Patterns []string // go/packages patterns, such as ./...
}

// A TODO is one site the tool left for a person.
type TODO struct {
	Pos string // file:line of the statement, in the original file
	Msg string
}

// FileResult is one rewritten file.
type FileResult struct {
	Path     string
	Old, New []byte
	Peer     string         // "go-sdk" or "mcp-go"
	Sites    map[string]int // rule -> sites rewritten
	TODOs    []TODO
}

// Result is what a migration changed.
type Result struct {
	Files []*FileResult
}

// Migrate loads the packages cfg names, with their tests, and rewrites every
// file that imports a peer. It writes nothing: see Result.Write.
func Migrate(cfg Config) (*Result, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	pcfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:   dir,
		Tests: true,
	}
	pkgs, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, err
	}
	var loadErrs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError {
				continue // migrated-in-part code may not type-check; rules see what they can
			}
			loadErrs = append(loadErrs, e.Error())
		}
	})
	if len(loadErrs) > 0 && len(loadErrs) >= len(pkgs) {
		return nil, fmt.Errorf("loading packages: %s", strings.Join(loadErrs, "; "))
	}
	res := &Result{}
	done := map[string]bool{}
	gomcp := gomcpTypes(dir)
	// Packages with tests come in variants sharing files: prefer the
	// test variant, whose type information covers the test files too.
	sort.SliceStable(pkgs, func(i, j int) bool { return strings.Contains(pkgs[i].ID, "[") && !strings.Contains(pkgs[j].ID, "[") })
	for _, p := range pkgs {
		if p.TypesInfo == nil {
			continue
		}
		pm := newPkgMigration(p, gomcp)
		var rewrote []*fileRewriter
		// A file that imports no peer (a test calling a handler) is
		// rewritten by the rules of its package's peer.
		pkgPeer := ""
		for _, f := range p.Syntax {
			if pkgPeer == "" {
				pkgPeer = peerOf(f)
			}
		}
		for _, f := range p.Syntax {
			path := p.Fset.Position(f.Pos()).Filename
			if done[path] || !strings.HasSuffix(path, ".go") {
				continue
			}
			peer := peerOf(f)
			if peer == "" {
				peer = pkgPeer
			}
			if peer == "" {
				continue
			}
			done[path] = true
			rw := newFileRewriter(pm, f, path, peer)
			rewrote = append(rewrote, rw)
		}
		pm.analyze(rewrote)
		for _, rw := range rewrote {
			fr, err := rw.rewrite()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", rw.path, err)
			}
			if fr != nil {
				res.Files = append(res.Files, fr)
			}
		}
		if hf := pm.helperFile(rewrote); hf != nil && !done[hf.Path] {
			done[hf.Path] = true
			res.Files = append(res.Files, hf)
		}
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	return res, nil
}

// peerOf says which peer a file imports, if any.
func peerOf(f *ast.File) string {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case strings.HasPrefix(p, gosdkRoot):
			return "go-sdk"
		case strings.HasPrefix(p, mcpgoRoot):
			return "mcp-go"
		}
	}
	return ""
}

// Write writes every rewritten file in place.
func (r *Result) Write() error {
	for _, f := range r.Files {
		if err := os.WriteFile(f.Path, f.New, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Counts sums the figures over all files.
func (r *Result) Counts() (files, sites, todos int) {
	for _, f := range r.Files {
		files++
		for _, n := range f.Sites {
			sites += n
		}
		todos += len(f.TODOs)
	}
	return files, sites, todos
}

// Summary prints what changed and every TODO left.
func (r *Result) Summary(w interface{ Write([]byte) (int, error) }, verbose bool) {
	files, sites, todos := r.Counts()
	fmt.Fprintf(w, "mcp-migrate: %d files rewritten, %d sites, %d TODO(mcp-migrate) left\n", files, sites, todos)
	if verbose {
		byRule := map[string]int{}
		for _, f := range r.Files {
			for k, n := range f.Sites {
				byRule[k] += n
			}
		}
		keys := make([]string, 0, len(byRule))
		for k := range byRule {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %-28s %d\n", k, byRule[k])
		}
	}
	for _, f := range r.Files {
		for _, t := range f.TODOs {
			fmt.Fprintf(w, "%s: TODO(mcp-migrate): %s\n", t.Pos, t.Msg)
		}
	}
}

// todoNote is one TODO attached to the statement (or declaration) it
// concerns, in the original tree.
type todoNote struct {
	stmt ast.Stmt
	decl ast.Decl
	msg  string
	pos  token.Pos
}

// fileRewriter rewrites one file.
type fileRewriter struct {
	pm       *pkgMigration
	fset     *token.FileSet
	file     *ast.File
	info     *types.Info
	path     string
	peer     string
	parents  map[ast.Node]ast.Node
	extra    map[ast.Expr]types.Type
	sites    map[string]int
	todos    []todoNote
	names    map[string]string // import path -> local name for added imports
	used     map[string]bool   // import paths the rewrite introduced
	seen     map[string]bool   // existing TODO comments, "line:msg"
	connects map[*ast.CallExpr]bool
	mwMethod map[types.Object]string // go-sdk middleware method parameters -> request name
}

func newFileRewriter(pm *pkgMigration, f *ast.File, path, peer string) *fileRewriter {
	rw := &fileRewriter{
		pm: pm, fset: pm.pkg.Fset, file: f, info: pm.pkg.TypesInfo, path: path, peer: peer,
		parents: map[ast.Node]ast.Node{}, extra: map[ast.Expr]types.Type{}, sites: map[string]int{},
		names: map[string]string{}, used: map[string]bool{}, seen: map[string]bool{},
		connects: map[*ast.CallExpr]bool{}, mwMethod: map[types.Object]string{},
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			rw.parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if i := strings.Index(c.Text, "TODO(mcp-migrate): "); i >= 0 {
				line := rw.fset.Position(c.End()).Line
				msg := c.Text[i+len("TODO(mcp-migrate): "):]
				// The statement may follow other comments; a TODO about a
				// declaration is the first line of its body.
				for l := line - 12; l <= line+12; l++ {
					rw.seen[fmt.Sprintf("%d:%s", l, msg)] = true
				}
			}
		}
	}
	return rw
}

// site counts one rewrite by rule.
func (rw *fileRewriter) site(rule string) { rw.sites[rule]++ }

// todo attaches a TODO to the statement enclosing n (an original node).
func (rw *fileRewriter) todo(n ast.Node, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	var stmt ast.Stmt
	var decl ast.Decl
	for cur := n; cur != nil; cur = rw.parents[cur] {
		p := rw.parents[cur]
		if s, ok := cur.(ast.Stmt); ok && stmt == nil && !isClause(cur) {
			switch p.(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
				stmt = s
			}
		}
		if d, ok := cur.(ast.Decl); ok && p == rw.file {
			decl = d
		}
	}
	pos := n.Pos()
	if stmt != nil {
		pos = stmt.Pos()
	} else if decl != nil {
		pos = decl.Pos()
	}
	line := rw.fset.Position(pos).Line
	if rw.seen[fmt.Sprintf("%d:%s", line, msg)] {
		return // an earlier run left the same TODO here
	}
	for _, t := range rw.todos {
		if t.msg == msg && t.pos == pos {
			return
		}
	}
	rw.todos = append(rw.todos, todoNote{stmt: stmt, decl: decl, msg: msg, pos: pos})
}

func isClause(n ast.Node) bool {
	switch n.(type) {
	case *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}

// typeOf is the type of an expression of the original tree, or of a node
// the rewrite made in place of one.
func (rw *fileRewriter) typeOf(e ast.Expr) types.Type {
	if t, ok := rw.extra[e]; ok {
		return t
	}
	if tv, ok := rw.info.Types[e]; ok {
		return tv.Type
	}
	if id, ok := e.(*ast.Ident); ok {
		if o := rw.info.ObjectOf(id); o != nil {
			return o.Type()
		}
	}
	return nil
}

// objOf is the object an identifier or a qualified identifier refers to.
func (rw *fileRewriter) objOf(e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.Ident:
		return rw.info.ObjectOf(e)
	case *ast.SelectorExpr:
		return rw.info.ObjectOf(e.Sel)
	case *ast.IndexExpr:
		return rw.objOf(e.X)
	case *ast.IndexListExpr:
		return rw.objOf(e.X)
	case *ast.ParenExpr:
		return rw.objOf(e.X)
	}
	return nil
}

// importName returns the local name to use for path in this file, adding
// the import when the file is printed.
func (rw *fileRewriter) importName(path string) string {
	if n, ok := rw.names[path]; ok {
		rw.used[path] = true
		return n
	}
	base := path[strings.LastIndex(path, "/")+1:]
	for _, imp := range rw.file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			name := base
			if imp.Name != nil {
				name = imp.Name.Name
			}
			rw.names[path] = name
			rw.used[path] = true
			return name
		}
	}
	name := base
	for i := 0; rw.nameTaken(name, path); i++ {
		name = "gomcp" + base
		if i > 0 {
			name = fmt.Sprintf("gomcp%s%d", base, i)
		}
	}
	rw.names[path] = name
	rw.used[path] = true
	return name
}

// nameTaken reports whether name is declared in the file other than as an
// import of path, or imported for another path that stays.
func (rw *fileRewriter) nameTaken(name, path string) bool {
	for id, o := range rw.info.Defs {
		if o != nil && id.Name == name && rw.fset.File(id.Pos()) == rw.fset.File(rw.file.Pos()) {
			if _, ok := o.(*types.PkgName); !ok {
				return true
			}
		}
	}
	if _, ok := rw.pm.pkg.Types.Scope().Lookup(name).(*types.PkgName); !ok && rw.pm.pkg.Types.Scope().Lookup(name) != nil {
		return true
	}
	for _, imp := range rw.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local == name && p != path && !isPeerPath(p) {
			return true
		}
	}
	for p, n := range rw.names {
		if n == name && p != path {
			return true
		}
	}
	return false
}

func isPeerPath(p string) bool {
	return strings.HasPrefix(p, gosdkRoot) || strings.HasPrefix(p, mcpgoRoot)
}

// qual builds pkg.Name for an import path.
func (rw *fileRewriter) qual(path, name string) *ast.SelectorExpr {
	return &ast.SelectorExpr{X: ast.NewIdent(rw.importName(path)), Sel: ast.NewIdent(name)}
}

// mcp builds mcp.Name in gomcp's package mcp.
func (rw *fileRewriter) mcp(name string) *ast.SelectorExpr { return rw.qual(gomcpMCP, name) }

var markerRE = regexp.MustCompile(`(?m)^([ \t]*)(?:var _ = )?mcpmigrateTODO_(\d+)[ \t]*$`)

// rewrite runs the peer's rules over the file and prints it; nil when
// nothing changed.
func (rw *fileRewriter) rewrite() (*FileResult, error) {
	old, err := os.ReadFile(rw.path)
	if err != nil {
		return nil, err
	}
	switch rw.peer {
	case "go-sdk":
		rw.rewriteGoSDK()
	case "mcp-go":
		rw.rewriteMCPGo()
	}
	rw.fixImports()
	msgs := rw.placeTODOs()
	var buf bytes.Buffer
	if err := format.Node(&buf, rw.fset, rw.file); err != nil {
		return nil, fmt.Errorf("printing: %v", err)
	}
	out := markerRE.ReplaceAllStringFunc(buf.String(), func(m string) string {
		sm := markerRE.FindStringSubmatch(m)
		i, _ := strconv.Atoi(sm[2])
		return sm[1] + "// TODO(mcp-migrate): " + msgs[i]
	})
	src, err := format.Source([]byte(out))
	if err != nil {
		src = []byte(out)
	}
	if bytes.Equal(src, old) {
		return nil, nil
	}
	fr := &FileResult{Path: rw.path, Old: old, New: src, Peer: rw.peer, Sites: rw.sites}
	for _, t := range rw.todos {
		fr.TODOs = append(fr.TODOs, TODO{Pos: fmt.Sprintf("%s:%d", rw.path, rw.fset.Position(t.pos).Line), Msg: t.msg})
	}
	return fr, nil
}

// placeTODOs puts a marker before each statement or declaration that has a
// TODO; the printed markers become comments.
func (rw *fileRewriter) placeTODOs() []string {
	var msgs []string
	byStmt := map[ast.Stmt][]int{}
	byDecl := map[ast.Decl][]int{}
	for i, t := range rw.todos {
		msgs = append(msgs, t.msg)
		if t.stmt != nil {
			byStmt[t.stmt] = append(byStmt[t.stmt], i)
		} else if t.decl != nil {
			byDecl[t.decl] = append(byDecl[t.decl], i)
		}
	}
	placed := map[int]bool{}
	marker := func(i int) ast.Stmt {
		placed[i] = true
		return &ast.ExprStmt{X: ast.NewIdent(fmt.Sprintf("mcpmigrateTODO_%d", i))}
	}
	insert := func(list []ast.Stmt) []ast.Stmt {
		var out []ast.Stmt
		for _, s := range list {
			for _, i := range byStmt[s] {
				out = append(out, marker(i))
			}
			out = append(out, s)
		}
		return out
	}
	ast.Inspect(rw.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			n.List = insert(n.List)
		case *ast.CaseClause:
			n.Body = insert(n.Body)
		case *ast.CommClause:
			n.Body = insert(n.Body)
		}
		return true
	})
	// TODOs whose statement was replaced go before their declaration.
	for i, t := range rw.todos {
		if !placed[i] && t.decl != nil && t.stmt != nil {
			byDecl[t.decl] = append(byDecl[t.decl], i)
		}
	}
	for _, d := range rw.file.Decls {
		for _, i := range byDecl[d] {
			if placed[i] {
				continue
			}
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				fd.Body.List = append([]ast.Stmt{marker(i)}, fd.Body.List...)
				continue
			}
			placed[i] = true
			rw.docComment(d, "// TODO(mcp-migrate): "+msgs[i])
		}
	}
	return msgs
}

// docComment appends a line to a declaration's doc comment.
func (rw *fileRewriter) docComment(d ast.Decl, text string) {
	var doc **ast.CommentGroup
	switch d := d.(type) {
	case *ast.GenDecl:
		doc = &d.Doc
	case *ast.FuncDecl:
		doc = &d.Doc
	default:
		return
	}
	if *doc == nil {
		*doc = &ast.CommentGroup{List: []*ast.Comment{{Slash: d.Pos() - 1, Text: text}}}
		rw.file.Comments = append(rw.file.Comments, *doc)
		sort.Slice(rw.file.Comments, func(i, j int) bool { return rw.file.Comments[i].Pos() < rw.file.Comments[j].Pos() })
		return
	}
	last := (*doc).List[len((*doc).List)-1]
	(*doc).List = append((*doc).List, &ast.Comment{Slash: last.End(), Text: text})
}

// fixImports adds the imports the rewrite introduced, rewrites the peer's
// mcp import and drops imports nothing refers to any more.
func (rw *fileRewriter) fixImports() {
	for path := range rw.used {
		name := rw.names[path]
		base := path[strings.LastIndex(path, "/")+1:]
		if name == base {
			name = ""
		}
		if !hasImport(rw.file, path) {
			astutil.AddNamedImport(rw.fset, rw.file, name, path)
		}
	}
	for _, imp := range append([]*ast.ImportSpec(nil), rw.file.Imports...) {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local == "_" || local == "." {
			continue
		}
		if !refersTo(rw.file, local, rw.info) {
			astutil.DeleteNamedImport(rw.fset, rw.file, nameOf(imp), p)
		}
	}
	ast.SortImports(rw.fset, rw.file)
}

func nameOf(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	return ""
}

func hasImport(f *ast.File, path string) bool {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			return true
		}
	}
	return false
}

// refersTo reports whether the file uses name as a package qualifier.
// A variable of that name (client := ...) is not a use.
func refersTo(f *ast.File, name string, info *types.Info) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := se.X.(*ast.Ident); ok && id.Name == name {
				if _, isVar := info.Uses[id].(*types.Var); !isVar {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
