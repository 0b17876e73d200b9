// Package serversession sends the requests a server may make of its
// client on a stateful session outside any request of the client's: at
// startup, from a timer, or in a RootsListChangedHandler (go-sdk's
// ServerSession.Elicit and ServerSession.CreateMessage).
//
// A handler asks through its request instead (mcp.ServerRequest's Elicit
// and CreateMessage), which works at every protocol revision, 2026-07-28
// included. A 2026-07-28 client has no session, so there is nothing to send
// these on: they are for sessions of the initialize-era revisions
// (2025-11-25 and before), over stdio, Streamable HTTP sessions or SSE.
package serversession

import (
	"context"

	"github.com/gomcp/sdk/internal/bridge"
	"github.com/gomcp/sdk/mcp"
)

// Elicit asks the session's user for input through the client
// (elicitation/create). It fails with an error wrapping mcp.ErrCapability
// if the client did not declare elicitation (or the URL mode p asks for),
// or the session's revision lacks it.
func Elicit(ctx context.Context, ss *mcp.ServerSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	res, err := bridge.Elicit(ctx, ss, p)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.ElicitResult), nil
}

// CreateMessage asks the client's model for a completion
// (sampling/createMessage). It fails with an error wrapping
// mcp.ErrCapability if the client did not declare sampling (or sampling
// with tools, when p has tools).
func CreateMessage(ctx context.Context, ss *mcp.ServerSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	res, err := bridge.CreateMessage(ctx, ss, p)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CreateMessageResult), nil
}
