package jsonrpc

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
)

// NewReply builds the response to request id from what its handler
// returned, as a Conn does: an error of type *Error is sent as it is, any
// other error as CodeInternalError with its text, and a result is encoded
// (through Appender when it implements it). A result that fails to encode,
// or whose encoding panics, becomes CodeInternalError. It is for code that
// serves a request without a Conn (a stateless HTTP request).
func NewReply(id ID, result any, err error) *Message { return newReply(id, result, err, nil) }

// newReply is NewReply, logging to log (when not nil) what the peer only
// sees as an internal error. Encoding the result runs its MarshalJSON or
// AppendJSON method, so a panic there is recovered too.
func newReply(id ID, result any, err error, log *slog.Logger) (reply *Message) {
	defer func() {
		if p := recover(); p != nil {
			if log != nil {
				log.Error("jsonrpc: encoding a result panicked", "id", id, "panic", p, "stack", string(debug.Stack()))
			}
			reply = NewErrorResponse(id, NewError(CodeInternalError, "internal error"))
		}
	}()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			if e == nil { // a typed nil *Error: still a failure
				e = NewError(CodeInternalError, "internal error")
			}
			return NewErrorResponse(id, e)
		}
		return NewErrorResponse(id, NewError(CodeInternalError, err.Error()))
	}
	raw, err := Marshal(result)
	if err != nil {
		if log != nil {
			log.Error("jsonrpc: cannot encode result", "id", id, "err", err)
		}
		return NewErrorResponse(id, NewError(CodeInternalError, "internal error: cannot encode result"))
	}
	return NewResponse(id, raw)
}

// WithMessage returns a context carrying what a Conn attaches to a
// handler's context for the incoming message m: its id (RelatedRequest)
// and its transport info (MessageInfo). It is for code that serves a
// message without a Conn.
func WithMessage(ctx context.Context, m *Message) context.Context {
	return &requestCtx{Context: ctx, id: m.ID, info: m.Info}
}
