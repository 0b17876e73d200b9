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
	noHandler            handlerKind = iota
	gosdkToolHandler                 // (ctx, *CallToolRequest, In) (*CallToolResult, Out, error)
	mcpgoToolHandler                 // (ctx, CallToolRequest) (*CallToolResult, error)
	mcpgoTypedHandler                // (ctx, CallToolRequest, In) (*CallToolResult, error)
	mcpgoPromptHandler               // (ctx, GetPromptRequest) (*GetPromptResult, error)
	mcpgoResourceHandler             // (ctx, ReadResourceRequest) ([]ResourceContents, error)
)

// pkgMigration holds what the rules learn about a whole package before any
// file is rewritten: which functions are handlers, and which helpers the
// rewritten code calls.
type pkgMigration struct {
	pkg     *packages.Package
	lits    map[*ast.FuncLit]handlerKind
	funcs   map[types.Object]handlerKind
	shapes  map[types.Object]int  // rewritten go-sdk tool handlers: their new results
	anyIn   map[types.Object]bool // go-sdk tool handlers whose In was any
	helpers map[string]bool
	gomcp   *types.Package // gomcp's package mcp, when it can be loaded
	pkgName string
	dir     string
}

func newPkgMigration(p *packages.Package, gomcp *types.Package) *pkgMigration {
	pm := &pkgMigration{pkg: p, lits: map[*ast.FuncLit]handlerKind{}, funcs: map[types.Object]handlerKind{}, shapes: map[types.Object]int{}, anyIn: map[types.Object]bool{},
		helpers: map[string]bool{}, pkgName: p.Name}
	if len(p.GoFiles) > 0 {
		pm.dir = filepath.Dir(p.GoFiles[0])
	}
	pm.gomcp = gomcp
	return pm
}

// gomcpTypes loads gomcp's package mcp as the module in dir resolves it, so
// that rules can check what exists there; nil when it cannot (gomcp not yet
// required), and the rules then assume names carry over. The packages
// beside it that rules may target are loaded too (see gomcpHas).
func gomcpTypes(dir string) *types.Package {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName, Dir: dir},
		append([]string{gomcpMCP, gomcpHTTP, gomcpHooks, gomcpToolResult}, gomcpExtraPkgs...)...)
	var tp *types.Package
	if err != nil {
		return nil
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 || p.Types == nil {
			continue
		}
		gomcpPkgs[p.PkgPath] = p.Types
		if p.PkgPath == gomcpMCP {
			tp = p.Types
		}
	}
	return tp
}

// gomcpExtraPkgs are more gomcp packages rules may target (see gomcpHas).
var gomcpExtraPkgs []string

// gomcpPkgs are the gomcp packages loaded, by path.
var gomcpPkgs = map[string]*types.Package{}

