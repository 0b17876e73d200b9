// Package mcphttp carries MCP over HTTP: the Streamable HTTP transport
// (the stateful revisions 2025-03-26 to 2025-11-25, and the stateless
// revision 2026-07-28 on the same endpoint) and the legacy HTTP+SSE
// transport (2024-11-05), server and client sides.
//
// Serving:
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0"}, nil)
//	http.Handle("/mcp", mcphttp.NewHandler(server, nil))     // Streamable HTTP
//	http.Handle("/sse", mcphttp.NewSSEHandler(server, nil))  // HTTP+SSE, for old clients
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil))
//
// Connecting:
//
//	client := mcp.NewClient(&mcp.Implementation{Name: "demo-client", Version: "1.0"}, nil)
//	cs, err := client.Connect(ctx, mcphttp.NewClientStream("http://127.0.0.1:8080/mcp", nil))
//
// The client stream speaks Streamable HTTP and falls back to HTTP+SSE when
// the server does not (as the specification describes); it resumes broken
// SSE streams with Last-Event-ID, sends a POST answered 503 with
// Retry-After again (at most three times, 5 seconds in all) and, when the server forgets the
// session (HTTP 404), initializes a new one and retries, without the
// mcp.Client noticing.
//
// Several processes serve the same sessions, without session affinity,
// when their Handlers share a SessionStore and an EventStore and their
// servers share a shared.Notifier (see Handler):
//
//	server := mcp.NewServer(impl, &mcp.ServerOptions{Notifier: notifier})
//	h := mcphttp.NewHandler(server, &mcphttp.HandlerOptions{
//		SessionStore: sessions, // shared.SessionStore, e.g. backed by Redis
//		EventStore:   events,
//		Principal:    func(r *http.Request) string { return userFrom(r) },
//	})
//
// A replica stopped for a deploy drains with Handler.Shutdown (before
// http.Server.Shutdown): its requests in flight are answered, what arrives
// meanwhile gets 503 with Retry-After (ClientStream sends it again, to
// another replica behind a load balancer), and its GET streams move to
// other replicas with nothing lost.
//
// A session belongs to the principal that created it, and another
// principal's requests for it get 403: the principal is the one
// authentication middleware recorded on the request (WithPrincipal, as
// auth.ResourceServer.Wrap does), or what HandlerOptions.Principal names;
// UnboundSessions opts out.
//
// Handlers see the HTTP request behind each message through
// RequestInfoFromContext (headers for authentication, remote address, TLS
// state), and the values of its context (RequestInfo.Context; for a
// 2026-07-28 request, the handler's context is the request's own).
package mcphttp
