package hooks

import (
	"context"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/mcp"
)

// OnListRoots makes fn answer the roots questions of c's servers, at every
// revision (a roots/list request on a stateful session, a roots input
// request of a 2026-07-28 result), instead of the client's fixed roots
// (ClientOptions.Roots, Client.SetRoots): for a client whose roots depend on
// the session or the call, such as a gateway answering for the client
// behind it. fn's ctx is the call's own for an input request. The client
// must still declare the roots capability (ClientOptions.Roots or
// Capabilities). A later call replaces fn.
func OnListRoots(c *mcp.Client, fn func(ctx context.Context, cs *mcp.ClientSession) (*mcp.ListRootsResult, error)) {
	bridge.SetRootsFunc(c, fn)
}
