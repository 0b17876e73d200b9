// Package mcp implements the Model Context Protocol: the protocol types of
// every published revision (2024-11-05 to 2026-07-28), a Server that serves
// tools, resources, prompts, completions and logging, and a Client that
// drives any MCP server.
//
// A Server or Client runs over a jsonrpc.Stream; package transport provides
// stdio, in-memory and subprocess streams. Everything that differs between
// protocol revisions is answered by one version table (see version.go), so
// the handlers you write are the same whatever revision a peer speaks.
//
// A minimal server:
//
//	type In struct {
//		Name string `json:"name" description:"who to greet"`
//	}
//	type Out struct {
//		Greeting string `json:"greeting"`
//	}
//	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//	err := mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "say hello"},
//		func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error) {
//			return Out{Greeting: "Hello, " + in.Name}, nil
//		})
//	if err != nil {
//		return err // the tool is invalid; see ErrInvalidFeature
//	}
//	err = s.Run(ctx, transport.Stdio())
//
// The Add functions (AddTool, Server.AddTool, AddResource,
// AddResourceTemplate, AddPrompt) check a feature when it is added and
// return an error wrapping ErrInvalidFeature, registering nothing, for one
// that clients could not use; a server whose such error was dropped unread
// refuses to serve, naming it (see RegistrationError). A tool's schemas
// may be given as any value whose JSON is the schema, a
// google/jsonschema-go *jsonschema.Schema included (see Tool.InputSchema);
// inferred ones read the struct tags of gomcp, go-sdk, mcp-go and
// invopop/jsonschema (see package jsonschema). A typed tool returns *ToolResult[T] to send
// structured output together with isError, content of its own or _meta. A
// resource template's handler (ResourceTemplateHandler) receives the
// variables matched in the URI. On the client, CallToolFor takes any Go
// value as arguments and decodes the structured content into a Go type.
//
// # Sessions and stateless requests
//
// Server.Connect serves one client connection. On it a client either opens
// a stateful session with initialize (revisions 2024-11-05 to 2025-11-25),
// or sends stateless requests (2026-07-28), each carrying its client's
// version, capabilities and identity in _meta; Server.HandleStateless serves
// such a request with no connection at all. A handler sees one API either
// way, ServerRequest, the handle for everything it does about its request:
// ProtocolVersion, ClientInfo, ClientCapabilities, Principal (the caller,
// as the transport authenticated it), LogLevel, Log, Logger
// (an *slog.Logger), NotifyProgress, Input (Elicit, ElicitFor,
// CreateMessage, ListRoots). They work the same at every revision; what a
// revision or client lacks fails with an error wrapping ErrCapability.
// Session returns the stateful session with true, and false for a
// stateless request. A ServerSession is a connection's lifetime and state
// (ID, ProtocolVersion, Close, Done, Stats), not a way to reach the client
// about a request.
//
// A stateful session is data: a shared.SessionState, kept in a
// shared.SessionStore, from which another process rebuilds it
// (SessionOptions.State). Resource updates reach the sessions of every
// process through a shared.Notifier. Both have in-memory defaults; a
// deployment of several processes shares them (package mcp/shared holds
// that contract).
//
// # Who sees what
//
// ServerOptions.Visible (and Server.AddVisibleFunc) decide per request
// which tools, prompts, resources and templates a Caller (any
// ServerRequest) may see: every list leaves out what is hidden, pages and
// cursors counting only what the caller sees, and tools/call, prompts/get,
// resources/read and completion/complete answer a hidden feature exactly as
// an absent one. list_changed goes only to clients whose view changed;
// Server.VisibilityChanged says a rule's answers changed.
//
// # Extending the protocol
//
// AddMethod and AddNotificationHandler add an application's own typed
// methods, whose handlers get the same request handle as tools at every
// revision; Call sends them from a client. On the client, AddClientMethod
// and AddClientNotificationHandler do the same for what a server sends,
// with ClientRequest as the handle (ID, Meta, NotifyProgress): a server
// calls such a method with Call on its stateful session, and reaches a
// notification handler at every revision with ServerRequest.Notify.
// Server.AddExtension adds an extension's methods (and its
// capabilities.extensions entry): typed ones made with MethodFor and
// NotificationFor, or raw ones (Method.Handler, which Server.AddMethod also
// takes); Client.AddMethod is the raw form on a client.
//
// A handler reads the caller's verified OAuth token, at every revision,
// with auth.TokenInfoFromContext(ctx), nil when no authentication
// middleware ran: check it before use. ServerRequest.Principal names the
// caller without the token.
//
// Every params and result type has its _meta in a Meta field;
// middleware reads and injects trace context with Request.Meta and
// Request.SetMeta. Package mcp/hooks adds middleware to a Server or Client
// after construction, gives it the typed params (decoded once, shared with
// the handler), wraps every tool's handler, and adds session lifecycle
// hooks and a client's handler for every notification. Every result type implements Result (GetMeta), for code
// that handles results of any type; a custom method's result type that
// also has SetMeta gets the server's identity in its _meta at 2026-07-28,
// as the core's results do. Fields a peer's revision
// lacks are never sent to it, except capabilities.extensions, which peers
// exchange in initialize before 2026-07-28 defines it; a handler reads the
// client's with Request.ClientCapabilities.
//
// # How it is built
//
// Server.Connect(stream, opts) serves one client connection. On it, a client
// either opens a stateful session with initialize (2024-11-05 to 2025-11-25;
// the session's version, client info and capabilities are fixed by the
// handshake and kept in its SessionState), or sends stateless requests
// (2026-07-28), each carrying its client context in
// _meta["io.modelcontextprotocol/..."]. ServerSession.Handle decides once, up
// front, which lifecycle a message belongs to (a never-initialized connection
// and a _meta protocol version, or a non-handshake method, mean stateless) and
// each has its own table and path: Server.route for sessions,
// Server.routeStateless (mcp/server_stateless.go) for stateless requests,
// which checks _meta, then the version, then the method, then the capability,
// and stamps resultType, _meta.serverInfo and caching hints. A stateless
// request needs no connection at all: Server.HandleStateless serves one on the
// caller's goroutine (the HTTP transport uses it).
//
// A handler sees one API whatever the lifecycle, ServerRequest
// (mcp/handle.go): ProtocolVersion, ClientInfo, ClientCapabilities, Principal
// (the session's bound principal, or the one the transport's message info
// names for a stateless request: mcphttp.RequestInfo.Principal), LogLevel
// (from the session, or from the request's _meta), NotifyProgress, Log,
// Logger/LogHandler, cancellation through ctx,
// Input/Elicit/ElicitFor/CreateMessage/ListRoots, and Session(), which returns
// false for a stateless request. The lifecycle is chosen once, when the
// request is built: an unexported lifecycle interface with two
// implementations, sessionBound (the session holds the client's context; the
// server sends real requests and notifications on the connection) and
// *requestContext (2026-07-28: the request's _meta holds it; questions become
// input-required results, notifications go to the request's own stream). No
// method asks again which one it is. The ctx carries the transport's request
// info and, for HTTP, the values of the HTTP request's context (what
// authentication middleware stored there) on both lifecycles. Input works
// everywhere: on a session req.Input sends real requests; on a stateless
// request it returns an input-required result with an HMAC-signed requestState
// carrying earlier answers (mcp/input.go), and the handler runs again on the
// retry. The client (mcp/client_stateless.go) probes with server/discover,
// falls back to initialize, adds the per-request _meta and the SEP-2243
// headers (handed to the HTTP transport through the write context,
// mcp.HTTPHeaders), and runs the input-required loop. List changes reach a
// 2026-07-28 client only on a subscriptions/listen stream, so when
// list-changed handlers are set, Connect opens one for the session
// (mcp/client_listen.go) and waits for its acknowledgement.
//
//   - The version table (mcp/version.go): every behaviour that differs by
//     protocol revision is a field of versionFeatures; code asks features(v).x
//     and never compares version strings. Transports read its transport facts
//     through mcp.LookupRevision. Results and outgoing params pass through
//     downgradeResult/downgradeParams (mcp/downgrade.go) just before they are
//     encoded, which remove (copy on write, never mutating shared values) the
//     fields the peer's revision lacks; at the newest revisions they return
//     their input without allocating.
//   - The method tables belong to each Server: one per lifecycle (methodTable
//     in mcp/server.go, built by coreMethods), each entry saying whether it is
//     allowed before the handshake, the capability it needs and the revisions
//     it exists in. Server.AddMethod and Server.AddExtension add methods (and
//     capabilities.extensions) without touching core files; Client.AddMethod
//     does the same on the client. mcp.AddMethod[P, R] (mcp/custom.go) puts an
//     application's typed method in both tables, decoding params strictly and
//     handing the handler a ServerRequest[P], with input-required retries
//     bound to its params. capabilities.extensions is the one member sent in
//     revisions that do not define it: peers exchange it in initialize at
//     2025-era revisions too (the TypeScript SDK 2, MCP Apps hosts), and those
//     schemas allow it, so it is kept both ways in every revision, unless
//     Extension.Revisions limits an extension (the tasks extension: 2026-07-28
//     only). A handler reads the client's with Request.ClientCapabilities.
//   - Feature seams (mcp/server_hooks.go), for features built outside mcp on
//     top of the method tables: Server.SetToolCallHook runs around every
//     checked tool call and may answer it with another result (a task's
//     handle) and run the handler later; Server.ExtendCapabilities adds to the
//     advertised capabilities; mcp.WithInputFunc puts on a handler's context
//     the function its Input/Elicit/... calls go to instead of the client;
//     mcp.Detached marks a handler that outlives its 2026-07-28 request (its
//     progress and log messages are dropped); Server.AddListenHook vets an
//     extension's part of a subscriptions/listen filter, and
//     Server.NotifyListeners delivers an extension's notifications to the
//     matching listen streams. Package tasks uses them all;
//     mcp.Revision.CoreTasks tells it which revisions have the 2025-11-25
//     tasks.
//
// A client call is the mirror image: ClientSession.CallTool → Sending
// middleware → Conn.Call (allocates an id, registers a pooled response
// channel, writes) → the reader delivers the response to that channel → the
// result is decoded and, when the tool declared an output schema, its
// structured content is validated (client_tools.go: the schemas come from the
// session's tools/list results; a result with structured content of a tool the
// session has not listed makes it list the tools once, and again after
// notifications/tools/list_changed).
package mcp
