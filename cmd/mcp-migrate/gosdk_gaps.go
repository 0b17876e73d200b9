package main

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The go-sdk rules for what gomcp spells outside package mcp: the session
// ID of a client session, elicitation and sampling on a session outside
// any request (mcp/serversession), custom methods (mcp.AddMethod and
// mcp.Call), a sending middleware's progress token, and the HTTP headers of
// a request (req.Extra.Header).

const gomcpServerSession = "github.com/gomcp/sdk/mcp/serversession"

func init() {
	gomcpExtraPkgs = append(gomcpExtraPkgs, gomcpServerSession)
	for _, n := range []string{"ParamsBase", "ResultBase", "AddReceivingCustomMethod", "AddSendingCustomMethod", "CallCustomMethod", "RequestParams"} {
		handledGoSDK[n] = true
	}
	for k, v := range gapHelpers {
		helperDefs[k] = v
	}
	helperDeps["mcpmigrateRequestParams"] = []string{"mcpmigrateProgressParams"}
}

// gosdkGaps applies the rules of this file to the node under c (after its
// children); it reports whether the node is handled, so that the general
// rules leave it alone.
func (rw *fileRewriter) gosdkGaps(c *astutil.Cursor) bool {
	switch n := c.Node().(type) {
	case *ast.SelectorExpr:
		return rw.gapMember(c, n)
	case *ast.CallExpr:
		return rw.gapCall(c, n)
	case *ast.TypeAssertExpr:
		return rw.requestParamsAssert(c, n)
	case *ast.StructType:
		rw.dropBaseFields(n)
	case *ast.IfStmt:
		return rw.dropSendingMethod(c, n)
	case *ast.ExprStmt:
		if sendingStmts[n] && rw.canDelete(c) {
			delete(sendingStmts, n)
			c.Delete()
			return true
		}
	}
	return false
}

// gapMember claims the selectors the call rules below rewrite, and
// rewrites req.Extra.Header.
func (rw *fileRewriter) gapMember(c *astutil.Cursor, n *ast.SelectorExpr) bool {
	o := rw.info.ObjectOf(n.Sel)
	if o == nil || o.Pkg() == nil || o.Pkg().Path() != gosdkMCP {
		return false
	}
	switch {
	case rw.isReqSession(n.X):
		return false // req.Session.X(...): sessionCall rewrites it
	case gomcpHas(gomcpHooks, "Params") && (o.Name() == "GetParams" || o.Name() == "GetSession") && rw.isRequestIface(n.X):
		return true // middlewarePost rewrites the call
	case gomcpHas(gomcpHooks, "Params") && o.Name() == "ID" && isGetSessionExpr(rw, n.X):
		return true // req.GetSession().ID(): middlewarePost rewrites it
	case isMethod(o, gosdkMCP, "ClientSession", "ID"),
		isMethod(o, gosdkMCP, "ServerSession", "Elicit") && gomcpHas(gomcpServerSession, "Elicit"),
		isMethod(o, gosdkMCP, "ServerSession", "CreateMessage") && gomcpHas(gomcpServerSession, "CreateMessage"):
		return true // the call is rewritten
	case o.Name() == "Extra":
		sel, ok := rw.info.Selections[n]
		if !ok || !isServerRequest(sel.Recv()) {
			return false
		}
		up, ok := rw.parents[n].(*ast.SelectorExpr)
		return ok && up.Sel.Name == "Header" // rewritten at .Header
	case o.Name() == "Header":
		inner, ok := n.X.(*ast.SelectorExpr)
		if !ok || inner.Sel.Name != "Extra" {
			return false
		}
		if sel, ok := rw.info.Selections[inner]; !ok || !isServerRequest(sel.Recv()) {
			return false
		}
		ctx := rw.contextParam(n)
		if ctx == "" {
			rw.todo(n, "go-sdk's req.Extra.Header: gomcp gives the HTTP request's headers through the handler's context, mcphttp.RequestInfoFromContext(ctx).Header (nil over stdio); name the handler's context parameter")
			return true
		}
		c.Replace(rw.helperCall("mcpmigrateHeader", ast.NewIdent(ctx)))
		rw.site("request-extra")
		return true
	}
	return false
}

func isGetSessionExpr(rw *fileRewriter, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	return ok && isGetSession(rw, call)
}

// isReqSession reports whether e is req.Session of a go-sdk request.
func (rw *fileRewriter) isReqSession(e ast.Expr) bool {
	se, ok := e.(*ast.SelectorExpr)
	if !ok || se.Sel.Name != "Session" {
		return false
	}
	sel, ok := rw.info.Selections[se]
	return ok && isServerRequest(sel.Recv())
}