// gomcpHas reports whether gomcp's package at path declares name; when the
// package could not be loaded, only package mcp is assumed to exist.
func gomcpHas(path, name string) bool {
	p, ok := gomcpPkgs[path]
	if !ok {
		return false
	}
	return p.Scope().Lookup(name) != nil
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
	// Every function with go-sdk's typed tool handler signature is one,
	// wherever it is registered (handlers returned by factories, in
	// tables, ...).
	for _, rw := range rws {
		if rw.peer != "go-sdk" {
			continue
		}
		ast.Inspect(rw.file, func(n ast.Node) bool {
			switch f := n.(type) {
			case *ast.FuncDecl:
				if rw.isGoSDKToolSig(f.Type) {
					pm.funcs[pm.pkg.TypesInfo.Defs[f.Name]] = gosdkToolHandler
				}
			case *ast.FuncLit:
				if rw.isGoSDKToolSig(f.Type) {
					pm.lits[f] = gosdkToolHandler
				}
			}
			return true
		})
	}
	// Factories: mark the literals they return. Tool handlers: their shape.
	for _, rw := range rws {
		for _, d := range rw.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Type.Results.NumFields() == 3 {
				if o := pm.pkg.TypesInfo.Defs[fd.Name]; pm.funcs[o] == gosdkToolHandler {
					pm.shapes[o] = rw.toolShape(fd.Type, returnsOf(fd.Body))
					if ps := fd.Type.Params.List; len(ps) > 0 {
						if t := rw.typeOf(ps[len(ps)-1].Type); t != nil {
							if _, ok := t.Underlying().(*types.Interface); ok {
								pm.anyIn[o] = true
							}
						}
					}
				}
			}
		}
	}
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
	for _, m := range regexp.MustCompile(`(?m)^(?:func|type|var) (mcpmigrate\w+)`).FindAllSubmatch(old, -1) {
		names[string(m[1])] = true
	}
	for changed := true; changed; {
		changed = false
		for n := range names {
			for _, d := range helperDeps[n] {
				if !names[d] {
					names[d], changed = true, true
				}
			}
		}
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
	"mcpmigrateThree": {[]string{"weak", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateThree gives a migrated tool handler's results the shape
// go-sdk's had, for code (tests) that calls the handler directly: an
// untyped output folded into the result by mcpmigrateAnyOut comes back as
// the value it was, with the result go-sdk's handler returned.
func mcpmigrateThree(r *mcp.CallToolResult, err error) (*mcp.CallToolResult, any, error) {
	if r != nil {
		if v, ok := mcpmigrateOuts.LoadAndDelete(weak.Make(r)); ok {
			o := v.(mcpmigrateOut)
			if o.nilResult {
				r = nil
			}
			return r, o.v, err
		}
	}
	return r, nil, err
}`},
	"mcpmigrateOuts": {[]string{"sync"}, `// mcpmigrateOuts remembers, for mcpmigrateThree, the untyped output each
// live result of mcpmigrateAnyOut was built from.
var mcpmigrateOuts sync.Map // weak.Pointer[mcp.CallToolResult] -> mcpmigrateOut

// mcpmigrateOut is an untyped output and whether the handler's result
// was nil.
type mcpmigrateOut struct {
	nilResult bool
	v         any
}`},
	"mcpmigrateTwo": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateTwo drops the untyped output of go-sdk's three tool handler
// results (gomcp sends an untyped output as text, go-sdk ignored a nil one).
func mcpmigrateTwo(r *mcp.CallToolResult, _ any, err error) (*mcp.CallToolResult, error) {
	return r, err
}`},
	"mcpmigrateAnyOut": {[]string{"encoding/json", "runtime", "weak", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateAnyOut is what go-sdk sent for an untyped (any) output: the
// output as structured content and, when the result had no content, its JSON
// as text.
func mcpmigrateAnyOut(r *mcp.CallToolResult, out any) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, IsError: true}
	}
	o := mcpmigrateOut{nilResult: r == nil, v: out}
	if r == nil {
		r = &mcp.CallToolResult{}
	}
	if r.Content == nil {
		r.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	}
	r.StructuredContent = b
	key := weak.Make(r)
	mcpmigrateOuts.Store(key, o)
	runtime.AddCleanup(r, func(k weak.Pointer[mcp.CallToolResult]) { mcpmigrateOuts.Delete(k) }, key)
	return r
}`},
	"mcpmigrateHint": {nil, `// mcpmigrateHint reads a tool annotation hint as go-sdk's bool did
// (gomcp's are *bool: absent is not false for every hint).
func mcpmigrateHint(b *bool) bool {
	return b != nil && *b
}`},
	"mcpmigrateOutTwo": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateOutTwo keeps the typed output of go-sdk's three tool handler
// results (the result was nil, so gomcp builds it from the output).
func mcpmigrateOutTwo[T any](_ *mcp.CallToolResult, v T, err error) (T, error) {
	return v, err
}`},
	"mcpmigrateOutThree": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateOutThree gives a migrated tool handler's results the shape
