package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp/shared"
)

// ServerSession is one client connection to a Server, made by
// Server.Connect. On it, a client either opens a stateful session with the
// initialize handshake (protocol revisions 2024-11-05 to 2025-11-25), or
// sends requests of the stateless revision (2026-07-28), each carrying its
// own client context in _meta. A session rebuilt from a shared.SessionState
// starts already initialized.
//
// A ServerSession is the connection's lifetime (Close, Wait, Done) and its
// state (ID, ProtocolVersion, ClientInfo, ClientCapabilities, LogLevel,
// State, Stats); Call, Notify and Ping reach its client outside any
// request. What a handler does about its request (logs, progress,
// questions to the client) goes through the request (ServerRequest), which
// works at every revision. Requests of the stateless revision belong to no
// session: their handlers get false from ServerRequest.Session, and the
// request itself answers for the client's version, capabilities and
// identity.
type ServerSession struct {
	server    *Server
	conn      *jsonrpc.Conn
	id        string
	store     shared.SessionStore
	untracked bool          // the connection ended and Server forgot it; guarded by server.mu
	hooked    int8          // where the session is in its register/unregister hooks; guarded by server.mu
	unhooked  chan struct{} // closed once the session ended and its unregister hooks ran (see Wait)

	// loadMu is held from reading the session's state in its store to
	// applying it to this copy (reload, update), so that copies are
	// applied in the order they were read: a read that began before a
	// change another process saved and announced never lands after the
	// read that announcement caused, undoing it (a subscription lost, its
	// resource updates skipped). Never held while publishing.
	loadMu sync.Mutex

	mu       sync.Mutex
	state    sessionFields       // ProtocolVersion "" until initialize
	initDone bool                // initialize answered, or rebuilt from state
	subs     map[string]struct{} // resource subscriptions (shared.SessionState.Subscriptions is built on save)

	metaCache *metaCache // client capabilities and info of 2026-07-28 requests; made on first use
	prints    viewPrints // what the client was last shown of each list, with visibility functions
}

// sessionFields is what a session holds of its shared.SessionState: the
// fields the ServerSession does not keep elsewhere (its id, its
// subscriptions), so that an idle session costs no more than it must.
type sessionFields struct {
	ProtocolVersion    string
	ClientInfo         *Implementation
	ClientCapabilities *ClientCapabilities
	Principal          string
	LogLevel           LoggingLevel
	Initialized        bool
}

// cache returns the session's cache of decoded client context, made on
// first use: only connections that carry stateless requests need one.
func (ss *ServerSession) cache() *metaCache {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.metaCache == nil {
		ss.metaCache = new(metaCache)
	}
	return ss.metaCache
}

// SessionOptions configures one session of Server.Connect. The zero value
// (and nil) is a session with no id whose state lives only in memory, as on
// stdio.
type SessionOptions struct {
	// ID names the session (the Streamable HTTP Mcp-Session-Id).
	ID string
	// State, if set, rebuilds a session initialized elsewhere (another
	// process, or before a restart): the session starts with that state,
	// and the client is not expected to initialize again.
	State *shared.SessionState
	// Store, if set, receives the session's state when the handshake
	// completes and after every change, before the request that changed it
	// is answered. It needs ID.
	Store shared.SessionStore
	// Principal names who opens the session (for HTTP, derived from the
	// request's credentials); it is saved with the state so that a
	// transport can refuse the session to anyone else.
	Principal string
}

// levelUnset means the client never called logging/setLevel: every message
// is sent.
const levelUnset LoggingLevel = 0

// serverConnHandler is a ServerSession as its connection's
// jsonrpc.Handler, which is no part of the session's API. A conversion,
// not a method value, so that a session costs no allocation for it.
type serverConnHandler ServerSession

func (h *serverConnHandler) Handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	return (*ServerSession)(h).handle(ctx, m)
}

