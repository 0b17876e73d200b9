package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// handlerKind says how a function passed to a registration call is to be
// rewritten.
type handlerKind int

const (
	noHandler          handlerKind = iota
	gosdkToolHandler               // (ctx, *CallToolRequest, In) (*CallToolResult, Out, error)
	mcpgoToolHandler               // (ctx, CallToolRequest) (*CallToolResult, error)
	mcpgoTypedHandler              // (ctx, CallToolRequest, In) (*CallToolResult, error)
	mcpgoPromptHandler             // (ctx, GetPromptRequest) (*GetPromptResult, error)
	mcpgoResourceHandler           // (ctx, ReadResourceRequest) ([]ResourceContents, error)
)

// pkgMigration holds what the rules learn about a whole package before any
// file is rewritten: which functions are handlers, and which helpers the
// rewritten code calls.
type pkgMigration struct {
	pkg      *packages.Package
	lits     map[*ast.FuncLit]handlerKind
	funcs    map[types.Object]handlerKind
	helpers  map[string]bool
	gomcp    *types.Package // gomcp's package mcp, when it can be loaded
	pkgName  string
	dir      string
	modified bool
}

func newPkgMigration(p *packages.Package, gomcp *types.Package) *pkgMigration {
	pm := &pkgMigration{pkg: p, lits: map[*ast.FuncLit]handlerKind{}, funcs: map[types.Object]handlerKind{},
		helpers: map[string]bool{}, pkgName: p.Name}
	if len(p.GoFiles) > 0 {
		pm.dir = filepath.Dir(p.GoFiles[0])
	}
	pm.gomcp = gomcp
	return pm
}

// gomcpTypes loads gomcp's package mcp as the module in dir resolves it, so
// that rules can check what exists there; nil when it cannot (gomcp not yet
// required), and the rules then assume names carry over.
func gomcpTypes(dir string) *types.Package {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName, Dir: dir}, gomcpMCP)
	var tp *types.Package
	if err == nil && len(pkgs) == 1 && len(pkgs[0].Errors) == 0 {
		tp = pkgs[0].Types
	}
	return tp
}

// handlerArg records the function expression e as a handler of kind k:
// a literal, a package-level function, or a call of a package-level function
// that returns a literal.
func (pm *pkgMigration) handlerArg(e ast.Expr, k handlerKind) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.FuncLit:
		pm.lits[e] = k
		return true
	case *ast.Ident:
		if o, ok := pm.pkg.TypesInfo.Uses[e].(*types.Func); ok && o.Pkg() == pm.pkg.Types {
			pm.funcs[o] = k
			return true
		}
	case *ast.SelectorExpr:
		// a method value: rewritten like a function
		if sel, ok := pm.pkg.TypesInfo.Selections[e]; ok && sel.Obj().Pkg() == pm.pkg.Types {
			pm.funcs[sel.Obj()] = k
			return true
		}
	case *ast.CallExpr:
		if o, ok := pm.pkg.TypesInfo.Uses[identOf(e.Fun)].(*types.Func); ok && o.Pkg() == pm.pkg.Types {
			pm.funcs[o] = -k // a factory: its returned literals are handlers
			return true
		}
	}
	return false
}

func identOf(e ast.Expr) *ast.Ident {
	switch e := e.(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// analyze finds the handlers registered anywhere in the package.
func (pm *pkgMigration) analyze(rws []*fileRewriter) {
	for _, rw := range rws {
		ast.Inspect(rw.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch rw.peer {
			case "go-sdk":
				rw.analyzeGoSDKCall(call)
			case "mcp-go":
				rw.analyzeMCPGoCall(call)
			}
			return true
		})
	}
	// Factories: mark the literals they return.
	for _, rw := range rws {
		for _, d := range rw.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			k := pm.funcs[pm.pkg.TypesInfo.Defs[fd.Name]]
			if k >= 0 {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					if fl, ok := r.Results[0].(*ast.FuncLit); ok {
						pm.lits[fl] = -k
					}
				}
				_, isLit := n.(*ast.FuncLit)
				return !isLit
			})
		}
	}
}

