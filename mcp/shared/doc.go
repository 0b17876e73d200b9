// Package shared is what the processes of one deployment of an MCP server
// share, so that any of them can serve any client: the state of stateful
// sessions (SessionState, kept in a SessionStore) and the notices that carry
// changes between them (Notice, fanned out by a Notifier).
//
// It is the contract between package mcp, whose Server saves, updates and
// reloads sessions and publishes and hears notices through these two
// interfaces (mcp.ServerOptions.Notifier, mcp.SessionOptions.Store), the
// transports that rebuild sessions (transport/mcphttp), and the stores that
// implement them (redisstore). It imports nothing of the protocol: a store
// keeps a session's client info and capabilities as the JSON the mcp
// package gives it.
//
// The in-memory defaults, MemorySessionStore and MemoryNotifier, serve one
// process; several processes share a store outside them (Redis, a
// database).
package shared
