package mcp

import (
	"context"
	"slices"
)

// Seams for features built outside this package, on top of the method
// tables (Server.AddMethod, Server.AddExtension): package tasks uses all of
// them, and nothing here is specific to tasks.

// A ToolCallHook runs around every tool call once the call has been
// checked (the tool exists, its arguments are valid, the answers of
// earlier input rounds are merged) and instead of the direct call of the
// tool's handler. next runs the handler and returns what the client would
// receive: a handler's plain error is already an isError result, and the
// error next returns is a protocol error (*jsonrpc.Error) or one wrapping
// ErrInputRequired, which the hook returns as it is to ask the client for
// input.
//
// The hook may call next at once, later, on another goroutine with another
// context, or not at all, and may answer with a result of another type than
// *CallToolResult: this is how package tasks turns a call into a task and
// answers with the task's handle. A result carrying a resultType keeps it.
type ToolCallHook func(ctx context.Context, req *CallToolRequest, tool *Tool, next func(context.Context, *CallToolRequest) (*CallToolResult, error)) (Result, error)

// SetToolCallHook installs h around every tool call, replacing the
// previous hook; nil removes it.
func (s *Server) SetToolCallHook(h ToolCallHook) {
	if h == nil {
		s.toolHook.Store(nil)
		return
	}
	s.toolHook.Store(&h)
}

// AddVisibleFunc adds f to the functions that decide which features a
// caller sees (ServerOptions.Visible): a feature is visible only when every
// function agrees. A feature built outside this package (package apps
// hides its app-only tools from the model with it) adds its own rule
// without replacing the application's. Call Server.VisibilityChanged when
// what a function answers changes.
func (s *Server) AddVisibleFunc(f VisibleFunc) {
	if f == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := append(slices.Clone(s.visibility()), f)
	s.visible.Store(&next)
}

// ExtendCapabilities adds fn to the functions that complete the
// capabilities the server advertises (after the defaults and the
// extensions, unless ServerOptions.Capabilities replaces them all). A
// feature registered outside this package advertises itself with it: a
// 2025-11-25 capability member, for example; downgrades for older
// revisions still apply.
func (s *Server) ExtendCapabilities(fn func(*ServerCapabilities)) {
	if fn == nil {
		return
	}
	s.mu.Lock()
	s.capsFns = append(s.capsFns, fn)
	s.mu.Unlock()
	for i := range s.capsByShape {
		s.capsByShape[i].Store(nil)
	}
}

// An InputFunc answers a handler's questions in place of the client, on
// the handler's context (WithInputFunc).
type InputFunc func(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error)

type inputFuncKey struct{}

// WithInputFunc returns a context on which ServerRequest.Input, Elicit,
// CreateMessage and ListRoots call f instead of asking the client
// directly: how a handler that outlives its request (a task) routes its
// questions through a store that clients read. A nil f restores the
// direct path.
func WithInputFunc(ctx context.Context, f InputFunc) context.Context {
	return context.WithValue(ctx, inputFuncKey{}, f)
}

func inputFuncFrom(ctx context.Context) InputFunc {
	f, _ := ctx.Value(inputFuncKey{}).(InputFunc)
	return f
}

// A ListenHook vets the part of a subscriptions/listen filter that an
// extension owns (SubscriptionFilter.TaskIDs, say): it copies into ack what
// the stream will carry, or refuses the request with an error (a
// *jsonrpc.Error such as MissingCapabilityError). r is the listen request.
type ListenHook func(ctx context.Context, r *Request, requested, ack *SubscriptionFilter) error

// AddListenHook adds h to the hooks every subscriptions/listen request
// passes before it is acknowledged.
func (s *Server) AddListenHook(h ListenHook) {
	if h == nil {
		return
	}
	s.mu.Lock()
	s.listenHooks = append(s.listenHooks, h)
	s.mu.Unlock()
}

// NotifyListeners sends the notification method to every
// subscriptions/listen stream of this process whose acknowledged filter
// match accepts; params builds the params for one stream from the _meta
// that stream needs (its subscription id). An extension delivers its own
// notifications with it, from the notices it hears on the Notifier, so that
// every process serves its own streams.
func (s *Server) NotifyListeners(method string, match func(*SubscriptionFilter) bool, params func(*Meta) any) {
	s.mu.Lock()
	var targets []*listener
	for l := range s.listeners {
		if match(&l.filter) {
			targets = append(targets, l)
		}
	}
	s.mu.Unlock()
	for _, l := range targets {
		l.sendMu.Lock()
		_ = l.out.notify(l.ctx, method, params(l.meta()))
		l.sendMu.Unlock()
	}
}

type detachedKey struct{}

// Detached returns a context for a handler that goes on after its
// 2026-07-28 request was answered (a task): on it, the request's
// NotifyProgress and Log do nothing, since the request's stream is gone and
// the tasks extension sends no such messages. On a stateful session they
// still go out, as 2025-11-25 tasks allow.
func Detached(ctx context.Context) context.Context {
	return context.WithValue(ctx, detachedKey{}, true)
}

func detached(ctx context.Context) bool {
	d, _ := ctx.Value(detachedKey{}).(bool)
	return d
}
