package mcphttp

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
)

// Header names used by the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-Id"
)

// Error codes in the bodies of HTTP-level refusals. JSON-RPC reserves
// -32000 to -32099 for implementation-defined server errors.
const (
	// CodeSessionNotFound accompanies HTTP 404 for an unknown or expired
	// Mcp-Session-Id; the client must initialize a new session.
	CodeSessionNotFound = -32001
	// CodeServerBusy accompanies HTTP 503 when the handler is at
	// MaxSessions and refuses a new session.
	CodeServerBusy = -32000
)

// quoteHeader quotes a header value for an error message, bounded in size.
func quoteHeader(v string) string {
	if len(v) > 100 {
		v = v[:100] + "..."
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return '?'
		}
		return r
	}, v) + `"`
}

// accepts reports whether the Accept header values allow media type typ
// (e.g. "text/event-stream"), honouring wildcards and q=0.
func accepts(values []string, typ string) bool {
	major, _, _ := strings.Cut(typ, "/")
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params := parseMediaRange(part)
			if !strings.Contains(mt, "/") || zeroQuality(params) {
				continue // malformed, or q=0: explicitly not acceptable
			}
			if mt == typ || mt == "*/*" || mt == major+"/*" {
				return true
			}
		}
	}
	return false
}

// parseMediaRange splits a media type or range (an element of Accept, or a
// Content-Type) into its lower-cased type/subtype and its parameters. It
// allocates nothing for the usual lower-case values, unlike
// mime.ParseMediaType, which this runs instead of on every request.
func parseMediaRange(v string) (mt, params string) {
	mt, params, _ = strings.Cut(v, ";")
	mt = strings.TrimSpace(mt)
	for i := 0; i < len(mt); i++ {
		if c := mt[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(mt), params
		}
	}
	return mt, params
}

// zeroQuality reports whether media-range parameters say q=0.
func zeroQuality(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			return strings.Trim(strings.TrimSpace(v), "0.") == ""
		}
	}
	return false
}

// isJSONContent reports whether a Content-Type header names JSON.
func isJSONContent(ct string) bool {
	mt, _ := parseMediaRange(ct)
	return mt == "application/json"
}

// writeError sends an HTTP error whose body is a JSON-RPC error response
// with the given id (zero: written as null, since the request could not be
// read or is not a request).
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	body := jsonrpc.NewErrorResponse(id, jsonrpc.NewError(code, msg)).AppendJSON(nil)
	h := w.Header()
	h["Content-Type"] = valueJSON
	h.Del("Content-Encoding")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// checkMCPHeaders refuses what the MCP headers (MCP-Protocol-Version,
// Mcp-Session-Id and the SEP-2243 headers Mcp-Method, Mcp-Name and
// Mcp-Param-*) must never be: given more than once, since a proxy or
// gateway may judge a request by one value and the server by another, or
// holding a raw non-ASCII or control byte, since SEP-2243 sends any value
// that is not plain ASCII base64-encoded ("=?base64?...?="). It returns ""
// when they are acceptable, or why not.
func checkMCPHeaders(h http.Header) string {
	for k, vs := range h {
		if !isMCPHeader(k) {
			continue
		}
		if len(vs) > 1 {
			return "Header mismatch: " + k + " given " + strconv.Itoa(len(vs)) + " times"
		}
		for i := 0; i < len(vs[0]); i++ {
			if c := vs[0][i]; (c < 0x20 && c != '\t') || c >= 0x7f {
				return "Header mismatch: " + k + " holds a raw non-ASCII or control byte; such values must be base64-encoded (=?base64?...?=)"
			}
		}
	}
	return ""
}

// isMCPHeader reports whether the canonical header name k is one of MCP's.
func isMCPHeader(k string) bool {
	if len(k) < 4 || k[:4] != "Mcp-" {
		return false
	}
	switch k {
	case headerSessionID, headerProtocolVersion, "Mcp-Method", "Mcp-Name":
		return true
	}
	return strings.HasPrefix(k, "Mcp-Param-")
}

