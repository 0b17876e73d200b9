package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// MCP Apps in the inspector: a tool whose _meta.ui names a ui:// resource
// has its view rendered in the page. The view runs on a second loopback
// listener, the sandbox, so that its origin differs from the page's: it
// can neither read the page nor call its API (which also wants the
// token the view never sees). The sandbox serves one proxy page per view,
// with the view's Content-Security-Policy as an HTTP header; the proxy
// loads the view's HTML into an inner frame (srcdoc, with
// allow-same-origin, as the reference host does: the view shares the
// sandbox's origin, never the page's) that inherits that policy, and
// relays the app bridge's JSON-RPC messages between the view and the
// page, which plays the host (apps.js). docs/security.md gives the
// policy and its reasons.

// Bounds of the views.
const (
	inspectMaxViews   = 16  // views whose proxy pages the sandbox serves
	inspectMaxDomains = 32  // origins kept per CSP list
	inspectMaxOrigin  = 256 // bytes in one declared origin
)

// sandboxView is a rendered view: the session it belongs to (its calls go
// to that server only) and its proxy page's policy.
type sandboxView struct {
	cs     *mcp.ClientSession
	policy string
}

// sandbox is the views' origin: a loopback listener of its own that
// serves the proxy pages.
type sandbox struct {
	origin    string // http://127.0.0.1:PORT
	ancestors string // the page's origins, for frame-ancestors

	mu    sync.Mutex
	views map[string]*sandboxView
	order []string // oldest first
}

// newSandbox listens on a port of its own beside the page's, on host.
func newSandbox(host string) (*sandbox, net.Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, nil, err
	}
	return &sandbox{origin: "http://" + ln.Addr().String(), views: map[string]*sandboxView{}}, ln, nil
}

// allowPage lets the page served at addr frame the proxy pages. An IPv6
// literal is left out: a CSP host-source cannot name one, and Chromium
// drops it with a console error on every view.
func (s *sandbox) allowPage(addr string) {
	var o []string
	for h := range pageHosts(addr) {
		if !strings.HasPrefix(h, "[") {
			o = append(o, "http://"+h)
		}
	}
	slices.Sort(o)
	s.ancestors = strings.Join(o, " ")
}

// pageHosts are the Host values under which the page at addr is served.
func pageHosts(addr string) map[string]bool {
	_, port, _ := net.SplitHostPort(addr)
	return map[string]bool{addr: true, "localhost:" + port: true, "127.0.0.1:" + port: true, "[::1]:" + port: true}
}

// add registers a view of session cs with its policy, forgetting the
// oldest beyond inspectMaxViews, and returns its id.
func (s *sandbox) add(cs *mcp.ClientSession, policy string) (string, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views[id] = &sandboxView{cs: cs, policy: policy}
	s.order = append(s.order, id)
	if len(s.order) > inspectMaxViews {
		delete(s.views, s.order[0])
		s.order = s.order[1:]
	}
	return id, nil
}

func (s *sandbox) view(id string) *sandboxView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.views[id]
}

