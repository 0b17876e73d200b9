// Package jsonrpc is JSON-RPC 2.0 for MCP: the messages (Message, ID,
// Error), their strict decoding (Decode: valid UTF-8, "2.0", an id that is
// a string or an integer, params an object or array, result xor error) and
// encoding (AppendJSON), and Conn, the engine that runs one peer over a
// Stream: it matches responses to calls, runs incoming requests on a
// bounded set of workers and notifications on one ordered lane, and
// answers whatever it cannot handle with the error the specification
// names, so that bad input never ends a connection.
//
// A transport implements Stream (Read, Write, Close of decoded messages),
// or PushStream when it delivers incoming messages itself on goroutines it
// already has (Conn.Push), and Starter when it must be started first.
//
// # How a message is dispatched
//
// Conn's single reader goroutine routes the message without blocking:
// responses go straight to the waiting Call, tagged with how many
// notifications the lane had queued when the response was read; notifications
// join the ordered lane (one goroutine, spawned on demand, handles them in
// arrival order; at most MaxQueuedNotifications wait, later ones are dropped;
// on Close the queued ones are still handled). A Call returns only once the
// lane has handled every notification read before its response (one atomic
// load when the lane is idle; otherwise it waits for the lane, unless it was
// made with a notification handler's own context), so a server's log and
// progress messages are seen before the result they precede, on every
// transport. A slow notification handler delays the responses read after it,
// never the reading itself; requests are registered as in flight (so
// notifications/cancelled can reach them) and handed to a worker. At most
// MaxConcurrency workers exist; extra requests wait in a queue bounded by
// MaxQueued, beyond which they are refused with -32000. Workers exit when the
// queue is empty, so an idle connection holds only its reader. One exception
// saves the hand-off on a byte stream (jsonrpc.Buffered): while a worker slot
// is free, a request runs on the reader itself (unless ConnOptions.Inline is
// InlineNever; the reader and Conn.Push take the same path, so a push stream's
// transport gets the same choice per message), and if its handler outlasts 200
// µs (50 µs when more input is already buffered behind it, so that a
// pipelining peer's other requests soon run in parallel) a timer's goroutine
// takes over reading, so a slow handler never holds up the peer's next
// messages (cancellations included) for longer. A handler that makes a call
// (with its context) hands reading over at once instead, when the call goes
// to the same peer or more input is already buffered (a gateway forwarding
// its requests upstream, say). A reader that handed reading over stands by,
// once its handler is done, to read again at the next hand-over, so that
// reading does not move to a new goroutine each time. The answers of requests run
// that way while more input waits are held by the stream
// (jsonrpc.HoldingStream) and go out in one write with the answer of the last
// request of the run, or before the reader waits for input. So do the
// requests such handlers send to another peer while a whole request waits
// (MessageBuffer), when that peer's stream can hold them: they are held
// there and go out in one write once the reader has read what waited (a
// gateway's burst of forwarded requests then costs the upstream one write,
// not one each). Invalid requests are answered with -32700/-32600; a
// malformed response is dropped unanswered (its id is one of ours). Every message refused or dropped without reaching
// the handler is counted (Conn.Stats) and reported to ConnOptions.OnReject.
//
// # Limits
//
//   - Per connection: one reader goroutine (none on a PushStream), at most
//     MaxConcurrency request workers, at most one notification goroutine; no
//     per-request goroutines beyond the bounded workers. The HTTP handler
//     expires idle sessions with one timer for all of them.
//   - Message size, queued requests and concurrent handlers are bounded and
//     configurable. JSON-RPC batches are accepted only at 2025-03-26
//     (ConnOptions.Batches); elsewhere a batch gets one error saying so. The
//     decision is made where bytes are decoded, before any element is: a
//     jsonrpc.Decoder counts a batch's elements first (at most MaxBatch,
//     default 1,000; beyond, one error) and asks its Batches policy, which a
//     line stream gets from its Conn (jsonrpc.BatchGate) and the HTTP handlers
//     from the request's headers and session. Invalid elements share their
//     error values, and a Conn their replies, so a batch costs about its
//     answer. Queued notifications are bounded too (MaxQueuedNotifications,
//     default 1024): past the bound a notification is dropped, never blocking
//     the reader; drops are logged once per burst and counted in Conn.Stats.
//     Barrier notifications are handled on the reader, never queued, so never
//     dropped: MCP marks notifications/cancelled (both sides) so. Outgoing
//     calls honour context deadlines and an optional default timeout, and
//     return by them: a cancelled outgoing call returns at once, and
//     OnCancel (MCP's notifications/cancelled) runs on its own goroutine.
//     A call that fails without an answer says whether its request may
//     have reached the peer (ErrNotSent, ErrOutcomeUnknown), and one made
//     under Idempotent is sent again after ErrOutcomeUnknown.
//   - A request the peer cancels gets its context cancelled and no response; a
//     queued one leaves the queue at once, and nothing more (progress, logs,
//     requests) is sent with its context. A request reusing an id in flight is
//     refused with id null, so the refusal is not taken for the live request's
//     answer. MCP's ping is a Barrier: answered even when the queue is full.
package jsonrpc
