package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// mcp-go's value types that gomcp uses through pointers.
var mcpgoPointerTypes = map[string]bool{
	"Tool": true, "Prompt": true, "Resource": true, "ResourceTemplate": true,
	"TextContent": true, "ImageContent": true, "AudioContent": true, "EmbeddedResource": true, "ResourceLink": true,
	"TextResourceContents": true, "BlobResourceContents": true,
	"PromptMessage": true, "SamplingMessage": true, "PromptArgument": true, "Root": true,
	"CallToolRequest": true, "GetPromptRequest": true, "ReadResourceRequest": true,
	"CreateMessageRequest": true, "ElicitationRequest": true,
}

// mcp-go server types and their gomcp counterparts.
var mcpgoServerTypes = map[string][2]string{
	"MCPServer":             {gomcpMCP, "Server"},
	"ToolHandlerFunc":       {gomcpMCP, "ToolHandler"},
	"PromptHandlerFunc":     {gomcpMCP, "PromptHandler"},
	"StreamableHTTPServer":  {gomcpHTTP, "Handler"},
	"SSEServer":             {gomcpHTTP, "SSEHandler"},
	"ToolHandlerMiddleware": {gomcpHooks, "ToolMiddleware"},
}

// mcp-go names gomcp spells differently.
var mcpgoRenames = map[string]string{
	"ToolAnnotation":     "ToolAnnotations",
	"ElicitationRequest": "ElicitRequest", "ElicitationParams": "ElicitParams", "ElicitationResult": "ElicitResult",
	"ElicitationResponseActionAccept": "ElicitActionAccept", "ElicitationResponseActionDecline": "ElicitActionDecline",
	"ElicitationResponseActionCancel": "ElicitActionCancel", "ElicitationModeForm": "ElicitModeForm",
	"ElicitationModeURL": "ElicitModeURL", "LATEST_PROTOCOL_VERSION": "LatestVersion",
}

// analyzeMCPGoCall records the handlers an mcp-go registration passes.
func (rw *fileRewriter) analyzeMCPGoCall(call *ast.CallExpr) {
	o := rw.objOf(call.Fun)
	if o == nil || !isMethod(o, mcpgoServer, "MCPServer", o.Name()) || len(call.Args) != 2 {
		return
	}
	h := call.Args[1]
	switch o.Name() {
	case "AddTool":
		if inner, ok := h.(*ast.CallExpr); ok && len(inner.Args) == 1 {
			io := rw.objOf(inner.Fun)
			if isObj(io, mcpgoMCP, "NewTypedToolHandler") || isObj(io, mcpgoMCP, "NewStructuredToolHandler") {
				rw.pm.handlerArg(inner.Args[0], mcpgoTypedHandler)
				return
			}
		}
		rw.pm.handlerArg(h, mcpgoToolHandler)
	case "AddPrompt":
		rw.pm.handlerArg(h, mcpgoPromptHandler)
	case "AddResource", "AddResourceTemplate":
		rw.pm.handlerArg(h, mcpgoResourceHandler)
	}
}

// rewriteMCPGo applies the mcp-go rules to the file.
func (rw *fileRewriter) rewriteMCPGo() {
	rw.retargetMCPImport(mcpgoMCP)
	for _, d := range rw.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && rw.pm.funcs[rw.info.Defs[fd.Name]] == mcpgoResourceHandler {
			rw.resourceResults(fd.Type, fd.Body)
		}
	}
	astutil.Apply(rw.file, func(c *astutil.Cursor) bool {
		if fl, ok := c.Node().(*ast.FuncLit); ok && rw.pm.lits[fl] == mcpgoResourceHandler {
			rw.resourceResults(fl.Type, fl.Body)
		}
		if as, ok := c.Node().(*ast.AssignStmt); ok {
			rw.mcpgoAssign(as)
			if rw.unusedRootsRequest(as) || rw.serverOptionSlice(as) {
				c.Delete()
				return false
			}
		}
		return true
	}, rw.mcpgoPost)
}

