package main

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// sessionCall rewrites req.Session.X(...) in a go-sdk handler into gomcp's
// request methods.
func (rw *fileRewriter) sessionCall(c *astutil.Cursor, n *ast.CallExpr, se *ast.SelectorExpr) {
	inner, ok := se.X.(*ast.SelectorExpr)
	if !ok {
		return
	}
	fo := rw.info.ObjectOf(inner.Sel)
	sel, ok := rw.info.Selections[inner]
	if fo == nil || !ok || fo.Name() != "Session" || fo.Pkg() == nil || fo.Pkg().Path() != gosdkMCP || !strings.HasPrefix(namedOf(sel.Recv()), "ServerRequest") {
		return
	}
	req := inner.X
	method := se.Sel.Name
	call := func(name string, args ...ast.Expr) {
		c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: req, Sel: ast.NewIdent(name)}, Args: args})
		rw.site("req-session")
	}
	switch method {
	case "ListRoots":
		call("ListRoots", n.Args[0])
	case "CreateMessage", "Elicit":
		call(method, n.Args...)
	case "ID":
		c.Replace(rw.helperCall("mcpmigrateSessionID", req))
		rw.site("req-session")
	case "Ping":
		rw.pm.helpers["mcpmigratePing"] = true
		c.Replace(&ast.CallExpr{Fun: ast.NewIdent("mcpmigratePing"), Args: []ast.Expr{n.Args[0], req}})
		rw.site("req-session")
	case "Log", "NotifyProgress":
		lit := paramsLit(n.Args[1])
		if lit == nil {
			rw.todo(n, "req.Session.%s: gomcp's req.%s takes the values, not a params struct; pass them", method, method)
			return
		}
		f := map[string]ast.Expr{}
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				f[keyName(kv)] = kv.Value
			}
		}
		or := func(k string, def ast.Expr) ast.Expr {
			if v, ok := f[k]; ok {
				if ce, ok := v.(*ast.CallExpr); ok && identName(ce.Fun) == "mcpmigrateJSON" {
					return ce.Args[0] // Data: req.Log takes any
				}
				return v
			}
			return def
		}
		if method == "Log" {
			call("Log", n.Args[0], or("Level", rw.mcp("LevelInfo")), or("Logger", &ast.BasicLit{Kind: token.STRING, Value: `""`}), or("Data", ast.NewIdent("nil")))
		} else {
			call("NotifyProgress", n.Args[0], or("Progress", &ast.BasicLit{Kind: token.INT, Value: "0"}), or("Total", &ast.BasicLit{Kind: token.INT, Value: "0"}), or("Message", &ast.BasicLit{Kind: token.STRING, Value: `""`}))
		}
	default:
		rw.todo(n, "req.Session.%s has no request-level counterpart in gomcp: use s, ok := req.Session() (no session at 2026-07-28)", method)
	}
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func paramsLit(e ast.Expr) *ast.CompositeLit {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		if lit, ok := u.X.(*ast.CompositeLit); ok {
			return lit
		}
	}
	return nil
}

// checkedAdd turns an unchecked registration (AddTool, AddPrompt, ...),
// whose error gomcp returns, into one that cannot fail silently.
func (rw *fileRewriter) checkedAdd(c *astutil.Cursor, n *ast.ExprStmt) {
	call, ok := n.X.(*ast.CallExpr)
	if !ok {
		return
	}
	o := rw.objOf(call.Fun)
	if o == nil || o.Pkg() == nil {
		return
	}
	p := o.Pkg().Path()
	if p != gosdkMCP && p != mcpgoServer {
		return
	}
	switch o.Name() {
	case "AddTool", "AddPrompt", "AddResource", "AddResourceTemplate", "AddTools", "AddPrompts", "AddResources":
	default:
		return
	}
	if p == mcpgoServer && o.Name() != "AddTool" && o.Name() != "AddPrompt" && o.Name() != "AddResource" && o.Name() != "AddResourceTemplate" {
		return
	}
	if _, ok := c.Parent().(*ast.BlockStmt); !ok {
		if _, ok := c.Parent().(*ast.CaseClause); !ok {
			return
		}
	}
	err := ast.NewIdent("err")
	c.Replace(&ast.IfStmt{
		Init: &ast.AssignStmt{Lhs: []ast.Expr{err}, Tok: token.DEFINE, Rhs: []ast.Expr{call}},
		Cond: &ast.BinaryExpr{X: ast.NewIdent("err"), Op: token.NEQ, Y: ast.NewIdent("nil")},
		Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ExprStmt{X: &ast.CallExpr{Fun: ast.NewIdent("panic"), Args: []ast.Expr{ast.NewIdent("err")}}}}},
	})
	rw.moveTODOs(n, c.Node().(ast.Stmt))
	rw.site("checked-add")
}

// moveTODOs re-attaches TODOs of a replaced statement.
func (rw *fileRewriter) moveTODOs(from, to ast.Stmt) {
	for i := range rw.todos {
		if rw.todos[i].stmt == from {
			rw.todos[i].stmt = to
		}
	}
	rw.parents[to] = rw.parents[from]
}

// connectAssign completes ss, err := server.Connect(...): gomcp's server
// Connect cannot fail, so the error is nil.
func (rw *fileRewriter) connectAssign(n *ast.AssignStmt) {
	if len(n.Lhs) != 2 || len(n.Rhs) != 1 {
		return
	}
	if call, ok := n.Rhs[0].(*ast.CallExpr); ok && rw.connects[call] {
		n.Rhs = append(n.Rhs, &ast.CallExpr{Fun: ast.NewIdent("error"), Args: []ast.Expr{ast.NewIdent("nil")}})
	}
}
