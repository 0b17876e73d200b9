package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// isObj reports whether o is the package-level name (or the method or field
// "Type.Name") of the package at path.
func isObj(o types.Object, path, name string) bool {
	if o == nil || o.Pkg() == nil || o.Pkg().Path() != path {
		return false
	}
	if i := strings.IndexByte(name, '.'); i >= 0 {
		recv := recvName(o)
		return recv == name[:i] && o.Name() == name[i+1:]
	}
	return o.Name() == name && o.Parent() == o.Pkg().Scope()
}

// recvName is the name of the type a method or field belongs to.
func recvName(o types.Object) string {
	switch o := o.(type) {
	case *types.Func:
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			return namedOf(sig.Recv().Type())
		}
	case *types.Var:
		if o.IsField() {
			return fieldOwner[o]
		}
	}
	return ""
}

// fieldOwner maps peer struct fields to their struct's name; filled lazily.
var fieldOwner = map[*types.Var]string{}

// namedOf is the name of a (pointer to a) named type, or "".
func namedOf(t types.Type) string {
	if t == nil {
		return ""
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := types.Unalias(t).(type) {
	case *types.Named:
		return n.Obj().Name()
	}
	if a, ok := t.(*types.Alias); ok {
		return a.Obj().Name()
	}
	return ""
}

// peerNamed reports the package path and name of a (pointer to a) named type.
func peerNamed(t types.Type) (path, name string, ptr bool) {
	if t == nil {
		return "", "", false
	}
	if p, ok := t.(*types.Pointer); ok {
		t, ptr = p.Elem(), true
	}
	if a, ok := t.(*types.Alias); ok && a.Obj().Pkg() != nil {
		return a.Obj().Pkg().Path(), a.Obj().Name(), ptr
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path(), n.Obj().Name(), ptr
	}
	return "", "", ptr
}

// Renamed go-sdk names: go-sdk name -> gomcp name.
var gosdkRenames = map[string]string{
	"CompletionResultDetails":           "Completion",
	"LoggingMessageParams":              "LoggingMessageNotificationParams",
	"IconThemeLight":                    "IconThemeLight",
	"ResourceUpdatedNotificationParams": "ResourceUpdatedNotificationParams",
	"CallToolParamsRaw":                 "CallToolParams",
}

// go-sdk names that live in another gomcp package.
var gosdkMoved = map[string][2]string{
	"Transport": {"github.com/gomcp/sdk/jsonrpc", "Stream"},
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// analyzeGoSDKCall records the handlers a go-sdk registration call passes.
func (rw *fileRewriter) analyzeGoSDKCall(call *ast.CallExpr) {
	o := rw.objOf(call.Fun)
	if isObj(o, gosdkMCP, "AddTool") && len(call.Args) == 3 {
		if !rw.pm.handlerArg(call.Args[2], gosdkToolHandler) {
			rw.todo(call, "the tool handler is not a function literal or a function of this package, so its (result, output, error) returns were not rewritten; gomcp's typed handlers return (Out, error) (or (*mcp.ToolResult[Out], error))")
		}
	}
}

// retargetMCPImport points the import of package mcp at from to gomcp's
// mcp, keeping its local name.
func (rw *fileRewriter) retargetMCPImport(from string) {
	for _, imp := range rw.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == from {
			name := "mcp"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imp.Path.Value = strconv.Quote(gomcpMCP)
			rw.names[gomcpMCP] = name
			rw.site("import")
		}
	}
}

// rewriteGoSDK applies the go-sdk rules to the file.
func (rw *fileRewriter) rewriteGoSDK() {
	rw.retargetMCPImport(gosdkMCP)
	// Handler declarations first, on the pristine tree.
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			switch k := rw.pm.funcs[rw.info.Defs[fd.Name]]; {
			case k == gosdkToolHandler:
				rw.gosdkToolSig(fd.Type, fd.Body, fd)
			case k == -gosdkToolHandler:
				rw.factoryResult(fd)
			}
		}
	}
	astutil.Apply(rw.file, func(c *astutil.Cursor) bool {
		if fl, ok := c.Node().(*ast.FuncLit); ok {
			if rw.pm.lits[fl] == gosdkToolHandler {
				rw.gosdkToolSig(fl.Type, fl.Body, fl)
			}
			rw.middlewareFunc(fl)
		}
		return true
	}, rw.gosdkPost)
}

