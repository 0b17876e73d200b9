package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// The mcp-go rules for client code (package client and client/transport)
// and for what servers ask of their clients (sampling, elicitation,
// notifications). mcp-go's client is a two-step object (NewClient, then
// Start and Initialize) whose methods take request values; gomcp's Client
// opens a ClientSession in one step (Connect) whose methods take params. The
// rewrite keeps mcp-go's shape with a generated stand-in, mcpmigrateClient
// (mcpgo_client_helpers.go), whose methods are gomcp's session's, and turns
// mcp-go's request values into gomcp's params.

// mcp-go client and transport names and the helpers that replace them.
var mcpgoClientNames = map[string]string{
	"Client": "mcpmigrateClient", "ClientOption": "mcpmigrateClientOption",
	"SamplingHandler": "mcpmigrateSamplingHandler", "RootsHandler": "mcpmigrateRootsHandler",
	"ElicitationHandler": "mcpmigrateElicitationHandler",
	"NewClient":          "mcpmigrateNewClient", "NewStdioMCPClient": "mcpmigrateStdioClient",
	"NewInProcessClient":                    "mcpmigrateInProcessClient",
	"NewInProcessClientWithSamplingHandler": "mcpmigrateInProcessClientWithSampling",
	"WithSamplingHandler":                   "mcpmigrateWithSampling", "WithRootsHandler": "mcpmigrateWithRoots",
	"WithElicitationHandler": "mcpmigrateWithElicitation", "GetStderr": "mcpmigrateStderr",
}

var mcpgoTransportNames = map[string]string{
	"NewStdio": "mcpmigrateStdio", "NewStreamableHTTP": "mcpmigrateStreamableHTTP",
	"StreamableHTTPCOption": "mcpmigrateHTTPOption", "NewInProcessTransport": "mcpmigrateInProcessTransport",
	"WithContinuousListening": "mcpmigrateContinuousListening", "WithHTTPHeaders": "mcpmigrateHTTPHeaders",
}

// The methods of mcp-go's client.Client that mcpmigrateClient has, with
// gomcp's params.
var mcpgoClientMethods = map[string]bool{
	"Start": true, "Initialize": true, "Close": true, "Ping": true, "OnNotification": true, "RootListChanges": true,
	"ListTools": true, "CallTool": true, "ListResources": true, "ListResourceTemplates": true, "ReadResource": true,
	"ListPrompts": true, "GetPrompt": true,
}

// mcpgoManualTODO are the mcp-go APIs whose gomcp counterpart is a
// different program shape, so the rewrite is left to a person, with the
// edit named: mcp-go's OAuth client, where gomcp's transport runs the whole
// flow, and mcp-go's hand-driven multi-round-trip tools, where gomcp runs
// the rounds itself.
var mcpgoManualTODO = map[string]string{
	"client.NewOAuthStreamableHttpClient": "mcp-go's OAuth client: gomcp's HTTP transport runs the whole flow (discovery, registration, PKCE, the browser, refresh). " +
		"Build the stream with a, err := oauth.New(url, &oauth.Config{ClientID, ClientSecret, UserAgent: &oauth.LoopbackUserAgent{}, Store: &oauth.MemoryStore{}}) and " +
		"mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Authorizer: a}), pass it to mcpmigrateNewClient, and delete the manual authorization " +
		"(IsOAuthAuthorizationRequiredError, GetOAuthHandler, the callback server): see docs/migrate-from-mcp-go.md",
	"server.NewInputRequestBuilder": "mcp-go's hand-driven multi-round trip: gomcp runs the rounds itself. Replace the builder by " +
		"answer, err := req.Elicit(ctx, params) (or req.Input) where the first call asked, use answer where the retry read " +
		"server.ElicitationResponse, and drop the request state: see docs/migrate-from-mcp-go.md",
	"server.ElicitationResponse": "mcp-go's hand-driven multi-round trip: read the answer req.Elicit returns instead (see the TODO at NewInputRequestBuilder)",
}

