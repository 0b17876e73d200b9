package bridge

// SetRootsFunc gives an *mcp.Client the function
// (func(context.Context, *mcp.ClientSession) (*mcp.ListRootsResult, error))
// that answers its servers' roots questions (hooks.OnListRoots).
var SetRootsFunc func(client any, fn any)
