package main

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
)

// The mcp-go rules for how large servers are assembled: ServerTool tables
// registered with AddTools, typed handlers stored in them, tool middleware
// added with Use, and the Streamable HTTP options of per-request servers.

func init() {
	for k, v := range serverHelperDefs {
		helperDefs[k] = v
	}
	helperDeps["mcpmigrateWithHooks"] = []string{"mcpmigrateHooks"}
	helperDeps["mcpmigrateAddTools"] = []string{"mcpmigrateServerTool"}
	helperDeps["mcpmigrateTyped"] = []string{"mcpmigrateBind", "mcpmigrateArguments", "mcpmigrateErrorResult"}
	helperDeps["mcpmigrateStructuredHandler"] = []string{"mcpmigrateBind", "mcpmigrateArguments", "mcpmigrateStructured", "mcpmigrateErrorResult"}
}

// mcpgoServerType rewrites server.ServerTool to the generated
// mcpmigrateServerTool; ok false for other names.
func (rw *fileRewriter) mcpgoServerType(c *astutil.Cursor, o types.Object) bool {
	helper := map[string]string{"ServerTool": "mcpmigrateServerTool", "Hooks": "mcpmigrateHooks", "StdioServer": "mcpmigrateStdioServer"}[o.Name()]
	if helper == "" {
		return false
	}
	rw.pm.helpers[helper] = true
	c.Replace(ast.NewIdent(helper))
	rw.site("server-type")
	return true
}

// withHooks wraps the new server in mcpmigrateWithHooks for each
// server.WithHooks option of mcp-go's NewMCPServer call.
func (rw *fileRewriter) withHooks(srv ast.Expr, opts []ast.Expr) ast.Expr {
	for _, a := range opts {
		if call, ok := a.(*ast.CallExpr); ok && len(call.Args) == 1 && gomcpHas(gomcpHooks, "AddReceivingMiddleware") && isObj(rw.objOf(call.Fun), mcpgoServer, "WithHooks") {
			srv = rw.helperCall("mcpmigrateWithHooks", srv, call.Args[0])
			rw.site("hooks")
		}
	}
	return srv
}

// mcpgoServerMethod rewrites s.AddTools and s.Use; ok false for other
// methods.
func (rw *fileRewriter) mcpgoServerMethod(c *astutil.Cursor, n *ast.CallExpr, se *ast.SelectorExpr, name string) bool {
	switch {
	case name == "AddTools":
		call := rw.helperCall("mcpmigrateAddTools", append([]ast.Expr{se.X}, n.Args...)...)
		call.Ellipsis = n.Ellipsis
		c.Replace(call)
		rw.site("add-tools")
	case name == "Use" && gomcpHas(gomcpHooks, "AddToolMiddleware"):
		c.Replace(&ast.CallExpr{Fun: rw.qual(gomcpHooks, "AddToolMiddleware"),
			Args: append([]ast.Expr{se.X}, n.Args...), Ellipsis: n.Ellipsis})
		rw.site("tool-middleware")
	default:
		return false
	}
	return true
}

// typedHandler rewrites mcp.NewTypedToolHandler(f) and
// NewStructuredToolHandler(f) used as a value (a ServerTool's Handler)
// into a generated adapter; passed to AddTool they become gomcp's typed
// mcp.AddTool instead (mcpgoAddTool).
func (rw *fileRewriter) typedHandler(c *astutil.Cursor, n *ast.CallExpr, name string) {
	if outer, ok := rw.parents[n].(*ast.CallExpr); ok && len(n.Args) == 1 {
		if o := rw.objOf(outer.Fun); o != nil && isMethod(o, mcpgoServer, "MCPServer", "AddTool") {
			return
		}
	}
	helper := "mcpmigrateTyped"
	if name == "NewStructuredToolHandler" {
		helper = "mcpmigrateStructuredHandler"
	}
	c.Replace(rw.helperCall(helper, n.Args...))
	rw.site("typed-handler")
}