// handle is the connection's jsonrpc.Handler: it decides which lifecycle
// the message belongs to, then runs the Receiving middleware and the method
// table.
func (ss *ServerSession) handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	ctx = withTransportValues(ctx)
	r := &Request{Method: m.Method, ID: m.ID, Params: m.Params}
	if !ss.initializeDone() {
		if meta := peekMeta(m.Params, ss); isStateless(r, meta) {
			r.meta = meta
			r.rc = newRequestContext(ctx, ss, r.Method, meta)
			return ss.server.receive(ctx, r)
		}
	}
	r.Session = ss
	return ss.server.receive(ctx, r)
}

// batchAllowed refuses JSON-RPC batches outside the one revision that has
// them (2025-03-26).
func (ss *ServerSession) batchAllowed() *jsonrpc.Error {
	v := ss.ProtocolVersion()
	switch {
	case v == "":
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: a batch before initialize; batches exist only in protocol revision 2025-03-26, after the handshake")
	case !features(v).batches:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: batches exist only in protocol revision 2025-03-26; this session uses %s: send the messages one by one", v)
	}
	return nil
}

// rejected shows a message the connection refused without handling it
// (invalid JSON-RPC, a full queue, a refused batch) to the Receiving
// middleware, which sees it fail with err, so that metrics count it.
func (ss *ServerSession) rejected(m *jsonrpc.Message, err *jsonrpc.Error) {
	mws := ss.server.mw.receivingMW()
	if len(mws) == 0 {
		return
	}
	h := chain(func(context.Context, *Request) (any, error) { return nil, err }, mws)
	r := &Request{Method: m.Method, ID: m.ID, Params: m.Params, Session: ss, x: &requestExtra{rejected: true}}
	_, _ = h(context.Background(), r)
}

// ID returns the session's id ("" on transports without session ids).
func (ss *ServerSession) ID() string { return ss.id }

// ProtocolVersion returns the negotiated revision ("" before initialize).
func (ss *ServerSession) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.ProtocolVersion
}

// ClientInfo returns what the client said about itself in initialize.
func (ss *ServerSession) ClientInfo() *Implementation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.ClientInfo
}

// ClientCapabilities returns the capabilities the client declared.
func (ss *ServerSession) ClientCapabilities() *ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.state.ClientCapabilities == nil {
		return &ClientCapabilities{}
	}
	return ss.state.ClientCapabilities
}

// LogLevel returns the level the client set with logging/setLevel, or zero
// if it set none (every level is sent).
func (ss *ServerSession) LogLevel() LoggingLevel {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.state.LogLevel
}

// State returns a copy of the session's state: what a
// shared.SessionStore keeps.
func (ss *ServerSession) State() *shared.SessionState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.stateLocked()
}

func (ss *ServerSession) stateLocked() *shared.SessionState {
	f := &ss.state
	st := &shared.SessionState{
		ID:                 ss.id,
		ProtocolVersion:    f.ProtocolVersion,
		ClientInfo:         encodeClient(f.ClientInfo),
		ClientCapabilities: encodeClient(f.ClientCapabilities),
		Initialized:        f.Initialized,
		Principal:          f.Principal,
	}
	if f.LogLevel.valid() {
		st.LogLevel = f.LogLevel.String()
	}
	if len(ss.subs) > 0 {
		st.Subscriptions = sortedKeys(ss.subs)
	}
	return st
}

// restore puts the session in the state st describes. What a store gives
// back is trusted no more than what a client sends: client info or
// capabilities that do not decode are left out, an unknown level is unset.
func (ss *ServerSession) restore(st *shared.SessionState) {
	f := sessionFields{
		ProtocolVersion:    st.ProtocolVersion,
		ClientInfo:         decodeClient[Implementation](st.ClientInfo),
		ClientCapabilities: decodeClient[ClientCapabilities](st.ClientCapabilities),
		Principal:          st.Principal,
		Initialized:        st.Initialized,
	}
	f.LogLevel, _ = ParseLoggingLevel(st.LogLevel)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.state = f
	ss.initDone = st.ProtocolVersion != ""
	ss.subs = nil
	for _, u := range st.Subscriptions {
		if ss.subs == nil {
			ss.subs = make(map[string]struct{}, len(st.Subscriptions))
		}
		ss.subs[u] = struct{}{}
	}
}