func isServerRequest(t types.Type) bool {
	name := namedOf(t)
	return len(name) >= len("ServerRequest") && name[:len("ServerRequest")] == "ServerRequest" || name == "CallToolRequest"
}

// gapCall rewrites the calls of go-sdk API that gomcp has beside package mcp.
func (rw *fileRewriter) gapCall(c *astutil.Cursor, n *ast.CallExpr) bool {
	o := rw.objOf(calleeOf(n))
	if o == nil {
		return false
	}
	se, _ := n.Fun.(*ast.SelectorExpr)
	if se != nil && rw.isReqSession(se.X) {
		return false // req.Session.X(...): sessionCall rewrites it
	}
	switch {
	case se != nil && isMethod(o, gosdkMCP, "ClientSession", "ID") && len(n.Args) == 0:
		c.Replace(rw.helperCall("mcpmigrateClientSessionID", se.X))
		rw.site("client-session-id")
	case se != nil && (isMethod(o, gosdkMCP, "ServerSession", "Elicit") || isMethod(o, gosdkMCP, "ServerSession", "CreateMessage")) &&
		len(n.Args) == 2 && gomcpHas(gomcpServerSession, o.Name()):
		rw.todo(n, "serversession.%s needs a session of protocol revision 2025-11-25 or earlier: a 2026-07-28 client (gomcp's default) has none, so it fails with mcp.ErrCapability; ask from a handler (req.%s) instead, or have the client set ClientOptions.ProtocolVersion", o.Name(), o.Name())
		c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpServerSession, o.Name()), Args: []ast.Expr{n.Args[0], se.X, n.Args[1]}})
		rw.site("session-request")
	case isObj(o, gosdkMCP, "AddReceivingCustomMethod") && len(n.Args) == 3:
		if p, name, _ := peerNamed(rw.typeOf(n.Args[0])); p != gosdkMCP || name != "Server" {
			rw.todo(n, "a client's custom method: gomcp's client answers one with Client.AddMethod(name, handler), whose handler decodes r.Params itself")
			return true
		}
		c.Replace(&ast.CallExpr{Fun: rw.mcp("AddMethod"), Args: []ast.Expr{n.Args[0], n.Args[1], rw.helperCall("mcpmigrateCustomMethod", n.Args[2])}})
		rw.site("custom-method")
	case isObj(o, gosdkMCP, "AddSendingCustomMethod"):
		// Statements are dropped whole (see gosdkGaps); elsewhere it is nil.
		if as, ok := rw.parents[n].(*ast.AssignStmt); ok {
			if is, ok := rw.parents[as].(*ast.IfStmt); ok && is.Init == as {
				sendingIfs[is] = true
			}
		}
		if es, ok := rw.parents[n].(*ast.ExprStmt); ok {
			sendingStmts[es] = true
		}
		c.Replace(&ast.CallExpr{Fun: ast.NewIdent("error"), Args: []ast.Expr{ast.NewIdent("nil")}})
		rw.site("custom-method")
	case isObj(o, gosdkMCP, "CallCustomMethod"):
		il, ok := n.Fun.(*ast.IndexListExpr)
		if !ok || len(il.Indices) != 2 || len(n.Args) != 4 {
			rw.todo(n, "go-sdk's CallCustomMethod: gomcp's is mcp.Call[Result](ctx, session, method, params)")
			return true
		}
		n.Fun = &ast.IndexListExpr{X: rw.mcp("Call"), Indices: []ast.Expr{il.Indices[1], il.Indices[0]}}
		rw.site("custom-method")
	default:
		return false
	}
	return true
}

// calleeOf is the function a call names, without its type arguments.
func calleeOf(call *ast.CallExpr) ast.Expr {
	switch f := call.Fun.(type) {
	case *ast.IndexExpr:
		return f.X
	case *ast.IndexListExpr:
		return f.X
	}
	return call.Fun
}

// dropBaseFields removes go-sdk's embedded mcp.ParamsBase and
// mcp.ResultBase from a custom method's params and result types: gomcp
// keeps _meta on the request (req.Meta()) and needs nothing embedded.
func (rw *fileRewriter) dropBaseFields(st *ast.StructType) {
	var keep []*ast.Field
	for _, f := range st.Fields.List {
		if p, name, _ := peerNamed(rw.typeOf(f.Type)); len(f.Names) == 0 && p == gosdkMCP && (name == "ParamsBase" || name == "ResultBase") {
			rw.site("custom-method")
			continue
		}
		keep = append(keep, f)
	}
	st.Fields.List = keep
}

