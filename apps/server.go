package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"sync"

	"github.com/gomcp/sdk/mcp"
)

// A Server adds MCP Apps to an *mcp.Server: it advertises the extension,
// registers views (ui:// resources) and the tools linked to them, and
// hides app-only tools from clients that render no views. Make one per
// *mcp.Server with New; it is safe for concurrent use.
type Server struct {
	ms *mcp.Server

	mu    sync.RWMutex
	views map[string]bool // URIs of the views added through this Server
	// tools holds, for each tool added through this Server, its _meta.ui
	// as registered and whether it is for the app alone, so visibility is
	// decided without decoding the metadata on every list.
	tools map[string]toolUI
}

type toolUI struct {
	raw     json.RawMessage
	appOnly bool
}

// New advertises the extension in ms's capabilities (at every revision,
// with empty settings: the specification defines none for servers) and
// returns the Server that registers views and app tools on ms.
//
// It also hides app-only tools (Visibility [app]) of ms, whoever
// registered them, from every client that does not render views: such a
// client has no view to call them from, and its model must not see them.
// For clients that render views they stay listed and callable, as the
// specification wants (their host keeps them from the model).
func New(ms *mcp.Server) (*Server, error) {
	if ms == nil {
		return nil, errors.New("apps: nil *mcp.Server")
	}
	if err := ms.AddExtension(&mcp.Extension{ID: ExtensionID}); err != nil {
		return nil, err
	}
	a := &Server{ms: ms, views: make(map[string]bool), tools: make(map[string]toolUI)}
	ms.AddVisibleFunc(a.visible)
	return a, nil
}

// visible is the server's VisibleFunc: an app-only tool is visible only to
// clients that render views.
func (a *Server) visible(_ context.Context, c mcp.Caller, f mcp.Feature) bool {
	if f.Kind != mcp.FeatureTool || f.Tool.Meta == nil {
		return true
	}
	raw, ok := f.Tool.Meta.Extra[MetaKey]
	if !ok {
		return true
	}
	a.mu.RLock()
	t, known := a.tools[f.Tool.Name]
	a.mu.RUnlock()
	appOnly := t.appOnly
	if !known || !bytes.Equal(t.raw, raw) { // registered another way
		var m ToolMeta
		appOnly = json.Unmarshal(raw, &m) == nil && m.AppOnly()
	}
	return !appOnly || HostRenders(c)
}

// A View describes a UI resource: an HTML page a host renders in a
// sandboxed iframe.
type View struct {
	// URI identifies the view; it must be a ui:// URI.
	URI string
	// Name is required, as for every resource.
	Name string
	// Title and Description are optional, for hosts that list resources.
	Title       string
	Description string
	// UI is the view's _meta.ui (CSP, permissions, domain, border), sent
	// on its resources/list entry and on every resources/read item.
	UI ResourceMeta
}

// AddHTML registers v with the fixed page html.
func (a *Server) AddHTML(v *View, html string) error {
	return a.AddView(v, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			&mcp.TextResourceContents{URI: req.Params.URI, Text: html},
		}}, nil
	})
}

// AddFile registers v with the page in the file name of fsys (an
// embed.FS, say), read anew on each resources/read. It refuses a name that
// is not a regular file of fsys now.
func (a *Server) AddFile(v *View, fsys fs.FS, name string) error {
	if fsys == nil {
		return viewError(v, errors.New("nil fs.FS"))
	}
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return viewError(v, err)
	}
	if !fi.Mode().IsRegular() {
		return viewError(v, fmt.Errorf("%s is not a regular file", name))
	}
	return a.AddView(v, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("apps: view %s: %w", req.Params.URI, err)
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			&mcp.TextResourceContents{URI: req.Params.URI, Text: string(b)},
		}}, nil
	})
}

// AddView registers v with the handler h, which returns the page. Each
// item of h's result for v's URI is sent with the MIME type MIMEType and,
// unless the item carries its own, v.UI as its _meta.ui; h's values are
// not modified. The listed resource carries the MIME type and v.UI too.
//
// It refuses, registering nothing, a nil v or h, a URI that is not a
// ui:// URI and an empty name (an error wrapping mcp.ErrInvalidFeature).
// Registering a URI again replaces the view.
func (a *Server) AddView(v *View, h mcp.ResourceHandler) error {
	if v == nil {
		return viewError(nil, errors.New("nil view"))
	}
	if h == nil {
		return viewError(v, errors.New("nil handler"))
	}
	if !IsUIURI(v.URI) {
		return viewError(v, errors.New("not a ui:// URI"))
	}
	if v.Name == "" {
		return viewError(v, errors.New("empty name"))
	}
	var ui json.RawMessage // nil: the view has no _meta.ui
	if v.UI != (ResourceMeta{}) {
		var err error
		if ui, err = json.Marshal(v.UI); err != nil {
			return viewError(v, err)
		}
	}
	r := &mcp.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: MIMEType}
	if ui != nil {
		r.Meta = &mcp.Meta{Extra: map[string]json.RawMessage{MetaKey: ui}}
	}
	uri := v.URI
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		res, err := h(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		return stampContents(res, uri, ui), nil
	}
	if err := a.ms.AddResource(r, read); err != nil {
		return err
	}
	a.mu.Lock()
	a.views[uri] = true
	a.mu.Unlock()
	return nil
}

