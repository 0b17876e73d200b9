// Package transport carries JSON-RPC messages between MCP peers. Every
// transport is a jsonrpc.Stream: newline-delimited JSON over any byte stream
// (NewLineStream, Stdio), a subprocess speaking that framing on its stdin
// and stdout (CommandTransport, started by mcp.Client.Connect), and an
// in-memory pair that skips encoding altogether (Pipe).
package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// DefaultMaxMessageSize is the default limit on one incoming line: 16 MiB,
// well above any realistic MCP message (large tool results included) while
// still bounding what a misbehaving peer can make us buffer.
const DefaultMaxMessageSize = 16 << 20

const (
	// readBufferSize is the size of the bufio.Reader under a line stream.
	// Lines that fit are decoded straight out of it, without a copy.
	readBufferSize = 64 << 10
	// maxRetainedLine bounds the line buffer kept between reads, so that one
	// huge message does not pin its memory for the life of the stream.
	// Messages of a few MiB (a large tool result or argument) reuse it
	// instead of growing a new one, copy by copy, each time.
	maxRetainedLine = 4 << 20
	// maxPooledWrite bounds the encode buffers returned to the pool (which
	// the garbage collector empties): a large answer written again and
	// again reuses its buffer instead of growing one from 2 KiB each time.
	maxPooledWrite = 4 << 20
	// maxHeld is how many bytes of answers WriteHeld keeps back at most:
	// past it they are written at once. A pipe holds 64 KiB; answers beyond
	// that gain nothing from waiting. The buffer of held answers is kept
	// between writes up to twice that.
	maxHeld = 32 << 10
)

// LineOptions configures a newline-delimited stream. The zero value (and a
// nil *LineOptions) selects the defaults.
type LineOptions struct {
	// MaxMessageSize is the largest incoming line accepted, in bytes, not
	// counting the line terminator ("\n" or "\r\n"). A longer line is
	// skipped without being buffered whole and reported as an invalid
	// message (code -32600, "message too large (limit N bytes)"); the stream
	// carries on with the next line. Zero or negative means
	// DefaultMaxMessageSize.
	MaxMessageSize int

	// MaxBatch bounds the messages of one incoming JSON-RPC batch. A larger
	// batch is answered with a single error (code -32600, id null): its
	// elements are counted, never decoded. Zero or negative means
	// jsonrpc.DefaultMaxBatch (1,000).
	MaxBatch int
}

func (o *LineOptions) maxBatch() int {
	if o == nil {
		return 0
	}
	return o.MaxBatch
}

func (o *LineOptions) maxMessageSize() int {
	if o == nil || o.MaxMessageSize <= 0 {
		return DefaultMaxMessageSize
	}
	return o.MaxMessageSize
}

// writeBufs holds encode buffers shared by every line stream.
var writeBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 2048)
	return &b
}}

// readDeadliner is implemented by readers whose blocked Read can be
// interrupted (net.Conn, pipes and other pollable *os.File values).
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// flusher is implemented by buffered writers such as *bufio.Writer.
type flusher interface {
	Flush() error
}

// lineStream is the newline-delimited JSON framing behind NewLineStream,
// Stdio and CommandTransport.
type lineStream struct {
	// Read side, guarded by rmu.
	rmu      sync.Mutex
	br       *bufio.Reader
	dl       readDeadliner // nil when the reader cannot be interrupted
	max      int
	line     []byte // the line being assembled when it spans reads
	skipping bool   // discarding the rest of an over-long line
	dec      jsonrpc.Decoder
	watch    *deadlineWatch // watches the ctx of the last Read, kept for the next (see Read)

	// Write side, guarded by wmu. One goroutine at a time writes to w
	// (writing), without holding wmu; lines written meanwhile are queued
	// and go out together in its next write (see send).
	wmu      sync.Mutex
	wended   sync.Cond // a write to w ended (L is &wmu)
	w        io.Writer
	flush    flusher
	writing  bool        // a goroutine is writing to w
	queued   []byte      // lines for write number started+1, while writing
	spare    []byte      // a buffer for queued, kept between writes
	started  uint64      // writes to w started
	finished uint64      // writes to w ended
	werr     error       // the first write to w that failed, and every one after it
	errAt    uint64      // the number of that write
	held     []byte      // lines kept back by WriteHeld; empty while writing
	hold     atomic.Bool // held is not empty: the reader flushes it before it waits

	rclosed   atomic.Bool
	wclosed   atomic.Bool
	closer    io.Closer
	closeOnce sync.Once
}

