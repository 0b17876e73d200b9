package jsonrpc

import "context"

// A Starter is a Stream that must be started before use, such as one that
// runs a subprocess and talks to it over its standard input and output.
// Describing the stream as a value and starting it later lets the code that
// opens the connection (mcp.Client.Connect) own the whole life of what is
// behind it: Connect calls Start before anything else, and closes the
// stream if starting or the handshake that follows fails.
//
// Start's ctx bounds only the starting itself, not the life of what it
// starts (a subprocess outlives it and ends with Close). Before Start, Read
// and Write fail; Start may succeed at most once. When Start fails, nothing
// is left running, and Close is still allowed.
type Starter interface {
	Stream
	Start(ctx context.Context) error
}
