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
// Package auth/authtest is a small authorization server for tests.
package auth
