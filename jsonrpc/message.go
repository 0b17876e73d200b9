package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Message is one decoded JSON-RPC 2.0 message: a request, a notification, a
// response, or a batch of those. A single struct (rather than an interface per
// kind) keeps decoding to one allocation-light pass.
//
//   - request:      Method != "" and ID set
//   - notification: Method != "" and ID zero
//   - response:     Method == "" and exactly one of Result, Error set
//   - batch:        Batch != nil, every other field zero
//
// A message that failed to decode or validate has Invalid set to the error the
// receiver must answer with (and ID set when it could be read), unless it was
// shaped as a response (see IsInvalidResponse): that one is dropped, not
// answered.
type Message struct {
	ID      ID
	Method  string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   *Error
	Batch   []*Message
	Invalid *Error

	// Info is what the transport knows about where an incoming message came
	// from (for HTTP, the request's headers, remote address and TLS state).
	// It is never encoded. Conn makes it available to handlers through
	// MessageInfo.
	Info any

	// badResponse marks an Invalid message that was shaped as a response.
	badResponse bool
}

// IsRequest reports whether m is a request (it expects a response).
func (m *Message) IsRequest() bool { return m.Method != "" && !m.ID.IsZero() }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID.IsZero() }

// IsInvalidResponse reports whether m failed to decode or validate (Invalid
// is set) while shaped as a response: an object with no "method" member but
// with a "result" or an "error" member. The receiver drops such a message
// instead of answering it: an error reply would carry the id of one of its
// own calls back to the peer, where it could be taken for the answer to the
// peer's own pending call with that id. Invalid then explains what is wrong.
func (m *Message) IsInvalidResponse() bool { return m.Invalid != nil && m.badResponse }

// IsResponse reports whether m is a response (success or error).
func (m *Message) IsResponse() bool {
	return m.Method == "" && m.Batch == nil && (m.Result != nil || m.Error != nil)
}

// NewRequest returns a request message. params must be a JSON object or
// array, or nil.
func NewRequest(id ID, method string, params json.RawMessage) *Message {
	return &Message{ID: id, Method: method, Params: params}
}

// NewNotification returns a notification message.
func NewNotification(method string, params json.RawMessage) *Message {
	return &Message{Method: method, Params: params}
}

// NewResponse returns a success response. A nil result is written as {}.
func NewResponse(id ID, result json.RawMessage) *Message {
	if result == nil {
		result = emptyObject
	}
	return &Message{ID: id, Result: result}
}

// NewErrorResponse returns an error response. id may be zero when the
// request's id could not be read; it is then written as null.
func NewErrorResponse(id ID, err *Error) *Message {
	return &Message{ID: id, Error: err}
}

var emptyObject = json.RawMessage("{}")

var (
	errParse = &Error{Code: CodeParseError, Message: "parse error"}
	errUTF8  = &Error{Code: CodeParseError, Message: "parse error: invalid UTF-8"}
)

// DefaultMaxBatch is how many messages a batch may hold unless a Decoder
// says otherwise (Decode uses it). Peers batch a handful of messages; each
// one costs the receiver a decoded message and an answer, many times the
// two or three bytes an element such as {} takes on the wire, so the bound
// keeps what one wire message can cost within a small multiple of its size.
const DefaultMaxBatch = 1000

// A Decoder decodes wire messages as Decode does, under a batch policy that
// the transport receiving them decides once: how many messages a batch may
// hold, and whether batches are accepted at all. A batch is judged before
// any of its elements is decoded, so a refused one costs one error however
// many elements it has. The zero Decoder is Decode's: batches of up to
// DefaultMaxBatch messages.
type Decoder struct {
	// MaxBatch bounds the messages of a batch. A batch with more is
	// returned as one invalid message (CodeInvalidRequest, id null): its
	// elements are counted, not decoded. Zero or negative means
	// DefaultMaxBatch.
	MaxBatch int

	// Batches, if set, is asked whenever a batch arrives, before its
	// elements are counted. If it returns an error, the batch is returned
	// as one invalid message carrying that error (id null), so that the
	// receiver answers it once. A protocol that allows batches only in some
	// revisions (MCP: only in 2025-03-26) refuses them in the others so.
	Batches func() *Error
}

