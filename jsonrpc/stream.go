package jsonrpc

import (
	"context"
	"errors"
)

// A Stream carries decoded messages between two peers. It is the seam between
// a transport (stdio, pipes, HTTP, ...) and the Conn that runs the protocol.
//
// Transports decode each incoming message exactly once, with Decode, and hand
// the result to Read's caller; a message that fails to decode is still
// returned (with Invalid set), so that the Conn can answer it and carry on.
// Read returns an error only when the stream itself is finished or broken.
//
// Write may be called from many goroutines at once. The ctx passed to Write
// carries the id of the incoming request the message relates to, if any (see
// RelatedRequest), so a transport such as Streamable HTTP can route a
// response or a progress notification to the right HTTP response stream.
// A Stream must not retain or modify a written message after Write returns
// unless the message is handed over whole (as an in-memory pipe does).
type Stream interface {
	Read(ctx context.Context) (*Message, error)
	Write(ctx context.Context, m *Message) error
	Close() error
}

// A PushStream is a Stream whose transport hands incoming messages to the
// Conn itself, on its own goroutines, instead of having a reader goroutine
// pull them with Read. A server transport whose messages arrive on goroutines
// it already has (an HTTP handler's, one per request) implements it, so that
// an idle connection costs no goroutine.
//
// NewConn calls Attach once, before it returns, and never calls Read. The
// transport then calls c.Push for each incoming message and c.EndPush when
// the peer can send no more (Close must lead to EndPush too: Conn.Close waits
// for it).
type PushStream interface {
	Stream
	Attach(c *Conn)
}

// A BatchGate is a Stream that decodes the bytes it receives itself (a
// newline-delimited stream does, with a Decoder), and so can refuse a batch
// before decoding its elements. NewConn calls GateBatches once, before the
// first Read, with ConnOptions.Batches when that is set, and leaves the
// decision to the stream: a refused batch then arrives as one invalid
// message carrying the refusal, whatever it held, instead of costing a
// decoded message per element first.
type BatchGate interface {
	Stream
	GateBatches(batches func() *Error)
}

// ErrClosed is returned by operations on a closed Conn or Stream.
var ErrClosed = errors.New("jsonrpc: connection closed")

type relatedKey struct{}

// WithRelatedRequest returns a context that marks messages written with it as
// related to the incoming request id. A zero id marks nothing.
func WithRelatedRequest(ctx context.Context, id ID) context.Context {
	return &requestCtx{Context: ctx, id: id}
}

// RelatedRequest returns the id of the incoming request whose handling
// produced ctx, if any. Conn sets it on every handler context and on the
// context passed to Stream.Write for that request's response.
func RelatedRequest(ctx context.Context) (ID, bool) {
	if id, ok := ctx.Value(relatedKey{}).(*ID); ok {
		return *id, true
	}
	return ID{}, false
}

type infoKey struct{}

// MessageInfo returns the transport information (Message.Info) of the
// incoming message whose handling produced ctx, or nil.
func MessageInfo(ctx context.Context) any { return ctx.Value(infoKey{}) }

// withInfo returns ctx carrying info, or ctx itself when info is nil.
func withInfo(ctx context.Context, info any) context.Context {
	if info == nil {
		return ctx
	}
	return &requestCtx{Context: ctx, info: info}
}

// requestCtx carries what Conn attaches to the contexts of one incoming
// message: the related request id and the transport info. It is one
// allocation where context.WithValue would need one per value plus one to box
// the ID.
type requestCtx struct {
	context.Context
	id   ID // zero: none
	info any
	// reader and run, set for a request the reader runs itself (runInline),
	// let a call the handler makes hand reading over at once (handOff).
	reader *Conn
	run    uint64
}

// Value implements context.Context.
func (c *requestCtx) Value(key any) any {
	switch key.(type) {
	case relatedKey:
		if !c.id.IsZero() {
			return &c.id
		}
	case infoKey:
		if c.info != nil {
			return c.info
		}
	case inlineKey:
		if c.reader != nil {
			return c
		}
	}
	return c.Context.Value(key)
}
