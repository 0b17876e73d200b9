package mcphttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server-Sent Events framing (https://html.spec.whatwg.org/multipage/server-sent-events.html),
// the subset MCP uses: id, event, data and retry fields, and comments.

// appendEvent appends one SSE event to b. id and event are left out when
// empty, retry when zero. Every line break in data (JSON allows raw CR and LF
// only as insignificant whitespace) starts a new data line; the receiver joins
// them with LF, which leaves the JSON value unchanged.
func appendEvent(b []byte, id, event string, retry time.Duration, data []byte) []byte {
	if event != "" {
		b = append(b, "event: "...)
		b = append(b, event...)
		b = append(b, '\n')
	}
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			b = append(b, data...)
			break
		}
		b = append(b, data[:i]...)
		b = append(b, "\ndata: "...)
		data = data[i+1:]
	}
	return append(b, '\n', '\n')
}

// appendStoredEvent appends a message event whose id is eventID(stream,
// storeID) (none when storeID is unset), without building the id string.
func appendStoredEvent(b []byte, stream, storeID string, stored bool, data []byte) []byte {
	b = append(b, "event: message\n"...)
	if stored {
		b = append(b, "id: "...)
		b = append(b, stream...)
		b = append(b, '_')
		b = append(b, storeID...)
		b = append(b, '\n')
	}
	return appendEvent(b, "", "", 0, data)
}

// keepAliveComment is the SSE comment written on idle streams, so that
// proxies and the peer see traffic; SSE clients ignore comments.
var keepAliveComment = []byte(": keep-alive\n\n")

// sseEvent is one event read from a stream.
type sseEvent struct {
	id    string // the id field, if hasID
	hasID bool
	event string        // the event type; "" means "message"
	data  []byte        // the data lines joined with LF; valid until the next read
	retry time.Duration // the retry field, or 0
}

// errEventTooLarge is returned by sseReader.next when an event exceeds the
// size limit.
var errEventTooLarge = errors.New("mcphttp: SSE event too large")

// sseReader parses an event stream. Each event's data is bounded by max
// bytes, and so is each line.
type sseReader struct {
	br   *bufio.Reader
	max  int
	line []byte // a line longer than the bufio buffer, being assembled
	data []byte
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 16<<10), max: max}
}

// readerPool holds the buffered readers of finished SSE streams.
var readerPool sync.Pool

// getSSEReader is newSSEReader with a pooled buffer; release it with
// putSSEReader once the stream is done.
func getSSEReader(r io.Reader, max int) *sseReader {
	if br, ok := readerPool.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return &sseReader{br: br, max: max}
	}
	return newSSEReader(r, max)
}

func putSSEReader(r *sseReader) {
	r.br.Reset(nil)
	readerPool.Put(r.br)
	r.br = nil
}

// next returns the next event. Events without data are returned too (with
// empty data), so the caller sees their id and retry fields: a priming event
// (SEP-1699) is exactly that. At the end of the stream next returns io.EOF;
// an unterminated last event is dropped, as the SSE standard says.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	r.data = r.data[:0]
	seen := false // any field seen since the last dispatch
	for {
		line, err := r.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		for {
			// A lone CR also ends a line; split it off here (ReadSlice
			// stops at LF only).
			var rest []byte
			if i := bytes.IndexByte(line, '\r'); i >= 0 && i == len(line)-1 {
				line = line[:i] // CRLF
			} else if i >= 0 {
				line, rest = line[:i], line[i+1:]
			}
			if len(line) == 0 {
				if seen {
					if n := len(r.data); n > 0 && r.data[n-1] == '\n' {
						r.data = r.data[:n-1]
					}
					ev.data = r.data
					return ev, nil
				}
			} else if line[0] != ':' {
				seen = true
				if err := r.field(&ev, line); err != nil {
					return sseEvent{}, err
				}
			}
			if rest == nil {
				break
			}
			line = rest
		}
	}
}

// field applies one "name: value" line to ev.
func (r *sseReader) field(ev *sseEvent, line []byte) error {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(r.data)+len(value)+1 > r.max {
			return errEventTooLarge
		}
		r.data = append(r.data, value...)
		r.data = append(r.data, '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			ev.id, ev.hasID = string(value), true
		}
	case "event":
		ev.event = string(value)
	case "retry":
		if n, err := strconv.ParseUint(string(value), 10, 32); err == nil {
			ev.retry = time.Duration(n) * time.Millisecond
		}
	}
	return nil
}

// readLine returns the next line without its LF (a CR before it is kept and
// handled by next). The result is valid until the next call.
func (r *sseReader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		if err == nil {
			if len(r.line) == 0 {
				return frag[:len(frag)-1], nil
			}
			r.line = append(r.line, frag[:len(frag)-1]...)
			return r.line, nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(frag) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(r.line)+len(frag) > r.max+64 {
			return nil, errEventTooLarge
		}
		r.line = append(r.line, frag...)
	}
}

// eventID forms the id a client sees for the event the EventStore stored
// under id in stream: "<stream>_<id>". Stream names never contain "_", so
// the id names its stream, and a client resuming with Last-Event-ID resumes
// the right one, on any Handler sharing the store.
func eventID(stream, id string) string {
	return stream + "_" + id
}

// parseEventID reverses eventID. It fails on ids no Handler issues; whether
// the store knows the id is for the store to say (ErrUnknownEvent).
func parseEventID(id string) (stream, storeID string, err error) {
	stream, storeID, ok := strings.Cut(id, "_")
	if !ok || stream == "" || strings.ContainsAny(storeID, "\r\n\x00") {
		return "", "", fmt.Errorf("mcphttp: malformed event id %q", id)
	}
	return stream, storeID, nil
}
