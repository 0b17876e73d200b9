package mcp

import (
	"context"

	"github.com/gomcp/sdk/internal/bridge"
)

// rootsFunc answers a server's roots questions instead of the client's
// static roots (hooks.OnListRoots).
type rootsFunc func(ctx context.Context, cs *ClientSession) (*ListRootsResult, error)

func init() {
	bridge.SetRootsFunc = func(c any, fn any) {
		f := rootsFunc(fn.(func(context.Context, *ClientSession) (*ListRootsResult, error)))
		c.(*Client).rootsFn.Store(&f)
	}
}

// listRoots answers roots/list, or a roots input request, for cs: with the
// hook's function when one is set, else with the client's roots. ok is false
// when the client has neither (it does not support roots).
func (c *Client) listRoots(ctx context.Context, cs *ClientSession) (res *ListRootsResult, ok bool, err error) {
	if f := c.rootsFn.Load(); f != nil {
		res, err = (*f)(ctx, cs)
		return res, true, err
	}
	c.mu.Lock()
	roots := c.roots
	c.mu.Unlock()
	if roots == nil && c.opts.Roots == nil {
		return &ListRootsResult{Roots: []*Root{}}, false, nil
	}
	if roots == nil {
		roots = []*Root{}
	}
	return &ListRootsResult{Roots: roots}, true, nil
}