// encodeClient encodes what a client declared (its info, its
// capabilities) for a store: nil for nothing. The session keeps only the
// decoded value, so that an idle session costs no more than it did; a
// state is encoded when it is saved (the handshake, a change), not when
// it is served.
func encodeClient[T any](v *T) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil // a value decoded from JSON encodes
	}
	return b
}

// decodeClient decodes what a client declared from a store's JSON. JSON
// that does not decode into it is dropped, not trusted.
func decodeClient[T any](raw json.RawMessage) *T {
	if len(raw) == 0 {
		return nil
	}
	var v *T
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// save writes the session's state to its store, if it has one, and tells
// the other processes that it changed.
func (ss *ServerSession) save(ctx context.Context) error {
	if ss.store == nil || ss.id == "" {
		return nil
	}
	if err := ss.store.Save(ctx, ss.State()); err != nil {
		return ss.storeDown("save", err)
	}
	ss.announce(ctx)
	return nil
}

// announce tells the other processes that the session's state changed, so
// that their copies read it again.
func (ss *ServerSession) announce(ctx context.Context) {
	ss.server.publish(ctx, &shared.Notice{Method: shared.NoticeSessionChanged, Session: ss.id})
}

// update changes the session's state (change runs with ss.mu held) and
// saves it. With a store, the state is read back from it first: the
// client's previous request may have been served by another process, whose
// change this one may not have heard of yet, and saving a stale copy would
// undo it (a subscription made there, lost here).
//
// A store that is a shared.SessionUpdater makes the change in one step on the
// stored state, so that a change made at the same moment through another
// process is kept too. A session the store no longer holds is not saved
// again (errSessionGone).
func (ss *ServerSession) update(ctx context.Context, change func(*ServerSession)) error {
	if ss.store == nil || ss.id == "" {
		ss.mu.Lock()
		change(ss)
		ss.mu.Unlock()
		return nil
	}
	err := ss.updateStored(ctx, change)
	switch {
	case err == nil:
		ss.announce(ctx)
		return nil
	case errors.Is(err, shared.ErrNoSession):
		return errSessionGone
	default:
		return ss.storeDown("update", err)
	}
}

// updateStored makes change on the state in the session's store, and
// leaves this copy as the store has it then; ss.loadMu is held throughout,
// so that no older read lands after it.
func (ss *ServerSession) updateStored(ctx context.Context, change func(*ServerSession)) error {
	ss.loadMu.Lock()
	defer ss.loadMu.Unlock()
	if u, ok := ss.store.(shared.SessionUpdater); ok {
		_, err := u.Update(ctx, ss.id, func(st *shared.SessionState) {
			// Each try starts from the stored state; the last one to run
			// is the one saved, so this copy ends as the store has it.
			ss.restore(st)
			ss.mu.Lock()
			change(ss)
			*st = *ss.stateLocked()
			ss.mu.Unlock()
		})
		return err
	}
	if !ss.reloadLocked(ctx) {
		return shared.ErrNoSession
	}
	ss.mu.Lock()
	change(ss)
	ss.mu.Unlock()
	return ss.store.Save(ctx, ss.State())
}

// errSessionGone answers a change of a session its store no longer holds:
// the client deleted it, through this process or another, or it expired
// there. Saving this copy would bring it back, and a request made before
// the DELETE (notifications/initialized is answered before it runs) would
// then revive a session the client ended.
var errSessionGone = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session not found: it was terminated or expired; initialize a new session")

// storeDown logs a failed store operation and returns the error a client
// gets for it.
func (ss *ServerSession) storeDown(op string, err error) error {
	ss.server.log.Warn("mcp: session store: "+op, "session", ss.id, "err", err)
	// Server busy, not an internal error: the store (Redis, a database) is
	// down for now, the client may retry, and an HTTP transport answers
	// 503.
	return jsonrpc.NewError(jsonrpc.CodeServerOverloaded, "server busy: the session store is unavailable, the session could not be saved; try again later")
}

// reload reads the session's state back from its store, after another
// process changed it. It reports false when the store no longer holds the
// session (see errSessionGone).
func (ss *ServerSession) reload(ctx context.Context) bool {
	ss.loadMu.Lock()
	defer ss.loadMu.Unlock()
	return ss.reloadLocked(ctx)
}

// reloadLocked is reload with ss.loadMu held.
func (ss *ServerSession) reloadLocked(ctx context.Context) bool {
	if ss.store == nil || ss.id == "" {
		return true
	}
	st, err := ss.store.Load(ctx, ss.id)
	if err != nil {
		if !errors.Is(err, shared.ErrNoSession) {
			ss.server.log.Warn("mcp: session store: load", "session", ss.id, "err", err)
		}
		return !errors.Is(err, shared.ErrNoSession)
	}
	ss.restore(st)
	return true
}

// Stats returns the counters of the session's connection: notifications
// queued and dropped, messages refused. Metrics read them (see the otel
// module's gauges); they are cheap to read at any time.
func (ss *ServerSession) Stats() jsonrpc.ConnStats { return ss.conn.Stats() }

// Close ends the session.
func (ss *ServerSession) Close() error { return ss.conn.Close() }

// Wait blocks until the session has ended, its handlers have returned
// and the functions hooks.OnUnregisterSession added have run for it, so
// that what follows a Wait sees the session's end everywhere. A function
// hooks.OnUnregisterSession added must not call Wait itself.
func (ss *ServerSession) Wait() error {
	err := ss.conn.Wait()
	<-ss.unhooked
	return err
}

// Done is closed when the session ends.
func (ss *ServerSession) Done() <-chan struct{} { return ss.conn.Done() }

func (ss *ServerSession) initializeDone() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initDone
}