// handler serves the proxy pages to requests addressed to the sandbox.
func (s *sandbox) handler() http.Handler {
	hosts := pageHosts(strings.TrimPrefix(s.origin, "http://"))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /proxy/{id}", func(w http.ResponseWriter, r *http.Request) {
		v := s.view(r.PathValue("id"))
		if v == nil {
			http.NotFound(w, r)
			return
		}
		page, _ := inspectorFiles.ReadFile("inspector/sandbox.html")
		w.Header().Set("Content-Security-Policy", v.policy+"; frame-ancestors "+s.ancestors)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	mux.HandleFunc("GET /sandbox.js", func(w http.ResponseWriter, r *http.Request) {
		js, _ := inspectorFiles.ReadFile("inspector/sandbox.js")
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write(js)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { noContent(w) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[r.Host] { // a name rebound to 127.0.0.1
			http.Error(w, "wrong Host", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

// cspOrigin is what a declared origin may be: a web or WebSocket scheme
// and a host (its first label may be *), with an optional port. Anything
// else (a keyword such as 'unsafe-eval', a bare *, data:, a path, a
// separator that would start another directive) is dropped, never
// passed on: a host must not loosen the policy beyond what was declared
// in a form it understands.
var cspOrigin = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:([0-9]{1,5}|\*))?$`)

// cleanOrigins keeps the origins of list that cspOrigin accepts, up to
// inspectMaxDomains, and returns the others as dropped.
func cleanOrigins(list []string) (kept, dropped []string) {
	for _, o := range list {
		o = strings.TrimSuffix(o, "/")
		if len(o) <= inspectMaxOrigin && len(kept) < inspectMaxDomains && cspOrigin.MatchString(o) {
			kept = append(kept, o)
		} else {
			dropped = append(dropped, o)
		}
	}
	return kept, dropped
}

// cleanCSP returns the declared CSP with only the origins it may use, and
// the ones it dropped. A nil CSP stays nil (the restrictive default).
func cleanCSP(c *apps.CSP) (*apps.CSP, []string) {
	if c == nil {
		return nil, nil
	}
	var out apps.CSP
	var dropped, d []string
	out.ConnectDomains, d = cleanOrigins(c.ConnectDomains)
	dropped = append(dropped, d...)
	out.ResourceDomains, d = cleanOrigins(c.ResourceDomains)
	dropped = append(dropped, d...)
	out.FrameDomains, d = cleanOrigins(c.FrameDomains)
	dropped = append(dropped, d...)
	out.BaseURIDomains, d = cleanOrigins(c.BaseURIDomains)
	dropped = append(dropped, d...)
	return &out, dropped
}

// viewPolicy builds a view's Content-Security-Policy from its cleaned
// _meta.ui.csp. Its base is what the reference host (ext-apps'
// basic-host) grants every view, so that the official examples run:
// inline scripts and eval (Vue's and three.js's builds), blob: and data:
// scripts and workers (pdf.js), and data: and blob: images, fonts and
// media. The declared resource origins are added to those directives,
// the declared connect, frame and base origins to theirs. It is tighter
// than the reference host where no example needs more: connect-src
// never includes 'self' (the sandbox's origin serves nothing a view
// needs), and every directive not named falls back to default-src
// 'none'. Nested frames and plugins are refused unless declared
// (frames) or ever (plugins); base-uri is 'self' unless declared, as the
// specification says.
func viewPolicy(c *apps.CSP) string {
	if c == nil {
		c = &apps.CSP{}
	}
	with := func(dir string, list []string) string {
		return strings.Join(append([]string{dir}, list...), " ")
	}
	or := func(list []string, none string) string {
		if len(list) == 0 {
			return none
		}
		return strings.Join(list, " ")
	}
	res := c.ResourceDomains
	return strings.Join([]string{
		"default-src 'none'",
		with("script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data:", res),
		with("style-src 'self' 'unsafe-inline' blob: data:", res),
		with("img-src 'self' data: blob:", res),
		with("font-src 'self' data: blob:", res),
		with("media-src 'self' data: blob:", res),
		with("worker-src 'self' blob:", res),
		"connect-src " + or(c.ConnectDomains, "'none'"),
		"frame-src " + or(c.FrameDomains, "'none'"),
		"object-src 'none'",
		"base-uri " + or(c.BaseURIDomains, "'self'"),
	}, "; ")
}

// viewAllow maps the view's requested permissions to the iframe's allow
// attribute (Permissions Policy features).
func viewAllow(p *apps.Permissions) string {
	if p == nil {
		return ""
	}
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{p.Camera != nil, "camera"}, {p.Microphone != nil, "microphone"}, {p.Geolocation != nil, "geolocation"}, {p.ClipboardWrite != nil, "clipboard-write"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	return strings.Join(f, "; ")
}

// appError is a refusal the page passes to the view as a JSON-RPC error.
func appError(format string, args ...any) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf(format, args...))
}

// toolUI looks up the server's tool called name and returns its _meta.ui
// (nil when it has none).
func toolUI(ctx context.Context, cs *mcp.ClientSession, name string) (*apps.ToolMeta, error) {
	t, err := findTool(ctx, cs, name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, appError("unknown tool %q", name)
	}
	return apps.ToolUI(t)
}

// appView is what the page needs to render a tool's view.
type appView struct {
	View          string            `json:"view"`  // id for app-call and app-read
	Proxy         string            `json:"proxy"` // the proxy page's URL, on the sandbox's origin
	HTML          string            `json:"html"`
	CSP           *apps.CSP         `json:"csp,omitempty"` // as applied: undeclared origins dropped
	Permissions   *apps.Permissions `json:"permissions,omitempty"`
	Allow         string            `json:"allow"`
	PrefersBorder *bool             `json:"prefersBorder,omitempty"`
	Policy        string            `json:"policy"`
	Dropped       []string          `json:"dropped,omitempty"` // origins refused
}

// openView reads the view of tool name (resources/read of its
// _meta.ui.resourceUri), checks it is an MCP Apps HTML resource, and
// registers it with the sandbox under its policy.
func (in *inspector) openView(ctx context.Context, cs *mcp.ClientSession, name string) (*appView, error) {
	ui, err := toolUI(ctx, cs, name)
	if err != nil {
		return nil, err
	}
	if ui == nil || ui.ResourceURI == "" {
		return nil, fmt.Errorf("tool %q has no view (_meta.ui.resourceUri)", name)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ui.ResourceURI})
	if err != nil {
		return nil, err
	}
	html, meta, err := viewContents(res, ui.ResourceURI)
	if err != nil {
		return nil, err
	}
	v := &appView{HTML: html}
	if meta != nil {
		v.CSP, v.Dropped = cleanCSP(meta.CSP)
		v.Permissions, v.PrefersBorder = meta.Permissions, meta.PrefersBorder
	}
	v.Policy, v.Allow = viewPolicy(v.CSP), viewAllow(v.Permissions)
	if v.View, err = in.sandbox.add(cs, v.Policy); err != nil {
		return nil, err
	}
	v.Proxy = in.sandbox.origin + "/proxy/" + v.View
	// The audit trail: what the view may reach, and what it was refused.
	in.hub.publish("app", "", map[string]any{"tool": name, "uri": ui.ResourceURI, "policy": v.Policy, "allow": v.Allow, "dropped": v.Dropped})
	return v, nil
}

// viewContents finds uri among a resources/read result's contents and
// returns its HTML and _meta.ui, refusing any other MIME type.
func viewContents(res *mcp.ReadResourceResult, uri string) (string, *apps.ResourceMeta, error) {
	for _, c := range res.Contents {
		var html, mime, got string
		switch c := c.(type) {
		case *mcp.TextResourceContents:
			html, mime, got = c.Text, c.MIMEType, c.URI
		case *mcp.BlobResourceContents:
			b, err := base64.StdEncoding.DecodeString(c.Blob)
			if err != nil {
				return "", nil, fmt.Errorf("view %s: blob: %v", uri, err)
			}
			html, mime, got = string(b), c.MIMEType, c.URI
		}
		if got != uri {
			continue
		}
		if mime != apps.MIMEType {
			return "", nil, fmt.Errorf("view %s has MIME type %q, not %s: not rendered", uri, mime, apps.MIMEType)
		}
		meta, err := apps.ContentsUI(c)
		return html, meta, err
	}
	return "", nil, fmt.Errorf("resources/read of %s returned no contents for it", uri)
}

// viewSession returns the session of view id when it is still cs: a view
// never reaches another server than its own.
func (in *inspector) viewSession(id string, cs *mcp.ClientSession) error {
	v := in.sandbox.view(id)
	if v == nil {
		return appError("unknown view")
	}
	if v.cs != cs {
		return appError("the view's server is no longer connected")
	}
	return nil
}

// appCall runs a tools/call from view id: only a tool of the view's own
// server whose visibility includes "app". A name the server does not list
// goes to it as it is, for it to refuse or resolve: behind a gateway, a
// view names its tools as its own server does (get-time), not as the
// gateway lists them (react_get-time), and the gateway resolves the name.
func (in *inspector) appCall(ctx context.Context, cs *mcp.ClientSession, id, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if err := in.viewSession(id, cs); err != nil {
		return nil, err
	}
	t, err := findTool(ctx, cs, name)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, err
		}
		return nil, appError("tool %q: %v", name, err)
	}
	if t != nil {
		ui, err := apps.ToolUI(t)
		if err != nil {
			return nil, appError("tool %q: %v", name, err)
		}
		if ui != nil && !ui.VisibleTo(apps.VisibilityApp) {
			return nil, appError("tool %q is not visible to apps (its visibility lacks \"app\")", name)
		}
	}
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// appRead runs a resources/read from view id on the view's own server.
func (in *inspector) appRead(ctx context.Context, cs *mcp.ClientSession, id, uri string) (*mcp.ReadResourceResult, error) {
	if err := in.viewSession(id, cs); err != nil {
		return nil, err
	}
	return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}