// gosdkPost rewrites one node after its children.
func (rw *fileRewriter) gosdkPost(c *astutil.Cursor) bool {
	if rw.gosdkGaps(c) || rw.middlewarePost(c) {
		return true
	}
	switch n := c.Node().(type) {
	case *ast.SelectorExpr:
		rw.gosdkSelector(c, n)
	case *ast.CompositeLit:
		rw.gosdkComposite(c, n)
	case *ast.IndexListExpr:
		rw.toolHandlerType(n)
	case *ast.FuncType:
		rw.toolFuncType(n)
	case *ast.UnaryExpr:
		rw.gosdkUnary(c, n)
	case *ast.CallExpr:
		rw.gosdkCall(c, n)
	case *ast.ExprStmt:
		rw.checkedAdd(c, n)
	case *ast.AssignStmt:
		rw.connectAssign(n)
	case *ast.StarExpr:
		// *mcp.ResourceContents: an interface in gomcp.
		if p, name, _ := peerNamed(rw.typeOf(n.X)); p == gosdkMCP && name == "ResourceContents" {
			c.Replace(rw.mcp("ResourceContents"))
			rw.site("resource-contents")
		}
	}
	return true
}

// gosdkSelector renames package-level names gomcp spells differently and
// flags those it lacks.
func (rw *fileRewriter) gosdkSelector(c *astutil.Cursor, n *ast.SelectorExpr) {
	o := rw.info.ObjectOf(n.Sel)
	if o == nil || o.Pkg() == nil {
		return
	}
	if _, ok := rw.info.ObjectOf(identOf(n.X)).(*types.PkgName); !ok {
		rw.gosdkMember(c, n, o)
		return
	}
	path := o.Pkg().Path()
	if path != gosdkMCP {
		if strings.HasPrefix(path, gosdkRoot) {
			rw.todo(n, "go-sdk's package %s has no gomcp rewrite here (%s.%s): see docs/migrate-from-go-sdk.md", o.Pkg().Name(), o.Pkg().Name(), o.Name())
		}
		return
	}
	name := o.Name()
	if mv, ok := gosdkMoved[name]; ok {
		c.Replace(rw.qual(mv[0], mv[1]))
		rw.site("rename")
		return
	}
	if r, ok := gosdkRenames[name]; ok {
		name = r
	}
	if name != o.Name() {
		n.Sel = ast.NewIdent(name)
		rw.site("rename")
	}
	if rw.pm.gomcp != nil && rw.pm.gomcp.Scope().Lookup(name) == nil && !handledGoSDK[name] {
		rw.todo(n, "gomcp's package mcp has no %s: see docs/migrate-from-go-sdk.md for its counterpart", name)
	}
}

// handledGoSDK are go-sdk names whose uses the rules rewrite away.
var handledGoSDK = map[string]bool{
	"StdioTransport": true, "NewInMemoryTransports": true, "CommandTransport": true,
	"StreamableClientTransport": true, "NewStreamableHTTPHandler": true, "NewSSEHandler": true,
	"LoggingTransport": true, "StreamableHTTPOptions": true, "MethodHandler": true, "Middleware": true,
	"Request": true, "Result": true,
}

