package main

import "go/ast"

func (rw *fileRewriter) analyzeMCPGoCall(call *ast.CallExpr) {}

func (rw *fileRewriter) rewriteMCPGo() {}
