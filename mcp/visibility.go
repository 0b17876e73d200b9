package mcp

import (
	"context"
	"strconv"

	"github.com/gomcp/sdk/jsonrpc"
)

// Per-request visibility: which tools, prompts, resources and templates a
// caller may see and use. One decision, made by the functions installed with
// ServerOptions.Visible and Server.AddVisibleFunc, is consulted by every list
// and every access path, so a hidden feature is absent for its caller: not
// listed, not callable, not readable, not completable.

// Caller is who sends a request, the same at every revision: a stateful
// session's client, or the client of one 2026-07-28 request.
// *ServerRequest[P] implements it.
type Caller interface {
	// Principal names the caller as the transport authenticated it ("" if
	// nothing did); see ServerRequest.Principal.
	Principal() string
	// ClientInfo is what the client said about itself; never nil.
	ClientInfo() *Implementation
	// ClientCapabilities are the client's capabilities; never nil.
	ClientCapabilities() *ClientCapabilities
	// ProtocolVersion is the revision of the request.
	ProtocolVersion() string
	// Session is the caller's stateful session, or false for a request of
	// the stateless revision.
	Session() (*ServerSession, bool)
}

// FeatureKind is the kind of a Feature.
type FeatureKind int

// The kinds of feature a VisibleFunc decides on.
const (
	FeatureTool FeatureKind = iota + 1
	FeaturePrompt
	FeatureResource
	FeatureResourceTemplate
)

// String names the kind as the protocol's lists do.
func (k FeatureKind) String() string {
	switch k {
	case FeatureTool:
		return "tool"
	case FeaturePrompt:
		return "prompt"
	case FeatureResource:
		return "resource"
	case FeatureResourceTemplate:
		return "resource template"
	}
	return "FeatureKind(" + strconv.Itoa(int(k)) + ")"
}

// Feature is one registered feature; exactly the field of its Kind is set.
// It is the server's own description: hooks must not modify it.
type Feature struct {
	Kind             FeatureKind
	Tool             *Tool
	Prompt           *Prompt
	Resource         *Resource
	ResourceTemplate *ResourceTemplate
}

// Name is what identifies the feature in requests: a tool's or prompt's
// name, a resource's URI, a template's URI template.
func (f Feature) Name() string {
	switch f.Kind {
	case FeatureTool:
		return f.Tool.Name
	case FeaturePrompt:
		return f.Prompt.Name
	case FeatureResource:
		return f.Resource.URI
	case FeatureResourceTemplate:
		return f.ResourceTemplate.URITemplate
	}
	return ""
}

// VisibleFunc reports whether caller c may see and use feature f. ctx is
// the request's (for HTTP, it carries what authentication middleware
// stored); when the server re-evaluates a stateful session's view to
// decide whether to tell it of a list change (features added or removed,
// Server.VisibilityChanged), it is a background context, so a rule should
// decide from c (its Principal, ClientInfo, ClientCapabilities). It must be
// fast and must not call the server: it runs for every entry a list
// considers.
type VisibleFunc func(ctx context.Context, c Caller, f Feature) bool

// visibleSet is the installed functions; a feature is visible when all agree.
type visibleSet []VisibleFunc

func (v visibleSet) allow(ctx context.Context, c Caller, f Feature) bool {
	for _, fn := range v {
		if !fn(ctx, c, f) {
			return false
		}
	}
	return true
}

// Sees reports whether caller c may see and use feature f under the
// server's rules (ServerOptions.Visible, AddVisibleFunc): always when none
// is installed. An extension that serves things of its own through a
// registered feature asks it, so that what hides the feature hides them
// on the extension's own methods too (package skills: a skill goes with
// its SKILL.md resource). In a method handler, Request.Caller is c.
func (s *Server) Sees(ctx context.Context, c Caller, f Feature) bool {
	fns := s.visibility()
	return fns == nil || fns.allow(ctx, c, f)
}

// visibility returns the installed functions, nil when there are none (the
// fast path: nothing is filtered and nothing allocated).
func (s *Server) visibility() visibleSet {
	if p := s.visible.Load(); p != nil {
		return *p
	}
	return nil
}

// view is what one caller may see: the installed functions, the caller and
// the context they are asked with. The zero view (no function installed)
// sees everything.
type view struct {
	fns    visibleSet
	ctx    context.Context
	caller Caller
}

// sees reports whether the view's caller may see f.
func (w view) sees(f Feature) bool { return w.fns == nil || w.fns.allow(w.ctx, w.caller, f) }

// viewOf is the view of the caller of r; the Caller is made only when a
// function is installed.
func (s *Server) viewOf(ctx context.Context, r *Request) view {
	fns := s.visibility()
	if fns == nil {
		return view{}
	}
	return view{fns: fns, ctx: ctx, caller: r.Caller()}
}

// Caller returns who sent r, as visibility rules see it (Server.Sees).
func (r *Request) Caller() Caller { return &ServerRequest[struct{}]{life: r.lifecycle(), id: r.ID} }

// sessionView is the view of a stateful session's client outside any of
// its requests (re-evaluated on changes), with a background context; the
// zero view when fns is nil.
func (s *Server) sessionView(fns visibleSet, ss *ServerSession) view {
	if fns == nil {
		return view{}
	}
	return view{fns: fns, ctx: context.Background(), caller: &ServerRequest[struct{}]{life: sessionBound{ss}}}
}

// features of each kind, as VisibleFunc sees them.
func toolFeature(st *serverTool) Feature     { return Feature{Kind: FeatureTool, Tool: st.tool} }
func promptFeature(sp *serverPrompt) Feature { return Feature{Kind: FeaturePrompt, Prompt: sp.prompt} }
func resourceFeature(sr *serverResource) Feature {
	return Feature{Kind: FeatureResource, Resource: sr.resource}
}
func templateFeature(st *serverTemplate) Feature {
	return Feature{Kind: FeatureResourceTemplate, ResourceTemplate: st.template}
}

// pageFor is reg.page for a view: only the entries it sees, with cursors
// that name only such entries.
func pageFor[T any](w view, reg *registry[T], cursor string, size int, feature func(T) Feature) ([]T, string, error) {
	if w.fns == nil {
		return reg.page(cursor, size, nil)
	}
	return reg.page(cursor, size, func(x T) bool { return w.sees(feature(x)) })
}

// getFor is reg.get for a view: a hidden entry is not found.
func getFor[T any](w view, reg *registry[T], key string, feature func(T) Feature) (T, bool) {
	x, ok := reg.get(key)
	if !ok || !w.sees(feature(x)) {
		var zero T
		return zero, false
	}
	return x, true
}

// refVisible reports whether a completion reference names a prompt or
// template the view sees; with a function installed, a reference to what
// is hidden or absent is refused the way prompts/get refuses an unknown
// prompt, before the CompletionHandler runs.
func (s *Server) refVisible(w view, ref CompleteReference) error {
	if w.fns == nil {
		return nil
	}
	switch ref.Type {
	case RefTypePrompt:
		if _, ok := getFor(w, &s.prompts, ref.Name, promptFeature); !ok {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown prompt %q", ref.Name)
		}
	case RefTypeResource:
		if _, ok := getFor(w, &s.templates, ref.URI, templateFeature); !ok {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: unknown resource template %q", ref.URI)
		}
	}
	return nil
}