// gosdkMember rewrites uses of fields and methods: req.Session.X(...) is
// handled at the call; here Icon.Source and the like.
func (rw *fileRewriter) gosdkMember(c *astutil.Cursor, n *ast.SelectorExpr, o types.Object) {
	sel, ok := rw.info.Selections[n]
	if !ok || o.Pkg().Path() != gosdkMCP {
		return
	}
	recv := namedOf(sel.Recv())
	if (o.Name() == "AddReceivingMiddleware" || o.Name() == "AddSendingMiddleware") && gomcpHas(gomcpHooks, o.Name()) {
		return // the call rule moves it to package hooks
	}
	if inner, ok := n.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Session" {
		if is, ok := rw.info.Selections[inner]; ok && strings.HasPrefix(namedOf(is.Recv()), "ServerRequest") {
			return // req.Session.X(...): sessionCall rewrites it
		}
	}
	switch {
	case recv == "ToolAnnotations" && (o.Name() == "ReadOnlyHint" || o.Name() == "IdempotentHint") && !rw.isAssignTarget(n):
		if _, isKey := rw.parents[n].(*ast.KeyValueExpr); !isKey {
			c.Replace(rw.helperCall("mcpmigrateHint", n))
			rw.site("annotation")
		}
	case recv == "ResourceContents" && !rw.isAssignTarget(n):
		rw.pm.helpers["mcpmigrateContents"] = true
		c.Replace(&ast.SelectorExpr{X: &ast.CallExpr{Fun: ast.NewIdent("mcpmigrateContents"), Args: []ast.Expr{n.X}}, Sel: n.Sel})
		rw.site("resource-contents")
	case recv == "CreateMessageResult" && o.Name() == "Content" && !rw.isAssignTarget(n):
		rw.pm.helpers["mcpmigrateFirst"] = true
		c.Replace(&ast.CallExpr{Fun: ast.NewIdent("mcpmigrateFirst"), Args: []ast.Expr{n}})
		rw.site("sampling-content")
	case o.Name() == "Session" && strings.HasPrefix(recv, "ServerRequest"):
		if _, isCall := rw.parents[rw.parents[n]].(*ast.CallExpr); isCall {
			return // req.Session.Method(...): the call rule handles it
		}
		rw.todo(n, "gomcp's requests have no Session field: use the request's own methods (req.Log, req.NotifyProgress, req.Elicit, ...) or req.Session() for the session, which a 2026-07-28 request does not have")
	case rw.pm.gomcp != nil:
		if t := rw.gomcpType(recv); t != nil {
			if obj, _, _ := types.LookupFieldOrMethod(t, true, rw.pm.gomcp, o.Name()); obj == nil {
				rw.todo(n, "gomcp's mcp.%s has no %s: see docs/migrate-from-go-sdk.md", recv, o.Name())
			}
		}
	}
}

func (rw *fileRewriter) isAssignTarget(n ast.Expr) bool {
	if as, ok := rw.parents[n].(*ast.AssignStmt); ok {
		for _, l := range as.Lhs {
			if l == n {
				return true
			}
		}
	}
	return false
}

// gomcpType is gomcp's type of that name, or nil.
func (rw *fileRewriter) gomcpType(name string) types.Type {
	if rw.pm.gomcp == nil {
		return nil
	}
	if r, ok := gosdkRenames[name]; ok {
		name = r
	}
	if tn, ok := rw.pm.gomcp.Scope().Lookup(name).(*types.TypeName); ok {
		return tn.Type()
	}
	return nil
}

// gosdkUnary rewrites &mcp.StdioTransport{} and the other transports.
func (rw *fileRewriter) gosdkUnary(c *astutil.Cursor, n *ast.UnaryExpr) {
	if n.Op != token.AND {
		return
	}
	lit, ok := n.X.(*ast.CompositeLit)
	if !ok {
		return
	}
	p, name, _ := peerNamed(rw.typeOf(n.X))
	if p != gosdkMCP {
		return
	}
	switch name {
	case "StdioTransport":
		c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpTransport, "Stdio")})
		rw.site("transport")
	case "CommandTransport":
		var elts []ast.Expr
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && keyName(kv) == "Command" {
				elts = append(elts, &ast.KeyValueExpr{Key: ast.NewIdent("Cmd"), Value: kv.Value})
			} else {
				rw.todo(n, "gomcp's transport.CommandTransport has no counterpart for this go-sdk field; see its fields (Stderr, ShutdownTimeout)")
			}
		}
		c.Replace(&ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.qual(gomcpTransport, "CommandTransport"), Elts: elts}})
		rw.site("transport")
	case "StreamableClientTransport", "SSEClientTransport":
		var url ast.Expr = &ast.BasicLit{Kind: token.STRING, Value: `""`}
		var opts []ast.Expr
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			switch {
			case ok && keyName(kv) == "Endpoint":
				url = kv.Value
			case ok && keyName(kv) == "HTTPClient":
				opts = append(opts, kv)
			case ok && keyName(kv) == "OAuthHandler":
				opts = append(opts, rw.oauthHandler(kv))
			default:
				rw.todo(n, "go-sdk's %s field %s was dropped: set its counterpart in mcphttp.ClientOptions", name, exprKey(e))
			}
		}
		var optArg ast.Expr = ast.NewIdent("nil")
		if len(opts) > 0 {
			optArg = &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.qual(gomcpHTTP, "ClientOptions"), Elts: opts}}
		}
		c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpHTTP, "NewClientStream"), Args: []ast.Expr{url, optArg}})
		rw.site("transport")
	case "LoggingTransport":
		var inner ast.Expr
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && keyName(kv) == "Transport" {
				inner = kv.Value
			}
		}
		if inner != nil {
			rw.todo(n, "gomcp has no LoggingTransport: the transport is used as it is; log messages with ServerOptions.Receiving/Sending middleware if you need the trace")
			c.Replace(inner)
			rw.site("transport")
		}
	}
}

