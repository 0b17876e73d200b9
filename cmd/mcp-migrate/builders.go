package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// orderedMap is a map literal under construction: later keys replace
// earlier ones, as the builders' options did.
type orderedMap struct {
	keys  []string
	vals  map[string]ast.Expr
	exprs map[string]ast.Expr // keys that are not constants
}

func (m *orderedMap) set(k string, v ast.Expr) {
	if m.vals == nil {
		m.vals = map[string]ast.Expr{}
	}
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// setExpr sets a key given as an expression.
func (m *orderedMap) setExpr(k ast.Expr, v ast.Expr) {
	if bl, ok := k.(*ast.BasicLit); ok && bl.Kind == token.STRING {
		s, _ := strconv.Unquote(bl.Value)
		m.set(s, v)
		return
	}
	ks := "\x00" + types.ExprString(k)
	if m.exprs == nil {
		m.exprs = map[string]ast.Expr{}
	}
	m.exprs[ks] = k
	m.set(ks, v)
}

func (m *orderedMap) lit() *ast.CompositeLit {
	var elts []ast.Expr
	for _, k := range m.keys {
		var key ast.Expr = strLit(k)
		if e, ok := m.exprs[k]; ok {
			key = e
		}
		elts = append(elts, &ast.KeyValueExpr{Key: key, Value: m.vals[k]})
	}
	return &ast.CompositeLit{Type: anyMap(), Elts: elts}
}

func anyMap() ast.Expr {
	return &ast.MapType{Key: ast.NewIdent("string"), Value: ast.NewIdent("any")}
}

func strLit(s string) *ast.BasicLit {
	return &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(s)}
}

// mcpgoOption resolves an option call of mcp-go's package mcp: its name
// and arguments, or "" when it is not such a call.
func (rw *fileRewriter) mcpgoOption(e ast.Expr) (string, *ast.CallExpr) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return "", nil
	}
	o := rw.objOf(call.Fun)
	if o == nil || o.Pkg() == nil || o.Pkg().Path() != mcpgoMCP {
		return "", nil
	}
	return o.Name(), call
}

// Property option name -> JSON Schema keyword.
var propertyKeywords = map[string]string{
	"Description": "description", "Title": "title", "DefaultString": "default", "DefaultNumber": "default",
	"DefaultBool": "default", "DefaultArray": "default", "MaxLength": "maxLength", "MinLength": "minLength",
	"Pattern": "pattern", "Max": "maximum", "Min": "minimum", "MultipleOf": "multipleOf",
	"Properties": "properties", "AdditionalProperties": "additionalProperties", "MinProperties": "minProperties",
	"MaxProperties": "maxProperties", "PropertyNames": "propertyNames", "Items": "items",
	"MinItems": "minItems", "MaxItems": "maxItems", "UniqueItems": "uniqueItems",
}

// Property constructor -> its JSON type ("" for WithAny).
var propertyTypes = map[string]string{
	"WithString": "string", "WithNumber": "number", "WithInteger": "integer", "WithBoolean": "boolean",
	"WithObject": "object", "WithArray": "array", "WithAny": "",
}

// property builds one property schema from mcp-go's property options; it
// reports whether the property is required and whether every option was
// understood.
func (rw *fileRewriter) property(typ string, opts []ast.Expr) (*ast.CompositeLit, bool, bool) {
	var m orderedMap
	if typ != "" {
		m.set("type", strLit(typ))
	}
	if typ == "object" {
		m.set("properties", &ast.CompositeLit{Type: anyMap()})
	}
	required, ok := false, true
	for _, o := range opts {
		name, call := rw.mcpgoOption(o)
		switch {
		case name == "Required":
			required = true
		case name == "Enum":
			m.set("enum", &ast.CompositeLit{Type: &ast.ArrayType{Elt: ast.NewIdent("string")}, Elts: call.Args})
			if call.Ellipsis.IsValid() && len(call.Args) == 1 {
				m.set("enum", call.Args[0])
			}
		case propertyKeywords[name] != "" && len(call.Args) == 1:
			m.set(propertyKeywords[name], call.Args[0])
		case name == "WithStringItems" || name == "WithNumberItems" || name == "WithIntegerItems" || name == "WithBooleanItems":
			it := map[string]string{"WithStringItems": "string", "WithNumberItems": "number", "WithIntegerItems": "integer", "WithBooleanItems": "boolean"}[name]
			items, _, iok := rw.property(it, call.Args)
			ok = ok && iok
			m.set("items", items)
		case name == "WithStringEnumItems" && len(call.Args) == 1:
			m.set("items", &ast.CompositeLit{Type: anyMap(), Elts: []ast.Expr{
				&ast.KeyValueExpr{Key: strLit("type"), Value: strLit("string")},
				&ast.KeyValueExpr{Key: strLit("enum"), Value: call.Args[0]},
			}})
		default:
			ok = false
		}
	}
	return m.lit(), required, ok
}