// NewLineStream returns a Stream that exchanges newline-delimited JSON
// messages over r and w, the framing MCP uses on stdio: one message per
// line, UTF-8, no embedded newlines. closer, which may be nil, is closed by
// the stream's Close; it is typically what owns r and w. opts may be nil.
//
// Read skips blank lines and strips a trailing "\r", so CRLF peers work. A
// line that is not a valid message comes back with Invalid set, ready to be
// answered, and the stream carries on. At the end of r, Read returns io.EOF
// (a final line without a newline is still delivered first). Read must not
// be called from several goroutines at once (they would be serialised).
//
// Read honours ctx as far as r allows: a Read whose ctx is already done
// returns at once, and when r has a SetReadDeadline method (net.Conn, pipes
// from os.Pipe, Stdio's standard input when it is a pipe or socket) a
// blocked Read returns ctx.Err() as soon as ctx is done, keeping any
// partial line for the next Read. Such a stream owns r's read deadline.
// Otherwise a blocked Read ends only when closer's Close makes r's Read
// return; it then returns jsonrpc.ErrClosed.
//
// Write encodes m on one line (compacting Params or Result that contain
// newlines) and hands it to w in a single Write call, followed by Flush
// when w has one. It is safe for concurrent use; lines never interleave,
// and lines written while another goroutine's write is in progress go out
// together in one call once it ends, in the order written. It returns
// once its line was written. After a call to w fails, every Write fails
// with that error (a line may have been cut short).
// The stream is a jsonrpc.HoldingStream: lines written with WriteHeld (a
// Conn's answers to requests a peer sent together) are kept back and go
// out in the same Write call as the next line written, or before Read
// waits for input, on FlushHeld, or on Close.
// Write does not watch ctx: abandoning a write halfway would corrupt the
// framing. After Close, Write returns jsonrpc.ErrClosed.
//
// A batch holds at most LineOptions.MaxBatch messages, and the stream is a
// jsonrpc.BatchGate: a Conn whose protocol refuses batches (an MCP session
// of any revision but 2025-03-26) has it refuse one before decoding its
// elements, with a single error.
//
// Close marks the stream closed and closes closer; it is idempotent and
// only the first call reports closer's error.
func NewLineStream(r io.Reader, w io.Writer, closer io.Closer, opts *LineOptions) jsonrpc.Stream {
	return newLineStream(r, w, closer, opts, readBufferSize)
}

func newLineStream(r io.Reader, w io.Writer, closer io.Closer, opts *LineOptions, bufSize int) *lineStream {
	s := &lineStream{
		max:    opts.maxMessageSize(),
		dec:    jsonrpc.Decoder{MaxBatch: opts.maxBatch()},
		w:      w,
		closer: closer,
	}
	s.wended.L = &s.wmu
	s.br = bufio.NewReaderSize(flushingReader{r, s}, bufSize)
	s.dl, _ = r.(readDeadliner)
	s.flush, _ = w.(flusher)
	return s
}