func keyName(kv *ast.KeyValueExpr) string {
	if id, ok := kv.Key.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func exprKey(e ast.Expr) string {
	if kv, ok := e.(*ast.KeyValueExpr); ok {
		return keyName(kv)
	}
	return "?"
}

// gosdkComposite rewrites fields of go-sdk struct literals whose gomcp
// counterpart has another name or type, and drops (with a TODO) fields
// gomcp lacks.
func (rw *fileRewriter) gosdkComposite(c *astutil.Cursor, n *ast.CompositeLit) {
	t := rw.typeOf(n)
	if t == nil {
		return
	}
	// []*mcp.ResourceContents{...}: elements become gomcp's concrete types.
	if sl, ok := t.Underlying().(*types.Slice); ok {
		if p, name, _ := peerNamed(sl.Elem()); p == gosdkMCP && name == "ResourceContents" {
			for i, e := range n.Elts {
				if lit, ok := e.(*ast.CompositeLit); ok && lit.Type == nil {
					n.Elts[i] = &ast.UnaryExpr{Op: token.AND, X: rw.resourceContents(lit)}
				}
			}
		}
		return
	}
	p, name, _ := peerNamed(t)
	if p != gosdkMCP {
		return
	}
	if name == "ResourceContents" {
		if _, isAddr := rw.parents[n].(*ast.UnaryExpr); isAddr {
			c.Replace(rw.resourceContents(n))
		}
		return
	}
	gt := rw.gomcpType(name)
	if name == "ToolAnnotations" {
		rw.explicitHints(n)
	}
	var elts []ast.Expr
	for _, e := range n.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			elts = append(elts, e)
			continue
		}
		key := keyName(kv)
		if nk, nv, ok := rw.gosdkField(name, key, kv.Value, gt); ok {
			if nk == "" {
				continue
			}
			elts = append(elts, &ast.KeyValueExpr{Key: ast.NewIdent(nk), Value: nv})
			continue
		}
		elts = append(elts, kv)
	}
	n.Elts = elts
}

// explicitHints sets go-sdk's two plain bool hints when a literal leaves
// them out: go-sdk always sent readOnlyHint and idempotentHint, so the
// tools/list output (and snapshots of it) stay the same.
func (rw *fileRewriter) explicitHints(n *ast.CompositeLit) {
	have := map[string]bool{}
	for _, e := range n.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			have[keyName(kv)] = true
		} else {
			return // positional fields
		}
	}
	for _, k := range []string{"ReadOnlyHint", "IdempotentHint"} {
		if !have[k] {
			n.Elts = append(n.Elts, &ast.KeyValueExpr{Key: ast.NewIdent(k), Value: &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{ast.NewIdent("false")}}})
			rw.site("annotation")
		}
	}
}

// resourceContents turns a go-sdk ResourceContents literal (text or blob)
// into gomcp's TextResourceContents or BlobResourceContents.
func (rw *fileRewriter) resourceContents(lit *ast.CompositeLit) *ast.CompositeLit {
	kind := "TextResourceContents"
	var elts []ast.Expr
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if keyName(kv) == "Blob" {
			kind = "BlobResourceContents"
			kv = &ast.KeyValueExpr{Key: kv.Key, Value: rw.base64(kv.Value)}
		}
		elts = append(elts, kv)
	}
	rw.site("resource-contents")
	return &ast.CompositeLit{Type: rw.mcp(kind), Elts: elts}
}

func (rw *fileRewriter) base64(e ast.Expr) ast.Expr {
	return &ast.CallExpr{Fun: &ast.SelectorExpr{X: &ast.SelectorExpr{X: ast.NewIdent(rw.importName("encoding/base64")), Sel: ast.NewIdent("StdEncoding")},
		Sel: ast.NewIdent("EncodeToString")}, Args: []ast.Expr{e}}
}

