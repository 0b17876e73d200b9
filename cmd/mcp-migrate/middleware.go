package main

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// go-sdk's middleware handlers, func(ctx, method string, req mcp.Request)
// (mcp.Result, error), become gomcp's func(ctx, req *mcp.Request) (any,
// error): the method is req.Method, req.GetSession().ID() is
// req.SessionID(), req.GetParams() the typed params (hooks.Params), and a
// *mcp.CallToolRequest is rebuilt from them.

// isGoSDKMethodHandler reports whether ft is go-sdk's MethodHandler shape.
func (rw *fileRewriter) isGoSDKMethodHandler(ft *ast.FuncType) bool {
	ps := ft.Params.List
	if ft.Params.NumFields() != 3 || ft.Results.NumFields() != 2 {
		return false
	}
	last := ps[len(ps)-1].Type
	p, name, _ := peerNamed(rw.typeOf(last))
	return p == gosdkMCP && name == "Request"
}

// middlewareFunc rewrites a go-sdk MethodHandler literal's signature and
// remembers its method and request parameters.
func (rw *fileRewriter) middlewareFunc(fl *ast.FuncLit) {
	if !gomcpHas(gomcpHooks, "Params") || !rw.isGoSDKMethodHandler(fl.Type) {
		return
	}
	var names []*ast.Ident
	for _, f := range fl.Type.Params.List {
		if len(f.Names) == 0 {
			return
		}
		names = append(names, f.Names...)
	}
	ctx, method, req := names[0], names[1], names[2]
	rw.mwMethod[rw.info.Defs[method]] = req.Name
	fl.Type.Params.List = []*ast.Field{
		{Names: []*ast.Ident{ctx}, Type: rw.qual("context", "Context")},
		{Names: []*ast.Ident{req}, Type: &ast.StarExpr{X: rw.mcp("Request")}},
	}
	res := fl.Type.Results.List
	res[0].Type = ast.NewIdent("any")
	rw.site("middleware")
}

// middlewarePost rewrites uses inside a rewritten middleware; it reports
// whether it replaced the node.
func (rw *fileRewriter) middlewarePost(c *astutil.Cursor) bool {
	if !gomcpHas(gomcpHooks, "Params") {
		return false
	}
	switch n := c.Node().(type) {
	case *ast.Ident:
		if req, ok := rw.mwMethod[rw.info.Uses[n]]; ok && rw.info.Uses[n] != nil {
			c.Replace(&ast.SelectorExpr{X: ast.NewIdent(req), Sel: ast.NewIdent("Method")})
			return true
		}
	case *ast.CallExpr:
		se, ok := n.Fun.(*ast.SelectorExpr)
		if !ok {
			// next(ctx, method, req) -> next(ctx, req)
			if p, name, _ := peerNamed(rw.typeOf(n.Fun)); p == gosdkMCP && name == "MethodHandler" && len(n.Args) == 3 {
				n.Args = []ast.Expr{n.Args[0], n.Args[2]}
				rw.site("middleware")
			}
			return false
		}
		o := rw.info.ObjectOf(se.Sel)
		switch {
		case o != nil && o.Name() == "ID" && o.Pkg() != nil && o.Pkg().Path() == gosdkMCP:
			// req.GetSession() was already rewritten to req.Session
			if inner, ok := se.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Session" && rw.isRequestIface(inner.X) {
				c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: inner.X, Sel: ast.NewIdent("SessionID")}})
				rw.site("middleware")
				return true
			}
		case isGetSession(rw, n):
			c.Replace(&ast.SelectorExpr{X: se.X, Sel: ast.NewIdent("Session")})
			rw.site("middleware")
			return true
		case o != nil && o.Name() == "GetParams" && o.Pkg() != nil && o.Pkg().Path() == gosdkMCP && rw.isRequestIface(se.X):
			c.Replace(rw.helperCall("mcpmigrateParams", se.X))
			rw.site("middleware")
			return true
		}
	case *ast.TypeAssertExpr:
		// req.(*mcp.CallToolRequest) on a middleware's request
		if n.Type == nil || !rw.isRequestIface(n.X) {
			return false
		}
		if _, name, ptr := peerNamed(rw.typeOf(n.Type)); ptr && name == "CallToolRequest" {
			if as, ok := c.Parent().(*ast.AssignStmt); ok && len(as.Lhs) == 2 {
				c.Replace(rw.helperCall("mcpmigrateAsCallTool", n.X))
				rw.site("middleware")
				return true
			}
			rw.todo(n, "gomcp's middleware sees *mcp.Request: read the call's params with hooks.Params(req)")
		}
	}
	return false
}

func (rw *fileRewriter) isRequestIface(e ast.Expr) bool {
	p, name, _ := peerNamed(rw.typeOf(e))
	return p == gosdkMCP && name == "Request"
}

func isGetSession(rw *fileRewriter, call *ast.CallExpr) bool {
	se, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || se.Sel.Name != "GetSession" || len(call.Args) != 0 {
		return false
	}
	return rw.isRequestIface(se.X)
}

// addMiddleware rewrites s.AddReceivingMiddleware(mws...) (and Sending) on
// a server or client into hooks.AddReceivingMiddleware(s, mws...).
func (rw *fileRewriter) addMiddleware(c *astutil.Cursor, n *ast.CallExpr, o types.Object) bool {
	f, ok := o.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != gosdkMCP || (f.Name() != "AddReceivingMiddleware" && f.Name() != "AddSendingMiddleware") {
		return false
	}
	if !gomcpHas(gomcpHooks, f.Name()) {
		return false
	}
	se := n.Fun.(*ast.SelectorExpr)
	c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpHooks, f.Name()), Args: append([]ast.Expr{se.X}, n.Args...), Ellipsis: n.Ellipsis})
	rw.site("middleware")
	return true
}