// httpServerOptions maps mcp-go's StreamableHTTPOptions: WithStateLess is
// dropped (a gomcp Handler answers 2026-07-28 requests with no session, and
// a per-request server keeps no state), WithHTTPContextFunc wraps the
// handler so every request's context passes through the function.
//
// The wrapped handler is an http.Handler, no longer a *mcphttp.Handler, so
// the wrapping is done only where the value is used as one (asHandler);
// elsewhere the option gets a TODO.
func (rw *fileRewriter) httpServerOptions(h ast.Expr, opts []ast.Expr, asHandler bool) ast.Expr {
	for _, a := range opts {
		call, _ := a.(*ast.CallExpr)
		var o types.Object
		if call != nil {
			o = rw.objOf(call.Fun)
		}
		switch {
		case isObj(o, mcpgoServer, "WithStateLess"):
			rw.site("stateless")
		case isObj(o, mcpgoServer, "WithHTTPContextFunc") && len(call.Args) == 1 && !asHandler:
			rw.todo(a, "mcp-go's WithHTTPContextFunc was dropped: wrap the handler in an http.Handler that calls it, h.ServeHTTP(w, r.WithContext(f(r.Context(), r)))")
		case isObj(o, mcpgoServer, "WithHTTPContextFunc") && len(call.Args) == 1:
			h = rw.helperCall("mcpmigrateContextFunc", h, call.Args[0])
			rw.site("http-context-func")
		default:
			rw.todo(a, "this mcp-go HTTP server option was dropped: set its counterpart in mcphttp.HandlerOptions (see docs/migrate-from-mcp-go.md)")
		}
	}
	return h
}

// serverHelperDefs are the helpers of the rules above.
var serverHelperDefs = map[string]helperDef{
	"mcpmigrateHooks": {[]string{"context", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateHooks is mcp-go's server.Hooks, for the hooks that apply to
// every request: installed on a server by mcpmigrateWithHooks. method is
// the request's method; message its raw params.
type mcpmigrateHooks struct {
	beforeAny []func(ctx context.Context, id any, method string, message any)
	onSuccess []func(ctx context.Context, id any, method string, message any, result any)
	onError   []func(ctx context.Context, id any, method string, message any, err error)

	onRequestInit    []func(ctx context.Context, id any, message any) error
	beforeInitialize []func(ctx context.Context, id any, message *mcp.InitializeParams)
	afterInitialize  []func(ctx context.Context, id any, message *mcp.InitializeParams, result *mcp.InitializeResult)
	beforeCallTool   []func(ctx context.Context, id any, message *mcp.CallToolRequest)
	afterCallTool    []func(ctx context.Context, id any, message *mcp.CallToolRequest, result any)
}

// AddOnRequestInitialization is mcp-go's Hooks.AddOnRequestInitialization:
// an error refuses the request.
func (h *mcpmigrateHooks) AddOnRequestInitialization(f func(ctx context.Context, id any, message any) error) {
	h.onRequestInit = append(h.onRequestInit, f)
}

// AddBeforeInitialize is mcp-go's Hooks.AddBeforeInitialize.
func (h *mcpmigrateHooks) AddBeforeInitialize(f func(ctx context.Context, id any, message *mcp.InitializeParams)) {
	h.beforeInitialize = append(h.beforeInitialize, f)
}

// AddAfterInitialize is mcp-go's Hooks.AddAfterInitialize.
func (h *mcpmigrateHooks) AddAfterInitialize(f func(ctx context.Context, id any, message *mcp.InitializeParams, result *mcp.InitializeResult)) {
	h.afterInitialize = append(h.afterInitialize, f)
}

// AddBeforeCallTool is mcp-go's Hooks.AddBeforeCallTool.
func (h *mcpmigrateHooks) AddBeforeCallTool(f func(ctx context.Context, id any, message *mcp.CallToolRequest)) {
	h.beforeCallTool = append(h.beforeCallTool, f)
}

// AddAfterCallTool is mcp-go's Hooks.AddAfterCallTool.
func (h *mcpmigrateHooks) AddAfterCallTool(f func(ctx context.Context, id any, message *mcp.CallToolRequest, result any)) {
	h.afterCallTool = append(h.afterCallTool, f)
}

// AddBeforeAny is mcp-go's Hooks.AddBeforeAny.
func (h *mcpmigrateHooks) AddBeforeAny(f func(ctx context.Context, id any, method string, message any)) {
	h.beforeAny = append(h.beforeAny, f)
}

// AddOnSuccess is mcp-go's Hooks.AddOnSuccess.
func (h *mcpmigrateHooks) AddOnSuccess(f func(ctx context.Context, id any, method string, message any, result any)) {
	h.onSuccess = append(h.onSuccess, f)
}

// AddOnError is mcp-go's Hooks.AddOnError.
func (h *mcpmigrateHooks) AddOnError(f func(ctx context.Context, id any, method string, message any, err error)) {
	h.onError = append(h.onError, f)
}`},
	"mcpmigrateWithHooks": {[]string{"context", "github.com/gomcp/sdk/mcp", "github.com/gomcp/sdk/mcp/hooks"}, `// mcpmigrateWithHooks is mcp-go's server.WithHooks: h's hooks run around
// every request s receives, as a receiving middleware.
func mcpmigrateWithHooks(s *mcp.Server, h *mcpmigrateHooks) *mcp.Server {
	hooks.AddReceivingMiddleware(s, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			for _, f := range h.beforeAny {
				f(ctx, r.ID, r.Method, r.Params)
			}
			if !r.IsNotification() {
				for _, f := range h.onRequestInit {
					if err := f(ctx, r.ID, r.Params); err != nil {
						return nil, err
					}
				}
			}
			p, _ := hooks.Params(r)
			ip, _ := p.(*mcp.InitializeParams)
			var call *mcp.CallToolRequest
			if cp, ok := p.(*mcp.CallToolParams); ok {
				call = &mcp.CallToolRequest{Params: cp}
			}
			for _, f := range h.beforeInitialize {
				if ip != nil {
					f(ctx, r.ID, ip)
				}
			}
			for _, f := range h.beforeCallTool {
				if call != nil {
					f(ctx, r.ID, call)
				}
			}
			res, err := next(ctx, r)
			for _, f := range h.afterInitialize {
				if ir, ok := res.(*mcp.InitializeResult); ok && ip != nil && err == nil {
					f(ctx, r.ID, ip, ir)
				}
			}
			for _, f := range h.afterCallTool {
				if call != nil && err == nil {
					f(ctx, r.ID, call, res)
				}
			}
			for _, f := range h.onError {
				if err != nil {
					f(ctx, r.ID, r.Method, r.Params, err)
				}
			}
			for _, f := range h.onSuccess {
				if err == nil {
					f(ctx, r.ID, r.Method, r.Params, res)
				}
			}
			return res, err
		}
	})
	return s
}`},
	"mcpmigrateServerTool": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateServerTool is mcp-go's server.ServerTool: a tool and its
// handler, registered together with mcpmigrateAddTools.
type mcpmigrateServerTool struct {
	Tool    *mcp.Tool
	Handler mcp.ToolHandler
}`},
	"mcpmigrateAddTools": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateAddTools is mcp-go's s.AddTools. mcp-go accepted every tool;