// mcpgoManualNames are the other names of those APIs: the TODO above covers
// them.
var mcpgoManualNames = map[string]bool{
	"client.OAuthConfig": true, "client.NewMemoryTokenStore": true, "client.IsOAuthAuthorizationRequiredError": true,
	"client.GetOAuthHandler": true, "client.GenerateCodeVerifier": true, "client.GenerateCodeChallenge": true,
	"client.GenerateState": true, "server.InputRequestBuilder": true,
}

var mcpgoManualRecv = map[string]bool{"InputRequestBuilder": true, "OAuthHandler": true}

// mcpgoClientName replaces a name of mcp-go's client or transport package
// by its generated stand-in; ok false when it has none.
func (rw *fileRewriter) mcpgoClientName(c *astutil.Cursor, o types.Object) bool {
	names := mcpgoClientNames
	if o.Pkg().Path() == mcpgoTransport {
		names = mcpgoTransportNames
	}
	h, ok := names[o.Name()]
	if !ok {
		return false
	}
	rw.pm.helpers[h] = true
	c.Replace(ast.NewIdent(h))
	rw.site("client")
	return true
}

// mcpgoParamsType is gomcp's params type for an mcp-go request type that
// gomcp has no request type for (InitializeRequest -> InitializeParams,
// ListToolsRequest -> ListToolsParams, ...), or "".
func (rw *fileRewriter) mcpgoParamsType(name string) string {
	if !strings.HasSuffix(name, "Request") || rw.pm.gomcp == nil || rw.pm.gomcp.Scope().Lookup(name) != nil {
		return ""
	}
	p := strings.TrimSuffix(name, "Request") + "Params"
	if _, ok := rw.pm.gomcp.Scope().Lookup(p).(*types.TypeName); ok {
		return p
	}
	return ""
}

// mcpgoMCPName renames a name of mcp-go's package mcp that gomcp spells
// differently; ok false when there is nothing to do. Types gomcp uses
// through pointers become pointers where they are used as types.
func (rw *fileRewriter) mcpgoMCPName(c *astutil.Cursor, n *ast.SelectorExpr, o types.Object) bool {
	_, isType := o.(*types.TypeName)
	name := o.Name()
	switch {
	case isType && name == "JSONRPCNotification":
		c.Replace(&ast.StarExpr{X: rw.mcp("Request")})
	case isType && rw.mcpgoParamsType(name) != "":
		n.Sel = ast.NewIdent(rw.mcpgoParamsType(name))
		if rw.isTypePosition(n) {
			c.Replace(&ast.StarExpr{X: n})
		}
	case strings.HasPrefix(name, "MethodNotification") && rw.pm.gomcp != nil && rw.pm.gomcp.Scope().Lookup(strings.TrimPrefix(name, "Method")) != nil:
		n.Sel = ast.NewIdent(strings.TrimPrefix(name, "Method"))
	case name == "GetTextFromContent":
		rw.pm.helpers["mcpmigrateTextOf"] = true
		c.Replace(ast.NewIdent("mcpmigrateTextOf"))
	default:
		return false
	}
	rw.site("rename")
	return true
}

// mcpgoClientMethod checks a call of a method of mcp-go's client.Client,
// which mcpmigrateClient has with the same name.
func (rw *fileRewriter) mcpgoClientMethod(n *ast.CallExpr, name string) {
	if !mcpgoClientMethods[name] {
		rw.todo(n, "mcp-go's Client.%s has no automatic rewrite: call its counterpart on the gomcp session (the embedded *mcp.ClientSession), see docs/migrate-from-mcp-go.md", name)
		return
	}
	rw.site("client-method")
}

