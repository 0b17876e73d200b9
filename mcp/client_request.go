package mcp

import (
	"context"
	"fmt"

	"github.com/gomcp/sdk/jsonrpc"
)

// ClientRequest is what a client-side handler receives for a request the
// server sent it: the server's decoded params, the session, and the handle
// for what the handler does about the request (ID, Meta, ProtocolVersion,
// NotifyProgress). It is the client's counterpart of ServerRequest, for
// the sampling and elicitation handlers and for the typed methods of
// AddClientMethod and AddClientNotificationHandler.
//
// At 2026-07-28 a server asks for sampling and elicitation inside a result
// (input_required) rather than with a request of its own: the handler then
// runs with no ID, and NotifyProgress has no request to report on.
type ClientRequest[P any] struct {
	// Session is the session the server asked on.
	Session *ClientSession
	// Params are the server's params, decoded.
	Params P

	id   jsonrpc.ID
	meta *Meta
}

// Request types handed to client handlers.
type (
	CreateMessageRequest = ClientRequest[*CreateMessageParams]
	ElicitRequest        = ClientRequest[*ElicitParams]
)

func newClientRequest[P any](cs *ClientSession, id jsonrpc.ID, p P, meta *Meta) *ClientRequest[P] {
	return &ClientRequest[P]{Session: cs, Params: p, id: id, meta: meta}
}

// ID returns the JSON-RPC id of the server's request; zero for a
// notification, and for an input request of a 2026-07-28 result.
func (r *ClientRequest[P]) ID() jsonrpc.ID { return r.id }

// Meta returns the request's params._meta, or nil.
func (r *ClientRequest[P]) Meta() *Meta { return r.meta }

// ProtocolVersion returns the revision of the session the request came on
// ("" for a request built without one, as a test may).
func (r *ClientRequest[P]) ProtocolVersion() string {
	if r.Session == nil {
		return ""
	}
	return r.Session.ProtocolVersion()
}

// ProgressToken returns the token the server attached to ask for progress.
func (r *ClientRequest[P]) ProgressToken() (ProgressToken, bool) {
	if r.id.IsZero() || r.meta == nil || r.meta.ProgressToken.IsZero() {
		return ProgressToken{}, false
	}
	return r.meta.ProgressToken, true
}

// NotifyProgress reports progress on the server's request (the server reads
// it with ServerOptions.ProgressHandler). It does nothing when the server
// did not ask for progress, or the request has no id. total and message
// may be zero.
func (r *ClientRequest[P]) NotifyProgress(ctx context.Context, progress, total float64, message string) error {
	tok, ok := r.ProgressToken()
	if !ok {
		return nil
	}
	return r.Session.notify(ctx, NotificationProgress, &ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

// A ClientMethodHandlerFor answers a custom request the server sends the
// client (see AddClientMethod): req.Params holds the params, decoded; the R
// returned is the result. An error that is a *jsonrpc.Error is sent as it
// is; any other is an internal error.
type ClientMethodHandlerFor[P, R any] func(ctx context.Context, req *ClientRequest[P]) (R, error)

// A ClientNotificationHandlerFor handles a custom notification the server
// sends the client (see AddClientNotificationHandler).
type ClientNotificationHandlerFor[P any] func(ctx context.Context, req *ClientRequest[P])

// AddClientMethod adds or replaces a request the client answers beyond the
// core protocol, typed: the client's counterpart of AddMethod. The params
// are decoded once, before the handler runs, into P, as AddMethod decodes
// them (a JSON object, or absent, whose members P knows; -32602 otherwise).
// A server sends it with ServerSession.Call, or Call[R] on the session:
// server requests travel on a stateful session (2024-11-05 to 2025-11-25);
// a 2026-07-28 server sends none.
//
// It fails with an error wrapping ErrInvalidMethod for an empty name, a nil
// handler, or a name the specification defines. Client.AddMethod is the
// raw form.
func AddClientMethod[P, R any](c *Client, name string, h ClientMethodHandlerFor[P, R]) error {
	if h == nil {
		return fmt.Errorf("%w: %q needs a handler", ErrInvalidMethod, name)
	}
	return c.addCustom(name, func(ctx context.Context, r *Request) (any, error) {
		if r.IsNotification() {
			return nil, nil // a request sent as a notification has no one to answer
		}
		p, _, err := decodeCustomParams[P](r.Params)
		if err != nil {
			return nil, err
		}
		meta, err := r.Meta()
		if err != nil {
			return nil, err
		}
		res, err := h(ctx, newClientRequest(r.Session.(*ClientSession), r.ID, p, meta))
		if err != nil {
			return nil, err
		}
		if isNil(res) {
			return &emptyParams{}, nil // a result is an object, never null
		}
		return res, nil
	})
}

// AddClientNotificationHandler adds or replaces the handler of a
// notification the server sends the client beyond the core protocol,
// decoded into P (one that does not decode is dropped): the client's
// counterpart of AddNotificationHandler. A server sends it at every
// revision with ServerRequest.Notify, about a request, or on a stateful
// session with ServerSession.Notify. It fails as AddClientMethod does.
func AddClientNotificationHandler[P any](c *Client, name string, h ClientNotificationHandlerFor[P]) error {
	if h == nil {
		return fmt.Errorf("%w: %q needs a handler", ErrInvalidMethod, name)
	}
	return c.addCustom(name, func(ctx context.Context, r *Request) (any, error) {
		if !r.IsNotification() {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s is a notification", r.Method)
		}
		p, _, err := decodeCustomParams[P](r.Params)
		meta, merr := r.Meta()
		if err != nil || merr != nil {
			return nil, nil
		}
		h(ctx, newClientRequest(r.Session.(*ClientSession), jsonrpc.ID{}, p, meta))
		return nil, nil
	})
}

// addCustom registers a typed client method after refusing the
// specification's names.
func (c *Client) addCustom(name string, h MethodHandler) error {
	if SpecMethod(name) {
		return fmt.Errorf("%w: %q is a method of the specification", ErrInvalidMethod, name)
	}
	return c.AddMethod(name, h)
}