// go-sdk's had, for code (tests) that calls the handler directly.
func mcpmigrateOutThree[T any](v T, err error) (*mcp.CallToolResult, T, error) {
	return nil, v, err
}`},
	"mcpmigrateResultThree": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateResultThree gives a migrated tool handler's results the shape
// go-sdk's had, for code (tests) that calls the handler directly.
func mcpmigrateResultThree[T any](tr *mcp.ToolResult[T], err error) (*mcp.CallToolResult, T, error) {
	if tr == nil {
		var zero T
		return nil, zero, err
	}
	return &mcp.CallToolResult{Content: tr.Content, IsError: tr.IsError, Meta: tr.Meta}, tr.Structured, err
}`},
	"mcpmigrateContents": {[]string{"encoding/base64", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateRC is go-sdk's ResourceContents, read from gomcp's
// *mcp.TextResourceContents or *mcp.BlobResourceContents.
type mcpmigrateRC struct {
	URI, MIMEType, Text string
	Blob                []byte
}

// mcpmigrateContents reads resource contents the way go-sdk's single
// ResourceContents struct was read.
func mcpmigrateContents(c mcp.ResourceContents) mcpmigrateRC {
	switch c := c.(type) {
	case *mcp.TextResourceContents:
		return mcpmigrateRC{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
	case *mcp.BlobResourceContents:
		b, _ := base64.StdEncoding.DecodeString(c.Blob)
		return mcpmigrateRC{URI: c.URI, MIMEType: c.MIMEType, Blob: b}
	}
	return mcpmigrateRC{}
}`},
	"mcpmigrateArguments": {[]string{"encoding/json", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateArguments is the tool call's arguments as a map (mcp-go's
// request.GetArguments); nil when they are not a JSON object.
func mcpmigrateArguments(req *mcp.CallToolRequest) map[string]any {
	var m map[string]any
	if req == nil || req.Params == nil || json.Unmarshal(req.Params.Arguments, &m) != nil {
		return nil
	}
	return m
}`},
	"mcpmigrateBind": {[]string{"encoding/json", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateBind decodes the tool call's arguments into target (mcp-go's
// request.BindArguments).
func mcpmigrateBind(req *mcp.CallToolRequest, target any) error {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return json.Unmarshal([]byte("{}"), target)
	}
	return json.Unmarshal(req.Params.Arguments, target)
}`},
	"mcpmigrateGetString": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateGetString is mcp-go's request.GetString.
func mcpmigrateGetString(req *mcp.CallToolRequest, key, def string) string {
	if v, ok := mcpmigrateArguments(req)[key].(string); ok {
		return v
	}
	return def
}`},
	"mcpmigrateRequireString": {[]string{"fmt", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateRequireString is mcp-go's request.RequireString.
func mcpmigrateRequireString(req *mcp.CallToolRequest, key string) (string, error) {
	v, ok := mcpmigrateArguments(req)[key]
	if !ok {
		return "", fmt.Errorf("required argument %q not found", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("argument %q is not a string", key)
	}
	return s, nil
}`},
	"mcpmigrateGetFloat": {[]string{"fmt", "github.com/gomcp/sdk/mcp", "strconv"}, `// mcpmigrateGetFloat is mcp-go's request.GetFloat.
func mcpmigrateGetFloat(req *mcp.CallToolRequest, key string, def float64) float64 {
	if f, err := mcpmigrateRequireFloat(req, key); err == nil {
		return f
	}
	return def
}

// mcpmigrateRequireFloat is mcp-go's request.RequireFloat.
func mcpmigrateRequireFloat(req *mcp.CallToolRequest, key string) (float64, error) {
	v, ok := mcpmigrateArguments(req)[key]
	if !ok {
		return 0, fmt.Errorf("required argument %q not found", key)
	}
	switch v := v.(type) {
	case float64:
		return v, nil
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("argument %q cannot be converted to float64", key)
		}
		return f, nil
	}
	return 0, fmt.Errorf("argument %q is not a float64", key)
}`},
	"mcpmigrateGetInt": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateGetInt is mcp-go's request.GetInt.
func mcpmigrateGetInt(req *mcp.CallToolRequest, key string, def int) int {
	if f, err := mcpmigrateRequireFloat(req, key); err == nil {
		return int(f)
	}
	return def
}

// mcpmigrateRequireInt is mcp-go's request.RequireInt.
func mcpmigrateRequireInt(req *mcp.CallToolRequest, key string) (int, error) {
	f, err := mcpmigrateRequireFloat(req, key)
	return int(f), err
}`},
	"mcpmigrateGetBool": {[]string{"fmt", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateGetBool is mcp-go's request.GetBool.
func mcpmigrateGetBool(req *mcp.CallToolRequest, key string, def bool) bool {
	if b, err := mcpmigrateRequireBool(req, key); err == nil {
		return b
	}
	return def
}

// mcpmigrateRequireBool is mcp-go's request.RequireBool.
func mcpmigrateRequireBool(req *mcp.CallToolRequest, key string) (bool, error) {
	v, ok := mcpmigrateArguments(req)[key]
	if !ok {
		return false, fmt.Errorf("required argument %q not found", key)
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("argument %q is not a bool", key)
	}
	return b, nil
}`},
	"mcpmigrateGetStringSlice": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateGetStringSlice is mcp-go's request.GetStringSlice.
func mcpmigrateGetStringSlice(req *mcp.CallToolRequest, key string, def []string) []string {
	vs, ok := mcpmigrateArguments(req)[key].([]any)
	if !ok {
		return def
	}
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}`},
	"mcpmigrateStructured": {[]string{"encoding/json", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateStructured is a result with structured content and a text
// block (mcp-go's NewToolResultStructured); an empty text becomes the JSON.
func mcpmigrateStructured(v any, text string) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, IsError: true}
	}
	if text == "" {
		text = string(b)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: b}
}`},
	"mcpmigrateSchemaFor": {[]string{"fmt", "bytes", "encoding/json", "reflect", "strings", "github.com/gomcp/sdk/jsonschema"}, `// mcpmigrateSchemaFor is the JSON Schema mcp-go's WithInputSchema[T] and
// WithOutputSchema[T] gave: gomcp's inferred schema of T with closed
// objects, and slices and pointers also allowing null (mcp-go inferred
// with google/jsonschema-go, which allows it).
func mcpmigrateSchemaFor[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	raw, err := jsonschema.ForTypeClosed(t)
	if err != nil {
		panic(fmt.Sprintf("mcp-migrate: schema of %v: %v", t, err))
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var s any
	if err := d.Decode(&s); err != nil {
		panic(fmt.Sprintf("mcp-migrate: schema of %v: %v", t, err))
	}
	mcpmigrateNullable(t, s, 0)
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp-migrate: schema of %v: %v", t, err))
	}
	return b
}

// mcpmigrateNullable adds "null" to the type of every slice and pointer
// in the schema s of t, as google/jsonschema-go did.
func mcpmigrateNullable(t reflect.Type, s any, depth int) {
	m, ok := s.(map[string]any)
	if !ok || depth > 32 {
		return
	}
	ptr := false
	for t.Kind() == reflect.Pointer {
		t, ptr = t.Elem(), true
	}
	if typ, ok := m["type"].(string); ok && depth > 0 && (ptr || t.Kind() == reflect.Slice) {
		m["type"] = []string{"null", typ}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		mcpmigrateNullable(t.Elem(), m["items"], depth+1)
	case reflect.Map:
		mcpmigrateNullable(t.Elem(), m["additionalProperties"], depth+1)
	case reflect.Struct:
		props, _ := m["properties"].(map[string]any)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				mcpmigrateNullable(f.Type, m, depth)
				continue
			}
			if name == "" {
				name = f.Name
			}
			mcpmigrateNullable(f.Type, props[name], depth+1)
		}
	}
}`},
	"mcpmigrateParams": {[]string{"github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/mcp/hooks"}, `// mcpmigrateParams is the request's typed params (go-sdk's
// req.GetParams()), nil when there are none or they do not decode.
func mcpmigrateParams(r *mcp.Request) any {
	p, err := hooks.Params(r)
	if err != nil {
		return nil
	}
	return p
}`},
	"mcpmigrateAsCallTool": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateAsCallTool is go-sdk's req.(*mcp.CallToolRequest) in a
// middleware: a tool call's request, rebuilt around its typed params.
func mcpmigrateAsCallTool(r *mcp.Request) (*mcp.CallToolRequest, bool) {
	p, ok := mcpmigrateParams(r).(*mcp.CallToolParams)
	if !ok {
		return nil, false
	}
	return &mcp.CallToolRequest{Params: p}, true
}`},
	"mcpmigrateSessionID": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateSessionID is the ID of the session behind a request (go-sdk's
// req.Session.ID()); "" for a 2026-07-28 request, which has none.
func mcpmigrateSessionID[P any](req *mcp.ServerRequest[P]) string {
	if ss, ok := req.Session(); ok {
		return ss.ID()
	}
	return ""
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

// helperDeps are helpers other helpers call.
var helperDeps = map[string][]string{
	"mcpmigrateGetString": {"mcpmigrateArguments"}, "mcpmigrateRequireString": {"mcpmigrateArguments"},
	"mcpmigrateGetFloat": {"mcpmigrateArguments"}, "mcpmigrateGetInt": {"mcpmigrateGetFloat", "mcpmigrateArguments"},
	"mcpmigrateGetBool": {"mcpmigrateArguments"}, "mcpmigrateGetStringSlice": {"mcpmigrateArguments"},
	"mcpmigrateRequireFloat": {"mcpmigrateGetFloat"}, "mcpmigrateRequireInt": {"mcpmigrateGetInt"},
	"mcpmigrateRequireBool": {"mcpmigrateGetBool"}, "mcpmigrateThree": {"mcpmigrateOuts"}, "mcpmigrateAnyOut": {"mcpmigrateOuts"}, "mcpmigrateAsCallTool": {"mcpmigrateParams"},
}
