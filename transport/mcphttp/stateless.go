package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gomcp/sdk/internal/mcpheader"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// The stateless revision (2026-07-28) over Streamable HTTP. One endpoint
// serves both eras: a POST whose MCP-Protocol-Version header names a
// stateless revision, or that has no session and declares its revision in
// params._meta, is served by mcp.Server.HandleStateless on the POST's
// goroutine, with no session and no connection. No session id is issued or
// honoured, streams are not resumable, and a client closing the response
// cancels the request.
//
// The transport checks what only it can see, in the order the
// specification gives: the MCP-Protocol-Version header (missing: -32020),
// the _meta keys (missing: -32602), then that the standard headers repeat
// the body (version, Mcp-Method, Mcp-Name; any difference: -32020). The
// session checks the rest (unsupported version -32022, unknown method
// -32601, missing client capability -32021), and the transport gives each
// error its HTTP status (400, or 404 for an unknown method).

// isStateless reports whether v names a stateless protocol revision.
func isStateless(v string) bool {
	return mcp.IsStatelessVersion(v)
}

// isStateful reports whether v names a revision with the initialize
// handshake.
func isStateful(v string) bool { return mcp.IsSupportedVersion(v) && !isStateless(v) }

// statelessEnvelope is what the transport reads of a stateless request's params.
type statelessEnvelope struct {
	Meta *struct {
		ProtocolVersion    *string         `json:"io.modelcontextprotocol/protocolVersion"`
		ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
	Name   string `json:"name"`
	URI    string `json:"uri"`
	TaskID string `json:"taskId"` // tasks/get, tasks/update, tasks/cancel (the tasks extension)
}

func peekStateless(m *jsonrpc.Message) *statelessEnvelope {
	var env statelessEnvelope
	if len(m.Params) > 0 && m.Params[0] == '{' {
		_ = json.Unmarshal(m.Params, &env)
	}
	return &env
}

// declaresStateless reports whether a message declares a protocol version in
// its _meta, the mark of a 2026-07-28 request.
func declaresStateless(m *jsonrpc.Message) bool {
	if m.Batch != nil || m.Method == "" {
		return false
	}
	env := peekStateless(m)
	return env.Meta != nil && env.Meta.ProtocolVersion != nil
}

// headerMismatch answers a stateless request whose headers do not match it.
func headerMismatch(w http.ResponseWriter, id jsonrpc.ID, msg string) {
	writeError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch, msg)
}

// serveStateless answers one POST of the stateless revision.
func (h *Handler) serveStateless(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, accept acceptance) {
	// A batch never gets here: the body's decoder refuses it (refuseBatch).
	if !msg.IsRequest() {
		// Clients send no responses. Core 2026-07-28 defines no client
		// notifications over HTTP: cancellation is closing the response (an
		// id in a notification would name no request of this POST, and
		// perhaps another client's), and the specification's other
		// notifications (go-sdk sends notifications/roots/list_changed
		// here) mean nothing without a session, so they are dropped, not
		// refused: a refused notification makes some clients give up the
		// connection. An application's notifications
		// (mcp.AddNotificationHandler) are checked as a request is and
		// handed to the server.
		if msg.Method == "" {
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: a stateless server sends no requests to answer")
			return
		}
		if mcp.SpecMethod(msg.Method) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	if !checkStatelessHeaders(w, r, msg) {
		return
	}
	client, ok := h.admitStateless(w, r, msg.ID)
	if !ok {
		return
	}
	defer h.statelessReq.release(client)
	srv := h.serverOf(r) // after admission, which bounds the servers being made
	if srv == nil {
		errNoServer(w, msg.ID)
		return
	}
	if !msg.IsRequest() {
		h.notifyStateless(w, r, srv, msg)
		return
	}
	h.answerStateless(w, r, srv, msg, accept)
}

// checkStatelessHeaders checks what only the transport can see of a
// stateless request, in the order the specification gives: the
// MCP-Protocol-Version header, the _meta keys, then that the standard
// headers repeat the body. It answers the POST and reports false on the
// first failure.
func checkStatelessHeaders(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) bool {
	version := r.Header.Get(headerProtocolVersion)
	if version == "" {
		headerMismatch(w, msg.ID, "Missing MCP-Protocol-Version header")
		return false
	}
	env := peekStateless(msg)
	switch {
	case env.Meta == nil:
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidParams, "Invalid params: missing _meta keys: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities")
		return false
	case env.Meta.ProtocolVersion == nil:
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidParams, "Invalid params: missing _meta keys: io.modelcontextprotocol/protocolVersion")
		return false
	case env.Meta.ClientCapabilities == nil:
		writeError(w, http.StatusBadRequest, msg.ID, jsonrpc.CodeInvalidParams, "Invalid params: missing _meta keys: io.modelcontextprotocol/clientCapabilities")
		return false
	}
	if *env.Meta.ProtocolVersion != version {
		headerMismatch(w, msg.ID, "Header mismatch: MCP-Protocol-Version "+quoteHeader(version)+" differs from _meta protocolVersion "+quoteHeader(*env.Meta.ProtocolVersion))
		return false
	}
	if got := r.Header.Get(mcpheader.HeaderMethod); got != msg.Method {
		if got == "" {
			headerMismatch(w, msg.ID, "Header mismatch: missing Mcp-Method header")
		} else {
			headerMismatch(w, msg.ID, "Header mismatch: Mcp-Method "+quoteHeader(got)+" differs from the request method "+quoteHeader(msg.Method))
		}
		return false
	}
	return checkNameHeader(w, r, msg, env)
}

