// Package interop holds the interoperability tests that run gomcp against
// the official MCP implementations over stdio:
//
//   - the TypeScript SDK client (ts/client.mjs) driving gomcp's
//     everything-server, and
//   - gomcp's client driving the reference server-everything
//     (@modelcontextprotocol/server-everything).
//
// They need Node 22 and the pinned npm packages, so they only build with the
// interop tag and expect the variables scripts/tools.sh exports:
//
//	source scripts/tools.sh && go test -race -tags interop ./interop/
//
// scripts/test.sh runs them that way. The official go-sdk client is tested
// against the everything-server in the compat module instead, which keeps
// that dependency out of this module.
package interop
