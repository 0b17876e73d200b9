package main

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The go-sdk tool handler rules: three-result typed handlers become two,
// and direct calls of rewritten handlers are wrapped back.

// isGoSDKToolSig reports whether ft is go-sdk's typed tool handler
// signature, func(context.Context, *CallToolRequest, In) (*CallToolResult,
// Out, error).
func (rw *fileRewriter) isGoSDKToolSig(ft *ast.FuncType) bool {
	if ft.Params.NumFields() != 3 || ft.Results.NumFields() != 3 {
		return false
	}
	var params, results []ast.Expr
	for _, f := range ft.Params.List {
		for range max(len(f.Names), 1) {
			params = append(params, f.Type)
		}
	}
	for _, f := range ft.Results.List {
		for range max(len(f.Names), 1) {
			results = append(results, f.Type)
		}
	}
	p1, n1, ptr1 := peerNamed(rw.typeOf(params[1]))
	p0, n0, ptr0 := peerNamed(rw.typeOf(results[0]))
	return p1 == gosdkMCP && ptr1 && n1 == "CallToolRequest" && p0 == gosdkMCP && ptr0 && n0 == "CallToolResult"
}

// toolHandlerType rewrites mcp.ToolHandlerFor[In, any]: a handler whose
// output was untyped now returns its *mcp.CallToolResult as Out.
func (rw *fileRewriter) toolHandlerType(n *ast.IndexListExpr) {
	if !isObj(rw.objOf(n.X), gosdkMCP, "ToolHandlerFor") || len(n.Indices) != 2 {
		return
	}
	if t := rw.typeOf(n.Indices[1]); t != nil {
		if _, ok := t.Underlying().(*types.Interface); ok {
			n.Indices[1] = &ast.StarExpr{X: rw.mcp("CallToolResult")}
			rw.site("tool-handler-type")
		}
	}
}

// factoryResult rewrites the result type of a function returning a tool
// handler.
func (rw *fileRewriter) factoryResult(fd *ast.FuncDecl) {
	if fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
		return
	}
	if ft, ok := fd.Type.Results.List[0].Type.(*ast.FuncType); ok {
		rw.gosdkToolSig(ft, nil, fd)
	}
}

// gosdkToolSig rewrites a go-sdk typed tool handler's results and returns:
// (*CallToolResult, Out, error) becomes (*CallToolResult, error) when Out is
// an interface, (Out, error) when every return passes a nil result, and
// (*mcp.ToolResult[Out], error) otherwise.
func (rw *fileRewriter) gosdkToolSig(ft *ast.FuncType, body *ast.BlockStmt, at ast.Node) {
	if ft.Results == nil || ft.Results.NumFields() != 3 {
		return
	}
	var fields []*ast.Field
	for _, f := range ft.Results.List {
		if len(f.Names) > 1 {
			rw.todo(at, "named tool handler results were not rewritten; make the handler return (Out, error)")
			return
		}
		fields = append(fields, f)
	}
	outExpr := fields[1].Type
	// go-sdk's In may be any: gomcp needs an object schema.
	if len(ft.Params.List) == 3 {
		if it := rw.typeOf(ft.Params.List[2].Type); it != nil {
			if _, ok := it.Underlying().(*types.Interface); ok {
				ft.Params.List[2].Type = &ast.StructType{Fields: &ast.FieldList{}}
				rw.site("handler-input-any")
			}
		}
	}
	var returns []*ast.ReturnStmt
	var forwards []*ast.ReturnStmt // return f(...) of three results
	for _, r := range returnsOf(body) {
		switch {
		case len(r.Results) == 3:
			returns = append(returns, r)
		case len(r.Results) == 1:
			forwards = append(forwards, r)
		default:
			rw.todo(r, "this return does not give go-sdk's three results; return (Out, error) as gomcp's handler does")
			return
		}
	}
	shape := rw.toolShape(ft, returns)
	for _, r := range forwards {
		switch shape {
		case shapeIface:
			r.Results[0] = rw.helperCall("mcpmigrateTwo", r.Results[0])
		case shapeOut:
			r.Results[0] = rw.helperCall("mcpmigrateOutTwo", r.Results[0])
		default:
			rw.todo(r, "this return forwards a go-sdk handler's three results; return (*mcp.ToolResult[Out], error) as gomcp's handler does")
		}
		rw.site("tool-handler-forward")
	}
	switch shape {
	case shapeIface:
		ft.Results.List = []*ast.Field{fields[0], fields[2]}
		for _, r := range returns {
			if !isNil(r.Results[1]) {
				// go-sdk sent an untyped output as structured content
				// and its JSON as text, unless the result had content.
				r.Results = []ast.Expr{rw.helperCall("mcpmigrateAnyOut", r.Results[0], r.Results[1]), r.Results[2]}
				continue
			}
			r.Results = []ast.Expr{r.Results[0], r.Results[2]}
		}
	case shapeOut:
		ft.Results.List = []*ast.Field{fields[1], fields[2]}
		for _, r := range returns {
			r.Results = []ast.Expr{r.Results[1], r.Results[2]}
		}
	default:
		ft.Results.List = []*ast.Field{{Type: &ast.StarExpr{X: &ast.IndexExpr{X: rw.mcp("ToolResult"), Index: outExpr}}}, fields[2]}
		rw.pm.helpers["mcpmigrateToolResult"] = true
		for _, r := range returns {
			r.Results = []ast.Expr{&ast.CallExpr{Fun: ast.NewIdent("mcpmigrateToolResult"), Args: r.Results[:2]}, r.Results[2]}
		}
	}
	rw.site("tool-handler")
}