// mcpgoRequestLit rewrites literals of mcp-go's request types: a request
// gomcp has no type for becomes its params (&mcp.ListToolsParams{}); a
// CallToolRequest, ReadResourceRequest or GetPromptRequest built by hand
// gets its params (mcp-go's were a value, gomcp's a pointer, and code sets
// req.Params.Name after); the JSON-RPC envelope (Request) goes. ok false
// for other literals.
func (rw *fileRewriter) mcpgoRequestLit(c *astutil.Cursor, n *ast.CompositeLit, name string) bool {
	if p := rw.mcpgoParamsType(name); p != "" {
		var params ast.Expr = &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(p)}}
		for _, e := range n.Elts {
			if kve, ok := e.(*ast.KeyValueExpr); ok && keyName(kve) == "Params" {
				rw.anonymousParams(kve.Value, p)
				params = addrOf(kve.Value)
			}
		}
		c.Replace(params)
		rw.site("request-params")
		return true
	}
	switch name {
	case "CallToolRequest", "ReadResourceRequest", "GetPromptRequest", "ElicitationRequest", "CreateMessageRequest":
	default:
		return false
	}
	var elts []ast.Expr
	hasParams := false
	for _, e := range n.Elts {
		kve, ok := e.(*ast.KeyValueExpr)
		if ok && keyName(kve) == "Request" {
			rw.site("request-envelope")
			continue // the method and id: gomcp's request knows them
		}
		if ok && strings.HasSuffix(keyName(kve), "Params") {
			kve.Key = ast.NewIdent("Params") // mcp-go embedded them in sampling requests
			kve.Value = addrOf(kve.Value)
			hasParams = true
		}
		elts = append(elts, e)
	}
	if !hasParams {
		p := strings.TrimSuffix(name, "Request") + "Params"
		if name == "ElicitationRequest" {
			p = "ElicitParams"
		}
		elts = append(elts, kv("Params", &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(p)}}))
	}
	n.Elts = elts
	rw.site("request-literal")
	return false // made a pointer by mcpgoComposite
}

// anonymousParams gives a literal of mcp-go's anonymous params struct
// (InitializeRequest.Params is one) gomcp's params type, and its fields
// the pointers gomcp's hold.
func (rw *fileRewriter) anonymousParams(v ast.Expr, p string) {
	cl, ok := v.(*ast.CompositeLit)
	if !ok {
		return
	}
	if _, ok := cl.Type.(*ast.StructType); !ok {
		return
	}
	cl.Type = rw.mcp(p)
	gt := rw.gomcpType(p)
	for _, e := range cl.Elts {
		kve, ok := e.(*ast.KeyValueExpr)
		if !ok || gt == nil {
			continue
		}
		if f, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, keyName(kve)); f != nil && isPointer(f.Type()) {
			if inner, ok := kve.Value.(*ast.CompositeLit); ok {
				kve.Value = &ast.UnaryExpr{Op: token.AND, X: inner}
			}
		}
	}
	rw.site("request-params")
}

// addrOf is &e for a composite literal, e for an expression that is one
// already (rewritten to a pointer), &e for a variable.
func addrOf(e ast.Expr) ast.Expr {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		return e
	}
	if _, ok := e.(*ast.CallExpr); ok {
		return e
	}
	return &ast.UnaryExpr{Op: token.AND, X: e}
}

// mcpgoEmbedded splices the fields of a struct mcp-go embedded where gomcp
// has them directly (CreateMessageResult{SamplingMessage: {Role, Content}},
// ElicitationResult{ElicitationResponse: {Action, Content}}); ok false when
// the key is not such a field.
func (rw *fileRewriter) mcpgoEmbedded(kve *ast.KeyValueExpr, owner types.Type, gt types.Type) ([]ast.Expr, bool) {
	st, ok := owner.Underlying().(*types.Struct)
	if !ok || gt == nil {
		return nil, false
	}
	key := keyName(kve)
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Name() != key || !f.Embedded() {
			continue
		}
		if obj, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, key); obj != nil {
			return nil, false
		}
		v := kve.Value
		if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.AND {
			v = u.X
		}
		lit, ok := v.(*ast.CompositeLit)
		if !ok {
			rw.todo(kve, "mcp-go's %s embeds %s; gomcp's has its fields directly: set them one by one", namedOf(owner), key)
			return []ast.Expr{}, true
		}
		rw.site("embedded-fields")
		return lit.Elts, true
	}
	return nil, false
}