// resourceResults rewrites an mcp-go resource handler's results,
// ([]ResourceContents, error), into gomcp's (*ReadResourceResult, error).
func (rw *fileRewriter) resourceResults(ft *ast.FuncType, body *ast.BlockStmt) {
	if ft.Results == nil || ft.Results.NumFields() != 2 {
		return
	}
	ft.Results.List[0] = &ast.Field{Type: &ast.StarExpr{X: rw.mcp("ReadResourceResult")}}
	for _, r := range returnsOf(body) {
		if len(r.Results) != 2 {
			rw.todo(r, "return a *mcp.ReadResourceResult and an error here")
			continue
		}
		if !isNil(r.Results[0]) {
			r.Results[0] = &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("ReadResourceResult"),
				Elts: []ast.Expr{&ast.KeyValueExpr{Key: ast.NewIdent("Contents"), Value: r.Results[0]}}}}
		}
	}
	rw.site("resource-handler")
}

func (rw *fileRewriter) mcpgoPost(c *astutil.Cursor) bool {
	switch n := c.Node().(type) {
	case *ast.SelectorExpr:
		rw.mcpgoSelector(c, n)
	case *ast.CompositeLit:
		rw.mcpgoComposite(c, n)
	case *ast.CallExpr:
		rw.mcpgoCall(c, n)
	case *ast.TypeAssertExpr:
		if n.Type != nil {
			n.Type = rw.pointerType(n.Type)
		}
	case *ast.CaseClause:
		for i, e := range n.List {
			n.List[i] = rw.pointerType(e)
		}
	case *ast.AssignStmt:
		rw.mcpgoServerFromContext(c, n)
	case *ast.BinaryExpr:
		rw.progressTokenNil(c, n)
	case *ast.ValueSpec:
		rw.mcpgoRequestVar(n)
	case *ast.ExprStmt:
		if call, ok := n.X.(*ast.CallExpr); ok && isMethod(rw.objOf(call.Fun), mcpgoServer, "MCPServer", "EnableSampling") {
			c.Delete() // gomcp needs no switch to send sampling requests
			rw.site("enable-sampling")
			return true
		}
		rw.checkedAdd(c, n)
	}
	return true
}

// pointerType turns a type expression naming one of mcp-go's value types
// that gomcp uses through pointers into a pointer type.
func (rw *fileRewriter) pointerType(e ast.Expr) ast.Expr {
	se, ok := e.(*ast.SelectorExpr)
	if !ok {
		return e
	}
	if o, ok := rw.info.ObjectOf(se.Sel).(*types.TypeName); ok && o.Pkg() != nil && o.Pkg().Path() == mcpgoMCP && mcpgoPointerTypes[o.Name()] {
		rw.site("pointer-type")
		return &ast.StarExpr{X: e}
	}
	return e
}

// mcpgoSelector renames types and makes value types pointers where they
// are used as types.
func (rw *fileRewriter) mcpgoSelector(c *astutil.Cursor, n *ast.SelectorExpr) {
	o := rw.info.ObjectOf(n.Sel)
	if o == nil || o.Pkg() == nil {
		return
	}
	if _, ok := rw.info.ObjectOf(identOf(n.X)).(*types.PkgName); !ok {
		rw.mcpgoMember(c, n, o)
		return
	}
	path := o.Pkg().Path()
	tn, isType := o.(*types.TypeName)
	switch {
	case (path == mcpgoClient || path == mcpgoTransport) && rw.mcpgoClientName(c, o):
		return
	case path == mcpgoMCP && rw.mcpgoMCPName(c, n, o):
		return
	case path == mcpgoServer && isType && rw.mcpgoServerType(c, o):
		return
	case path == mcpgoServer && isType && mcpgoServerTypes[o.Name()] != [2]string{}:
		mv := mcpgoServerTypes[o.Name()]
		c.Replace(rw.qual(mv[0], mv[1]))
		rw.site("rename")
		return
	case path == mcpgoMCP && isType && o.Name() == "MCPMethod":
		c.Replace(ast.NewIdent("string")) // a method name; mcp-go's MCPMethod is a string type
		rw.site("rename")
	case path == mcpgoMCP:
		if r, ok := mcpgoRenames[o.Name()]; ok {
			n.Sel = ast.NewIdent(r)
			rw.site("rename")
		}
		if isType && mcpgoPointerTypes[tn.Name()] && rw.isTypePosition(n) {
			c.Replace(&ast.StarExpr{X: n})
			rw.site("pointer-type")
		}
		name := n.Sel.Name
		if rw.pm.gomcp != nil && rw.pm.gomcp.Scope().Lookup(name) == nil && !handledMCPGo[name] && !isBuilderOption(o) {
			rw.todo(n, "gomcp's package mcp has no %s: see docs/migrate-from-mcp-go.md for its counterpart", name)
		}
	case mcpgoManualTODO[o.Pkg().Name()+"."+o.Name()] != "":
		rw.todo(n, "%s", mcpgoManualTODO[o.Pkg().Name()+"."+o.Name()])
		if o.Name() == "NewOAuthStreamableHttpClient" {
			rw.pm.helpers["mcpmigrateNewClient"] = true // the TODO's edit calls it
		}
	case strings.HasPrefix(path, mcpgoRoot) && !handledMCPGo[o.Name()] && !mcpgoManualNames[o.Pkg().Name()+"."+o.Name()]:
		rw.todo(n, "mcp-go's %s.%s has no automatic rewrite: see docs/migrate-from-mcp-go.md", o.Pkg().Name(), o.Name())
	}
}

