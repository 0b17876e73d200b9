package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/gomcp/sdk/jsonrpc"
)

// ServerSession is one client's connection to a Server.
type ServerSession struct {
	server    *Server
	conn      *jsonrpc.Conn
	untracked bool // the connection ended and Server forgot it; guarded by server.mu

	mu         sync.Mutex
	initParams *InitializeParams
	version    string
	initDone   bool // initialize answered
	ready      bool // notifications/initialized received
	logLevel   LoggingLevel
	subs       map[string]struct{}

	metaCache metaCache // client capabilities and info of 2026-07-28 requests
}

// levelUnset means the client never called logging/setLevel: every message
// is sent.
const levelUnset LoggingLevel = 0

// Handle implements jsonrpc.Handler: it runs the Receiving middleware and the
// method table for one incoming message.
func (ss *ServerSession) Handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	return ss.server.receive(ctx, &Request{Method: m.Method, ID: m.ID, Params: m.Params, Session: ss})
}

// ProtocolVersion returns the negotiated revision ("" before initialize).
func (ss *ServerSession) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// ClientInfo returns what the client said about itself in initialize.
func (ss *ServerSession) ClientInfo() *Implementation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initParams == nil {
		return nil
	}
	return ss.initParams.ClientInfo
}

// ClientCapabilities returns the capabilities the client declared.
func (ss *ServerSession) ClientCapabilities() *ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initParams == nil || ss.initParams.Capabilities == nil {
		return &ClientCapabilities{}
	}
	return ss.initParams.Capabilities
}

// Close ends the session.
func (ss *ServerSession) Close() error { return ss.conn.Close() }

// Wait blocks until the session has ended and its handlers have returned.
func (ss *ServerSession) Wait() error { return ss.conn.Wait() }

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

func (ss *ServerSession) handleInitialize(_ context.Context, r *Request) (any, error) {
	var p InitializeParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
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
	ss.initParams = &p
	ss.version = version
	ss.initDone = true
	ss.mu.Unlock()
	return &InitializeResult{
		ProtocolVersion: version,
		Capabilities:    ss.server.capabilities(),
		ServerInfo:      ss.server.impl,
		Instructions:    ss.server.opts.Instructions,
	}, nil
}

func (ss *ServerSession) handleInitialized(ctx context.Context, _ *Request) (any, error) {
	ss.mu.Lock()
	first := ss.initDone && !ss.ready
	ss.ready = ss.initDone
	ss.mu.Unlock()
	if first && ss.server.opts.InitializedHandler != nil {
		ss.server.opts.InitializedHandler(ctx, ss)
	}
	return nil, nil
}

func handleCancelled(sess *ServerSession, _ context.Context, r *Request) (any, error) {
	var p CancelledNotificationParams
	if decodeParams(r.Params, &p) == nil && !p.RequestID.IsZero() {
		sess.conn.CancelIncoming(p.RequestID)
	}
	return nil, nil
}

func (ss *ServerSession) handleProgress(ctx context.Context, r *Request) (any, error) {
	if h := ss.server.opts.ProgressHandler; h != nil {
		var p ProgressNotificationParams
		if decodeParams(r.Params, &p) == nil {
			h(ctx, ss, &p)
		}
	}
	return nil, nil
}

func (ss *ServerSession) handleRootsListChanged(ctx context.Context, _ *Request) (any, error) {
	if h := ss.server.opts.RootsListChangedHandler; h != nil {
		h(ctx, ss)
	}
	return nil, nil
}

func (ss *ServerSession) handleSetLevel(_ context.Context, r *Request) (any, error) {
	var p SetLevelParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Level == levelUnset {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: level is required")
	}
	ss.mu.Lock()
	ss.logLevel = p.Level
	ss.mu.Unlock()
	return &emptyParams{}, nil
}

func (ss *ServerSession) handleSubscribe(_ context.Context, r *Request) (any, error) {
	var p SubscribeParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: uri is required")
	}
	ss.mu.Lock()
	if ss.subs == nil {
		ss.subs = make(map[string]struct{})
	}
	ss.subs[p.URI] = struct{}{}
	ss.mu.Unlock()
	return &emptyParams{}, nil
}

func (ss *ServerSession) handleUnsubscribe(_ context.Context, r *Request) (any, error) {
	var p UnsubscribeParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	ss.mu.Lock()
	delete(ss.subs, p.URI)
	ss.mu.Unlock()
	return &emptyParams{}, nil
}

func (ss *ServerSession) handleComplete(ctx context.Context, r *Request) (any, error) {
	h := ss.server.opts.CompletionHandler
	if h == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: completion/complete (no completion handler)")
	}
	var p CompleteParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	res, err := h(ctx, newServerRequest(ss, r, &p, p.Meta))
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
	return sendCall(ctx, ss.conn, ss, ss.server.opts.Sending, method, params, result)
}