// dropSendingMethod removes `if err := mcp.AddSendingCustomMethod[...](...); err != nil {...}`:
// gomcp's mcp.Call needs no registration.
func (rw *fileRewriter) dropSendingMethod(c *astutil.Cursor, n *ast.IfStmt) bool {
	if !sendingIfs[n] || n.Else != nil || !rw.canDelete(c) {
		return false
	}
	delete(sendingIfs, n)
	c.Delete()
	return true
}

// sendingIfs are the if statements whose init registers a go-sdk sending
// custom method (gapCall finds them, dropSendingMethod deletes them).
var sendingIfs = map[*ast.IfStmt]bool{}

// sendingStmts are the statements that only register one (the error
// dropped).
var sendingStmts = map[*ast.ExprStmt]bool{}

// canDelete reports whether the statement under c sits in a list.
func (rw *fileRewriter) canDelete(c *astutil.Cursor) bool {
	switch c.Parent().(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return c.Index() >= 0
	}
	return false
}

// requestParamsAssert rewrites rp, ok := req.GetParams().(mcp.RequestParams)
// in a go-sdk middleware into a stand-in whose SetProgressToken writes
// params._meta.progressToken of the raw request.
func (rw *fileRewriter) requestParamsAssert(c *astutil.Cursor, n *ast.TypeAssertExpr) bool {
	if !isObj(rw.objOf(n.Type), gosdkMCP, "RequestParams") {
		return false
	}
	var req ast.Expr
	if call, ok := n.X.(*ast.CallExpr); ok && len(call.Args) == 1 && identName(call.Fun) == "mcpmigrateParams" {
		req = call.Args[0]
	} else if call, ok := n.X.(*ast.CallExpr); ok && len(call.Args) == 0 {
		if se, ok := call.Fun.(*ast.SelectorExpr); ok && se.Sel.Name == "GetParams" {
			req = se.X
		}
	}
	as, ok := rw.parents[n].(*ast.AssignStmt)
	if req == nil || !ok || len(as.Lhs) != 2 {
		rw.todo(n, "go-sdk's mcp.RequestParams: gomcp's middleware sees raw params (req.Params); set _meta.progressToken there, or write rp, ok := req.GetParams().(mcp.RequestParams) for the rule to apply")
		return true
	}
	c.Replace(rw.helperCall("mcpmigrateRequestParams", req))
	rw.site("request-params")
	return true
}

// contextParam is the name of the context.Context parameter of the
// function around n, or "".
func (rw *fileRewriter) contextParam(n ast.Node) string {
	for cur := rw.parents[n]; cur != nil; cur = rw.parents[cur] {
		var ft *ast.FuncType
		switch f := cur.(type) {
		case *ast.FuncLit:
			ft = f.Type
		case *ast.FuncDecl:
			ft = f.Type
		default:
			continue
		}
		for _, fld := range ft.Params.List {
			if t := rw.typeOf(fld.Type); t != nil && t.String() == "context.Context" {
				for _, nm := range fld.Names {
					if nm.Name != "_" {
						return nm.Name
					}
				}
			}
		}
		return ""
	}
	return ""
}

// oauthHandler turns go-sdk's StreamableClientTransport.OAuthHandler into
// mcphttp.ClientOptions.Authorizer: go-sdk's auth package keeps running the
// OAuth flow, through an adapter, until the code moves to gomcp's package
// oauth (the TODO says how).
func (rw *fileRewriter) oauthHandler(kv *ast.KeyValueExpr) ast.Expr {
	rw.todo(kv, "go-sdk's OAuthHandler now runs through an adapter (mcpmigrateOAuth, keeping go-sdk's auth package); gomcp's own OAuth client is package oauth: Authorizer: oauth.New(serverURL, &oauth.Config{...}) (see docs/migrate-from-go-sdk.md, Authorization)")
	rw.site("oauth-handler")
	return &ast.KeyValueExpr{Key: ast.NewIdent("Authorizer"), Value: rw.helperCall("mcpmigrateOAuth", kv.Value)}
}