// newTool turns mcp.NewTool(name, options...) into a gomcp *mcp.Tool
// literal whose input schema is the map mcp-go built, so that it marshals to
// the same JSON (mcp-go's property maps marshal with sorted keys).
func (rw *fileRewriter) newTool(n *ast.CallExpr) ast.Expr {
	elts := []ast.Expr{kv("Name", n.Args[0])}
	var props orderedMap
	var required []ast.Expr
	var inputSchema, outputSchema ast.Expr
	ann := map[string]ast.Expr{
		"ReadOnlyHint": ast.NewIdent("false"), "DestructiveHint": ast.NewIdent("true"),
		"IdempotentHint": ast.NewIdent("false"), "OpenWorldHint": ast.NewIdent("true"),
	}
	var annTitle ast.Expr
	for _, a := range n.Args[1:] {
		name, call := rw.mcpgoOption(a)
		if call == nil {
			rw.todo(n, "this mcp.NewTool option is not a call of mcp-go's package mcp and was dropped: set the corresponding mcp.Tool field")
			continue
		}
		switch {
		case name == "WithDescription":
			elts = append(elts, kv("Description", call.Args[0]))
		case name == "WithToolTitle":
			elts = append(elts, kv("Title", call.Args[0]))
		case propertyTypes[name] != "" || name == "WithAny":
			prop, req, ok := rw.property(propertyTypes[name], call.Args[1:])
			if !ok {
				rw.todo(n, "a property option of %s was not understood and was dropped: add its JSON Schema keyword to the property's map", name)
			}
			props.setExpr(call.Args[0], prop)
			if req {
				required = append(required, call.Args[0])
			}
		case name == "WithInputSchema" || name == "WithOutputSchema":
			typeArg := typeArgOf(call.Fun)
			if typeArg == nil {
				rw.todo(n, "%s: its type argument could not be read; set the schema with jsonschema.For", name)
				continue
			}
			s := rw.helperCallT("mcpmigrateSchemaFor", typeArg)
			if name == "WithInputSchema" {
				inputSchema = s
			} else {
				outputSchema = s
			}
		case name == "WithRawInputSchema":
			inputSchema = call.Args[0]
		case name == "WithRawOutputSchema":
			outputSchema = call.Args[0]
		case name == "WithToolIcons":
			elts = append(elts, kv("Icons", &ast.CompositeLit{Type: &ast.ArrayType{Elt: rw.mcp("Icon")}, Elts: call.Args}))
		case name == "WithTitleAnnotation":
			annTitle = call.Args[0]
		case name == "WithReadOnlyHintAnnotation", name == "WithDestructiveHintAnnotation",
			name == "WithIdempotentHintAnnotation", name == "WithOpenWorldHintAnnotation":
			k := name[len("With") : len(name)-len("Annotation")]
			ann[k] = call.Args[0]
		case name == "WithToolAnnotation":
			elts = append(elts, kv("Annotations", rw.annotationsFrom(call.Args[0])))
			ann = nil
		default:
			rw.todo(n, "mcp-go's mcp.%s has no gomcp counterpart here and was dropped: see docs/migrate-from-mcp-go.md", name)
		}
	}
	if inputSchema == nil {
		var schema orderedMap
		schema.set("type", strLit("object"))
		pl := props.lit()
		schema.set("properties", pl)
		// mcp-go v1.2.1 writes "required": [] when nothing is required
		schema.set("required", &ast.CompositeLit{Type: &ast.ArrayType{Elt: ast.NewIdent("string")}, Elts: required})
		inputSchema = schema.lit()
	}
	elts = append(elts, kv("InputSchema", rw.schemaValue(inputSchema)))
	if outputSchema != nil {
		elts = append(elts, kv("OutputSchema", rw.schemaValue(outputSchema)))
	}
	if ann != nil {
		var aelts []ast.Expr
		if annTitle != nil {
			aelts = append(aelts, kv("Title", annTitle))
		}
		for _, k := range []string{"ReadOnlyHint", "DestructiveHint", "IdempotentHint", "OpenWorldHint"} {
			aelts = append(aelts, kv(k, &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{ann[k]}}))
		}
		elts = append(elts, kv("Annotations", &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("ToolAnnotations"), Elts: aelts}}))
	}
	rw.site("tool-builder")
	return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("Tool"), Elts: elts}}
}

// annotationsFrom converts an mcp.ToolAnnotation value: a literal is
// rewritten by the composite rule; anything else is taken by address.
func (rw *fileRewriter) annotationsFrom(e ast.Expr) ast.Expr {
	if lit, ok := e.(*ast.CompositeLit); ok {
		lit.Type = rw.mcp("ToolAnnotations")
		return &ast.UnaryExpr{Op: token.AND, X: lit}
	}
	return &ast.UnaryExpr{Op: token.AND, X: e}
}

