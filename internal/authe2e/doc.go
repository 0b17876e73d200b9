// Package authe2e holds the end-to-end tests of authorization: the oauth
// client, through mcp.Client and the Streamable HTTP client transport,
// against an MCP server protected by package auth, with auth/authtest as
// the authorization server. It has no API; its tests are its point.
package authe2e