// gapHelpers are the generated helpers of these rules.
var gapHelpers = map[string]helperDef{
	"mcpmigrateOAuth": {[]string{"context", "net/http", "golang.org/x/oauth2", "github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateOAuth adapts a go-sdk auth.OAuthHandler to gomcp's
// mcphttp.Authorizer: the handler's token source authorizes each request,
// and its Authorize runs the OAuth flow on a 401 or 403, after which the
// request is sent again. gomcp's own client side of OAuth is package
// oauth (oauth.New), an mcphttp.Authorizer too.
func mcpmigrateOAuth(h interface {
	TokenSource(context.Context) (oauth2.TokenSource, error)
	Authorize(context.Context, *http.Request, *http.Response) error
}) mcphttp.Authorizer {
	return mcpmigrateAuthorizer{h}
}

type mcpmigrateAuthorizer struct {
	h interface {
		TokenSource(context.Context) (oauth2.TokenSource, error)
		Authorize(context.Context, *http.Request, *http.Response) error
	}
}

// Authorize adds the handler's current token, if it has one.
func (a mcpmigrateAuthorizer) Authorize(req *http.Request) error {
	ts, err := a.h.TokenSource(req.Context())
	if err != nil || ts == nil {
		return err
	}
	tok, err := ts.Token()
	if err != nil {
		return err
	}
	tok.SetAuthHeader(req)
	return nil
}

// Challenged runs the handler's OAuth flow and retries once it succeeded.
func (a mcpmigrateAuthorizer) Challenged(ctx context.Context, req *http.Request, resp *http.Response) (bool, error) {
	if err := a.h.Authorize(ctx, req, resp); err != nil {
		return false, err
	}
	return true, nil
}`},
	"mcpmigrateClientSessionID": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateClientSessionID is go-sdk's ClientSession.ID(): the session ID
// the server gave over Streamable HTTP (Mcp-Session-Id), "" over a
// transport without one (stdio, a 2026-07-28 session).
func mcpmigrateClientSessionID(cs *mcp.ClientSession) string {
	if s, ok := cs.Stream().(interface{ SessionID() string }); ok {
		return s.SessionID()
	}
	return ""
}`},
	"mcpmigrateHeader": {[]string{"context", "net/http", "github.com/gomcp/sdk/transport/mcphttp"}, `// mcpmigrateHeader is go-sdk's req.Extra.Header: the headers of the HTTP
// request that carried the message, nil over stdio.
func mcpmigrateHeader(ctx context.Context) http.Header {
	if info := mcphttp.RequestInfoFromContext(ctx); info != nil {
		return info.Header
	}
	return nil
}`},
	"mcpmigrateCustomMethod": {[]string{"context", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateCustomMethod adapts a go-sdk custom method handler
// (ctx, session, params) to gomcp's mcp.AddMethod, whose handler gets the
// request (req.Params; its session is nil for a 2026-07-28 request).
func mcpmigrateCustomMethod[P, R any](h func(context.Context, *mcp.ServerSession, P) (R, error)) mcp.MethodHandlerFor[P, R] {
	return func(ctx context.Context, req *mcp.ServerRequest[P]) (R, error) {
		ss, _ := req.Session()
		return h(ctx, ss, req.Params)
	}
}`},
	"mcpmigrateRequestParams": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateRequestParams is go-sdk's req.GetParams().(mcp.RequestParams)
// in a middleware: the params of a request (not a notification), whose
// progress token can be read and set.
func mcpmigrateRequestParams(r *mcp.Request) (*mcpmigrateProgressParams, bool) {
	if r.IsNotification() {
		return nil, false
	}
	return &mcpmigrateProgressParams{r}, true
}`},
	"mcpmigrateProgressParams": {[]string{"encoding/json", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateProgressParams reads and writes params._meta.progressToken of
// a raw request (go-sdk's RequestParams).
type mcpmigrateProgressParams struct{ r *mcp.Request }

// GetProgressToken is the request's progress token, nil if none.
func (p *mcpmigrateProgressParams) GetProgressToken() any {
	var v struct {
		Meta struct {
			Token any ` + "`json:\"progressToken\"`" + `
		} ` + "`json:\"_meta\"`" + `
	}
	_ = json.Unmarshal(p.r.Params, &v)
	return v.Meta.Token
}

// SetProgressToken sets the request's progress token (a string or an
// integer), replacing its params; params that are not a JSON object are
// left as they are.
func (p *mcpmigrateProgressParams) SetProgressToken(t any) {
	params := map[string]json.RawMessage{}
	if len(p.r.Params) > 0 && string(p.r.Params) != "null" && json.Unmarshal(p.r.Params, &params) != nil {
		return
	}
	meta := map[string]json.RawMessage{}
	if m, ok := params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return
	}
	tok, err := json.Marshal(t)
	if err != nil {
		return
	}
	meta["progressToken"] = tok
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return
	}
	if raw, err := json.Marshal(params); err == nil {
		p.r.Params = raw
	}
}`},
}
