// Package apps implements MCP Apps (extension io.modelcontextprotocol/ui,
// specification 2026-01-26): a tool whose results a host renders in an
// interactive view, an HTML page the server serves as a ui:// resource and
// the host shows in a sandboxed iframe.
//
// A host reads what a server offers with ToolUI (which view renders a
// tool, and whether the model or only the view may use it), ResourceUI and
// ContentsUI (the view's CSP, permissions and border preference), and
// declares that it renders views with DeclareClient.
//
// A server wraps its *mcp.Server with New, registers a view with
// Server.AddHTML, AddFile or AddView (its HTML from a string, an fs.FS file
// or a handler) and a tool linked to it with AddTool, which takes the same
// typed handlers as mcp.AddTool. Hosts without MCP Apps see an
// ordinary tool: a handler asks HostRenders whether the host behind the
// request shows the view, and answers with a complete text result when it
// does not. A tool whose Visibility is [app] alone is for the view (a
// refresh button, say): the host keeps it from the model, and New hides it
// from clients that render no views, which have no view to call it from
// (through mcp.Server.AddVisibleFunc: not listed, and unknown to
// tools/call).
//
// The client's capability is read per request (HostRenders): before
// 2026-07-28 it is what the client declared in initialize, at 2026-07-28
// what each request's _meta declares, so one server answers both kinds of
// host correctly at every revision.
package apps
