// Package bench measures MCP servers as separate processes: a driver
// (cmd/mcpbench) starts each peer server (servers/: gomcp, the official
// go-sdk, mcp-go, the TypeScript SDK 1 and 2, and a hand-written floor with
// no framework), writes requests to it over stdio or Streamable HTTP (the
// stateful revisions, and the stateless 2026-07-28 for every peer that
// serves it), validates every answer, and reads the server's CPU time and
// memory from /proc. run.sh builds everything and prints the table, then
// the gomcp server behind mcp gateway, behind cmd/relay, a byte relay
// that is the floor of any process in between, and behind cmd/sdkproxy, the
// least typed proxy the SDK makes (what its own server and client cost).
//
// It is a module of its own so that the SDK does not depend on its peers.
package bench
