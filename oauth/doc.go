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
//
// # How it is built
//
// oauth.Client is made for one server URL. On a challenge it parses
// WWW-Authenticate (Bearer or DPoP, any parameter order), fetches the
// protected-resource metadata (the challenge's resource_metadata if it is on
// the server's origin, else the path-based, then the root well-known URL; a
// challenge cannot send the client to fetch another origin), checks that its
// resource covers the server URL (same origin, path prefix) and keeps that
// string verbatim for the resource parameter. It then finds the first
// authorization server's metadata in the specification's order (path issuers:
// OAuth insertion, OIDC insertion, OIDC appending; never the root) and refuses
// a document whose issuer is not byte-identical. Without any PRM it falls back
// to the 2025-03-26 rules (metadata at the server's origin, else /authorize,
// /token, /register). The client's identity is chosen per issuer:
// pre-registered, else the CIMD URL if advertised, else a registration kept in
// the TokenStore under the issuer, so a server that moves to another
// authorization server gets a fresh registration and none of the old
// credentials. Pre-registered credentials are pinned to one issuer
// (ClientIssuer, else the first one they are used with, remembered in the
// TokenStore) and refused to any other. The authorization step is a UserAgent
// (LoopbackUserAgent for people, which ignores callbacks without the request's
// state, HeadlessUserAgent for tests); state and the RFC 9207 iss are checked
// before the code is redeemed. Tokens are keyed by the server URL, carry their
// issuer, granted and requested scopes; a 403 insufficient_scope re-authorizes
// with the union of scopes unless those scopes were already requested (the
// retry limit). Every HTTP exchange of the package uses one http.Client whose
// redirects stay on the same origin and whose responses are read up to
// MaxResponseBytes; URLs must be https or loopback http. Authorize attaches
// the token only to requests for the server's origin, and only in the
// Authorization header. A stored registration is reused only if its redirect
// URIs include the user agent's (a LoopbackUserAgent listens on a new port
// each time). The RFC 9728 and RFC 8414 documents are defined once, here: auth
// serves oauth.ProtectedResourceMetadata (aliased as
// auth.ProtectedResourceMetadata), and the everything server reads
// oauth.ServerMetadata; oauth imports nothing of mcp or the transports.
// internal/authe2e tests both packages together, with authtest as the
// authorization server.
package oauth