// isTypePosition reports whether a type name is used where a value type
// would have to become a pointer: a field, parameter, result, variable or
// element type, not a literal's type, a conversion or a pointer already.
func (rw *fileRewriter) isTypePosition(n ast.Expr) bool {
	switch rw.parents[n].(type) {
	case *ast.Field, *ast.ValueSpec, *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// handledMCPGo are mcp-go names whose uses the rules rewrite away.
var handledMCPGo = map[string]bool{
	"NewMCPServer": true, "ServeStdio": true, "NewStreamableHTTPServer": true, "NewSSEServer": true, "MCPServer": true,
	"NewTool": true, "NewPrompt": true, "NewResource": true, "NewResourceTemplate": true,
	"NewToolResultText": true, "NewToolResultError": true, "NewToolResultErrorf": true, "NewToolResultErrorFromErr": true,
	"NewToolResultStructured": true, "NewToolResultStructuredOnly": true, "NewTypedToolHandler": true, "NewStructuredToolHandler": true,
	"NewTextContent": true, "NewImageContent": true, "NewAudioContent": true, "NewResourceLink": true,
	"NewPromptMessage": true, "NewGetPromptResult": true, "ToolAnnotation": true,
	"WithToolCapabilities": true, "WithResourceCapabilities": true, "WithPromptCapabilities": true, "WithLogging": true,
	"WithCompletions": true, "WithInstructions": true, "WithRecovery": true, "WithElicitation": true, "WithRoots": true,
	"StreamableHTTPServer": true, "SSEServer": true, "ServerTool": true, "AddTools": true, "Use": true,
	"WithStateLess": true, "WithHTTPContextFunc": true, "ToolHandlerMiddleware": true,
	"Hooks": true, "WithHooks": true, "MCPMethod": true, "ElicitationResponse": true, "ToolInputSchema": true, "ToolOutputSchema": true, "ToolArgumentsSchema": true, "URLElicitationRequiredError": true, "ServerFromContext": true, "NewStdioServer": true, "StdioServer": true, "ClientSessionFromContext": true,
}

// mcpgoMember is where uses of fields and methods of mcp-go's types would
// be rewritten; the request's helper methods are rewritten at their calls
// (mcpgoMethodCall).
func (rw *fileRewriter) mcpgoMember(c *astutil.Cursor, n *ast.SelectorExpr, o types.Object) {
	rw.mcpgoMemberRule(c, n, o)
}

// toolResult rewrites mcp-go's result constructors to package toolresult
// (generated helpers only where the target module's gomcp lacks it).
// Structured results return an error too in gomcp, so they become
// toolresult.Structured/JSON only where the call is returned with a nil
// error; elsewhere a generated helper keeps the one-value form.
func (rw *fileRewriter) toolResult(c *astutil.Cursor, n *ast.CallExpr, name string) {
	str := func(s string) ast.Expr { return &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(s)} }
	have := gomcpHas(gomcpToolResult, "Text")
	switch name {
	case "NewToolResultText", "NewToolResultError":
		fn := strings.TrimPrefix(name, "NewToolResult")
		if have {
			c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpToolResult, fn), Args: n.Args})
			return
		}
		c.Replace(rw.helperCall("mcpmigrate"+fn, n.Args...))
	case "NewToolResultErrorf", "NewToolResultErrorFromErr":
		args, ell := n.Args, n.Ellipsis
		if name == "NewToolResultErrorFromErr" {
			args, ell = []ast.Expr{str("%s: %v"), n.Args[0], n.Args[1]}, token.NoPos
		}
		if have {
			c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpToolResult, "Errorf"), Args: args, Ellipsis: ell})
			return
		}
		c.Replace(rw.helperCall("mcpmigrateError", &ast.CallExpr{Fun: rw.qual("fmt", "Sprintf"), Args: args, Ellipsis: ell}))
	default:
		args := n.Args
		if name == "NewToolResultStructuredOnly" {
			args = []ast.Expr{n.Args[0], str("")}
		}
		if ret, ok := c.Parent().(*ast.ReturnStmt); ok && have && len(ret.Results) == 2 && ret.Results[0] == n && isNil(ret.Results[1]) {
			fn, targs := "Structured", n.Args
			if name == "NewToolResultStructuredOnly" {
				fn = "JSON"
			}
			ret.Results = ret.Results[:1]
			c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpToolResult, fn), Args: targs})
			return
		}
		c.Replace(rw.helperCall("mcpmigrateStructured", args...))
	}
}