// readBody reads a request body of at most limit bytes. It reports the HTTP
// status to answer with on failure (413 when too large).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, int, error) {
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, errBodyTooLarge(limit)
	}
	if r.ContentLength >= 0 {
		// The length is known (and net/http reads no further): one
		// buffer of the right size.
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, http.StatusBadRequest, err
		}
		return body, 0, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, http.StatusRequestEntityTooLarge, errBodyTooLarge(limit)
		}
		return nil, http.StatusBadRequest, err
	}
	return body, 0, nil
}

// readMessage reads the JSON-RPC message of a POST body (at most limit
// bytes, within timeout when positive) and decodes it with dec, which
// decides how batches are taken. When the body is too large, too slow,
// unreadable or not a valid message (a refused batch included), it answers
// the request and returns nil.
func readMessage(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, budget *bodyBudget, dec *jsonrpc.Decoder) *jsonrpc.Message {
	need := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		need = r.ContentLength
	}
	if !budget.acquire(need) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, CodeServerBusy, "server busy: too many request bodies being received; try again later")
		return nil
	}
	defer budget.release(need)
	body, status, err := readBodyWithin(w, r, limit, timeout)
	if err != nil {
		writeError(w, status, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	msg := dec.Decode(body)
	if msg.Invalid != nil {
		writeError(w, http.StatusBadRequest, msg.ID, msg.Invalid.Code, msg.Invalid.Message)
		return nil
	}
	return msg
}

// bodyBudget bounds the bytes of the POST bodies being received at once
// (MaxBodyBytesInFlight): each body counts its announced length (or the
// size limit, when not announced) from before its buffer is allocated
// until it is decoded, so that many slow or stalled bodies cannot hold
// unbounded memory between them. A nil budget bounds nothing.
type bodyBudget struct {
	max  int64
	used atomic.Int64
}

func newBodyBudget(max int64) *bodyBudget {
	if max <= 0 {
		return nil
	}
	return &bodyBudget{max: max}
}

// acquire counts n bytes, or reports false (counting nothing) when they
// would exceed the bound.
func (b *bodyBudget) acquire(n int64) bool {
	if b == nil {
		return true
	}
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

func (b *bodyBudget) release(n int64) {
	if b != nil {
		b.used.Add(-n)
	}
}

// readBodyWithin is readBody under a read deadline of timeout (none when
// not positive), so that a client sending a body slowly, or stopping half
// way, cannot hold the connection and its buffer for longer: it gets 408.
// The deadline is lifted once the body is read, so a long response (an SSE
// stream) is not cut by it; http.Server.ReadTimeout, which would, can stay
// unset.
func readBodyWithin(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, int, error) {
	if timeout <= 0 || r.Body == nil || r.Body == http.NoBody {
		return readBody(w, r, limit)
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return readBody(w, r, limit) // not supported: nothing to lift either
	}
	body, status, err := readBody(w, r, limit)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, http.StatusRequestTimeout, errors.New("request body not received within " + timeout.String())
	}
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, status, err
}

func errBodyTooLarge(limit int64) error {
	return errors.New("request body too large (limit " + strconv.FormatInt(limit, 10) + " bytes)")
}

// fillLimits replaces the zero values of the limits both server handlers
// share (Handler and SSEHandler) with their defaults.
func fillLimits(maxBody *int64, maxSessions *int, keepAlive, writeTimeout, bodyTimeout *time.Duration) {
	if *bodyTimeout == 0 {
		*bodyTimeout = DefaultBodyReadTimeout
	}
	if *maxBody <= 0 {
		*maxBody = DefaultMaxBodyBytes
	}
	if *maxSessions == 0 {
		*maxSessions = DefaultMaxSessions
	}
	if *keepAlive == 0 {
		*keepAlive = DefaultKeepAliveInterval
	}
	if *writeTimeout == 0 {
		*writeTimeout = DefaultWriteTimeout
	}
}

// loggerOrDiscard returns l, or a logger that discards everything when l is
// nil.
func loggerOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