// Read returns the next message. See NewLineStream.
func (s *lineStream) Read(ctx context.Context) (*jsonrpc.Message, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.rclosed.Load() {
		return nil, jsonrpc.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.watchContext(ctx)
	m, err := s.readMessage()
	if err != nil {
		if s.rclosed.Load() {
			s.stopWatch()
			return nil, jsonrpc.ErrClosed
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return m, nil
}

// watchContext makes a blocked read end when ctx is done, if the reader
// allows it. The watch stays in place after the read: a reader such as a
// Conn's reads with the same ctx again and again, and registering a
// watch with it for every message cost an allocation and a lock of ctx
// each time. Until the next Read, a watch that fires leaves the reader's
// deadline in the past: a Read with the same ctx returns at once anyway,
// and one with another ctx stops it first, which clears the deadline.
// s.rmu is held.
func (s *lineStream) watchContext(ctx context.Context) {
	if s.watch != nil && s.watch.ctx == ctx {
		return
	}
	s.stopWatch()
	if s.dl != nil && ctx.Done() != nil {
		s.watch = watchDeadline(ctx, s.dl)
	}
}

// stopWatch ends the watch of the last Read's ctx, if any; s.rmu is held.
func (s *lineStream) stopWatch() {
	if s.watch != nil {
		s.watch.stop()
		s.watch = nil
	}
}

// readMessage reads up to the next non-blank line and decodes it. On an
// error other than io.EOF the partial line is kept, so a later call resumes
// where this one stopped.
func (s *lineStream) readMessage() (*jsonrpc.Message, error) {
	for {
		frag, err := s.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			s.appendFragment(frag)
			continue
		}
		if err != nil && err != io.EOF {
			s.appendFragment(frag)
			return nil, err
		}
		// frag completes a line, or is the unterminated tail at EOF.
		line := frag
		if len(s.line) > 0 || s.skipping {
			s.appendFragment(frag)
			line = s.line
		}
		skipped := s.skipping
		line = trimEOL(line)
		var m *jsonrpc.Message
		switch {
		case skipped || len(line) > s.max:
			m = &jsonrpc.Message{Invalid: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
				"message too large (limit %d bytes)", s.max)}
		case !isBlank(line):
			m = s.dec.Decode(line) // copies, so the buffers can be reused
		}
		s.resetLine()
		if m != nil {
			return m, nil
		}
		if err == io.EOF {
			return nil, io.EOF
		}
	}
}

// appendFragment adds part of a line to the line buffer, switching to
// skipping mode once the line is certain to exceed the limit. The buffer
// never holds more than max+2 bytes (the content and a "\r\n").
func (s *lineStream) appendFragment(frag []byte) {
	if s.skipping || len(frag) == 0 {
		return
	}
	if len(s.line)+len(frag) > s.max+2 {
		s.skipping = true
		s.line = s.line[:0]
		return
	}
	s.line = append(s.line, frag...)
}

func (s *lineStream) resetLine() {
	s.skipping = false
	if cap(s.line) > maxRetainedLine {
		s.line = nil
	} else {
		s.line = s.line[:0]
	}
}

// trimEOL removes a trailing "\n" and then a trailing "\r".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// isBlank reports whether b holds only JSON whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// GateBatches makes the stream refuse a batch, before decoding its
// elements, whenever batches says so (jsonrpc.BatchGate). A Conn calls it
// before its first Read.
func (s *lineStream) GateBatches(batches func() *jsonrpc.Error) {
	s.rmu.Lock()
	s.dec.Batches = batches
	s.rmu.Unlock()
}

// Buffered reports how many bytes were read from the peer but not consumed
// yet (jsonrpc.Buffered): zero means the peer has sent nothing more, so a
// Conn runs the request just read on its reader goroutine. A line being
// assembled counts too.
func (s *lineStream) Buffered() int {
	if !s.rmu.TryLock() {
		return 1 // a Read is in progress: assume more is coming
	}
	defer s.rmu.Unlock()
	return s.br.Buffered() + len(s.line)
}

// MessageWaiting reports whether a whole line was read from the peer and
// not consumed yet (jsonrpc.MessageBuffer), so that the next Read returns
// without waiting: a Conn holds the requests it forwards to another peer
// only while one is, and a peer still sending a line (or one being
// skipped as too long) cannot hold them back.
func (s *lineStream) MessageWaiting() bool {
	if !s.rmu.TryLock() {
		return false // a Read is in progress: it may wait
	}
	defer s.rmu.Unlock()
	n := s.br.Buffered()
	if n == 0 || s.skipping {
		return false
	}
	b, _ := s.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// appendLine appends m to b as one line, newline included. On error b is
// returned unchanged in length.
func appendLine(b []byte, m *jsonrpc.Message) ([]byte, error) {
	start := len(b)
	b = m.AppendJSON(b)
	if bytes.IndexByte(b[start:], '\n') >= 0 {
		// Raw newlines can only be insignificant whitespace inside Params,
		// Result or error data (JSON strings escape them); drop them.
		var c bytes.Buffer
		if err := json.Compact(&c, b[start:]); err != nil {
			return b[:start], fmt.Errorf("transport: cannot frame message: %w", err)
		}
		b = append(b[:start], c.Bytes()...)
	}
	return append(b, '\n'), nil
}

// Write sends m as one line, after any lines WriteHeld kept back, in one
// call to the writer, or in one with the lines of other goroutines
// writing at the same time (see send). See NewLineStream.
func (s *lineStream) Write(_ context.Context, m *jsonrpc.Message) error {
	if s.wclosed.Load() {
		return jsonrpc.ErrClosed
	}
	if m == nil {
		return errNilMessage
	}
	bp := writeBufs.Get().(*[]byte)
	b, err := appendLine((*bp)[:0], m)
	if err != nil {
		putWriteBuf(bp, b)
		return err
	}
	s.wmu.Lock()
	err = s.send(b)
	s.wmu.Unlock()
	putWriteBuf(bp, b)
	return err
}

// WriteHeld is Write for the answer to a request the reader ran itself
// (jsonrpc.HoldingStream): the line is kept back, to go out in one write
// with the lines that follow it, until the next Write, FlushHeld or Close,
// until the reader must wait for more input, or until maxHeld bytes are
// held. A Conn uses it so that the answers to the requests of one read
// cost one system call, not one each. While another goroutine writes, the
// line joins its next write instead, as Write's does.
func (s *lineStream) WriteHeld(_ context.Context, m *jsonrpc.Message) error {
	if m == nil {
		return errNilMessage
	}
	if s.wclosed.Load() {
		return jsonrpc.ErrClosed
	}
	bp := writeBufs.Get().(*[]byte)
	b, err := appendLine((*bp)[:0], m)
	if err != nil {
		putWriteBuf(bp, b)
		return err
	}
	s.wmu.Lock()
	switch {
	case s.writing || len(s.queued) > 0 || s.werr != nil || s.wclosed.Load():
		err = s.send(b)
	case len(s.held) == 0 && len(b) >= maxHeld:
		err = s.send(b) // a large answer gains nothing from waiting
	default:
		s.held = append(s.held, b...)
		if len(s.held) >= maxHeld {
			err = s.send(nil)
		} else {
			s.hold.Store(true)
		}
	}
	s.wmu.Unlock()
	putWriteBuf(bp, b)
	return err
}

// FlushHeld writes the lines WriteHeld kept back, if any
// (jsonrpc.HoldingStream).
func (s *lineStream) FlushHeld() error {
	if !s.hold.Load() {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if len(s.held) == 0 {
		return nil // or a write in progress took them
	}
	return s.send(nil)
}

// maxWriteRounds bounds the writes one goroutine makes for others (see
// send) before it returns and leaves the next to one of them.
const maxWriteRounds = 4

// send writes b (which may be empty) after the held lines and returns once
// it is written; s.wmu is held, and released while writing. Goroutines
// writing at the same time share system calls (a group commit): when
// another goroutine is writing to w, b is queued, and that goroutine
// writes the queue in one call once its write ends; so does the one that
// arrives first while nobody writes. Nothing waits for a second line to
// come: a line goes out as soon as the write before it ended. Order is
// the order of the calls to send, and each returns when its own line was
// written, or with the error that stopped it. Queued lines are bounded
// by maxHeld (beyond it a writer waits, as it would for a lock), so a
// peer that reads slowly holds back the writers as it always did, and
// no more memory than that.
func (s *lineStream) send(b []byte) error {
	for s.writing && len(s.queued) > 0 && len(s.queued)+len(b) > maxHeld {
		s.wended.Wait()
	}
	if err := s.writeErr(); err != nil {
		return err
	}
	if !s.writing && len(s.queued) == 0 && len(s.held) == 0 {
		return s.lead(b) // nothing to join: b goes out as it is
	}
	if !s.writing { // queued: a writer left them for the next (maxWriteRounds)
		s.queued = append(append(s.queued, s.held...), b...)
		s.dropHeld()
		return s.lead(nil)
	}
	s.queued = append(s.queued, b...)
	n := s.started + 1
	for s.finished < n && s.werr == nil {
		if !s.writing {
			_ = s.lead(nil) // the writer left the queue, with b, to us
			continue
		}
		s.wended.Wait()
	}
	if s.werr != nil && s.errAt <= n {
		return s.werr
	}
	return nil
}

// writeErr is the error every write meets now: the stream is closed, or
// a write failed before (a line may have been cut short: what followed it
// would not read as lines).
func (s *lineStream) writeErr() error {
	if s.wclosed.Load() {
		return jsonrpc.ErrClosed
	}
	return s.werr
}

// lead writes b, or the queue when b is empty, then what other writers
// queue meanwhile, for up to maxWriteRounds writes. s.wmu is held, and
// released during each write. It returns the error of its first write.
func (s *lineStream) lead(b []byte) error {
	s.writing = true
	var first error
	for round := range maxWriteRounds {
		out := b
		if round > 0 || len(b) == 0 {
			out, s.queued, s.spare = s.queued, s.spare[:0], nil
		}
		s.started++
		n := s.started
		s.wmu.Unlock()
		err := s.writeOut(out)
		s.wmu.Lock()
		s.finished = n
		if round == 0 {
			first = err
		}
		if err != nil && s.werr == nil {
			s.werr, s.errAt = err, n
		}
		if round > 0 || len(b) == 0 {
			s.keepSpare(out)
		}
		if len(s.queued) == 0 || s.werr != nil {
			break
		}
	}
	s.writing = false
	if s.werr != nil {
		s.queued = s.queued[:0] // their writers return s.werr
	}
	s.wended.Broadcast()
	return first
}

// keepSpare keeps out, a queue written, for the next queue, unless large.
func (s *lineStream) keepSpare(out []byte) {
	if cap(out) <= 2*maxHeld {
		s.spare = out[:0]
	}
}

// dropHeld empties the held lines (they were queued); s.wmu is held.
func (s *lineStream) dropHeld() {
	if cap(s.held) > 2*maxHeld {
		s.held = nil
	} else {
		s.held = s.held[:0]
	}
	s.hold.Store(false)
}

// writeOut hands b to the writer in one call and flushes it; s.wmu is not
// held.
func (s *lineStream) writeOut(b []byte) error {
	if s.wclosed.Load() {
		return jsonrpc.ErrClosed
	}
	_, err := s.w.Write(b)
	if err == nil && s.flush != nil {
		err = s.flush.Flush()
	}
	if err != nil && s.wclosed.Load() {
		err = jsonrpc.ErrClosed
	}
	return err
}

// flushingReader is the reader under a line stream's bufio.Reader: before
// each read of the peer's input, which may wait, it sends the answers the
// stream holds (the peer may be waiting for them to send more). An error
// sending them is left for the next Write to meet.
type flushingReader struct {
	r io.Reader
	s *lineStream
}

func (f flushingReader) Read(p []byte) (int, error) {
	if f.s.hold.Load() {
		_ = f.s.FlushHeld()
	}
	return f.r.Read(p)
}

func putWriteBuf(bp *[]byte, b []byte) {
	if cap(b) > maxPooledWrite {
		return
	}
	*bp = b[:0]
	writeBufs.Put(bp)
}

// Close closes the stream and its closer. See NewLineStream.
func (s *lineStream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.tryFlushHeld()
		s.wclosed.Store(true)
		s.rclosed.Store(true)
		if s.closer != nil {
			err = s.closer.Close()
		}
		if s.rmu.TryLock() { // else the Read in progress stops the watch
			s.stopWatch()
			s.rmu.Unlock()
		}
	})
	return err
}

// closeWrite makes further Writes fail with jsonrpc.ErrClosed while Read
// keeps working; CommandTransport uses it during its shutdown sequence.
func (s *lineStream) closeWrite() {
	s.tryFlushHeld()
	s.wclosed.Store(true)
}

// tryFlushHeld writes the held lines unless a Write is in progress: at
// Close, the peer may be gone, and a Write blocked on a peer that does not
// read must not block Close too.
func (s *lineStream) tryFlushHeld() {
	if !s.hold.Load() {
		return
	}
	s.wmu.Lock()
	if !s.writing && len(s.held) > 0 {
		_ = s.send(nil)
	}
	s.wmu.Unlock()
}

// errNilMessage is returned by Write when given a nil message.
var errNilMessage = errors.New("transport: nil message")

// longAgo is a deadline in the past, which interrupts a blocked read.
var longAgo = time.Unix(1, 0)

// deadlineWatch interrupts a blocked read when its context is done, by
// moving the reader's deadline into the past.
type deadlineWatch struct {
	ctx      context.Context
	dl       readDeadliner
	mu       sync.Mutex
	finished bool // the read is over; the watch must not touch the deadline
	fired    bool // the deadline was moved and must be cleared
	stopFunc func() bool
}

func watchDeadline(ctx context.Context, dl readDeadliner) *deadlineWatch {
	w := &deadlineWatch{ctx: ctx, dl: dl}
	w.stopFunc = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.finished {
			w.fired = true
			_ = w.dl.SetReadDeadline(longAgo) // ErrNoDeadline: nothing more we can do
		}
	})
	return w
}

// stop ends the watch and, if it fired, clears the deadline so the next
// read is not cut short.
func (w *deadlineWatch) stop() {
	if w.stopFunc() {
		return // the callback never started
	}
	w.mu.Lock()
	w.finished = true
	fired := w.fired
	w.mu.Unlock()
	if fired {
		_ = w.dl.SetReadDeadline(time.Time{})
	}
}
