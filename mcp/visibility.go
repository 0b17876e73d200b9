package mcp

import (
	"context"
	"strconv"
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
// stored), or, when the server re-evaluates a session's view for
// Server.VisibilityChanged, a background context. It must be fast and must
// not call the server: it runs for every entry a list considers.
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

// visibility returns the installed functions, nil when there are none (the
// fast path: nothing is filtered and nothing allocated).
func (s *Server) visibility() visibleSet {
	if p := s.visible.Load(); p != nil {
		return *p
	}
	return nil
}

// requestCaller is the Caller behind an incoming request.
func requestCaller(r *Request) Caller {
	return &ServerRequest[struct{}]{life: r.lifecycle(), id: r.ID}
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

// pageFor is reg.page for the caller of r: only the entries it may see,
// with cursors that name only such entries.
func pageFor[T any](ctx context.Context, s *Server, r *Request, reg *registry[T], cursor string, feature func(T) Feature) ([]T, string, error) {
	v := s.visibility()
	if v == nil {
		return reg.page(cursor, s.opts.PageSize, nil)
	}
	c := requestCaller(r)
	return reg.page(cursor, s.opts.PageSize, func(x T) bool { return v.allow(ctx, c, feature(x)) })
}

// getFor is reg.get for the caller of r: a hidden entry is not found.
func getFor[T any](ctx context.Context, s *Server, r *Request, reg *registry[T], key string, feature func(T) Feature) (T, bool) {
	x, ok := reg.get(key)
	if !ok {
		return x, false
	}
	if v := s.visibility(); v != nil && !v.allow(ctx, requestCaller(r), feature(x)) {
		var zero T
		return zero, false
	}
	return x, true
}