// gosdkField maps one field of a go-sdk literal of type typ to gomcp: the
// new key and value, "" to drop it, ok false to keep it as it is.
func (rw *fileRewriter) gosdkField(typ, key string, v ast.Expr, gt types.Type) (string, ast.Expr, bool) {
	vt := rw.typeOf(v)
	switch typ + "." + key {
	case "Icon.Source":
		return "Src", v, true
	}
	if gt != nil {
		obj, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, key)
		if obj == nil {
			rw.todo(v, "go-sdk's %s.%s has no counterpart in gomcp's mcp.%s and was dropped: see docs/migrate-from-go-sdk.md", typ, key, namedOf(gt))
			rw.site("dropped-field")
			return "", nil, true
		}
		if nv, ok := rw.convertValue(v, vt, obj.Type()); ok {
			return key, nv, true
		}
	}
	// Handlers in options take other arguments in gomcp.
	if fl, ok := v.(*ast.FuncLit); ok && typ == "ServerOptions" {
		rw.optionHandler(key, fl)
	}
	return "", nil, false
}

// convertValue converts a field value of go-sdk type vt to gomcp's field
// type ft where the two differ in a known way.
func (rw *fileRewriter) convertValue(v ast.Expr, vt, ft types.Type) (ast.Expr, bool) {
	if vt == nil || ft == nil {
		return nil, false
	}
	_, fname, _ := peerNamed(ft)
	vb, _ := vt.Underlying().(*types.Basic)
	switch {
	case isRaw(ft) && !isRaw(vt):
		if b, ok := vt.Underlying().(*types.Slice); ok && types.Identical(b.Elem(), types.Typ[types.Byte]) {
			return nil, false
		}
		rw.pm.helpers["mcpmigrateJSON"] = true
		rw.site("json-value")
		return &ast.CallExpr{Fun: ast.NewIdent("mcpmigrateJSON"), Args: []ast.Expr{v}}, true
	case fname == "ElicitSchema":
		rw.pm.helpers["mcpmigrateElicitSchema"] = true
		rw.site("elicit-schema")
		return &ast.CallExpr{Fun: ast.NewIdent("mcpmigrateElicitSchema"), Args: []ast.Expr{v}}, true
	case fname == "LoggingLevel" && vb != nil && vb.Info()&types.IsString != 0:
		return rw.level(v), true
	}
	if fb, ok := ft.Underlying().(*types.Basic); ok && fb.Kind() == types.String {
		if s, ok := vt.Underlying().(*types.Slice); ok && types.Identical(s.Elem(), types.Typ[types.Byte]) {
			rw.site("base64")
			return rw.base64(v), true
		}
	}
	if fp, ok := ft.(*types.Pointer); ok && vb != nil && vb.Info()&types.IsBoolean != 0 {
		if b, ok := fp.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			rw.site("annotation")
			return &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{v}}, true
		}
	}
	if fs, ok := ft.(*types.Slice); ok {
		if _, isSlice := vt.Underlying().(*types.Slice); !isSlice {
			if _, en, _ := peerNamed(fs.Elem()); en == "Content" {
				rw.site("content-list")
				return &ast.CompositeLit{Type: &ast.ArrayType{Elt: rw.mcp("Content")}, Elts: []ast.Expr{v}}, true
			}
		}
	}
	return nil, false
}

// optionHandler adapts go-sdk ServerOptions handlers whose request gomcp
// replaces with the session.
func (rw *fileRewriter) optionHandler(key string, fl *ast.FuncLit) {
	switch key {
	case "InitializedHandler", "RootsListChangedHandler":
	default:
		return
	}
	ps := fl.Type.Params.List
	if len(ps) != 2 || len(ps[1].Names) > 1 {
		return
	}
	if len(ps[1].Names) == 1 && ps[1].Names[0].Name != "_" && usesIdent(fl.Body, rw.info.Defs[ps[1].Names[0]]) {
		rw.todo(fl, "gomcp's %s receives the *mcp.ServerSession, not a request: rewrite the uses of the request", key)
		return
	}
	ps[1].Type = &ast.StarExpr{X: rw.mcp("ServerSession")}
	rw.site("option-handler")
}

func usesIdent(n ast.Node, o types.Object) bool {
	found := false
	if o == nil {
		return false
	}
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Obj != nil && id.Name == o.Name() {
			found = true
		}
		return !found
	})
	return found
}