// requestHelpers maps mcp-go CallToolRequest methods to helpers taking the
// request first.
var requestHelpers = map[string]string{
	"GetArguments": "mcpmigrateArguments", "BindArguments": "mcpmigrateBind",
	"GetString": "mcpmigrateGetString", "RequireString": "mcpmigrateRequireString",
	"GetInt": "mcpmigrateGetInt", "RequireInt": "mcpmigrateRequireInt",
	"GetFloat": "mcpmigrateGetFloat", "RequireFloat": "mcpmigrateRequireFloat",
	"GetBool": "mcpmigrateGetBool", "RequireBool": "mcpmigrateRequireBool",
	"GetStringSlice": "mcpmigrateGetStringSlice",
}

func (rw *fileRewriter) helperCall(name string, args ...ast.Expr) *ast.CallExpr {
	rw.pm.helpers[name] = true
	return &ast.CallExpr{Fun: ast.NewIdent(name), Args: args}
}

// mcpgoCall rewrites mcp-go constructors and calls.
func (rw *fileRewriter) mcpgoCall(c *astutil.Cursor, n *ast.CallExpr) {
	o := rw.objOf(n.Fun)
	if o == nil || o.Pkg() == nil {
		return
	}
	path, name := o.Pkg().Path(), o.Name()
	if f, ok := o.(*types.Func); ok && f.Signature().Recv() != nil {
		rw.mcpgoMethodCall(c, n, path, recvName(f), name)
		return
	}
	switch path {
	case mcpgoServer:
		rw.mcpgoServerFunc(c, n, name)
	case mcpgoMCP:
		rw.mcpgoMCPFunc(c, n, name)
	}
}