// Shapes of a rewritten go-sdk tool handler's results.
const (
	shapeIface  = 1 // (*CallToolResult, error)
	shapeOut    = 2 // (Out, error)
	shapeResult = 3 // (*mcp.ToolResult[Out], error)
)

// toolShape decides how a go-sdk handler's three results become two.
func (rw *fileRewriter) toolShape(ft *ast.FuncType, returns []*ast.ReturnStmt) int {
	if t := rw.typeOf(ft.Results.List[len(ft.Results.List)-2].Type); t != nil {
		if _, ok := t.Underlying().(*types.Interface); ok {
			return shapeIface
		}
	}
	for _, r := range returns {
		if len(r.Results) == 3 && !isNil(r.Results[0]) {
			return shapeResult
		}
	}
	return shapeOut
}

// returnsOf lists the return statements of a function body, not of the
// literals inside it.
func returnsOf(body *ast.BlockStmt) []*ast.ReturnStmt {
	var returns []*ast.ReturnStmt
	if body == nil {
		return nil
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			returns = append(returns, n)
		}
		return true
	})
	return returns
}

// directCall wraps a direct call of a rewritten tool handler (tests call
// handlers) so that it still yields go-sdk's three results.
func (rw *fileRewriter) directCall(c *astutil.Cursor, call *ast.CallExpr) {
	var o types.Object
	if se, ok := call.Fun.(*ast.SelectorExpr); ok {
		if sel, ok := rw.info.Selections[se]; ok {
			o = sel.Obj()
		}
	}
	if o == nil {
		o = rw.objOf(call.Fun)
	}
	shape, ok := rw.pm.shapes[o]
	if !ok {
		shape, ok = rw.handlerValueShape(call.Fun)
		if !ok {
			return
		}
	}
	if rw.pm.anyIn[o] && len(call.Args) == 3 && isNil(call.Args[2]) {
		call.Args[2] = &ast.CompositeLit{Type: &ast.StructType{Fields: &ast.FieldList{}}}
	}
	name := map[int]string{shapeIface: "mcpmigrateThree", shapeOut: "mcpmigrateOutThree", shapeResult: "mcpmigrateResultThree"}[shape]
	rw.pm.helpers[name] = true
	c.Replace(&ast.CallExpr{Fun: ast.NewIdent(name), Args: []ast.Expr{call}})
	rw.site("direct-call")
}

// handlerValueShape is the shape of a call of a handler value (a variable
// of type mcp.ToolHandlerFor or of go-sdk's handler signature), not of a
// function declared in the package.
func (rw *fileRewriter) handlerValueShape(fun ast.Expr) (int, bool) {
	if _, isLit := fun.(*ast.FuncLit); isLit {
		return 0, false
	}
	t := rw.typeOf(fun)
	if t == nil {
		return 0, false
	}
	if _, isFunc := rw.objOf(fun).(*types.Func); isFunc {
		return 0, false
	}
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Results().Len() != 3 || sig.Params().Len() != 3 {
		return 0, false
	}
	p, name, ptr := peerNamed(sig.Results().At(0).Type())
	if p != gosdkMCP || !ptr || name != "CallToolResult" {
		return 0, false
	}
	if _, ok := sig.Results().At(1).Type().Underlying().(*types.Interface); ok {
		return shapeIface, true
	}
	return shapeOut, true
}

// toolFuncType rewrites a go-sdk typed tool handler signature used as a type
// (a parameter or field holding a handler) the way handlers are rewritten.
func (rw *fileRewriter) toolFuncType(n *ast.FuncType) {
	switch rw.parents[n].(type) {
	case *ast.FuncLit, *ast.FuncDecl:
		return
	}
	if !rw.isGoSDKToolSig(n) || len(n.Results.List) != 3 {
		return
	}
	res := n.Results.List
	if t := rw.typeOf(res[1].Type); t != nil {
		if _, ok := t.Underlying().(*types.Interface); ok {
			n.Results.List = []*ast.Field{res[0], res[2]}
		} else {
			n.Results.List = []*ast.Field{res[1], res[2]}
		}
		rw.site("tool-handler-type")
	}
}

func isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}