// mcpgoAssign converts the value assigned to a field of an mcp-go struct
// where gomcp's field has another type (a pointer, raw JSON, a content
// list), as literals' fields are converted. It runs before the statement's
// children are rewritten, on the original types.
func (rw *fileRewriter) mcpgoAssign(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, l := range as.Lhs {
		se, ok := l.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		sel := rw.info.Selections[se]
		if sel == nil || sel.Kind() != types.FieldVal {
			continue
		}
		p, owner, _ := peerNamed(sel.Recv())
		if p != mcpgoMCP {
			continue
		}
		gt := rw.gomcpType(mcpgoGomcpName(owner))
		if gt == nil {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, se.Sel.Name)
		if obj == nil {
			continue
		}
		if cl, ok := as.Rhs[i].(*ast.CompositeLit); ok && isPointer(obj.Type()) {
			as.Rhs[i] = &ast.UnaryExpr{Op: token.AND, X: cl}
			rw.site("pointer-literal")
			continue
		}
		if nv, ok := rw.mcpgoConvert(as.Rhs[i], rw.typeOf(as.Rhs[i]), obj.Type()); ok {
			as.Rhs[i] = nv
		}
	}
}

// mcpgoGomcpName is gomcp's name for an mcp-go type.
func mcpgoGomcpName(name string) string {
	if r, ok := mcpgoRenames[name]; ok {
		return r
	}
	return name
}

// mcpgoConvert converts a value of mcp-go type vt for a gomcp field of type
// ft: numbers and strings given where gomcp takes a pointer (sampling's
// Temperature), and the conversions of go-sdk values (convertValue).
func (rw *fileRewriter) mcpgoConvert(v ast.Expr, vt, ft types.Type) (ast.Expr, bool) {
	if u, ok := v.(*ast.UnaryExpr); ok && vt == nil && u.Op == token.AND {
		vt = rw.typeOf(u.X) // a literal the rules made a pointer
	}
	if fp, ok := ft.(*types.Pointer); ok && vt != nil {
		fb, ok1 := fp.Elem().(*types.Basic)
		vb, ok2 := vt.Underlying().(*types.Basic)
		if ok1 && ok2 && vb.Info()&types.IsBoolean == 0 && fb.Info()&(types.IsNumeric|types.IsString) != 0 {
			rw.site("pointer-value")
			return &ast.CallExpr{Fun: ast.NewIdent("new"), Args: []ast.Expr{&ast.CallExpr{Fun: ast.NewIdent(fb.Name()), Args: []ast.Expr{v}}}}, true
		}
	}
	return rw.convertValue(v, vt, ft)
}

// mcpgoMemberRule rewrites uses of fields of mcp-go's types that gomcp
// lays out differently: .Params of a request gomcp has only params for
// (initRequest.Params.ClientInfo -> initRequest.ClientInfo), fields mcp-go
// promoted from embedded params (req.Messages -> req.Params.Messages), a
// single content where gomcp has a list (the first block), and an any
// where gomcp has a concrete type, when asserted (any(res.Content).(T)).
func (rw *fileRewriter) mcpgoMemberRule(c *astutil.Cursor, n *ast.SelectorExpr, o types.Object) {
	sel := rw.info.Selections[n]
	if sel == nil || sel.Kind() != types.FieldVal {
		return
	}
	p, owner, _ := peerNamed(sel.Recv())
	if p != mcpgoMCP {
		return
	}
	if o.Name() == "Params" && rw.mcpgoParamsType(owner) != "" {
		c.Replace(n.X)
		rw.site("request-params")
		return
	}
	gt := rw.gomcpType(mcpgoGomcpName(owner))
	if len(sel.Index()) > 1 && gt != nil && hasField(rw, gt, "Params") && !hasField(rw, gt, o.Name()) {
		if st, ok := types.Unalias(derefType(sel.Recv())).Underlying().(*types.Struct); ok {
			if emb := st.Field(sel.Index()[0]); emb.Embedded() && strings.HasSuffix(emb.Name(), "Params") {
				n.X = &ast.SelectorExpr{X: n.X, Sel: ast.NewIdent("Params")}
				rw.site("request-params")
				pf, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, "Params")
				gt = derefType(pf.Type())
			}
		}
	}
	if gt == nil || rw.isAssignTarget(n) {
		return
	}
	if _, isKey := rw.parents[n].(*ast.KeyValueExpr); isKey {
		return
	}
	f, _, _ := types.LookupFieldOrMethod(gt, true, rw.pm.gomcp, o.Name())
	if f == nil {
		return
	}
	if fp, ok := f.Type().(*types.Pointer); ok && types.Identical(fp.Elem(), o.Type()) && !isPointer(o.Type()) {
		if _, isAddr := rw.parents[n].(*ast.UnaryExpr); !isAddr {
			rw.pm.helpers["mcpmigrateValue"] = true
			c.Replace(&ast.CallExpr{Fun: ast.NewIdent("mcpmigrateValue"), Args: []ast.Expr{n}})
			rw.site("pointer-value")
		}
		return
	}
	if _, ok := o.Type().Underlying().(*types.Interface); !ok {
		return
	}
	switch ft := f.Type().(type) {
	case *types.Slice:
		if _, en, _ := peerNamed(ft.Elem()); en == "Content" {
			rw.pm.helpers["mcpmigrateFirst"] = true
			var first ast.Expr = &ast.CallExpr{Fun: ast.NewIdent("mcpmigrateFirst"), Args: []ast.Expr{n}}
			if ta, ok := rw.parents[n].(*ast.TypeAssertExpr); ok && ta.Type == nil {
				first = &ast.CallExpr{Fun: ast.NewIdent("any"), Args: []ast.Expr{first}} // its cases may not be Content
			}
			c.Replace(first)
			rw.site("content-first")
			return
		}
	}
	if _, isIface := f.Type().Underlying().(*types.Interface); !isIface {
		if _, ok := rw.parents[n].(*ast.TypeAssertExpr); ok {
			c.Replace(&ast.CallExpr{Fun: ast.NewIdent("any"), Args: []ast.Expr{n}})
			rw.site("any-value")
		}
	}
}