func (rw *fileRewriter) mcpgoMethodCall(c *astutil.Cursor, n *ast.CallExpr, path, recv, name string) {
	se, _ := n.Fun.(*ast.SelectorExpr)
	if se == nil {
		return
	}
	switch {
	case path == mcpgoMCP && recv == "CallToolRequest" && requestHelpers[name] != "":
		c.Replace(rw.helperCall(requestHelpers[name], append([]ast.Expr{se.X}, n.Args...)...))
		rw.site("request-helper")
	case path == mcpgoServer && (recv == "StreamableHTTPServer" || recv == "SSEServer") && name == "Start" && len(n.Args) == 1:
		c.Replace(&ast.CallExpr{Fun: rw.qual("net/http", "ListenAndServe"), Args: []ast.Expr{n.Args[0], se.X}})
		rw.todo(n, "mcp-go served its endpoint at /mcp (or /sse and /message); this handler answers on every path: mount it with http.Handle if the path matters")
		rw.site("http-start")
	case path == mcpgoServer && recv == "MCPServer" && name == "AddResourceTemplate" && len(n.Args) == 2:
		n.Args[1] = rw.mcpgoTemplateHandler(n.Args[1])
	case path == mcpgoServer && recv == "MCPServer" && name == "AddTool" && len(n.Args) == 2:
		rw.mcpgoAddTool(c, n)
	case path == mcpgoServer && recv == "MCPServer" && name == "RequestRoots":
		if req := rw.enclosingRequest(n); req != "" {
			c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent(req), Sel: ast.NewIdent("ListRoots")}, Args: n.Args[:1]})
			rw.site("request-roots")
			return
		}
		rw.todo(n, "RequestRoots outside a handler: gomcp asks for roots through the request being served (req.ListRoots)")
	case path == mcpgoServer && recv == "MCPServer" && (name == "AddPrompt" || name == "AddResource" || name == "EnableSampling"):
	case path == mcpgoServer && recv == "SSEServer" && (name == "SSEHandler" || name == "MessageHandler") && len(n.Args) == 0:
		c.Replace(se.X)
		if name == "MessageHandler" {
			rw.todo(n, "gomcp's SSE handler takes the client's messages on the path of its event stream (the endpoint event names it): this route is no longer used")
		}
		rw.site("sse-handler")
	case path == mcpgoServer && recv == "MCPServer" && rw.mcpgoServerMethod(c, n, se, name):
	case path == mcpgoServer && recv == "MCPServer" && rw.mcpgoServerAsk(c, n, se, name):
	case path == mcpgoClient && recv == "Client":
		rw.mcpgoClientMethod(n, name)
	case path == mcpgoServer && recv == "Hooks" && mcpgoHookMethods[name]:
		rw.site("hooks") // methods of the generated mcpmigrateHooks
	case path == mcpgoServer && name == "ServeHTTP" && (recv == "StreamableHTTPServer" || recv == "SSEServer"):
	case path == mcpgoServer && recv == "StdioServer" && name == "Listen":
	case path == mcpgoTransport && (recv == "StreamableHTTP" || recv == "Stdio") && name == "Close": // a jsonrpc.Stream's
	case strings.HasPrefix(path, mcpgoRoot) && path != mcpgoMCP && !mcpgoManualRecv[recv]:
		rw.todo(n, "mcp-go's %s.%s has no automatic rewrite: see docs/migrate-from-mcp-go.md", recv, name)
	}
}

// The methods of mcp-go's server.Hooks the generated mcpmigrateHooks has.
var mcpgoHookMethods = map[string]bool{
	"AddBeforeAny": true, "AddOnSuccess": true, "AddOnError": true, "AddOnRequestInitialization": true,
	"AddBeforeInitialize": true, "AddAfterInitialize": true, "AddBeforeCallTool": true, "AddAfterCallTool": true,
}

// enclosingRequest names the *CallToolRequest parameter of the handler
// enclosing n, or "".
func (rw *fileRewriter) enclosingRequest(n ast.Node) string {
	for cur := rw.parents[n]; cur != nil; cur = rw.parents[cur] {
		var ft *ast.FuncType
		var sig *types.Signature
		switch f := cur.(type) {
		case *ast.FuncLit:
			ft = f.Type
			sig, _ = rw.typeOf(f).(*types.Signature)
		case *ast.FuncDecl:
			ft = f.Type
			if o := rw.info.Defs[f.Name]; o != nil {
				sig, _ = o.Type().(*types.Signature)
			}
		default:
			continue
		}
		if sig == nil || sig.Params().Len() != ft.Params.NumFields() {
			continue
		}
		i := 0
		for _, p := range ft.Params.List {
			for j := range p.Names {
				if _, name, _ := peerNamed(sig.Params().At(i).Type()); name == "CallToolRequest" && len(p.Names) == 1 {
					if p.Names[j].Name == "_" {
						p.Names[j] = ast.NewIdent(freeName(cur, "req")) // the handler now asks through it
					}
					return p.Names[j].Name
				}
				i++
			}
		}
	}
	return ""
}