// checkNameHeader checks that the Mcp-Name header repeats the name the
// request acts on (a tool, a prompt, a resource, a task), as
// checkStatelessHeaders does.
func checkNameHeader(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message, env *statelessEnvelope) bool {
	var name string
	optional := false // the tasks extension's methods tolerate a missing Mcp-Name
	switch {
	case msg.Method == mcp.MethodToolsCall, msg.Method == mcp.MethodPromptsGet:
		name = env.Name
	case msg.Method == mcp.MethodResourcesRead:
		name = env.URI
	case mcpheader.NamedByTaskID(msg.Method):
		name, optional = env.TaskID, true
	}
	got, ok := r.Header[http.CanonicalHeaderKey(mcpheader.HeaderName)]
	if name == "" || (!ok && optional) {
		return true
	}
	if !ok {
		headerMismatch(w, msg.ID, "Header mismatch: missing Mcp-Name header")
		return false
	}
	v, err := mcpheader.DecodeHeaderValue(got[0])
	if err != nil {
		headerMismatch(w, msg.ID, "Header mismatch: Mcp-Name: "+err.Error())
		return false
	}
	if v != name {
		headerMismatch(w, msg.ID, "Header mismatch: Mcp-Name "+quoteHeader(got[0])+" differs from the request's "+quoteHeader(name))
		return false
	}
	return true
}

// admitStateless counts a stateless request against MaxStatelessRequests
// and MaxStatelessRequestsPerClient and returns the client it counts for
// (h.statelessReq.release(client) releases it), or refuses the POST (the
// Handler closed, or a bound reached) and reports false.
func (h *Handler) admitStateless(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) (client string, ok bool) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy, "server shutting down")
		return "", false
	}
	client = h.clientKey(r)
	if ok, overQuota := h.statelessReq.acquire(client); !ok {
		w.Header().Set("Retry-After", "1")
		if overQuota {
			h.log.Warn("mcphttp: refusing stateless request: client at MaxStatelessRequestsPerClient", "client", client, "max", h.opts.MaxStatelessRequestsPerClient)
			writeError(w, http.StatusTooManyRequests, id, CodeServerBusy,
				"too many requests: this client has "+strconv.Itoa(h.opts.MaxStatelessRequestsPerClient)+" requests in progress already; try again later")
			return "", false
		}
		h.log.Warn("mcphttp: refusing stateless request: at MaxStatelessRequests", "max", h.opts.MaxStatelessRequests)
		writeError(w, http.StatusServiceUnavailable, id, CodeServerBusy,
			"server busy: "+strconv.Itoa(h.opts.MaxStatelessRequests)+" requests in progress; try again later")
		return "", false
	}
	return client, true
}