func hasField(rw *fileRewriter, t types.Type, name string) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, rw.pm.gomcp, name)
	_, ok := obj.(*types.Var)
	return ok
}

// unusedRootsRequest reports whether as is `r := mcp.ListRootsRequest{}`
// whose only use is RequestRoots's argument, which gomcp's req.ListRoots
// does not take.
func (rw *fileRewriter) unusedRootsRequest(as *ast.AssignStmt) bool {
	if len(as.Lhs) != 1 || as.Tok != token.DEFINE {
		return false
	}
	id, _ := as.Lhs[0].(*ast.Ident)
	if id == nil || rw.info.Defs[id] == nil {
		return false
	}
	if _, name, _ := peerNamed(rw.info.Defs[id].Type()); name != "ListRootsRequest" {
		return false
	}
	if _, ok := as.Rhs[0].(*ast.CompositeLit); !ok {
		return false
	}
	uses := 0
	for use, o := range rw.info.Uses {
		if o != rw.info.Defs[id] {
			continue
		}
		uses++
		call, ok := rw.parents[use].(*ast.CallExpr)
		if !ok || len(call.Args) != 2 || call.Args[1] != ast.Expr(use) ||
			!isMethod(rw.objOf(call.Fun), mcpgoServer, "MCPServer", "RequestRoots") || rw.enclosingRequest(call) == "" {
			return false
		}
	}
	if uses != 1 {
		return false
	}
	rw.site("roots-request")
	return true
}

// progressTokenNil rewrites tok != nil (mcp-go's ProgressToken is an
// any) to !tok.IsZero() (gomcp's is a jsonrpc.ID).
func (rw *fileRewriter) progressTokenNil(c *astutil.Cursor, n *ast.BinaryExpr) {
	if (n.Op != token.EQL && n.Op != token.NEQ) || !isNil(n.Y) {
		return
	}
	if p, name, _ := peerNamed(rw.typeOf(n.X)); p != mcpgoMCP || name != "ProgressToken" {
		return
	}
	var e ast.Expr = &ast.CallExpr{Fun: &ast.SelectorExpr{X: n.X, Sel: ast.NewIdent("IsZero")}}
	if n.Op == token.NEQ {
		e = &ast.UnaryExpr{Op: token.NOT, X: e}
	}
	c.Replace(e)
	rw.site("progress-token")
}