func (ss *ServerSession) subscribed(uri string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.subs[uri]
	return ok
}

func (s *Server) handleInitialize(ctx context.Context, r *Request) (any, error) {
	ss := r.session()
	var p InitializeParams
	if !p.decodeFast(r.Params) {
		if err := decodeRequest(r, &p); err != nil {
			return nil, err
		}
	}
	if p.ProtocolVersion == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: protocolVersion is required")
	}
	version := negotiateVersion(p.ProtocolVersion)
	ss.mu.Lock()
	if ss.initDone {
		ss.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "invalid request: session already initialized")
	}
	ss.state.ProtocolVersion = version
	ss.state.ClientInfo = p.ClientInfo
	ss.state.ClientCapabilities = p.Capabilities
	ss.initDone = true
	ss.mu.Unlock()
	if err := ss.save(ctx); err != nil {
		return nil, err
	}
	return &InitializeResult{
		ProtocolVersion: version,
		Capabilities:    s.capabilitiesAt(version),
		ServerInfo:      s.impl,
		Instructions:    s.opts.Instructions,
	}, nil
}

func (s *Server) handleInitialized(ctx context.Context, r *Request) (any, error) {
	ss := r.session()
	ss.mu.Lock()
	first := ss.initDone && !ss.state.Initialized
	ss.state.Initialized = ss.initDone
	ss.mu.Unlock()
	if first {
		s.remember(s.sessionView(s.visibility(), ss), &ss.prints)
		// A change of the stored state, not a save of this copy: the
		// notification was accepted before it ran, so the client's next
		// request may have changed the session through another process
		// (a subscription), which saving this copy would undo.
		_ = ss.update(ctx, func(ss *ServerSession) { ss.state.Initialized = ss.initDone })
		if s.opts.InitializedHandler != nil {
			s.opts.InitializedHandler(ctx, ss)
		}
	}
	return nil, nil
}

