// Package interop holds the interoperability tests that run gomcp against
// the official MCP implementations, over stdio and over Streamable HTTP:
//
//   - TestTypeScriptClient: the TypeScript SDK client (ts/client.mjs)
//     drives gomcp's everything-server through every feature it offers,
//     checking each answer and the raw messages on the wire. Subtest
//     "stdio" lets the SDK start the server; subtest "streamable-http"
//     starts it with -http on a free port, runs the same checks through the
//     SDK's StreamableHTTPClientTransport, adds HTTP ones (session id,
//     standalone GET stream, every exchange accepted, DELETE ending the
//     session), then stops the server with SIGTERM and expects exit status
//     0 and nothing on stderr.
//   - TestTypeScriptClientOAuth: the TypeScript SDK client's OAuth support
//     (ts/auth_client.mjs: authorization code with PKCE and dynamic
//     registration, step-up on 403 insufficient_scope, client credentials)
//     against the everything-server started with -auth-issuer, trusting
//     an auth/authtest authorization server run by the test.
//   - TestServerEverything: gomcp's client drives the reference
//     server-everything (@modelcontextprotocol/server-everything) through
//     the same feature walk in subtest "stdio" (`server-everything stdio`,
//     through transport.CommandTransport) and subtest "streamable-http"
//     (`server-everything streamableHttp` with PORT set to a free port,
//     through mcphttp.NewClientStream), ending with the session's close as
//     the server sees it. The one difference, that the tools/list_changed
//     notifications server-everything sends while it handles
//     notifications/initialized cannot reach an HTTP client, is explained
//     at everythingTransport.initializedNotices.
//   - TestTypeScriptV2Client: the TypeScript SDK 2 client
//     (@modelcontextprotocol/client, ts/client_v2.mjs) drives the
//     everything-server over stdio and Streamable HTTP, at 2026-07-28
//     (versionNegotiation auto, server/discover) and 2025-11-25 (its default
//     handshake), skills included.
//   - TestTypeScriptV2Server: gomcp's client drives ts/server_v2.mjs, a
//     server built with the TypeScript SDK 2 (@modelcontextprotocol/server
//     and node), over stdio and Streamable HTTP, at 2026-07-28 and
//     2025-11-25.
//   - TestServerFilesystem: gomcp's client drives the reference
//     @modelcontextprotocol/server-filesystem over stdio, its roots
//     replacing the server's directories, through every tool.
//   - TestAppBridge: the official MCP Apps host library
//     (@modelcontextprotocol/ext-apps/app-bridge, ts/app_bridge.mjs) and
//     the TypeScript SDK 2 client drive examples/appserver over stdio at
//     2026-07-28 and 2025-11-25; the view's own script runs in Node against
//     the library's bridge, with stand-ins for window, document and
//     ResizeObserver (the library needs no DOM, only window's message
//     events and postMessage).
//   - TestGateway: package gateway, in this process over Streamable HTTP,
//     in front of gomcp's everything-server, server-everything and
//     server-filesystem (stdio) and ts/server_v2.mjs (Streamable HTTP),
//     configured from an mcpServers file (gateway.ParseConfig): gomcp's
//     client at 2025-11-25 and 2026-07-28 and the TypeScript SDK 2 client
//     (ts/gateway_client_v2.mjs) in both eras find every upstream's tools
//     (schemas unchanged), prompts, resources and templates under their
//     namespaced names, call, read and get through it, receive a
//     subscribed resource's update, run a task to its result, and two
//     clients calling sampling tools at once each get their own answer.
//
// docs/interop.md has the whole matrix and the peer bugs met. They need
// Node 22 and the pinned npm packages, so they only build with the interop
// tag and expect the variables scripts/tools.sh exports:
//
//	source scripts/tools.sh && go test -race -tags interop ./interop/
//
// scripts/test.sh runs them that way. The official go-sdk client is tested
// against the everything-server in the compat module instead, which keeps
// that dependency out of this module.
package interop