// freeName is name, or name with a number, that no identifier in n uses.
func freeName(n ast.Node, name string) string {
	used := map[string]bool{}
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("req%d", i)
	}
	return name
}

// mcpgoAddTool rewrites s.AddTool(tool, mcp.NewTypedToolHandler(f)) into
// gomcp's typed mcp.AddTool(s, tool, f).
func (rw *fileRewriter) mcpgoAddTool(c *astutil.Cursor, n *ast.CallExpr) {
	inner, ok := n.Args[1].(*ast.CallExpr)
	if !ok || len(inner.Args) != 1 {
		return
	}
	io := rw.objOf(inner.Fun)
	if !isObj(io, mcpgoMCP, "NewTypedToolHandler") && !isObj(io, mcpgoMCP, "NewStructuredToolHandler") {
		return
	}
	se := n.Fun.(*ast.SelectorExpr)
	n.Fun = rw.mcp("AddTool")
	n.Args = []ast.Expr{se.X, n.Args[0], inner.Args[0]}
	rw.site("typed-tool")
}

// mcpgoTemplateHandler adds gomcp's URI variables parameter.
func (rw *fileRewriter) mcpgoTemplateHandler(h ast.Expr) ast.Expr {
	if fl, ok := h.(*ast.FuncLit); ok && len(fl.Type.Params.List) == 2 {
		fl.Type.Params.List = append(fl.Type.Params.List, &ast.Field{Names: []*ast.Ident{ast.NewIdent("_")},
			Type: &ast.MapType{Key: ast.NewIdent("string"), Value: ast.NewIdent("string")}})
		rw.site("template-handler")
		return fl
	}
	return rw.templateHandler(h)
}

func (rw *fileRewriter) mcpgoServerFunc(c *astutil.Cursor, n *ast.CallExpr, name string) {
	switch name {
	case "NewMCPServer":
		if len(n.Args) < 2 {
			return
		}
		impl := &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("Implementation"), Elts: []ast.Expr{
			&ast.KeyValueExpr{Key: ast.NewIdent("Name"), Value: n.Args[0]},
			&ast.KeyValueExpr{Key: ast.NewIdent("Version"), Value: n.Args[1]},
		}}}
		var opts []ast.Expr
		args := rw.expandOptions(n, 2)
		for _, a := range args {
			opts = append(opts, rw.serverOption(a)...)
		}
		var optArg ast.Expr = ast.NewIdent("nil")
		if len(opts) > 0 {
			optArg = &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("ServerOptions"), Elts: opts}}
		}
		c.Replace(rw.withHooks(&ast.CallExpr{Fun: rw.mcp("NewServer"), Args: []ast.Expr{impl, optArg}}, args))
		rw.site("new-server")
	case "NewStdioServer":
		if len(n.Args) == 1 {
			c.Replace(rw.helperCall("mcpmigrateStdioServerOf", n.Args[0]))
			rw.site("stdio-server")
		}
	case "ClientSessionFromContext":
		rw.mcpgoSessionFromContext(c, n)
	case "ServeStdio":
		if len(n.Args) > 1 {
			rw.todo(n, "mcp-go's StdioOption arguments were dropped: see docs/migrate-from-mcp-go.md")
		}
		ctx := &ast.CallExpr{Fun: rw.qual("context", "Background")}
		c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: n.Args[0], Sel: ast.NewIdent("Run")},
			Args: []ast.Expr{ctx, &ast.CallExpr{Fun: rw.qual(gomcpTransport, "Stdio")}}})
		rw.site("serve-stdio")
	case "NewStreamableHTTPServer", "NewSSEServer":
		if len(n.Args) > 1 && name == "NewSSEServer" {
			rw.todo(n, "mcp-go's %s options were dropped: set their counterparts in mcphttp.HandlerOptions (see docs/migrate-from-mcp-go.md)", name)
		}
		ctor := "NewHandler"
		if name == "NewSSEServer" {
			ctor = "NewSSEHandler"
		}
		var h ast.Expr = &ast.CallExpr{Fun: rw.qual(gomcpHTTP, ctor), Args: []ast.Expr{n.Args[0], ast.NewIdent("nil")}}
		if name == "NewStreamableHTTPServer" {
			h = rw.httpServerOptions(h, rw.expandOptions(n, 1), rw.usedAsHandler(n))
		}
		c.Replace(h)
		rw.site("http-handler")
	}
}