func (s *Server) handleCancelled(_ context.Context, r *Request) (any, error) {
	var p CancelledNotificationParams
	if c := r.connection(); c != nil && decodeRequest(r, &p) == nil && !p.RequestID.IsZero() {
		c.conn.CancelIncoming(p.RequestID)
	}
	return nil, nil
}

func (s *Server) handleProgress(ctx context.Context, r *Request) (any, error) {
	if h := s.opts.ProgressHandler; h != nil {
		var p ProgressNotificationParams
		if decodeRequest(r, &p) == nil {
			h(ctx, r.session(), &p)
		}
	}
	return nil, nil
}

func (s *Server) handleRootsListChanged(ctx context.Context, r *Request) (any, error) {
	if h := s.opts.RootsListChangedHandler; h != nil {
		h(ctx, r.session())
	}
	return nil, nil
}

func (s *Server) handleSetLevel(ctx context.Context, r *Request) (any, error) {
	var p SetLevelParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	if p.Level == levelUnset {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: level is required")
	}
	if err := r.session().update(ctx, func(ss *ServerSession) { ss.state.LogLevel = p.Level }); err != nil {
		return nil, err
	}
	return &emptyParams{}, nil
}

func (s *Server) handleSubscribe(ctx context.Context, r *Request) (any, error) {
	var p SubscribeParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: uri is required")
	}
	err := r.session().update(ctx, func(ss *ServerSession) {
		if ss.subs == nil {
			ss.subs = make(map[string]struct{})
		}
		ss.subs[p.URI] = struct{}{}
	})
	if err != nil {
		return nil, err
	}
	return &emptyParams{}, nil
}

func (s *Server) handleUnsubscribe(ctx context.Context, r *Request) (any, error) {
	var p UnsubscribeParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	if err := r.session().update(ctx, func(ss *ServerSession) { delete(ss.subs, p.URI) }); err != nil {
		return nil, err
	}
	return &emptyParams{}, nil
}

func (s *Server) handleComplete(ctx context.Context, r *Request) (any, error) {
	h := s.opts.CompletionHandler
	if h == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: completion/complete (no completion handler)")
	}
	var p CompleteParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	if err := s.refVisible(s.viewOf(ctx, r), p.Ref); err != nil {
		return nil, err
	}
	res, err := h(ctx, newServerRequest(r, &p, p.Meta))
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &CompleteResult{}
	}
	if len(res.Completion.Values) > 100 {
		res.Completion.Values = res.Completion.Values[:100]
		res.Completion.HasMore = true
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return res, nil
}

// ErrCapability is returned when the server would send a request the client
// did not declare a capability for. The request is not sent.
var ErrCapability = errors.New("mcp: the peer did not declare the capability this request needs")

// call sends a request to the client through the Sending middleware.
func (ss *ServerSession) call(ctx context.Context, method string, params, result any) error {
	return sendCall(ctx, ss.conn, ss, &ss.server.mw, method, ss.downgrade(method, params), result)
}

// downgrade removes from outgoing params the fields the session's revision
// lacks.
func (ss *ServerSession) downgrade(method string, params any) any {
	if v := ss.ProtocolVersion(); v != "" {
		return downgradeParams(features(v), method, params)
	}
	return params
}

// notify sends a notification through the Sending middleware.
func (ss *ServerSession) notify(ctx context.Context, method string, params any) error {
	return sendNotify(ctx, ss.conn.Notify, ss, ss.server.mw.sendingMW(), method, ss.downgrade(method, params))
}

// sendCancel tells the client the server gave up on one of its requests.
func (ss *ServerSession) sendCancel(id jsonrpc.ID, cause error) {
	reason := ""
	if cause != nil {
		reason = cause.Error()
	}
	_ = ss.notify(context.Background(), NotificationCancelled, &CancelledNotificationParams{RequestID: id, Reason: reason})
}