// stampContents returns a copy of res whose items for uri have the view's
// MIME type and, unless they carry their own, its _meta.ui.
func stampContents(res *mcp.ReadResourceResult, uri string, ui json.RawMessage) *mcp.ReadResourceResult {
	out := *res
	out.Contents = make([]mcp.ResourceContents, len(res.Contents))
	for i, c := range res.Contents {
		switch c := c.(type) {
		case *mcp.TextResourceContents:
			if c.URI == uri {
				cp := *c
				cp.MIMEType, cp.Meta = MIMEType, withUI(c.Meta, ui)
				out.Contents[i] = &cp
				continue
			}
		case *mcp.BlobResourceContents:
			if c.URI == uri {
				cp := *c
				cp.MIMEType, cp.Meta = MIMEType, withUI(c.Meta, ui)
				out.Contents[i] = &cp
				continue
			}
		}
		out.Contents[i] = c
	}
	return &out
}

// withUI returns m with _meta.ui set to ui unless m has one: a copy when
// it adds it, m itself otherwise.
func withUI(m *mcp.Meta, ui json.RawMessage) *mcp.Meta {
	if ui == nil {
		return m
	}
	if m == nil {
		return &mcp.Meta{Extra: map[string]json.RawMessage{MetaKey: ui}}
	}
	if _, ok := m.Extra[MetaKey]; ok {
		return m
	}
	cp := *m
	cp.Extra = maps.Clone(m.Extra)
	if cp.Extra == nil {
		cp.Extra = make(map[string]json.RawMessage, 1)
	}
	cp.Extra[MetaKey] = ui
	return &cp
}

func viewError(v *View, err error) error {
	name := ""
	if v != nil {
		name = v.URI
	}
	return &mcp.RegistrationError{Kind: "resource", Name: name, Err: err}
}

// AddTool registers a tool whose results the view ui.ResourceURI renders,
// or (with Visibility [app] and no ResourceURI) a tool for views alone. It
// takes the handlers of mcp.AddTool and registers through it, with a copy
// of t whose _meta.ui is ui (and, for older hosts, whose deprecated
// _meta["ui/resourceUri"] names the view); t is not modified.
//
// It refuses, registering nothing, with an error wrapping
// mcp.ErrInvalidFeature: a ui that says nothing (no view, no visibility),
// a ResourceURI that is not a view added through a, a visibility other
// than VisibilityModel and VisibilityApp, and everything mcp.AddTool
// refuses.
func AddTool[In, Out any](a *Server, t *mcp.Tool, ui ToolMeta, h mcp.ToolHandlerFor[In, Out]) error {
	if t == nil {
		return &mcp.RegistrationError{Kind: "tool", Err: errors.New("nil tool")}
	}
	c, err := a.linkTool(t, ui)
	if err != nil {
		return &mcp.RegistrationError{Kind: "tool", Name: t.Name, Err: err}
	}
	// Recorded first, so the tool is never listed before its visibility
	// is known; a stale entry is harmless (visible compares the bytes).
	a.mu.Lock()
	a.tools[t.Name] = toolUI{raw: c.Meta.Extra[MetaKey], appOnly: ui.AppOnly()}
	a.mu.Unlock()
	return mcp.AddTool(a.ms, c, h)
}

// linkTool checks ui and returns a copy of t carrying it.
func (a *Server) linkTool(t *mcp.Tool, ui ToolMeta) (*mcp.Tool, error) {
	if ui.ResourceURI == "" && len(ui.Visibility) == 0 {
		return nil, errors.New("_meta.ui names no view and no visibility")
	}
	for _, v := range ui.Visibility {
		if v != VisibilityModel && v != VisibilityApp {
			return nil, fmt.Errorf("unknown visibility %q", v)
		}
	}
	if ui.ResourceURI != "" {
		a.mu.RLock()
		ok := a.views[ui.ResourceURI]
		a.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("view %q is not registered (add it first)", ui.ResourceURI)
		}
	}
	raw, err := json.Marshal(ui)
	if err != nil {
		return nil, err
	}
	c := *t
	m := mcp.Meta{}
	if t.Meta != nil {
		m = *t.Meta
	}
	m.Extra = maps.Clone(m.Extra)
	if m.Extra == nil {
		m.Extra = make(map[string]json.RawMessage, 2)
	}
	m.Extra[MetaKey] = raw
	delete(m.Extra, LegacyResourceURIKey)
	if ui.ResourceURI != "" {
		legacy, err := json.Marshal(ui.ResourceURI)
		if err != nil {
			return nil, err
		}
		m.Extra[LegacyResourceURIKey] = legacy
	}
	c.Meta = &m
	return &c, nil
}