// serverOption maps one mcp-go ServerOption to ServerOptions fields.
func (rw *fileRewriter) serverOption(a ast.Expr) []ast.Expr {
	call, ok := a.(*ast.CallExpr)
	o := rw.objOf(a)
	if ok {
		o = rw.objOf(call.Fun)
	}
	if o == nil || o.Pkg() == nil || o.Pkg().Path() != mcpgoServer {
		rw.todo(a, "this mcp-go server option was dropped: see docs/migrate-from-mcp-go.md")
		return nil
	}
	switch o.Name() {
	case "WithToolCapabilities", "WithResourceCapabilities", "WithPromptCapabilities", "WithLogging", "WithCompletions",
		"WithElicitation", "WithRoots", "WithRecovery":
		rw.site("capability-option") // gomcp declares capabilities from what is registered
		return nil
	case "WithInstructions":
		return []ast.Expr{&ast.KeyValueExpr{Key: ast.NewIdent("Instructions"), Value: call.Args[0]}}
	case "WithHooks":
		if gomcpHas(gomcpHooks, "AddReceivingMiddleware") {
			return nil // withHooks
		}
	}
	rw.todo(a, "mcp-go's server.%s was dropped: see docs/migrate-from-mcp-go.md for its gomcp counterpart", o.Name())
	return nil
}

func (rw *fileRewriter) mcpgoMCPFunc(c *astutil.Cursor, n *ast.CallExpr, name string) {
	switch name {
	case "NewToolResultText", "NewToolResultError", "NewToolResultErrorf", "NewToolResultErrorFromErr",
		"NewToolResultStructured", "NewToolResultStructuredOnly":
		rw.toolResult(c, n, name)
		rw.site("tool-result")
	case "NewTypedToolHandler", "NewStructuredToolHandler":
		rw.typedHandler(c, n, name)
	case "NewTextContent":
		// same in gomcp
	case "NewImageContent", "NewAudioContent":
		typ := strings.TrimPrefix(name, "New")
		c.Replace(&ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(typ), Elts: []ast.Expr{
			kv("Data", n.Args[0]), kv("MIMEType", n.Args[1])}}})
		rw.site("content")
	case "NewResourceLink":
		keys := []string{"URI", "Name", "Description", "MIMEType"}
		var elts []ast.Expr
		for i, a := range n.Args {
			if i < len(keys) {
				elts = append(elts, kv(keys[i], a))
			}
		}
		c.Replace(&ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("ResourceLink"), Elts: elts}})
		rw.site("content")
	case "NewPromptMessage":
		c.Replace(&ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("PromptMessage"), Elts: []ast.Expr{
			kv("Role", n.Args[0]), kv("Content", n.Args[1])}}})
		rw.site("prompt")
	case "NewGetPromptResult":
		c.Replace(&ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("GetPromptResult"), Elts: []ast.Expr{
			kv("Description", n.Args[0]), kv("Messages", n.Args[1])}}})
		rw.site("prompt")
	case "NewTool":
		c.Replace(rw.newTool(n))
	case "NewPrompt":
		c.Replace(rw.newPrompt(n))
	case "NewResource", "NewResourceTemplate":
		c.Replace(rw.newResource(n, name == "NewResourceTemplate"))
	}
}

func kv(k string, v ast.Expr) *ast.KeyValueExpr {
	return &ast.KeyValueExpr{Key: ast.NewIdent(k), Value: v}
}