// Ping checks that the client answers.
func (ss *ServerSession) Ping(ctx context.Context) error {
	return ss.call(ctx, MethodPing, &emptyParams{}, nil)
}

// createMessage asks the client's model for a completion
// (sampling/createMessage). It fails with ErrCapability if the client did not
// declare sampling (or sampling.tools when tools are given, which also needs
// a revision that has tools in sampling: 2025-11-25 or later). Handlers ask
// through their request (ServerRequest.CreateMessage), which works at every
// revision.
func (ss *ServerSession) createMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	caps := ss.ClientCapabilities()
	if caps.Sampling == nil || (len(p.Tools) > 0 && (caps.Sampling.Tools == nil || !features(ss.ProtocolVersion()).samplingTools)) {
		return nil, fmt.Errorf("%w: sampling", ErrCapability)
	}
	var res CreateMessageResult
	if err := ss.call(ctx, MethodSamplingCreateMessage, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// elicit asks the user for input through the client (elicitation/create).
// It fails with ErrCapability if the client did not declare elicitation, or
// the mode requested, or if the negotiated revision lacks them (elicitation
// is 2025-06-18+, URL mode 2025-11-25+).
func (ss *ServerSession) elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	caps := ss.ClientCapabilities()
	f := features(ss.ProtocolVersion())
	if caps.Elicitation == nil || !f.elicitation {
		return nil, fmt.Errorf("%w: elicitation", ErrCapability)
	}
	if p.Mode == ElicitModeURL && (caps.Elicitation.URL == nil || !f.elicitationURLMode) {
		return nil, fmt.Errorf("%w: elicitation.url", ErrCapability)
	}
	var res ElicitResult
	if err := ss.call(ctx, MethodElicitationCreate, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client of this connection for its roots
// (roots/list), outside any request: in a RootsListChangedHandler, which
// runs only on a session of an initialize-era revision. A handler asks
// through its request instead (ServerRequest.ListRoots), which works at
// every revision.
func (ss *ServerSession) ListRoots(ctx context.Context, p *ListRootsParams) (*ListRootsResult, error) {
	if ss.ClientCapabilities().Roots == nil {
		return nil, fmt.Errorf("%w: roots", ErrCapability)
	}
	if p == nil {
		p = &ListRootsParams{}
	}
	var res ListRootsResult
	if err := ss.call(ctx, MethodRootsList, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Log sends notifications/message about the connection, not about any
// request, if p.Level is at or above the level the client set (every level,
// if it never set one). A handler logs about its request with
// ServerRequest.Log or ServerRequest.Logger instead, which work at every
// revision.
func (ss *ServerSession) Log(ctx context.Context, p *LoggingMessageNotificationParams) error {
	if min := ss.LogLevel(); min != levelUnset && p.Level < min {
		return nil
	}
	return ss.notify(ctx, NotificationMessage, p)
}

// sendCall runs an outgoing request through middleware and the connection,
// decoding the result into result.
func sendCall(ctx context.Context, conn *jsonrpc.Conn, s Session, mw *mwStack, method string, params, result any) error {
	if len(mw.sendingMW()) == 0 {
		if p, ok := params.(*CallToolParams); ok && p != nil {
			params = callToolJSON{p} // encoded by jsonrpc without reflection
		}
		if _, ok := result.(json.Unmarshaler); !ok {
			return conn.Call(ctx, method, params, result)
		}
		raw, err := conn.CallRaw(ctx, method, params)
		if err != nil {
			return err
		}
		return decodeResult(method, raw, result)
	}
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	h := *mw.send.Load()
	res, err := h(ctx, &Request{Method: method, Params: raw, Session: s, x: sentParams(method, params, raw, true)})
	if err != nil || result == nil {
		return err
	}
	rawRes, _ := res.(json.RawMessage)
	return decodeResult(method, rawRes, result)
}

// callToolJSON is tools/call params as a jsonrpc.Appender: jsonrpc encodes
// them with CallToolParams.appendJSON, without encoding/json's reflection
// and its second pass over Meta's MarshalJSON output, into the one buffer
// it would have had from encoding/json (the value, one pointer, goes into
// the interface without an allocation).
type callToolJSON struct{ p *CallToolParams }

// AppendJSON implements jsonrpc.Appender.
func (c callToolJSON) AppendJSON(b []byte) ([]byte, error) { return c.p.appendJSON(b) }

// marshalParams encodes the params of a request sent through middleware
// (a gateway's forwarded calls are): tools/call params, the most frequent
// by far, without reflection (CallToolParams.appendJSON).
func marshalParams(params any) (json.RawMessage, error) {
	if p, ok := params.(*CallToolParams); ok && p != nil {
		return p.appendJSON(nil)
	}
	return json.Marshal(params)
}

// decodeResult decodes a raw result. The result types of this package
// decode themselves in one pass, validating as they go, so they are called
// directly rather than through json.Unmarshal, which would first scan the
// whole result once more to validate it.
func decodeResult(method string, raw json.RawMessage, result any) error {
	if r, ok := result.(*json.RawMessage); ok && len(raw) > 0 {
		// What json.RawMessage's UnmarshalJSON does, without the copy: a
		// result's bytes are the caller's alone (jsonrpc copies them out of
		// the line they came in).
		*r = raw
		return nil
	}
	if u, ok := result.(json.Unmarshaler); ok && len(raw) > 0 && string(raw) != "null" {
		if err := u.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("mcp: decoding %s result: %w", method, err)
		}
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("mcp: decoding %s result: %w", method, err)
	}
	return nil
}

// sendRequest is the innermost handler of the sending chain of requests
// (mwStack.send): the request goes out on its session's connection.
func sendRequest(ctx context.Context, r *Request) (any, error) {
	var conn *jsonrpc.Conn
	switch s := r.Session.(type) {
	case *ClientSession:
		conn = s.conn
	case *ServerSession:
		conn = s.conn
	default:
		return nil, fmt.Errorf("mcp: sending %s: no session", r.Method)
	}
	id, res, err := conn.CallRawID(ctx, r.Method, r.Params)
	r.ID = id // for the middleware to read once next returns
	return res, err
}

// sendNotify runs an outgoing notification through middleware and write.
func sendNotify(ctx context.Context, write func(context.Context, string, any) error, s Session, mws []Middleware, method string, params any) error {
	if len(mws) == 0 {
		return write(ctx, method, params)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	h := chain(func(ctx context.Context, r *Request) (any, error) {
		return nil, write(ctx, r.Method, r.Params)
	}, mws)
	_, err = h(ctx, &Request{Method: method, Params: raw, Session: s, x: sentParams(method, params, raw, false)})
	return err
}

// outbound is where the messages a request's handler sends go: the
// connection it came on, or the response stream of a stateless HTTP
// request.
type outbound interface {
	notify(ctx context.Context, method string, params any) error
	// gone is closed when nothing more can be sent (the connection's reader
	// stopped); nil when only the request's ctx tells.
	gone() <-chan struct{}
}

func (ss *ServerSession) gone() <-chan struct{} { return ss.conn.ReadDone() }

// withTransportValues lets a handler's ctx carry the values of the context
// the transport received the message in (for HTTP, the request's: what
// authentication middleware stored there), when the transport's message
// info offers it through a Context method. Cancellation still comes from
// ctx alone: an HTTP request ending does not end the handler of a stateful
// session.
func withTransportValues(ctx context.Context) context.Context {
	src, ok := jsonrpc.MessageInfo(ctx).(interface{ Context() context.Context })
	if !ok {
		return ctx
	}
	if vc := src.Context(); vc != nil {
		return &valuesCtx{Context: ctx, values: vc}
	}
	return ctx
}

// valuesCtx is a context whose values fall back to another context's.
type valuesCtx struct {
	context.Context
	values context.Context
}

func (c *valuesCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}