// mcpgoOptionSlices are the []server.ServerOption literals whose
// statements serverOptionSlice dropped, by variable: NewMCPServer's rule
// reads their options.
var mcpgoOptionSlices = map[types.Object]*ast.CompositeLit{}

// serverOptionSlice reports whether as is `opts := []server.ServerOption{...}`
// (or []server.StreamableHTTPOption)
// used only as `server.NewMCPServer(name, version, opts...)`, whose rule
// turns the options into gomcp's ServerOptions.
func (rw *fileRewriter) serverOptionSlice(as *ast.AssignStmt) bool {
	if len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Tok != token.DEFINE {
		return false
	}
	id, _ := as.Lhs[0].(*ast.Ident)
	lit, _ := as.Rhs[0].(*ast.CompositeLit)
	if id == nil || lit == nil || rw.info.Defs[id] == nil {
		return false
	}
	v := rw.info.Defs[id]
	sl, ok := v.Type().(*types.Slice)
	if !ok {
		return false
	}
	ctor := ""
	switch o := namedObj(sl.Elem()); {
	case isObj(o, mcpgoServer, "ServerOption"):
		ctor = "NewMCPServer"
	case isObj(o, mcpgoServer, "StreamableHTTPOption"):
		ctor = "NewStreamableHTTPServer"
	default:
		return false
	}
	uses := 0
	for use, o := range rw.info.Uses {
		if o != v {
			continue
		}
		uses++
		call, ok := rw.parents[use].(*ast.CallExpr)
		if !ok || !call.Ellipsis.IsValid() || call.Args[len(call.Args)-1] != ast.Expr(use) || !isObj(rw.objOf(call.Fun), mcpgoServer, ctor) {
			return false
		}
	}
	if uses != 1 {
		return false
	}
	mcpgoOptionSlices[v] = lit
	rw.site("server-options")
	return true
}

// expandOptions is the option arguments of a constructor call from index
// from on, with a slice serverOptionSlice dropped spelled out.
func (rw *fileRewriter) expandOptions(n *ast.CallExpr, from int) []ast.Expr {
	if len(n.Args) <= from {
		return nil
	}
	last, ok := n.Args[len(n.Args)-1].(*ast.Ident)
	if !ok || !n.Ellipsis.IsValid() || mcpgoOptionSlices[rw.info.Uses[last]] == nil {
		return n.Args[from:]
	}
	return append(append([]ast.Expr{}, n.Args[from:len(n.Args)-1]...), mcpgoOptionSlices[rw.info.Uses[last]].Elts...)
}

func namedObj(t types.Type) types.Object {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// mcpgoServerAsk rewrites what an mcp-go server asks of its client from a
// tool handler: RequestSampling and RequestElicitation become the
// handler's request's CreateMessage and Elicit, SendNotificationToClient its
// Notify (or Log and NotifyProgress for the protocol's own), and
// AddNotificationHandler a receiving middleware. ok false for other
// methods.
func (rw *fileRewriter) mcpgoServerAsk(c *astutil.Cursor, n *ast.CallExpr, se *ast.SelectorExpr, name string) bool {
	switch name {
	case "RequestSampling", "RequestElicitation":
		if len(n.Args) != 2 {
			return false
		}
		req := rw.enclosingRequest(n)
		if req == "" {
			rw.todo(n, "%s outside a tool handler: gomcp asks the client through the request being served (req.CreateMessage, req.Elicit)", name)
			return true
		}
		method := map[string]string{"RequestSampling": "CreateMessage", "RequestElicitation": "Elicit"}[name]
		c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent(req), Sel: ast.NewIdent(method)},
			Args: []ast.Expr{n.Args[0], requestParams(n.Args[1])}})
		rw.passInputRequired(n)
		rw.site("server-request")
	case "RequestURLElicitation":
		req := rw.enclosingRequest(n)
		if req == "" || len(n.Args) != 5 {
			rw.todo(n, "RequestURLElicitation outside a tool handler: gomcp asks the client through the request being served (req.Elicit with Mode mcp.ElicitModeURL)")
			return true
		}
		p := &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp("ElicitParams"), Elts: []ast.Expr{
			kv("Mode", rw.mcp("ElicitModeURL")), kv("ElicitationID", n.Args[2]), kv("URL", n.Args[3]), kv("Message", n.Args[4])}}}
		c.Replace(&ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent(req), Sel: ast.NewIdent("Elicit")}, Args: []ast.Expr{n.Args[0], p}})
		rw.passInputRequired(n)
		rw.site("server-request")
	case "SendElicitationComplete":
		if len(n.Args) != 3 {
			return false
		}
		c.Replace(rw.helperCall("mcpmigrateElicitationComplete", n.Args...))
		rw.site("server-notify")
	case "SendNotificationToClient":
		req := rw.enclosingRequest(n)
		if req == "" || len(n.Args) != 3 {
			rw.todo(n, "SendNotificationToClient outside a tool handler: gomcp notifies through the request being served (req.Log, req.NotifyProgress, req.Notify) or ServerSession.Notify")
			return true
		}
		c.Replace(rw.helperCall("mcpmigrateNotify", n.Args[0], ast.NewIdent(req), n.Args[1], n.Args[2]))
		rw.site("server-notify")
	case "AddNotificationHandler":
		if len(n.Args) != 2 || !gomcpHas(gomcpHooks, "AddReceivingMiddleware") {
			return false
		}
		c.Replace(rw.helperCall("mcpmigrateOnNotification", se.X, n.Args[0], n.Args[1]))
		rw.site("notification-handler")
	default:
		return false
	}
	return true
}

