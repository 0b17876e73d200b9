// Package oauth is the client side of MCP authorization (OAuth 2.1): it
// finds the server's authorization server (RFC 9728 protected-resource
// metadata, RFC 8414 or OpenID Connect discovery), identifies the client
// (pre-registered, a Client ID Metadata Document, or dynamic registration),
// obtains tokens (authorization code with PKCE, refresh, client
// credentials, JWT bearer, enterprise-managed ID-JAG) optionally bound with
// DPoP, and presents them.
//
// A Client implements the Authorizer seam of transport/mcphttp: the
// transport asks it to decorate each request and, on a 401 or 403, to
// authorize and say whether to retry the request once. Tokens only ever
// go to the server's origin, in the Authorization header.
package oauth