func isRaw(t types.Type) bool {
	p, name, _ := peerNamed(t)
	return p == "encoding/json" && name == "RawMessage"
}

// level turns a go-sdk level (a string) into gomcp's LoggingLevel.
func (rw *fileRewriter) level(v ast.Expr) ast.Expr {
	if bl, ok := v.(*ast.BasicLit); ok && bl.Kind == token.STRING {
		s, _ := strconv.Unquote(bl.Value)
		if c, ok := levelConsts[s]; ok {
			rw.site("log-level")
			return rw.mcp(c)
		}
	}
	rw.pm.helpers["mcpmigrateLevel"] = true
	rw.site("log-level")
	return &ast.CallExpr{Fun: ast.NewIdent("mcpmigrateLevel"), Args: []ast.Expr{v}}
}

var levelConsts = map[string]string{
	"debug": "LevelDebug", "info": "LevelInfo", "notice": "LevelNotice", "warning": "LevelWarning",
	"error": "LevelError", "critical": "LevelCritical", "alert": "LevelAlert", "emergency": "LevelEmergency",
}

// gosdkCall rewrites calls whose shape differs in gomcp.
func (rw *fileRewriter) gosdkCall(c *astutil.Cursor, n *ast.CallExpr) {
	rw.directCall(c, n)
	o := rw.objOf(n.Fun)
	if rw.addMiddleware(c, n, o) {
		return
	}
	switch {
	case isObj(o, gosdkMCP, "NewInMemoryTransports"):
		c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpTransport, "Pipe")})
		rw.site("transport")
	case isObj(o, gosdkMCP, "NewStreamableHTTPHandler"), isObj(o, gosdkMCP, "NewSSEHandler"):
		ctor := "NewHandler"
		if o.Name() == "NewSSEHandler" {
			ctor = "NewSSEHandler"
		}
		var opts ast.Expr = ast.NewIdent("nil")
		if len(n.Args) > 1 && !isNil(n.Args[1]) {
			opts = rw.httpOptions(n.Args[1], ctor)
		}
		srv := fixedServer(n.Args[0])
		switch {
		case srv != nil:
			c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpHTTP, ctor), Args: []ast.Expr{srv, opts}})
		case gomcpHas(gomcpHTTP, ctor+"For"):
			c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpHTTP, ctor+"For"), Args: []ast.Expr{n.Args[0], opts}})
		default:
			rw.todo(n, "this go-sdk handler builds a server per request: gomcp's mcphttp.%s takes one *mcp.Server (see docs/migrate-from-go-sdk.md, per-request servers)", ctor)
			return
		}
		rw.site("http-handler")
	case isMethod(o, gosdkMCP, "Server", "Connect") && len(n.Args) == 3:
		if !isNil(n.Args[2]) {
			rw.todo(n, "go-sdk's ServerSessionOptions were dropped; gomcp's Connect takes *mcp.SessionOptions")
		}
		n.Args = []ast.Expr{n.Args[1], ast.NewIdent("nil")}
		rw.connects[n] = true
		rw.site("connect")
	case isMethod(o, gosdkMCP, "Client", "Connect") && len(n.Args) == 3:
		if !isNil(n.Args[2]) {
			rw.todo(n, "go-sdk's ClientSessionOptions were dropped")
		}
		n.Args = n.Args[:2]
		rw.site("connect")
	case isMethod(o, gosdkMCP, "Server", "AddResourceTemplate") && len(n.Args) == 2:
		n.Args[1] = rw.templateHandler(n.Args[1])
	case isMethod(o, gosdkMCP, "ClientSession", "Ping") && len(n.Args) == 2:
		n.Args = n.Args[:1]
		rw.site("ping")
	case isMethod(o, gosdkMCP, "ServerSession", "Ping") && len(n.Args) == 2:
		n.Args = n.Args[:1]
		rw.site("ping")
	case isObj(o, gosdkMCP, "AddTool") && len(n.Args) == 3:
		rw.checkToolName(n.Args[1])
	case isMethod(o, gosdkMCP, "Server", "AddTool") && len(n.Args) == 2:
		rw.checkToolName(n.Args[0])
	}
	if se, ok := n.Fun.(*ast.SelectorExpr); ok {
		rw.sessionCall(c, n, se)
	}
}