// gomcp refuses an invalid one, and this panics naming it.
func mcpmigrateAddTools(s *mcp.Server, tools ...mcpmigrateServerTool) {
	for _, t := range tools {
		if err := s.AddTool(t.Tool, t.Handler); err != nil {
			panic(err)
		}
	}
}`},
	"mcpmigrateTyped": {[]string{"context", "fmt", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateTyped is mcp-go's mcp.NewTypedToolHandler: the arguments
// bound to T, then f.
func mcpmigrateTyped[T any](f func(context.Context, *mcp.CallToolRequest, T) (*mcp.CallToolResult, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args T
		if err := mcpmigrateBind(req, &args); err != nil {
			return mcpmigrateErrorResult(fmt.Sprintf("failed to bind arguments: %v", err)), nil
		}
		return f(ctx, req, args)
	}
}`},
	"mcpmigrateStructuredHandler": {[]string{"context", "fmt", "github.com/gomcp/sdk/mcp"}, `// mcpmigrateStructuredHandler is mcp-go's mcp.NewStructuredToolHandler:
// the arguments bound to T, f's result as structured content.
func mcpmigrateStructuredHandler[T, R any](f func(context.Context, *mcp.CallToolRequest, T) (R, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args T
		if err := mcpmigrateBind(req, &args); err != nil {
			return mcpmigrateErrorResult(fmt.Sprintf("failed to bind arguments: %v", err)), nil
		}
		r, err := f(ctx, req, args)
		if err != nil {
			return mcpmigrateErrorResult(fmt.Sprintf("tool execution failed: %v", err)), nil
		}
		return mcpmigrateStructured(r, ""), nil
	}
}`},
	"mcpmigrateErrorResult": {[]string{"github.com/gomcp/sdk/mcp"}, `// mcpmigrateErrorResult is a tool error result of one text block.
func mcpmigrateErrorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}`},
	"mcpmigrateContextFunc": {[]string{"context", "net/http"}, `// mcpmigrateContextFunc is mcp-go's server.WithHTTPContextFunc: every
// request reaches h with the context f returns.
func mcpmigrateContextFunc(h http.Handler, f func(context.Context, *http.Request) context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(f(r.Context(), r)))
	})
}`},
}

// usedAsHandler reports whether the value of call is only used as an
// http.Handler: its ServeHTTP or Start method called at once, or passed as
// an argument.
func (rw *fileRewriter) usedAsHandler(call *ast.CallExpr) bool {
	switch p := rw.parents[call].(type) {
	case *ast.SelectorExpr:
		return p.Sel.Name == "ServeHTTP" || p.Sel.Name == "Start"
	case *ast.CallExpr:
		return p.Fun != ast.Expr(call)
	}
	return false
}
