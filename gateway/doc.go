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
// (the last one to end ends the upstream's), and so are those of
// 2026-07-28 listen streams, for as long as each stream lives. A
// 2026-07-28 client that can be asked something has its calls run on
// one-call sessions, and its requests name no client a later update could
// be routed to: every one-call session is subscribed, when a call takes
// it, to what such listen streams hold of its upstream, and an update it
// sends goes to the listen streams subscribed to that resource.
//
// A subscription ends with its unsubscribe, its listen stream, or its
// downstream session, however that ends (closed, deleted, expired, its
// connection dropped); a session rebuilt from the session store subscribes
// again. A caller cannot subscribe to what it may not see (Options.Access,
// mcp.Server.AddVisibleFunc): resources/subscribe is answered as for a URI
// the gateway does not serve, and nothing is forwarded; a listen
// acknowledgement leaves both out. Each upstream session is set to
// Upstream.LogLevel, so a downstream logging/setLevel stays the gateway's.
//
// A URL-mode elicitation keeps the upstream's elicitationId, and the
// upstream's notifications/elicitation/complete for it goes to the client
// the elicitation went to (by elicitation/create, or in a
// URLElicitationRequired error), and to no other.
//
// # Access and credentials
//
// Who sees what is a list of Rule (Options.Access, Config.Access; read
// from a file with ParseAccess, strictly), applied with
// mcp.Server.AddVisibleFunc by the principal and scopes the
// resource-server middleware of package auth verified: put the handler
// serving Server behind auth.ResourceServer.Wrap. New refuses a rule
// naming an upstream that is not configured.
//
// The upstreams' credentials are the gateway's own: an upstream's Headers
// and Env, or for an HTTP or SSE upstream the authorizer that
// Options.Authorizer gives it (an OAuth login, such as an oauth.Client
// reading the token store mcp login writes), shared by all its sessions.
// What that authorizer cannot resolve, a refused refresh say, takes the
// upstream down with its error until a later attempt succeeds; the
// gateway never logs in interactively. A downstream caller's token is
// never sent upstream: the upstream sees the gateway's client only.
//
// # Extensions
//
// Besides tasks, the gateway mirrors MCP Apps (io.modelcontextprotocol/ui)
// and skills (io.modelcontextprotocol/skills), declaring each once an
// upstream does (MCP Apps also for an upstream that offers a ui:// view
// without declaring it), with the union of the upstreams' settings (a
// boolean true when any says true, another value the first upstream's in
// name order). A view or skill moved because two upstreams share its URI
// (or template) stays in its scheme (ui://mcp-gateway/NAME/...,
// skill://mcp-gateway/NAME/...), and the tools' _meta.ui and legacy
// ui/resourceUri follow it; reads keep the view's MIME type and _meta.ui. The gateway declares to its upstreams that it renders views,
// so they list their app-only tools, and shows those only to clients that
// render views. A view names its tools as its upstream does: a tools/call
// from a client that renders views naming no tool of the gateway goes to
// the one upstream tool of that name apps may call, and fails naming them
// when several upstreams have one. Skills are listed, got and read
// through the upstreams that declare the extension.
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
