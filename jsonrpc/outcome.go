package jsonrpc

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Every error a Call returns, other than the peer's own error response
// (an *Error), says whether the request may have reached the peer: it
// matches ErrNotSent or ErrOutcomeUnknown with errors.Is, and still
// matches its cause (context.DeadlineExceeded, ErrClosed, a transport's
// error). A caller may send a request that failed with ErrNotSent again;
// one that failed with ErrOutcomeUnknown may have run, so only a request
// that is safe to run twice may be (see Idempotent).
var (
	// ErrNotSent marks a call whose request provably never reached the
	// peer: the connection was closed or refused, the request was never
	// written, or a proxy refused it before the peer saw it. Transports
	// retry such failures themselves where they can (Streamable HTTP does,
	// within the call's deadline), so the caller sees it only once they
	// gave up.
	ErrNotSent = errors.New("jsonrpc: the request did not reach the peer")

	// ErrOutcomeUnknown marks a call whose request may have reached the
	// peer, and may have run, but whose response did not arrive: the
	// deadline ended while waiting, or the connection broke after the
	// request was written.
	ErrOutcomeUnknown = errors.New("jsonrpc: the request may have reached the peer; its outcome is unknown")
)

// outcomeError is an error classified by ErrNotSent or ErrOutcomeUnknown.
// Its message is its cause's.
type outcomeError struct {
	kind  error
	cause error
}

func (e *outcomeError) Error() string   { return e.cause.Error() }
func (e *outcomeError) Unwrap() []error { return []error{e.kind, e.cause} }

// NotSent returns err marked with ErrNotSent, for transports that know a
// write failed before any byte of the message reached the peer. A nil err
// stays nil; an err already marked keeps its mark.
func NotSent(err error) error { return mark(ErrNotSent, err) }

// OutcomeUnknown returns err marked with ErrOutcomeUnknown, for transports
// that lost a message after it may have reached the peer. A nil err stays
// nil; an err already marked keeps its mark.
func OutcomeUnknown(err error) error { return mark(ErrOutcomeUnknown, err) }

func mark(kind, err error) error {
	if err == nil || errors.Is(err, ErrNotSent) || errors.Is(err, ErrOutcomeUnknown) {
		return err
	}
	return &outcomeError{kind: kind, cause: err}
}

// FailedResponse returns the response a transport delivers in place of
// the peer's when the answer to request id can no longer arrive (its
// stream broke and could not be resumed): it carries err as a
// CodeInternalError for readers that look at Error, and a Conn's Call
// returns err itself, marked with ErrOutcomeUnknown unless err is already
// marked, and sends the request again when its context is Idempotent.
func FailedResponse(id ID, err error) *Message {
	err = OutcomeUnknown(err)
	return &Message{ID: id, Error: &Error{Code: CodeInternalError, Message: err.Error(), local: err}}
}

type idempotentKey struct{}

// Idempotent returns a context under which a Call may be sent again after
// it failed with ErrOutcomeUnknown (the connection broke after the request
// was written, or its answer stream was cut), because running the request
// twice does no harm. MCP clients use it for tools annotated idempotentHint.
// The call is sent again at most maxResends times, with jittered backoff,
// and never past ctx's deadline.
func Idempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// IsIdempotent reports whether ctx was made by Idempotent.
func IsIdempotent(ctx context.Context) bool {
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}

// maxResends bounds how often an Idempotent call is sent again.
const maxResends = 3

// Backoff returns the jittered delay before attempt n (from 0) of a
// reconnection or a resend: base doubled n times, capped at max, then
// drawn uniformly from its upper half ("equal jitter"), so that clients
// that failed together do not come back together.
func Backoff(n int, base, max time.Duration) time.Duration {
	d := base
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// resendable reports whether a call that failed with err under ctx is to
// be sent again: it was Idempotent, resends remain, its outcome is
// unknown (one not sent was retried by the transport already) and ctx
// still has time for it.
func resendable(ctx context.Context, err error, attempt int) bool {
	return attempt < maxResends && ctx.Err() == nil && errors.Is(err, ErrOutcomeUnknown) &&
		!errors.Is(err, ErrClosed) && IsIdempotent(ctx)
}
