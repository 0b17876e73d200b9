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
// the server does not (as the specification describes). It heals by itself
// (client_heal.go), without the mcp.Client noticing:
//
//   - A POST that provably never reached the server (the connection was
//     refused; 503, after its Retry-After if any; 502 or 504 from a
//     gateway) is sent again, with jittered backoff, within the call's
//     deadline (10 seconds of waiting at most); when it gives up the error
//     matches jsonrpc.ErrNotSent. Any other failure without an answer
//     matches jsonrpc.ErrOutcomeUnknown.
//   - A broken SSE answer is resumed with Last-Event-ID (MaxReconnects
//     failed attempts in a row at most); one that cannot be resumed fails
//     its requests with jsonrpc.ErrOutcomeUnknown, and the connection sends
//     an idempotent one again (jsonrpc.Idempotent).
//   - The standalone GET stream is kept for as long as the session lives:
//     it reconnects with jittered backoff (up to MaxReconnectDelay, 4
//     seconds by default, so that it is back within 5 seconds of the
//     server; at once when a request of the session is answered again),
//     and a stream silent for StreamIdleTimeout (no event, no keep-alive
//     comment) is taken for half-open and replaced. The same watch covers
//     an SSE answer with no deadline (subscriptions/listen).
//   - When the server forgets the session (HTTP 404, to a POST or to the
//     GET stream), the stream initializes a new one, checks that it
//     speaks the same revision, gives it the resource subscriptions and
//     the log level of the old one, and sends the failed message again.
//     If the server refuses a new session, the connection ends with
//     ErrSessionLost (mcp.ClientSession's Wait reports it).
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
// 2026-07-28 request, the handler's context is the request's own). The
// caller's verified token is not read that way but with
// auth.TokenInfoFromContext(ctx), which looks there itself, at every
// revision, and is nil when no middleware verified one.
//
// # The POST path
//
// A request arrives as a POST. The Handler checks origin and host, method, media types, reads the body
// (bounded by MaxBodyBytes, one buffer of the announced length) and decodes it
// once, then decides once which lifecycle the POST belongs to, and each has
// one path:
//
//   - A 2026-07-28 request (the MCP-Protocol-Version header names the
//     stateless revision, or there is no session id and _meta declares it):
//     the transport checks the headers against the body, then calls
//     Server.HandleStateless on the POST's goroutine with the request's
//     context (its values reach the handler; the client closing the response
//     cancels it). No session, no Conn, no goroutine. Progress and logs go to
//     an SSE stream started on the first of them; an answer alone goes out as
//     JSON with an HTTP status matching its error.
//   - A message of a stateful session: initialize creates a session
//     (Server.Connect with the session id, the SessionStore and the caller's
//     principal); anything else names one with Mcp-Session-Id. The POST is
//     registered as the stream answering that request id and the message is
//     pushed into the session's Conn on the HTTP goroutine (Conn.Push; then as on
//     any connection, see package jsonrpc). The response comes back through session.Write, which
//     finds the stream by the related request id and writes it as a JSON body
//     or an SSE event (stored first in the EventStore, which assigns its id).
//     When the client accepts both, the choice is lazy: the answer alone goes
//     out as JSON (nothing stored), and the first message before it (or
//     SSEAfter passing, or CloseSSEStream) turns the response into a primed,
//     resumable SSE stream. A single request whose answer can still be JSON
//     skips the worker hand-off: while a worker slot is free its handler runs
//     on the POST's goroutine (Conn.Push with jsonrpc.InlineWhenFree; it
//     counts against MaxConcurrency, its context is a worker's), and a
//     context.AfterFunc on the request and a keep-alive timer stand in for the
//     waiting goroutine: the client going away before anything was sent
//     abandons (cancels) the request, a long wait upgrades the response to
//     SSE. A request the client cancels (notifications/cancelled) before
//     anything was sent gets an SSE stream that ends empty (no event id, so
//     nothing to resume): a POSTed request is always answered with SSE or
//     JSON, and a cancelled one with no response.
//
// # Sessions shared by processes
//
// Sessions are data. What a session established (version, client info and
// capabilities, log level, subscriptions, principal) is an mcp.SessionState
// saved in an mcp.SessionStore before the request that changed it is answered.
// A change is made on the state read back from the store, not on the serving
// process's copy, which may not have heard yet of the change the client's
// previous request made through another process; a store that is an
// mcp.SessionUpdater (the memory store, redisstore with WATCH) makes it in one
// step, so that changes made at the same moment through two processes (a
// subscription through each) are both kept. A Handler holds in memory a copy
// of the sessions it serves, and rebuilds one from the store
// (SessionOptions.State) when a request names a session it does not hold, so
// Handlers sharing the SessionStore, the EventStore and the server's
// mcp.Notifier serve the same sessions without affinity. A request from a
// principal other than the session's creator (HandlerOptions.Principal, by
// default the one authentication middleware recorded with WithPrincipal) gets
// 403. Resource updates travel as notices on the Notifier to every server,
// which delivers them to the copies it holds; the session's standalone GET
// stream is held by the Handler that last attached a GET to it, and only the
// holder stores and writes such messages, so a notice produces one event. A
// client resuming the stream with Last-Event-ID on another Handler makes it
// the holder (an mcphttp/streamTaken notice, before it replays the gap from
// the EventStore); it stores the session's events from just before the notice,
// and the old holder until it hears it, so that nothing published while the
// stream moves is lost; the old holder then announces its release
// (mcphttp/streamReleased) and the new one sends what the old one stored after
// the replay, an update both stored going out once (takeover.go): each
// notice a Server publishes has a random id (mcp.Notice.ID), which reaches
// the transport with its delivery (mcp.NoticeID), and a store that
// implements OnceAppender (both of ours) keeps one event per notice and
// stream, checked in the append itself.
// Handler.Shutdown drains a replica for a rolling restart: readiness and every
// new request get 503 at once (clients send the request again, through the
// load balancer, elsewhere; ClientStream does so after Retry-After), requests
// in flight are answered, standalone streams are ended with an SSE retry hint
// and stay held (their events stored) until another Handler takes them over;
// the stores are never touched. Idle expiry ends only a Handler's copy; DELETE
// forgets the session in both stores and ends every copy
// (mcphttp/sessionDeleted). The client's answer to a server request (sampling,
// elicitation, roots) may reach any Handler; it is passed to all of them
// (mcphttp/response), and the copy that asked takes it. So that two copies
// never have the same id outstanding, a session with a store numbers its
// requests from a random point below 2^52 (jsonrpc.ConnOptions.FirstID).
//
// # Bounds
//
//   - Over HTTP, what one client can hold is bounded per client: the time to
//     send a body (BodyReadTimeout), the bodies received at once
//     (MaxBodyBytesInFlight), its sessions (MaxSessionsPerClient, keyed by
//     ClientKey). Events for a session's standalone GET stream are stored,
//     then queued (MaxQueuedEvents) for the GET's own goroutine to write, so a
//     fan-out to every session never waits on a slow reader; one that falls
//     behind is cut and resumes from the EventStore. The in-memory store makes
//     a session pay for its own traffic first, then the largest sessions.
//     Sessions rebuilt from the SessionStore (a client landing on another
//     replica) count against MaxSessionsPerClient like new ones. Requests of
//     the stateless revision hold no session, so they are bounded on their own
//     (MaxStatelessRequests, 503; MaxStatelessRequestsPerClient, 429; both
//     with Retry-After), by one clientCounter (limits.go) that also keeps the
//     legacy SSEHandler's per-client session quota. POST response streams are
//     written directly with a write deadline (WriteTimeout), so a stalled
//     reader frees its handler goroutine after it; the SSEHandler queues each
//     session's messages (MaxQueuedEvents) and cuts a reader that falls
//     behind, which ends its session (HTTP+SSE cannot resume). Both handlers
//     take a Principal function (by default, the principal authentication
//     middleware recorded with WithPrincipal): a session remembers who opened
//     it, and a request for it from anyone else gets 403.
//
// Health probes are not telemetry and live here (NewHealth: Live, Ready):
// readiness asks every store the Handler uses that implements Pinger, plus
// HealthOptions.Checks, in one shared round per burst of probes.
//
// # Authorization
//
// Authorizer (Authorize(req), Challenged(ctx, req, resp)) is how the HTTP
// client transports meet authorization without knowing OAuth. Every request
// the Streamable HTTP and HTTP+SSE clients send (POSTs, GET streams, the
// session's DELETE) passes through clientCore.do, which asks the Authorizer to
// decorate it and, on a 401 or 403, whether to send it again (at most twice: a
// login, then a DPoP nonce). Its http.Client is a copy of the caller's whose
// redirects stay on the first request's origin (internal/origin), so neither
// the Authorizer's token nor Header follows one elsewhere. oauth.Client
// implements it; oauth imports neither mcp nor mcphttp. Because the seam sits
// below the session, the initialize or server/discover request itself can be
// what triggers the login.
package mcphttp
