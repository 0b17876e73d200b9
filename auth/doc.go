// Package auth makes an MCP server an OAuth 2.1 resource server, as the
// authorization chapter of the MCP specification (2025-06-18 and later)
// asks: plain net/http middleware (ResourceServer.Wrap) in front of any
// handler, usually an mcphttp.Handler.
//
// The middleware serves the protected-resource metadata of RFC 9728 at its
// well-known paths, verifies the bearer token of every other request
// through a Verifier (JWTVerifier checks JWT access tokens against the
// authorization server's JWKS; IntrospectionVerifier asks the
// authorization server, RFC 7662), checks issuer, audience (RFC 8707) and
// expiry, optionally verifies DPoP proofs (RFC 9449), and enforces the
// scopes each request needs, per JSON-RPC method and per tool. Refusals
// follow RFC 6750: 401 with a WWW-Authenticate challenge naming the
// resource metadata and the scopes, 403 insufficient_scope naming every
// scope the request needs, 400 for malformed requests.
//
// A handler reads the verified token with TokenInfoFromContext(ctx), the
// one way to do it: in plain HTTP handlers behind the middleware and in MCP
// feature handlers (tools, prompts, resources) alike, at every protocol
// revision, stateful or stateless. It returns nil for a request that did
// not pass through the middleware, so check before using it. The token's
// principal (TokenInfo.Principal, recorded by mcphttp.WithPrincipal) binds
// each session of an mcphttp.Handler or SSEHandler behind the middleware
// to the caller that created it, unless its options say UnboundSessions.
//
// # How it is built
//
// The MCP server is an OAuth resource server, and nothing in mcp or mcphttp
// knows about OAuth: auth.ResourceServer.Wrap is plain net/http middleware in
// front of any handler. It serves the RFC 9728 metadata at
// /.well-known/oauth-protected-resource{path} (and at the bare prefix), then
// for every other request: Authorization header syntax (400 when malformed,
// 401 with WWW-Authenticate: Bearer resource_metadata=…, scope=… when absent),
// the Verifier (an error wrapping ErrInvalidToken is 401 invalid_token; any
// other error, an unreachable authorization server, is 503 so clients keep
// their tokens), the DPoP proof and key binding when the token is bound
// (cnf.jkt), then the scopes. The verified TokenInfo goes into the request's
// context, with its principal for mcphttp (mcphttp.WithPrincipal, the seam
// that keeps mcphttp ignorant of auth): the handlers bind sessions to it by
// default (HandlerOptions.Principal replaces it, UnboundSessions opts out).
// auth.TokenInfoFromContext(ctx) is the one documented way a handler reads it,
// in HTTP handlers and in MCP feature handlers at every revision (it looks
// through mcphttp.RequestInfo.Context itself); it is nil for a request that
// did not pass through the middleware.
//
// Per-method and per-tool scopes need the JSON-RPC method and tool name of a
// POST before the handler runs, and the 403 must be an HTTP answer, which an
// mcp.Middleware cannot give. So the middleware peeks at the body, bounded by
// Options.MaxBodyBytes (413 beyond), only when MethodScopes/ToolScopes are
// set, and puts it back for the handler. It decodes with jsonrpc.Decode and
// the tool name by json.Unmarshal into mcp.CallToolParams, the server's own
// decoders, so that the middleware and the server cannot disagree on what a
// request is (duplicate or case-folded keys); every message of a batch counts,
// and the 403 names every scope the request needs. Messages the server would
// refuse anyway pass through. Verifiers cache only keys (JWKS refetched on an
// unknown kid, at most every MinRefreshInterval counted from the end of the
// last fetch). The fetch runs on a context of its own (FetchTimeout), not the
// request's, and is shared: each waiting request may give up on its own
// context without cancelling it, so a client that hangs up cannot abort a
// refresh, and each fetch replaces the key set (a removed key stops
// verifying). A DPoP proof's jti is recorded last, after signature, htm, htu,
// iat, ath, the token's cnf.jkt binding and the nonce, so a refused proof
// takes no room. The replay cache is an interface keyed by the key's
// thumbprint and the jti; its bounded in-memory default refuses (503) rather
// than forgets, but only a key holding its share of a full cache (its size
// over the keys holding entries, never more than twice its size in all), so
// one key flooding it locks out only itself.
//
// Package auth/authtest is a small authorization server for tests.
package auth