// helperFile returns the file of helpers the rewritten code of the package
// calls, merged with the one an earlier run wrote.
func (pm *pkgMigration) helperFile(rws []*fileRewriter) *FileResult {
	if len(pm.helpers) == 0 || pm.dir == "" {
		return nil
	}
	path := filepath.Join(pm.dir, "mcpmigrate_helpers.go")
	old, _ := os.ReadFile(path)
	names := map[string]bool{}
	for n := range pm.helpers {
		names[n] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^func (mcpmigrate\w+)`).FindAllSubmatch(old, -1) {
		names[string(m[1])] = true
	}
	src := helperSource(pm.pkgName, names)
	if bytes.Equal(src, old) {
		return nil
	}
	return &FileResult{Path: path, Old: old, New: src, Sites: map[string]int{}}
}

// helperSource renders the helpers named.
func helperSource(pkg string, names map[string]bool) []byte {
	var keys []string
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	imports := map[string]bool{}
	var body strings.Builder
	for _, k := range keys {
		h, ok := helperDefs[k]
		if !ok {
			continue
		}
		for _, imp := range h.imports {
			imports[imp] = true
		}
		body.WriteString("\n" + h.src + "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by mcp-migrate, to keep the migrated code close to what it was.\n"+
		"// Each helper says which gomcp API it stands in for; inline them at will.\n\npackage %s\n\nimport (\n", pkg)
	var imps []string
	for i := range imports {
		imps = append(imps, i)
	}
	sort.Strings(imps)
	for _, i := range imps {
		fmt.Fprintf(&b, "\t%q\n", i)
	}
	b.WriteString(")\n" + body.String())
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return []byte(b.String())
	}
	return out
}

type helperDef struct {
	imports []string
	src     string
}

// helperDefs are the helpers rewritten code may call. They use only
// gomcp's public API.
var helperDefs = map[string]helperDef{
	"mcpmigrateJSON": {[]string{"encoding/json", "fmt"}, `// mcpmigrateJSON marshals a value given where gomcp takes raw JSON (a
// schema, tool arguments, log data). It panics on a value that cannot be
// marshaled, as the peer SDK did when it met one.
func mcpmigrateJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcp-migrate: marshaling %T: %v", v, err))
	}
	return b
}`},
	"mcpmigrateLevel": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateLevel turns a level name ("info", "error", ...) into gomcp's
// mcp.LoggingLevel; an unknown name logs at info.
func mcpmigrateLevel[S ~string](s S) mcp.LoggingLevel {
	if l, ok := mcp.ParseLoggingLevel(string(s)); ok {
		return l
	}
	return mcp.LevelInfo
}`},
	"mcpmigratePing": {[]string{"context", "errors", "github.com/gomcp/sdk/mcp"}, `// mcpmigratePing pings the client behind a request, as the peer's
// req.Session.Ping did. At 2026-07-28 there is no session to ping.
func mcpmigratePing[P any](ctx context.Context, req *mcp.ServerRequest[P]) error {
	ss, ok := req.Session()
	if !ok {
		return errors.New("no session to ping (a stateless request)")
	}
	return ss.Ping(ctx)
}`},
	"mcpmigrateToolResult": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateToolResult joins a peer's (result, output) pair into gomcp's
// *mcp.ToolResult[T].
func mcpmigrateToolResult[T any](r *mcp.CallToolResult, v T) *mcp.ToolResult[T] {
	tr := &mcp.ToolResult[T]{Structured: v}
	if r != nil {
		tr.Content, tr.IsError, tr.Meta = r.Content, r.IsError, r.Meta
	}
	return tr
}`},
	"mcpmigrateElicitSchema": {[]string{"encoding/json", "fmt", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateElicitSchema converts a JSON Schema value into gomcp's
// elicitation form schema (flat object of primitive properties). It panics on
// a schema that is not such a form, which elicitation never accepted.
func mcpmigrateElicitSchema(v any) *mcp.ElicitSchema {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcp-migrate: elicitation schema: %v", err))
	}
	var s mcp.ElicitSchema
	if err := json.Unmarshal(b, &s); err != nil {
		panic(fmt.Sprintf("mcp-migrate: elicitation schema: %v", err))
	}
	return &s
}`},
	"mcpmigrateFirst": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateFirst is the first content block, or nil: the peer's
// sampling result held exactly one where gomcp's holds a list.
func mcpmigrateFirst(c []mcp.Content) mcp.Content {
	if len(c) == 0 {
		return nil
	}
	return c[0]
}`},
	"mcpmigrateText": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateText is a tool result of one text block (mcp-go's
// mcp.NewToolResultText).
func mcpmigrateText(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}`},
	"mcpmigrateError": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateError is a tool error result of one text block (mcp-go's
// mcp.NewToolResultError).
func mcpmigrateError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}`},
}