// Decode parses one wire message (an object or a batch array). It never
// fails: a message that cannot be used comes back with Invalid set, ready to
// be answered. The returned message does not alias data.
//
// Member names are matched exactly (JSON-RPC is case-sensitive, unlike
// encoding/json), and a repeated envelope member makes the message invalid
// rather than silently taking one of the values.
func Decode(data []byte) *Message {
	var d Decoder
	return d.Decode(data)
}

// Decode parses one wire message as the package's Decode does, with d's
// batch policy.
func (d *Decoder) Decode(data []byte) *Message {
	data = trimSpace(data)
	if len(data) == 0 {
		return &Message{Invalid: errParse}
	}
	if !utf8.Valid(data) {
		return &Message{Invalid: errUTF8}
	}
	if !validJSON(data) {
		return &Message{Invalid: parseError(data)}
	}
	// From here on data is known to be valid JSON, so the scanning helpers
	// below need not check syntax.
	switch data[0] {
	case '{':
		return decodeObject(data)
	case '[':
		return d.decodeBatch(data)
	}
	return &Message{Invalid: errNotObject}
}

func (d *Decoder) decodeBatch(data []byte) *Message {
	if d.Batches != nil {
		if e := d.Batches(); e != nil {
			return &Message{Invalid: e}
		}
	}
	n, max := 0, d.MaxBatch
	if max <= 0 {
		max = DefaultMaxBatch
	}
	for i := skipSpace(data, 1); data[i] != ']'; i = nextElement(data, i) {
		if n++; n > max {
			return &Message{Invalid: &Error{Code: CodeInvalidRequest,
				Message: "invalid request: a batch may hold at most " + strconv.Itoa(max) + " messages"}}
		}
	}
	if n == 0 {
		return &Message{Invalid: errEmptyBatch}
	}
	batch := make([]*Message, 0, n)
	for i := skipSpace(data, 1); data[i] != ']'; i = nextElement(data, i) {
		if data[i] == '{' {
			batch = append(batch, decodeObject(data[i:skipValue(data, i)]))
		} else {
			batch = append(batch, &Message{Invalid: errElementNotObject})
		}
	}
	return &Message{Batch: batch}
}

// nextElement returns the index of the array element after the one at
// data[i], or of the closing bracket.
func nextElement(data []byte, i int) int {
	if i = skipSpace(data, skipValue(data, i)); data[i] == ',' {
		i = skipSpace(data, i+1)
	}
	return i
}

// parseError describes why data is not JSON. It is only called on the
// failure path, so the cost of a second parse does not matter.
func parseError(data []byte) *Error {
	var v json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &se) {
		return &Error{Code: CodeParseError, Message: "parse error: " + se.Error()}
	}
	return errParse
}

// A reason is why a message object is invalid, as two errors: for a
// message shaped as a request (index 0) and for one shaped as a response
// (index 1, see IsInvalidResponse). The errors are shared by every message
// invalid for that reason, so that a batch of thousands of invalid
// elements costs no error per element. They must never be modified.
type reason [2]*Error

func newReason(why string) *reason {
	return &reason{
		{Code: CodeInvalidRequest, Message: "invalid request: " + why},
		{Code: CodeInvalidRequest, Message: "invalid response: " + why},
	}
}