// answerStateless runs a stateless request's handler on this goroutine,
// with the request's context (the client closing the response cancels
// it), and writes its answer. The response is an event stream when the
// client accepts only that, JSON when it accepts only that, and otherwise
// whichever the handler calls for: the answer alone goes out as JSON, with
// an HTTP status matching its error; a message before it starts an event
// stream.
func (h *Handler) answerStateless(w http.ResponseWriter, r *http.Request, srv *mcp.Server, msg *jsonrpc.Message, accept acceptance) {
	var c *sseConn
	if accept.sse() {
		c = newSSEConn(w, h.opts.WriteTimeout)
		defer c.kill()
		if !accept.json() {
			_ = c.write(nil) // the headers
		}
		defer h.keepAlive(c)()
	}
	send := func(_ context.Context, m *jsonrpc.Message) error {
		if c == nil {
			return nil // JSON only: related messages have nowhere to go
		}
		dp, bp := bufPool.Get().(*[]byte), bufPool.Get().(*[]byte)
		data := m.AppendJSON((*dp)[:0])
		b := appendEvent((*bp)[:0], "", "message", 0, data)
		err := c.write(b)
		putBuf(bp, b)
		putBuf(dp, data)
		return err
	}
	info := newRequestInfo(r, "")
	info.principal = h.principal(r)
	msg.Info = info
	final := srv.HandleStateless(r.Context(), msg, send)
	switch {
	case c != nil && c.started():
		if final != nil {
			_ = send(r.Context(), final)
		}
		return // the answer went out on the event stream
	case final == nil:
		w.WriteHeader(http.StatusNoContent) // the client went away
		return
	}
	bp := bufPool.Get().(*[]byte)
	b := final.AppendJSON((*bp)[:0])
	h.writeJSONStatus(w, r, statelessStatus(final.Error), b)
	putBuf(bp, b)
}

// statelessStatus is the HTTP status of a stateless request's JSON answer
// carrying e (nil for a result).
func statelessStatus(e *jsonrpc.Error) int {
	if e == nil {
		return http.StatusOK
	}
	switch e.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// notifyStateless hands a stateless notification to the server, on this
// goroutine (the POST counts against the stateless bounds while it runs),
// and accepts it.
func (h *Handler) notifyStateless(w http.ResponseWriter, r *http.Request, srv *mcp.Server, msg *jsonrpc.Message) {
	info := newRequestInfo(r, "")
	info.principal = h.principal(r)
	msg.Info = info
	srv.HandleStateless(r.Context(), msg, func(context.Context, *jsonrpc.Message) error { return nil })
	w.WriteHeader(http.StatusAccepted)
}

// keepAlive writes a comment on the event stream c every KeepAliveInterval
// while a stateless request runs, once the stream has started, from a timer
// rather than a goroutine of its own. The function it returns stops it.
func (h *Handler) keepAlive(c *sseConn) (stop func()) {
	every := h.opts.KeepAliveInterval
	if every <= 0 {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	var t *time.Timer
	mu.Lock()
	t = time.AfterFunc(every, func() {
		_ = c.keepAlive()
		mu.Lock()
		if !stopped {
			t.Reset(every)
		}
		mu.Unlock()
	})
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}

// Defaults for the stateless request bounds of HandlerOptions.
const (
	DefaultMaxStatelessRequests          = 1000
	DefaultMaxStatelessRequestsPerClient = 32
)

// newStatelessCounter fills in the defaults of MaxStatelessRequests and
// MaxStatelessRequestsPerClient and returns the counter bounding them.
func newStatelessCounter(max, perClient *int) *clientCounter {
	if *max == 0 {
		*max = DefaultMaxStatelessRequests
	}
	if *perClient == 0 {
		*perClient = DefaultMaxStatelessRequestsPerClient
	}
	return newClientCounter(*max, *perClient)
}