// httpOptions converts go-sdk's StreamableHTTPOptions or SSEOptions:
// JSONResponse carries over, Stateless has no switch in gomcp (2026-07-28
// clients are served statelessly, stateful ones get sessions any replica
// can serve), the rest is dropped with a TODO.
func (rw *fileRewriter) httpOptions(e ast.Expr, ctor string) ast.Expr {
	lit := paramsLit(e)
	if lit == nil || ctor != "NewHandler" {
		rw.todo(e, "go-sdk's handler options were dropped: set their counterparts in mcphttp.HandlerOptions (see docs/migrate-from-go-sdk.md)")
		return ast.NewIdent("nil")
	}
	var elts []ast.Expr
	for _, el := range lit.Elts {
		kve, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch keyName(kve) {
		case "JSONResponse":
			elts = append(elts, kve)
		case "Stateless":
			rw.site("stateless-option") // no switch in gomcp: see docs/migrate-from-go-sdk.md
		default:
			rw.todo(e, "go-sdk's StreamableHTTPOptions.%s was dropped: see mcphttp.HandlerOptions for its counterpart", keyName(kve))
		}
	}
	if len(elts) == 0 {
		return ast.NewIdent("nil")
	}
	return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.qual(gomcpHTTP, "HandlerOptions"), Elts: elts}}
}

// isMethod reports whether o is the method recv.name of the package at path.
func isMethod(o types.Object, path, recv, name string) bool {
	f, ok := o.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != path || f.Name() != name {
		return false
	}
	return recvName(f) == recv
}

// fixedServer returns X from func(*http.Request) *mcp.Server { return X }
// when X does not depend on the request.
func fixedServer(e ast.Expr) ast.Expr {
	fl, ok := e.(*ast.FuncLit)
	if !ok || len(fl.Body.List) != 1 {
		return nil
	}
	r, ok := fl.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(r.Results) != 1 {
		return nil
	}
	if _, ok := r.Results[0].(*ast.Ident); ok {
		return r.Results[0]
	}
	return nil
}

// templateHandler adapts a go-sdk resource template handler to gomcp's,
// which also receives the URI's variables.
func (rw *fileRewriter) templateHandler(h ast.Expr) ast.Expr {
	if fl, ok := h.(*ast.FuncLit); ok && len(fl.Type.Params.List) == 2 {
		fl.Type.Params.List = append(fl.Type.Params.List, &ast.Field{Names: []*ast.Ident{ast.NewIdent("_")},
			Type: &ast.MapType{Key: ast.NewIdent("string"), Value: ast.NewIdent("string")}})
		rw.site("template-handler")
		return fl
	}
	rw.site("template-handler")
	return &ast.FuncLit{
		Type: &ast.FuncType{
			Params: &ast.FieldList{List: []*ast.Field{
				{Names: []*ast.Ident{ast.NewIdent("ctx")}, Type: rw.qual("context", "Context")},
				{Names: []*ast.Ident{ast.NewIdent("req")}, Type: &ast.StarExpr{X: rw.mcp("ReadResourceRequest")}},
				{Names: []*ast.Ident{ast.NewIdent("_")}, Type: &ast.MapType{Key: ast.NewIdent("string"), Value: ast.NewIdent("string")}},
			}},
			Results: &ast.FieldList{List: []*ast.Field{{Type: &ast.StarExpr{X: rw.mcp("ReadResourceResult")}}, {Type: ast.NewIdent("error")}}},
		},
		Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Results: []ast.Expr{&ast.CallExpr{Fun: h, Args: []ast.Expr{ast.NewIdent("ctx"), ast.NewIdent("req")}}}}}},
	}
}

// checkToolName flags a constant tool name gomcp refuses.
func (rw *fileRewriter) checkToolName(tool ast.Expr) {
	u, ok := tool.(*ast.UnaryExpr)
	if !ok {
		return
	}
	lit, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && keyName(kv) == "Name" {
			if tv, ok := rw.info.Types[kv.Value]; ok && tv.Value != nil {
				name, _ := strconv.Unquote(tv.Value.ExactString())
				if !toolNameRE.MatchString(name) {
					rw.todo(tool, "gomcp refuses the tool name %q (names are 1-128 of [A-Za-z0-9_.-]) and registering it fails: rename the tool, e.g. %q", name, safeName(name))
				}
			}
		}
	}
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}