var (
	errNotObject        = &Error{Code: CodeInvalidRequest, Message: "invalid request: message must be an object or an array"}
	errElementNotObject = &Error{Code: CodeInvalidRequest, Message: "invalid request: batch element must be an object"}
	errEmptyBatch       = &Error{Code: CodeInvalidRequest, Message: "invalid request: empty batch"}

	badVersion     = newReason(`"jsonrpc" must be "2.0"`)
	badMethod      = newReason(`"method" must be a non-empty string`)
	badRequestID   = newReason(`"id" must be a string or an integer`)
	badRequestBody = newReason("a request cannot carry result or error")
	badParams      = newReason(`"params" must be an object or an array`)
	badReplyKind   = newReason("a response must carry exactly one of result and error")
	badResultID    = newReason(`a result response needs a string or integer "id"`)
	badErrorNoID   = newReason(`an error response needs an "id" member`)
	badErrorID     = newReason(`"id" must be a string, an integer or null`)
	badErrorObject = newReason(`"error" must be an object with an integer "code" and a string "message"`)

	dupJSONRPC = newReason(`duplicate member "jsonrpc"`)
	dupID      = newReason(`duplicate member "id"`)
	dupMethod  = newReason(`duplicate member "method"`)
	dupParams  = newReason(`duplicate member "params"`)
	dupResult  = newReason(`duplicate member "result"`)
	dupError   = newReason(`duplicate member "error"`)
)

// envelope holds the raw members of a message object, as slices of the
// decoded input (nil when absent).
type envelope struct {
	jsonrpc, id, method, params, result, error []byte
	dup                                        *reason // a repeated member, if any
}

// decodeObject decodes one message object: its members, then what they
// make, a request (or notification) or a response, or an invalid message
// saying why it is neither.
func decodeObject(data []byte) *Message {
	var w envelope
	w.read(data)
	// idOK is true without an id too: whether one is needed depends on
	// the kind of message. A repeated "id" is no id.
	id, idOK := ID{}, w.dup != dupID
	if w.id != nil && idOK {
		var err error
		id, err = parseID(w.id)
		idOK = err == nil
	}
	if w.dup != nil {
		return w.bad(id, w.dup)
	}
	if string(w.jsonrpc) != `"2.0"` {
		return w.bad(id, badVersion)
	}
	if w.method != nil {
		return w.request(id, idOK)
	}
	return w.response(id, idOK)
}

// read records the members of the message object data, and the last
// repeated one.
func (w *envelope) read(data []byte) {
	forEachMember(data, func(key, val []byte) {
		var p *[]byte
		var dup *reason
		switch string(key) {
		case "jsonrpc":
			p, dup = &w.jsonrpc, dupJSONRPC
		case "id":
			p, dup = &w.id, dupID
		case "method":
			p, dup = &w.method, dupMethod
		case "params":
			p, dup = &w.params, dupParams
		case "result":
			p, dup = &w.result, dupResult
		case "error":
			p, dup = &w.error, dupError
		default:
			return
		}
		if *p != nil {
			w.dup = dup
		}
		*p = val
	})
}

// bad returns the invalid message for reason r. Without "method" but with
// "result" or "error" it is a response, even when malformed: the receiver
// drops it rather than answer it.
func (w *envelope) bad(id ID, r *reason) *Message {
	if w.method == nil && (w.result != nil || w.error != nil) {
		return &Message{ID: id, Invalid: r[1], badResponse: true}
	}
	return &Message{ID: id, Invalid: r[0]}
}

// request returns the request (or notification) the envelope holds, which
// has a "method".
func (w *envelope) request(id ID, idOK bool) *Message {
	method, ok := unquote(w.method)
	if !ok || method == "" {
		return w.bad(id, badMethod)
	}
	if !idOK {
		return w.bad(ID{}, badRequestID)
	}
	if w.result != nil || w.error != nil {
		return w.bad(id, badRequestBody)
	}
	if w.params != nil && w.params[0] != '{' && w.params[0] != '[' {
		return w.bad(id, badParams)
	}
	return &Message{ID: id, Method: method, Params: bytes.Clone(w.params)}
}

