// Package compat holds the side-by-side benchmarks and the interoperability
// tests that run github.com/gomcp/sdk against
// github.com/modelcontextprotocol/go-sdk and github.com/mark3labs/mcp-go,
// both ways, over stdio and Streamable HTTP (docs/interop.md).
// It is a separate module so that the library itself never depends on
// either. Everything here lives in _test.go files; see BENCHMARKS.md at the
// repository root for how to run the benchmarks and what they measured.
package compat
