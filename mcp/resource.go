package mcp

import (
	"context"
	"errors"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/yosida95/uritemplate/v3"
)

// A ResourceHandler reads a resource. Return ResourceNotFoundError(uri)
// when there is no such resource.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// A ResourceTemplateHandler reads a resource of a template. req.Params.URI
// is the concrete URI the client asked for, and vars holds the values of
// the template's variables matched in it (decoded; a variable the URI
// leaves out is absent), so the handler need not match the URI again.
// Return ResourceNotFoundError(uri) when there is no such resource.
type ResourceTemplateHandler func(ctx context.Context, req *ReadResourceRequest, vars map[string]string) (*ReadResourceResult, error)

type serverResource struct {
	resource *Resource
	handler  ResourceHandler
}

type serverTemplate struct {
	template *ResourceTemplate
	parsed   *uritemplate.Template
	handler  ResourceTemplateHandler
}

// AddResource adds or replaces the resource r.URI. It registers nothing
// and returns a *RegistrationError (wrapping ErrInvalidFeature) when the URI
// is not an absolute URI (empty, no scheme, white space), when r has no
// Name (which the spec requires), or r or h is nil.
func (s *Server) AddResource(r *Resource, h ResourceHandler) error {
	if r == nil {
		return s.refuse(&RegistrationError{Kind: featureResource, Err: errNilFeature})
	}
	fail := func(err error) error {
		return s.refuse(&RegistrationError{Kind: featureResource, Name: r.URI, Err: err})
	}
	if h == nil {
		return fail(errNilHandler)
	}
	if err := checkResourceURI(r.URI); err != nil {
		return fail(err)
	}
	if r.Name == "" {
		return fail(errors.New("empty name"))
	}
	s.resources.put([]string{r.URI}, []*serverResource{{resource: r, handler: h}})
	s.registeredFeature(featureResource, r.URI)
	s.notifyListChanged(NotificationResourceListChanged)
	return nil
}

// AddResourceTemplate adds or replaces a resource template (RFC 6570). A
// resources/read for a URI that matches no resource is offered to the
// templates in the order they were added; the first that matches reads it,
// with the variables it matched. It registers nothing and returns a
// *RegistrationError (wrapping ErrInvalidFeature) when the template is
// empty or not valid RFC 6570, when t has no Name (which the spec
// requires), or t or h is nil.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceTemplateHandler) error {
	if t == nil {
		return s.refuse(&RegistrationError{Kind: featureTemplate, Err: errNilFeature})
	}
	fail := func(err error) error {
		return s.refuse(&RegistrationError{Kind: featureTemplate, Name: t.URITemplate, Err: err})
	}
	if h == nil {
		return fail(errNilHandler)
	}
	if t.URITemplate == "" {
		return fail(errors.New("empty URI template"))
	}
	parsed, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fail(err)
	}
	if t.Name == "" {
		return fail(errors.New("empty name"))
	}
	s.templates.put([]string{t.URITemplate}, []*serverTemplate{{template: t, parsed: parsed, handler: h}})
	s.registeredFeature(featureTemplate, t.URITemplate)
	s.notifyListChanged(NotificationResourceListChanged)
	return nil
}

// RemoveResources removes resources by URI.
func (s *Server) RemoveResources(uris ...string) {
	if s.resources.remove(uris...) {
		s.notifyListChanged(NotificationResourceListChanged)
	}
}

// RemoveResourceTemplates removes templates by their template string.
func (s *Server) RemoveResourceTemplates(templates ...string) {
	if s.templates.remove(templates...) {
		s.notifyListChanged(NotificationResourceListChanged)
	}
}

// TemplateArgs returns the values of the template variables in uri, or nil
// if uri does not match template. A ResourceTemplateHandler is given them
// already; TemplateArgs serves code that has only the URI, such as a
// completion handler.
func TemplateArgs(template, uri string) map[string]string {
	t, err := uritemplate.New(template)
	if err != nil {
		return nil
	}
	return matchTemplate(t, uri)
}

func matchTemplate(t *uritemplate.Template, uri string) map[string]string {
	vals := t.Match(uri)
	if vals == nil {
		return nil
	}
	out := make(map[string]string, len(vals))
	for _, name := range t.Varnames() {
		if v := vals.Get(name); v.Valid() {
			out[name] = v.String()
		}
	}
	return out
}

// ResourceNotFoundError is the error for a resource that does not exist:
// code -32002 with the URI in data.
func ResourceNotFoundError(uri string) *jsonrpc.Error {
	return jsonrpc.NewError(CodeResourceNotFound, "Resource not found").WithData(map[string]string{"uri": uri})
}

func (s *Server) handleListResources(ctx context.Context, r *Request) (any, error) {
	var p ListResourcesParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	items, next, err := pageFor(s.viewOf(ctx, r), &s.resources, p.Cursor, s.opts.PageSize, resourceFeature)
	if err != nil {
		return nil, err
	}
	res := &ListResourcesResult{Resources: make([]*Resource, len(items)), NextCursor: next}
	for i, it := range items {
		res.Resources[i] = it.resource
	}
	return res, nil
}

func (s *Server) handleListResourceTemplates(ctx context.Context, r *Request) (any, error) {
	var p ListResourceTemplatesParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	items, next, err := pageFor(s.viewOf(ctx, r), &s.templates, p.Cursor, s.opts.PageSize, templateFeature)
	if err != nil {
		return nil, err
	}
	res := &ListResourceTemplatesResult{ResourceTemplates: make([]*ResourceTemplate, len(items)), NextCursor: next}
	for i, it := range items {
		res.ResourceTemplates[i] = it.template
	}
	return res, nil
}

func (s *Server) handleReadResource(ctx context.Context, r *Request) (any, error) {
	var p ReadResourceParams
	if err := decodeRequest(r, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: uri is required")
	}
	version := r.protocolVersion()
	h := s.findResource(s.viewOf(ctx, r), p.URI)
	if h == nil {
		return nil, notFoundFor(version, ResourceNotFoundError(p.URI))
	}
	if err := s.beginInput(r.rc, func() string { return bindingOf(r.Method, p.URI, nil) }, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	res, err := h(ctx, newServerRequest(r, &p, p.Meta))
	if ir, err, ok := s.finishInput(r.rc, err); ok {
		return ir, err
	}
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, notFoundFor(version, je)
		}
		return nil, err
	}
	if res == nil || res.Contents == nil {
		return nil, notFoundFor(version, ResourceNotFoundError(p.URI))
	}
	return res, nil
}

// notFoundFor gives a resource-not-found error the code of the revision:
// -32002 before 2026-07-28, -32602 from then on (SEP-2164).
func notFoundFor(version string, e *jsonrpc.Error) *jsonrpc.Error {
	if e.Code != CodeResourceNotFound {
		return e
	}
	if code := features(version).resourceNotFoundCode; code != 0 && code != e.Code {
		c := *e
		c.Code = code
		return &c
	}
	return e
}

// findResource finds the handler of uri for a view: the resource of that
// URI, else the first template that matches it, among those the view sees
// (a hidden resource is absent, so a template may serve its URI).
func (s *Server) findResource(w view, uri string) ResourceHandler {
	if sr, ok := getFor(w, &s.resources, uri, resourceFeature); ok {
		return sr.handler
	}
	for _, st := range s.templates.all() {
		if vars := matchTemplate(st.parsed, uri); vars != nil && w.sees(templateFeature(st)) {
			h := st.handler // the URI is matched once, and its variables handed over
			return func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
				return h(ctx, req, vars)
			}
		}
	}
	return nil
}