// response returns the response the envelope holds, which has no
// "method". An error response may carry a null id (the request was
// unreadable).
func (w *envelope) response(id ID, idOK bool) *Message {
	if (w.result == nil) == (w.error == nil) {
		return w.bad(id, badReplyKind)
	}
	if w.result != nil {
		if w.id == nil || !idOK {
			return w.bad(ID{}, badResultID)
		}
		return &Message{ID: id, Result: bytes.Clone(w.result)}
	}
	if w.id == nil {
		return w.bad(ID{}, badErrorNoID)
	}
	if !idOK && string(w.id) != "null" {
		return w.bad(ID{}, badErrorID)
	}
	e := decodeError(w.error)
	if e == nil {
		return w.bad(id, badErrorObject)
	}
	return &Message{ID: id, Error: e}
}

// decodeError decodes an error object, or returns nil if raw is not one.
func decodeError(raw []byte) *Error {
	if raw[0] != '{' {
		return nil
	}
	var code, msg, data []byte
	dup := false
	forEachMember(raw, func(key, val []byte) {
		var p *[]byte
		switch string(key) {
		case "code":
			p = &code
		case "message":
			p = &msg
		case "data":
			p = &data
		default:
			return
		}
		dup = dup || *p != nil
		*p = val
	})
	if dup || code == nil || msg == nil {
		return nil
	}
	n, err := strconv.ParseInt(string(code), 10, 64)
	if err != nil {
		return nil
	}
	s, ok := unquote(msg)
	if !ok {
		return nil
	}
	return &Error{Code: n, Message: s, Data: bytes.Clone(data)}
}

// maxDepth bounds how deeply arrays and objects may nest, as in
// encoding/json.
const maxDepth = 10000