// mcpgoSessionFromContext rewrites server.ClientSessionFromContext(ctx) in
// a tool handler to the request's session (nil at 2026-07-28, which has
// none); ok false elsewhere.
func (rw *fileRewriter) mcpgoSessionFromContext(c *astutil.Cursor, n *ast.CallExpr) {
	req := rw.enclosingRequest(n)
	if req == "" {
		rw.todo(n, "ClientSessionFromContext outside a tool handler: gomcp's handlers get the session from their request (req.Session())")
		return
	}
	c.Replace(rw.helperCall("mcpmigrateSession", ast.NewIdent(req)))
	rw.site("session")
}

// urlElicitationError rewrites mcp-go's mcp.URLElicitationRequiredError
// literal (an error a handler returns) to the JSON-RPC error gomcp sends
// for it: code -32042 with URLElicitationRequiredData.
func (rw *fileRewriter) urlElicitationError(c *astutil.Cursor, n *ast.CompositeLit, name string) bool {
	if name != "URLElicitationRequiredError" || !gomcpHas(gomcpMCP, "URLElicitationRequiredData") {
		return false
	}
	for _, e := range n.Elts {
		if kve, ok := e.(*ast.KeyValueExpr); ok {
			if cl, ok := kve.Value.(*ast.CompositeLit); ok {
				if at, ok := cl.Type.(*ast.ArrayType); ok {
					at.Elt = &ast.StarExpr{X: at.Elt} // gomcp's holds pointers
				}
			}
		}
	}
	n.Type = rw.mcp("URLElicitationRequiredData")
	c.Replace(rw.helperCall("mcpmigrateURLElicitationRequired", &ast.UnaryExpr{Op: token.AND, X: n}))
	rw.site("url-elicitation-error")
	return true
}

// passInputRequired makes the `if err != nil` after a question to the
// client return the error as is when it wraps mcp.ErrInputRequired: at
// 2026-07-28 the question reaches the client only that way (the client
// answers and retries the call), while mcp-go's handlers often turned the
// error into an error result.
func (rw *fileRewriter) passInputRequired(call *ast.CallExpr) {
	as, ok := rw.parents[call].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 || !gomcpHas(gomcpMCP, "ErrInputRequired") {
		return
	}
	errID, _ := as.Lhs[1].(*ast.Ident)
	block, _ := rw.parents[as].(*ast.BlockStmt)
	if errID == nil || block == nil {
		return
	}
	for i, s := range block.List {
		if s != ast.Stmt(as) || i+1 >= len(block.List) {
			continue
		}
		ifs, ok := block.List[i+1].(*ast.IfStmt)
		if !ok || ifs.Init != nil {
			return
		}
		if be, ok := ifs.Cond.(*ast.BinaryExpr); !ok || be.Op != token.NEQ || identName(be.X) != errID.Name || !isNil(be.Y) {
			return
		}
		if len(ifs.Body.List) == 1 {
			if r, ok := ifs.Body.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 2 && identName(r.Results[1]) == errID.Name {
				return // returned as it is already
			}
		}
		pass := &ast.IfStmt{
			Cond: &ast.CallExpr{Fun: rw.qual("errors", "Is"), Args: []ast.Expr{ast.NewIdent(errID.Name), rw.mcp("ErrInputRequired")}},
			Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Results: []ast.Expr{ast.NewIdent("nil"), ast.NewIdent(errID.Name)}}}},
		}
		ifs.Body.List = append([]ast.Stmt{pass}, ifs.Body.List...)
		rw.site("input-required")
		return
	}
}