// mcpgoComposite rewrites mcp-go struct literals: value content types
// become pointers, mcp-go's Type fields go, and slices of messages hold
// pointers.
func (rw *fileRewriter) mcpgoComposite(c *astutil.Cursor, n *ast.CompositeLit) {
	t := rw.typeOf(n)
	if t == nil {
		return
	}
	if _, ok := t.Underlying().(*types.Slice); ok {
		return // its element type becomes a pointer; elided elements follow
	}
	p, name, _ := peerNamed(t)
	if p != mcpgoMCP {
		return
	}
	if name == "ToolInputSchema" || name == "ToolOutputSchema" || name == "ToolArgumentsSchema" {
		c.Replace(rw.schemaLit(n))
		return
	}
	if rw.mcpgoRequestLit(c, n, name) || rw.urlElicitationError(c, n, name) {
		return
	}
	gt := rw.gomcpType(mcpgoGomcpName(name))
	var elts []ast.Expr
	for _, e := range n.Elts {
		kve, ok := e.(*ast.KeyValueExpr)
		if !ok {
			elts = append(elts, e)
			continue
		}
		if spliced, ok := rw.mcpgoEmbedded(kve, t, gt); ok {
			elts = append(elts, spliced...)
			continue
		}
		key := keyName(kve)
		if name == "Tool" && (key == "InputSchema" || key == "OutputSchema" || key == "RawInputSchema" || key == "RawOutputSchema") {
			key = strings.TrimPrefix(key, "Raw")
			v := kve.Value
			if !isRaw(rw.typeOf(v)) {
				v = rw.schemaValue(v)
			}
			elts = append(elts, kv(key, v))
			continue
		}
		if key == "Type" && gt != nil {
			if obj, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, "Type"); obj == nil || isMethodObj(obj) {
				rw.site("content-type-field")
				continue // gomcp's content types know their type
			}
		}
		if gt != nil {
			obj, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, key)
			if obj == nil {
				rw.todo(kve, "mcp-go's %s.%s has no counterpart in gomcp's mcp.%s and was dropped: see docs/migrate-from-mcp-go.md", name, key, namedOf(gt))
				rw.site("dropped-field")
				continue
			}
			if cl, ok := kve.Value.(*ast.CompositeLit); ok && isPointer(obj.Type()) && rw.isMCPGoType(rw.typeOf(cl)) {
				kve.Value = &ast.UnaryExpr{Op: token.AND, X: cl} // gomcp's field holds a pointer
				rw.site("pointer-literal")
			}
			if nv, ok := rw.mcpgoConvert(kve.Value, rw.typeOf(kve.Value), obj.Type()); ok {
				elts = append(elts, kv(key, nv))
				continue
			}
		}
		elts = append(elts, kve)
	}
	n.Elts = elts
	if mcpgoPointerTypes[name] && n.Type != nil {
		if _, isAddr := rw.parents[n].(*ast.UnaryExpr); !isAddr {
			c.Replace(&ast.UnaryExpr{Op: token.AND, X: n})
			rw.site("pointer-literal")
		}
	}
}

// schemaLit turns an mcp-go ToolInputSchema literal into the map it
// marshals as (mcp-go writes "properties" even when empty).
func (rw *fileRewriter) schemaLit(n *ast.CompositeLit) ast.Expr {
	keys := map[string]string{"Type": "type", "Properties": "properties", "Required": "required",
		"Defs": "$defs", "AdditionalProperties": "additionalProperties"}
	var m orderedMap
	for _, e := range n.Elts {
		kve, ok := e.(*ast.KeyValueExpr)
		if !ok || keys[keyName(kve)] == "" {
			rw.todo(n, "this ToolInputSchema field was dropped: add it to the schema map")
			continue
		}
		m.set(keys[keyName(kve)], kve.Value)
	}
	if _, ok := m.vals["properties"]; !ok {
		m.set("properties", &ast.CompositeLit{Type: anyMap()})
	}
	rw.site("schema-literal")
	return m.lit()
}

// isBuilderOption reports whether o is one of mcp-go's option functions
// (ToolOption, PropertyOption, ...), which the builder rules consume.
func isBuilderOption(o types.Object) bool {
	f, ok := o.(*types.Func)
	if !ok || f.Signature().Results().Len() != 1 {
		return false
	}
	return strings.HasSuffix(namedOf(f.Signature().Results().At(0).Type()), "Option")
}

func isMethodObj(o types.Object) bool {
	f, ok := o.(*types.Func)
	return ok && f.Signature().Recv() != nil
}

func isPointer(t types.Type) bool {
	_, ok := t.(*types.Pointer)
	return ok
}