// notify sends a notification through the Sending middleware.
func (ss *ServerSession) notify(ctx context.Context, method string, params any) error {
	return sendNotify(ctx, ss.conn, ss, ss.server.opts.Sending, method, params)
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

// CreateMessage asks the client's model for a completion
// (sampling/createMessage). It fails with ErrCapability if the client did not
// declare sampling (or sampling.tools when tools are given, which also needs
// a revision that has tools in sampling: 2025-11-25 or later).
func (ss *ServerSession) CreateMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
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

// Elicit asks the user for input through the client (elicitation/create).
// It fails with ErrCapability if the client did not declare elicitation, or
// the mode requested, or if the negotiated revision lacks them (elicitation
// is 2025-06-18+, URL mode 2025-11-25+).
func (ss *ServerSession) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	caps := ss.ClientCapabilities()
	f := features(ss.ProtocolVersion())
	if caps.Elicitation == nil || !f.elicitation {
		return nil, fmt.Errorf("%w: elicitation", ErrCapability)
	}
	if p.Mode == "url" && (caps.Elicitation.URL == nil || !f.elicitationURLMode) {
		return nil, fmt.Errorf("%w: elicitation.url", ErrCapability)
	}
	var res ElicitResult
	if err := ss.call(ctx, MethodElicitationCreate, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots (roots/list).
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

// NotifyProgress sends notifications/progress.
func (ss *ServerSession) NotifyProgress(ctx context.Context, p *ProgressNotificationParams) error {
	return ss.notify(ctx, NotificationProgress, p)
}

// Log sends notifications/message if p.Level is at or above the level the
// client set (every level, if it never set one).
func (ss *ServerSession) Log(ctx context.Context, p *LoggingMessageParams) error {
	ss.mu.Lock()
	min := ss.logLevel
	ss.mu.Unlock()
	if min != levelUnset && p.Level < min {
		return nil
	}
	return ss.notify(ctx, NotificationMessage, p)
}

// sendCall runs an outgoing request through middleware and the connection,
// decoding the result into result.
func sendCall(ctx context.Context, conn *jsonrpc.Conn, s Session, mws []Middleware, method string, params, result any) error {
	if len(mws) == 0 {
		if _, ok := result.(json.Unmarshaler); !ok {
			return conn.Call(ctx, method, params, result)
		}
		raw, err := conn.CallRaw(ctx, method, params)
		if err != nil {
			return err
		}
		return decodeResult(method, raw, result)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	h := chain(func(ctx context.Context, r *Request) (any, error) {
		return conn.CallRaw(ctx, r.Method, r.Params)
	}, mws)
	res, err := h(ctx, &Request{Method: method, Params: raw, Session: s, outgoingRequest: true})
	if err != nil || result == nil {
		return err
	}
	rawRes, _ := res.(json.RawMessage)
	return decodeResult(method, rawRes, result)
}

// decodeResult decodes a raw result. The result types of this package
// decode themselves in one pass, validating as they go, so they are called
// directly rather than through json.Unmarshal, which would first scan the
// whole result once more to validate it.
func decodeResult(method string, raw json.RawMessage, result any) error {
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

func sendNotify(ctx context.Context, conn *jsonrpc.Conn, s Session, mws []Middleware, method string, params any) error {
	if len(mws) == 0 {
		return conn.Notify(ctx, method, params)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	h := chain(func(ctx context.Context, r *Request) (any, error) {
		return nil, conn.Notify(ctx, r.Method, r.Params)
	}, mws)
	_, err = h(ctx, &Request{Method: method, Params: raw, Session: s})
	return err
}

// ServerRequest is what a feature handler receives: the session the request
// came on and its decoded params. Its methods reach back to the client on
// behalf of this request (progress, logs, sampling, elicitation, roots), so
// that a transport can route them with the request.
type ServerRequest[P any] struct {
	Session *ServerSession
	Params  P

	id   jsonrpc.ID
	meta *Meta
	rc   *requestContext // set for 2026-07-28 requests
}

func newServerRequest[P any](ss *ServerSession, r *Request, p P, meta *Meta) *ServerRequest[P] {
	return &ServerRequest[P]{Session: ss, Params: p, id: r.ID, meta: meta, rc: r.rc}
}

// Request types handed to feature handlers.
type (
	CallToolRequest     = ServerRequest[*CallToolParams]
	ReadResourceRequest = ServerRequest[*ReadResourceParams]
	GetPromptRequest    = ServerRequest[*GetPromptParams]
	CompleteRequest     = ServerRequest[*CompleteParams]
)

// ID returns the JSON-RPC id of the request.
func (r *ServerRequest[P]) ID() jsonrpc.ID { return r.id }

// ProgressToken returns the token the client attached to ask for progress.
func (r *ServerRequest[P]) ProgressToken() (ProgressToken, bool) {
	if r.meta == nil || r.meta.ProgressToken.IsZero() {
		return ProgressToken{}, false
	}
	return r.meta.ProgressToken, true
}

// NotifyProgress reports progress on this request. It does nothing when the
// client did not ask for progress. total and message may be zero.
func (r *ServerRequest[P]) NotifyProgress(ctx context.Context, progress, total float64, message string) error {
	tok, ok := r.ProgressToken()
	if !ok {
		return nil
	}
	return r.Session.NotifyProgress(ctx, &ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

// Log sends a log message to the client, related to this request. A
// 2026-07-28 request gets logs only at or above the level its _meta asked
// for, and none if it asked for none.
func (r *ServerRequest[P]) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	if r.rc != nil && (r.rc.logLevel == levelUnset || level < r.rc.logLevel) {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	p := &LoggingMessageParams{Level: level, Logger: logger, Data: raw}
	if r.rc != nil {
		return r.Session.notify(ctx, NotificationMessage, p)
	}
	return r.Session.Log(ctx, p)
}