// schemaValue gives a schema value the type gomcp's Tool fields take: the
// value itself when they take any, its JSON when they take raw JSON.
func (rw *fileRewriter) schemaValue(v ast.Expr) ast.Expr {
	if rw.pm.gomcp != nil {
		if tn, ok := rw.pm.gomcp.Scope().Lookup("Tool").(*types.TypeName); ok {
			if f, _, _ := types.LookupFieldOrMethod(tn.Type(), true, rw.pm.gomcp, "InputSchema"); f != nil {
				if _, isIface := f.Type().Underlying().(*types.Interface); isIface {
					return v
				}
			}
		}
	}
	if ce, ok := v.(*ast.CallExpr); ok && identName(ce.Fun) == "mcpmigrateSchemaFor" {
		return v
	}
	return rw.helperCall("mcpmigrateJSON", v)
}

func typeArgOf(fun ast.Expr) ast.Expr {
	if ix, ok := fun.(*ast.IndexExpr); ok {
		return ix.Index
	}
	return nil
}

func (rw *fileRewriter) helperCallT(name string, typeArg ast.Expr) *ast.CallExpr {
	rw.pm.helpers[name] = true
	return &ast.CallExpr{Fun: &ast.IndexExpr{X: ast.NewIdent(name), Index: typeArg}}
}

// newPrompt turns mcp.NewPrompt(name, options...) into a *mcp.Prompt literal.
func (rw *fileRewriter) newPrompt(n *ast.CallExpr) ast.Expr {
	elts := []ast.Expr{kv("Name", n.Args[0])}
	var args []ast.Expr
	for _, a := range n.Args[1:] {
		name, call := rw.mcpgoOption(a)
		switch name {
		case "WithPromptDescription":
			elts = append(elts, kv("Description", call.Args[0]))
		case "WithPromptTitle":
			elts = append(elts, kv("Title", call.Args[0]))
		case "WithPromptIcons":
			elts = append(elts, kv("Icons", &ast.CompositeLit{Type: &ast.ArrayType{Elt: rw.mcp("Icon")}, Elts: call.Args}))
		case "WithArgument":
			ae := []ast.Expr{kv("Name", call.Args[0])}
			for _, ao := range call.Args[1:] {
				an, acall := rw.mcpgoOption(ao)
				switch an {
				case "ArgumentDescription":
					ae = append(ae, kv("Description", acall.Args[0]))
				case "ArgumentTitle":
					ae = append(ae, kv("Title", acall.Args[0]))
				case "RequiredArgument":
					ae = append(ae, kv("Required", ast.NewIdent("true")))
				default:
					rw.todo(n, "a prompt argument option was not understood and was dropped")
				}
			}
			args = append(args, &ast.CompositeLit{Elts: ae})
		default:
			rw.todo(n, "mcp-go's prompt option %s was dropped: set the corresponding mcp.Prompt field", name)
		}
	}
	if len(args) > 0 {
		elts = append(elts, kv("Arguments", &ast.CompositeLit{Type: &ast.ArrayType{Elt: &ast.StarExpr{X: rw.mcp("PromptArgument")}}, Elts: args}))
	}
	rw.site("prompt-builder")
	return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("Prompt"), Elts: elts}}
}

// newResource turns mcp.NewResource(uri, name, options...) (or
// NewResourceTemplate) into a literal.
func (rw *fileRewriter) newResource(n *ast.CallExpr, template bool) ast.Expr {
	typ, uriKey := "Resource", "URI"
	if template {
		typ, uriKey = "ResourceTemplate", "URITemplate"
	}
	elts := []ast.Expr{kv(uriKey, n.Args[0]), kv("Name", n.Args[1])}
	for _, a := range n.Args[2:] {
		name, call := rw.mcpgoOption(a)
		switch name {
		case "WithResourceDescription", "WithTemplateDescription":
			elts = append(elts, kv("Description", call.Args[0]))
		case "WithResourceTitle", "WithTemplateTitle":
			elts = append(elts, kv("Title", call.Args[0]))
		case "WithMIMEType", "WithTemplateMIMEType":
			elts = append(elts, kv("MIMEType", call.Args[0]))
		case "WithResourceIcons", "WithTemplateIcons":
			elts = append(elts, kv("Icons", &ast.CompositeLit{Type: &ast.ArrayType{Elt: rw.mcp("Icon")}, Elts: call.Args}))
		case "WithResourceSize":
			elts = append(elts, kv("Size", &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{call.Args[0]}}))
		default:
			rw.todo(n, "mcp-go's resource option %s was dropped: set the corresponding mcp.%s field", name, typ)
		}
	}
	rw.site("resource-builder")
	return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(typ), Elts: elts}}
}