// requestParams is the params of a request expression: the Params of a
// literal the rules made, or r.Params.
func requestParams(e ast.Expr) ast.Expr {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		if cl, ok := u.X.(*ast.CompositeLit); ok {
			for _, el := range cl.Elts {
				if kve, ok := el.(*ast.KeyValueExpr); ok && keyName(kve) == "Params" && len(cl.Elts) == 1 {
					return kve.Value
				}
			}
		}
	}
	return &ast.SelectorExpr{X: e, Sel: ast.NewIdent("Params")}
}

// mcpgoServerFromContext drops `s := server.ServerFromContext(ctx)` when
// every use of s was a request to the client that the rules moved to the
// handler's request (mcpgoServerAsk).
func (rw *fileRewriter) mcpgoServerFromContext(c *astutil.Cursor, n *ast.AssignStmt) {
	if len(n.Lhs) != 1 || len(n.Rhs) != 1 || n.Tok != token.DEFINE {
		return
	}
	call, ok := n.Rhs[0].(*ast.CallExpr)
	id, _ := n.Lhs[0].(*ast.Ident)
	if !ok || id == nil || !isObj(rw.objOf(call.Fun), mcpgoServer, "ServerFromContext") {
		return
	}
	v := rw.info.Defs[id]
	if v == nil {
		return
	}
	for use, o := range rw.info.Uses {
		if o != v {
			continue
		}
		se, ok := rw.parents[use].(*ast.SelectorExpr)
		if !ok || se.X != ast.Expr(use) {
			return
		}
		switch se.Sel.Name {
		case "RequestSampling", "RequestElicitation", "SendNotificationToClient":
			if rw.enclosingRequest(se) == "" {
				return
			}
		default:
			return
		}
	}
	c.Delete()
	rw.site("server-from-context")
}

// isMCPGoType reports whether t is a (pointer to a) type of mcp-go.
func (rw *fileRewriter) isMCPGoType(t types.Type) bool {
	p, _, _ := peerNamed(t)
	return strings.HasPrefix(p, mcpgoRoot)
}

// mcpgoRequestVar gives `var r mcp.InitializeRequest` (a usable zero value
// in mcp-go, a nil pointer once its type is gomcp's params pointer) a
// value: the empty params, or a request with empty params.
func (rw *fileRewriter) mcpgoRequestVar(n *ast.ValueSpec) {
	if len(n.Values) > 0 || n.Type == nil {
		return
	}
	p, name, ptr := peerNamed(rw.typeOf(n.Names[0]))
	if p != mcpgoMCP || ptr {
		return
	}
	var lit func() ast.Expr
	if pt := rw.mcpgoParamsType(name); pt != "" {
		lit = func() ast.Expr { return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(pt)}} }
	} else if name == "CallToolRequest" || name == "ReadResourceRequest" || name == "GetPromptRequest" {
		lit = func() ast.Expr {
			return &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(name), Elts: []ast.Expr{
				kv("Params", &ast.UnaryExpr{Op: token.AND, X: &ast.CompositeLit{Type: rw.mcp(strings.TrimSuffix(name, "Request") + "Params")}})}}}
		}
	} else {
		return
	}
	for range n.Names {
		n.Values = append(n.Values, lit())
	}
	n.Type = nil
	rw.site("request-var")
}
