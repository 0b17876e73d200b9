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
// The verified token reaches handlers through the request context
// (TokenInfoFromContext; in MCP handlers, through
// mcphttp.RequestInfoFromContext(ctx).Context()), with the caller's
// principal (TokenInfo.Principal, recorded by mcphttp.WithPrincipal): an
// mcphttp.Handler or SSEHandler behind the middleware binds each session
// to the caller that created it, unless its options say UnboundSessions.
//
// Package auth/authtest is a small authorization server for tests.
package auth
