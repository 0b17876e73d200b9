package mcp

import (
	"context"
	"runtime/debug"

	"github.com/gomcp/sdk/jsonrpc"
)

// HandleStateless serves one message of the stateless revision
// (2026-07-28) that arrived outside any connection: the Streamable HTTP
// handler calls it for each such POST. No session is involved.
//
// The handler runs on the caller's goroutine. ctx's values reach it (what
// HTTP middleware stored, and m.Info through jsonrpc.MessageInfo) and ctx's
// end cancels it. Messages the handler sends while it runs (progress, logs,
// subscriptions/listen notifications) are passed to send, in order, before
// HandleStateless returns. It returns the response, or nil for a
// notification and when ctx ended before the handler answered (the client
// went away, so nobody waits for an answer). A panicking handler is answered
// with CodeInternalError.
func (s *Server) HandleStateless(ctx context.Context, m *jsonrpc.Message, send func(context.Context, *jsonrpc.Message) error) (reply *jsonrpc.Message) {
	ctx = jsonrpc.WithMessage(ctx, m)
	meta := peekMeta(m.Params, s)
	r := &Request{Method: m.Method, ID: m.ID, Params: m.Params, meta: meta, rc: newRequestContext(ctx, &streamOut{s: s, send: send}, m.Method, meta)}
	res, err := s.receiveSafely(ctx, r)
	if r.IsNotification() || ctx.Err() != nil {
		return nil
	}
	return jsonrpc.NewReply(m.ID, res, err)
}

// callerOf returns the principal the transport named for the message of
// ctx, when its message info offers one through a Principal method (the
// Streamable HTTP transport's does).
func callerOf(ctx context.Context) string {
	if p, ok := jsonrpc.MessageInfo(ctx).(interface{ Principal() string }); ok {
		return p.Principal()
	}
	return ""
}

// cache returns the cache of client context decoded from the _meta of
// stateless requests served without a connection.
func (s *Server) cache() *metaCache { return &s.metaCache }

// receiveSafely runs the Receiving middleware and the route, turning a
// panic into CodeInternalError as a connection would.
func (s *Server) receiveSafely(ctx context.Context, r *Request) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: handler panicked", "method", r.Method, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error")
		}
	}()
	return s.receive(ctx, r)
}

// streamOut sends the messages about one stateless request to its response
// stream, through the Sending middleware.
type streamOut struct {
	s    *Server
	send func(context.Context, *jsonrpc.Message) error
}

func (o *streamOut) notify(ctx context.Context, method string, params any) error {
	return sendNotify(ctx, o.write, nil, o.s.mw.sendingMW(), method, params)
}

func (o *streamOut) write(ctx context.Context, method string, params any) error {
	raw, err := jsonrpc.Marshal(params)
	if err != nil {
		return err
	}
	return o.send(ctx, jsonrpc.NewNotification(method, raw))
}

// gone is nil: only the request's ctx tells that the client went away.
func (o *streamOut) gone() <-chan struct{} { return nil }
