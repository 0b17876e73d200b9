// Package gateway serves many MCP servers behind one endpoint: one
// [mcp.Server] made of N upstream servers, each reached with the client side
// of the SDK (a command over stdio, Streamable HTTP, legacy HTTP+SSE; any
// revision the upstream speaks), each caller seeing only what it may.
//
//	g, err := gateway.New(cfg, nil) // cfg: the hosts' mcpServers file (ParseConfig)
//	if err != nil { ... }
//	if err := g.Start(ctx); err != nil { ... } // a name collision, say
//	defer g.Close()
//	http.Handle("/mcp", mcphttp.NewHandler(g.Server(), nil))
//	http.Handle("/readyz", g.ReadyHandler())
//
// # Mirroring
//
// Each upstream's tools, prompts, resources and resource templates are
// registered on the gateway's server with handlers that forward to it,
// under the names of the Gateway type's naming rules, their schemas,
// annotations and _meta as the upstream wrote them. The gateway mirrors
// them again on the upstream's list_changed, and the server tells the
// downstream clients. An upstream that is down has nothing listed; its
// calls fail at once with ErrUpstreamDown.
//
// # Routing
//
// A call is forwarded within the upstream's Timeout and MaxConcurrency,
// with the caller's progress token (the upstream's progress comes back to
// it) and cancellation (the caller's going away cancels the upstream call).
// The caller's _meta passes on except the client context: the upstream sees
// the gateway's client, never the caller's token or headers.
//
// What an upstream asks (sampling, elicitation, roots) goes to the client
// whose call caused it, and to no other:
//   - a 2026-07-28 upstream asks inside the call's result (input required):
//     the question is answered in the call's own context, a round's
//     questions together under the upstream's keys, and the upstream sees
//     the caller's sampling, elicitation and roots capabilities, not the
//     gateway's;
//   - a stateful upstream (2024-11-05 to 2025-11-25) sends a request that
//     names no call, so the calls of clients that can be asked something go
//     over an upstream session bound to their downstream session (opened on
//     first use, closed with it; a 2026-07-28 caller's, which has no session,
//     is opened for that call alone). The calls of clients that can be asked
//     nothing share one session per upstream, on which questions are
//     refused. For a command upstream, a bound session is one more process.
//
// The question reaches the caller through its request, so at every
// revision: at 2026-07-28 it becomes an input-required round of the
// downstream request, the upstream call is abandoned, and the upstream is
// called again with the retry (the upstream asks again and gets the answer).
//
// An upstream's log messages go to the bound session's client, or to the
// one call in flight on the shared session, or else to every downstream
// session that set a level (Upstream.LogLevel is the level asked of the
// upstream). Completions go to the prompt's or template's upstream. A tool
// call the upstream runs as a task is a task downstream too (package
// tasks, both task models).
//
// Whatever lives in an upstream session goes where the client's calls go,
// since an upstream may keep it per session (over stdio, per process). A
// client whose calls go over a bound session subscribes to resources on
// that session (opening it at its first subscription if need be; a session
// bound anew is subscribed again), and that session's updates reach that
// client alone; the shared session's updates reach the other subscribers.
// The subscriptions of the other clients are counted on the shared session
// (the last unsubscribe ends the upstream's). Each upstream session is set
// to Upstream.LogLevel, so a downstream logging/setLevel stays the
// gateway's.
//
// # Replicas
//
// A gateway scales out as any server does: replicas sharing the
// deployment's stores (Options.Server's Notifier and RequestStateKey,
// Options.Tasks' Store, the mcphttp.Handler's SessionStore and
// EventStore; package redisstore) serve any request. Upstream sessions
// stay per replica: each connects to every upstream (a command upstream
// runs once per replica), and a bound session is a cache of the replica
// serving the downstream session, opened there on its first call (and
// subscribed again to what the stored session subscribed to), closed with
// that replica's copy of the downstream session. Questions travel on the
// call's own stream, and the answer reaches the replica that asked through
// the transport. A resource update heard on a bound session is published
// on the Notifier as a notice naming the downstream session, so that the
// replica holding that client's stream delivers it (at least once: a
// client bound on several replicas hears an update from each that is
// subscribed). What a replica's death loses: the calls it forwarded, its
// upstream sessions and the state upstreams kept in them, and the tasks
// whose handlers ran there (failed once their lease lapses).
//
// # Isolation
//
// Every upstream has its own sessions, timeout, concurrency limit and
// message bounds (those of the SDK's transports). One that fails (its
// process exits, its connection breaks, it stops answering pings) is taken
// down and brought back with jittered backoff (Options.Backoff); Status and
// ReadyHandler report each.
package gateway
