package sdk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesCheckAddErrors checks that no example drops the error of a
// registration (AddTool, AddResource, AddPrompt, ...): the README's Go
// blocks and every example_test.go of the module. A reader copies examples,
// and a refused feature must not go unnoticed in the copy. The README's
// blocks also never use auth.TokenInfoFromContext's result unchecked.
func TestExamplesCheckAddErrors(t *testing.T) {
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, b := range blocks {
		f, err := parser.ParseFile(fset, "README.md", b.code, 0)
		if err != nil {
			continue // TestReadmeBuilds reports it
		}
		for _, pos := range droppedAddErrors(f) {
			p := fset.Position(pos)
			t.Errorf("README.md:%d: the error of an Add call is dropped", b.line+p.Line-1)
		}
		for _, pos := range unguardedTokenInfo(f) {
			p := fset.Position(pos)
			t.Errorf("README.md:%d: the result of TokenInfoFromContext, nil without a token, is used without a check", b.line+p.Line-1)
		}
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "example_test.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, pos := range droppedAddErrors(f) {
			t.Errorf("%s: the error of an Add call is dropped", fset.Position(pos))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// voidAdds are the Add… functions and methods of the module that return
// nothing: there is no error to drop.
var voidAdds = map[string]bool{
	"AddReceivingMiddleware": true, // package mcp/hooks
	"AddSendingMiddleware":   true,
	"AddToolMiddleware":      true,
	"AddVisibleFunc":         true, // mcp.Server
	"AddListenHook":          true,
}

// droppedAddErrors returns where f calls a function or method named Add…
// (longer than Add itself, so not sync.WaitGroup.Add; not one of voidAdds)
// as a statement of its own, throwing its result away.
func droppedAddErrors(f *ast.File) []token.Pos {
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		stmt, ok := n.(*ast.ExprStmt)
		if !ok {
			return true
		}
		call, ok := stmt.X.(*ast.CallExpr)
		if !ok {
			return true
		}
		var name string
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			name = fn.Name
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		case *ast.IndexExpr: // mcp.AddTool[In, Out] with one type argument
			if sel, ok := fn.X.(*ast.SelectorExpr); ok {
				name = sel.Sel.Name
			}
		case *ast.IndexListExpr:
			if sel, ok := fn.X.(*ast.SelectorExpr); ok {
				name = sel.Sel.Name
			}
		}
		if len(name) > len("Add") && strings.HasPrefix(name, "Add") && !voidAdds[name] {
			found = append(found, call.Pos())
		}
		return true
	})
	return found
}

// unguardedTokenInfo returns where f selects a field or method straight
// from the result of auth.TokenInfoFromContext, which is nil for a request
// that did not pass through the middleware.
func unguardedTokenInfo(f *ast.File) []token.Pos {
	var found []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if call, ok := sel.X.(*ast.CallExpr); ok {
			if fn, ok := call.Fun.(*ast.SelectorExpr); ok && fn.Sel.Name == "TokenInfoFromContext" {
				found = append(found, sel.Pos())
			}
		}
		return true
	})
	return found
}