// validJSON reports whether b is exactly one JSON value (RFC 8259) nested at
// most maxDepth deep, like json.Valid but several times faster. Bytes of
// 0x80 and above are accepted inside strings; Decode checks UTF-8 first.
func validJSON(b []byte) bool {
	var stack [64]byte // open containers, '{' or '['; grows only for deep input
	open := stack[:0]
	i := skipWS(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		var ok bool
		switch c := b[i]; c {
		case '{', '[':
			if len(open) == maxDepth {
				return false
			}
			open = append(open, c)
			if i = skipWS(b, i+1); i < len(b) && b[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i, ok = scanKey(b, i); !ok {
					return false
				}
			}
			continue
		case '"':
			if i, ok = scanString(b, i); !ok {
				return false
			}
		case 't':
			if i, ok = scanLiteral(b, i, "true"); !ok {
				return false
			}
		case 'f':
			if i, ok = scanLiteral(b, i, "false"); !ok {
				return false
			}
		case 'n':
			if i, ok = scanLiteral(b, i, "null"); !ok {
				return false
			}
		default:
			if i, ok = scanNumber(b, i); !ok {
				return false
			}
		}
		// After a value: close containers, or move on to the next element.
		for {
			i = skipWS(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			if i = skipWS(b, i+1); top == '{' {
				if i, ok = scanKey(b, i); !ok {
					return false
				}
			}
			break
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanKey scans a member name and its colon, returning the index of the
// value that follows.
func scanKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if i = skipWS(b, i); !ok || i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipWS(b, i+1), true
}

// scanString scans the string starting at b[i] and returns the index just
// past it.
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		for i+8 <= len(b) && plain8(load8(b, i), false) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, false
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanNumber scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

// The helpers below scan JSON that is already known to be valid (Decode
// checks it with validJSON first), so they only find boundaries and never
// run past the end of well-formed input.

// trimSpace removes the whitespace JSON allows around a value, and no other.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	// A number or a literal: it ends at a delimiter or at the end of input.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i]
// (len(b) if it has no end). It looks for quotes with bytes.IndexByte
// rather than byte by byte: a large argument or result is one long string.
func skipString(b []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		j := i + q
		k := j // the quote is escaped if an odd number of backslashes precede it
		for k > i && b[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// forEachMember calls f with the (unescaped) name and the raw value of each
// member of the object obj, in order.
func forEachMember(obj []byte, f func(key, val []byte)) {
	for i := skipSpace(obj, 1); obj[i] != '}'; {
		end := skipString(obj, i)
		key := obj[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			s, _ := unquote(obj[i:end])
			key = []byte(s)
		}
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = skipValue(obj, i)
		f(key, obj[i:end])
		if i = skipSpace(obj, end); obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// unquote decodes the JSON string q (quotes included). It reports false if q
// is not a string. Strings without escapes, the usual case, cost one copy.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	if s := q[1 : len(q)-1]; bytes.IndexByte(s, '\\') < 0 {
		// No escapes; ensure nothing that needs one (when q was not
		// validated by the caller) before taking the bytes as they are.
		ok := true
		for _, c := range s {
			if c < 0x20 || c == '"' {
				ok = false
				break
			}
		}
		if ok && utf8.Valid(s) {
			return string(s), true
		}
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}

// AppendJSON appends the wire encoding of m to b. Params and Result are
// copied as they are; they must hold valid JSON.
func (m *Message) AppendJSON(b []byte) []byte {
	if m.Batch != nil {
		b = append(b, '[')
		for i, e := range m.Batch {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendJSON(b)
		}
		return append(b, ']')
	}
	b = append(b, `{"jsonrpc":"2.0"`...)
	if !m.ID.IsZero() || m.Error != nil || m.Invalid != nil {
		b = append(b, `,"id":`...)
		b = m.ID.AppendJSON(b)
	}
	switch {
	case m.Method != "":
		b = append(b, `,"method":`...)
		b = appendString(b, m.Method)
		if m.Params != nil {
			b = append(b, `,"params":`...)
			b = append(b, m.Params...)
		}
	case m.Error != nil || m.Invalid != nil:
		e := m.Error
		if e == nil {
			e = m.Invalid
		}
		b = append(b, `,"error":{"code":`...)
		b = strconv.AppendInt(b, e.Code, 10)
		b = append(b, `,"message":`...)
		b = appendString(b, e.Message)
		if e.Data != nil {
			b = append(b, `,"data":`...)
			b = append(b, e.Data...)
		}
		b = append(b, '}')
	default:
		b = append(b, `,"result":`...)
		if m.Result == nil {
			b = append(b, "{}"...)
		} else {
			b = append(b, m.Result...)
		}
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler.
func (m *Message) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }

// appendString appends s as a JSON string, escaped exactly as encoding/json
// does, HTML characters included: the wire encoding of method names and error
// messages.
func appendString(b []byte, s string) []byte { return AppendString(b, s, true) }

// AppendString appends s to b as a JSON string, escaped as encoding/json
// does (invalid UTF-8 becomes U+FFFD; U+2028 and U+2029 are escaped), and
// without allocating. With escapeHTML false, <, > and & are kept as they are,
// as an encoder with SetEscapeHTML(false) writes them; that keeps schemas and
// descriptions byte-readable.
func AppendString(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && ascii8(load8(s, i), escapeHTML) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Eight bytes at a time: the string scanners and AppendString skip runs of
// bytes that need no look (no quote, backslash or control byte) a word at
// a time, a large text being mostly such runs.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 reads the eight bytes at s[i:] as a little-endian word.
func load8[S string | []byte](s S, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hasLess reports (as a non-zero word) whether a byte of x is below n,
// n at most 128.
func hasLess(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }

// hasByte reports (as a non-zero word) whether a byte of x is c.
func hasByte(x, c uint64) uint64 { return hasLess(x^(ones*c), 1) }

// plain8 reports whether none of the bytes of x is a quote, a backslash or
// a control byte (nor, with html, '<', '>' or '&').
func plain8(x uint64, html bool) bool {
	m := hasLess(x, 0x20) | hasByte(x, '"') | hasByte(x, '\\')
	if html {
		m |= hasByte(x, '<') | hasByte(x, '>') | hasByte(x, '&')
	}
	return m == 0
}

// ascii8 is plain8 for bytes that are also ASCII (AppendString looks at
// every other byte as part of a rune).
func ascii8(x uint64, html bool) bool { return x&highs == 0 && plain8(x, html) }
