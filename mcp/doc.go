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
// that clients could not use. A typed tool returns *ToolResult[T] to send
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
// # Extending the protocol
//
// AddMethod and AddNotificationHandler add an application's own typed
// methods, whose handlers get the same request handle as tools at every
// revision; Call sends them from a client. Server.AddMethod and
// Server.AddExtension add an extension's raw methods (and its
// capabilities.extensions entry) to one Server; Client.AddMethod does the
// same on a client, and ClientSession.Call and ServerSession.Call send such
// methods. Every params and result type has its _meta in a Meta field;
// middleware reads and injects trace context with Request.Meta and
// Request.SetMeta. Every result type implements Result (GetMeta), for code
// that handles results of any type; a custom method's result type that
// also has SetMeta gets the server's identity in its _meta at 2026-07-28,
// as the core's results do. Fields a peer's revision
// lacks are never sent to it, except capabilities.extensions, which peers
// exchange in initialize before 2026-07-28 defines it; a handler reads the
// client's with Request.ClientCapabilities.
package mcp
