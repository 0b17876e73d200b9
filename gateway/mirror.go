package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
	"github.com/gomcp/sdk/tasks"
)

// maxFeatures bounds what one upstream may put in each of its lists: an
// upstream that lists without end cannot exhaust the gateway's memory.
const maxFeatures = 10000

// The kinds of mirrored features, as the owner index names them.
const (
	kindTool     = "tool"
	kindPrompt   = "prompt"
	kindResource = "resource"
	kindTemplate = "template"
)

// mirror is what of one upstream is registered downstream: downstream name
// (or URI, or URI template) -> the upstream's own, and the fingerprint of
// each registration (its upstream JSON), so that an unchanged feature is
// not registered again (which would send list_changed for nothing).
type mirror struct {
	tools, prompts, resources, templates map[string]string
	prints                               map[string][]byte // kind+"\x00"+downstream name
}

// listing is one upstream's lists, as fetched.
type listing struct {
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
}

// fetch lists everything the upstream offers, each list bounded.
func (u *upstream) fetch(ctx context.Context, cs *mcp.ClientSession) (*listing, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	caps := cs.ServerCapabilities()
	var l listing
	var err error
	if caps.Tools != nil {
		if l.tools, err = collect(cs.Tools(ctx, nil)); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
	}
	if caps.Prompts != nil {
		if l.prompts, err = collect(cs.Prompts(ctx, nil)); err != nil {
			return nil, fmt.Errorf("prompts/list: %w", err)
		}
	}
	if caps.Resources != nil {
		if l.resources, err = collect(cs.Resources(ctx, nil)); err != nil {
			return nil, fmt.Errorf("resources/list: %w", err)
		}
		if l.templates, err = collect(cs.ResourceTemplates(ctx, nil)); err != nil {
			return nil, fmt.Errorf("resources/templates/list: %w", err)
		}
	}
	return &l, nil
}

func collect[T any](seq func(func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		if len(out) == maxFeatures {
			return nil, fmt.Errorf("more than %d entries", maxFeatures)
		}
		out = append(out, v)
	}
	return out, nil
}

// name is the downstream name of the upstream's tool or prompt name.
func (u *upstream) downName(name string) string {
	if u.prefix == "" {
		return name
	}
	return u.prefix + u.g.sep + name
}

// movedPrefix starts the URIs and templates of this upstream that had to
// be rewritten because another upstream holds the same.
func (u *upstream) movedPrefix() string {
	return "mcp-gateway://" + url.PathEscape(u.name) + "/"
}

// keptSchemes are the schemes a moved URI stays in: hosts render views
// only from ui:// URIs, and a skill's URI is a skill:// URI.
var keptSchemes = []string{apps.Scheme + "://", skills.Scheme + "://"}

// movedInScheme is where the moved URIs of scheme (one of keptSchemes)
// go: SCHEME://mcp-gateway/NAME/ followed by the rest of the original
// URI, so that a skill's URI still ends in its name.
func (u *upstream) movedInScheme(scheme string) string {
	return scheme + "mcp-gateway/" + url.PathEscape(u.name) + "/"
}

// move is the rewritten form of a URI (or template) another upstream holds.
func (u *upstream) move(uri string) string {
	for _, scheme := range keptSchemes {
		if rest, ok := strings.CutPrefix(uri, scheme); ok {
			return u.movedInScheme(scheme) + rest
		}
	}
	return u.movedPrefix() + uri
}

// downURI is the downstream URI (or template) of an upstream one.
func (u *upstream) downURI(uri string) string {
	u.mu.Lock()
	moved := u.moved[uri]
	u.mu.Unlock()
	if moved {
		return u.move(uri)
	}
	return uri
}

// downResourceURI is the downstream URI of a resource the upstream names
// (in an update, a read's contents): rewritten when the resource's own URI
// was, or when it belongs to a template that was.
func (u *upstream) downResourceURI(uri string) string {
	if d := u.downURI(uri); d != uri {
		return d
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for t := range u.moved {
		if strings.Contains(t, "{") && mcp.TemplateArgs(t, uri) != nil {
			return u.move(uri)
		}
	}
	return uri
}

// upURI is the upstream URI of a downstream one (the reverse of move).
func (u *upstream) upURI(uri string) string {
	for _, scheme := range keptSchemes {
		if rest, ok := strings.CutPrefix(uri, u.movedInScheme(scheme)); ok {
			return scheme + rest
		}
	}
	if rest, ok := strings.CutPrefix(uri, u.movedPrefix()); ok {
		return rest
	}
	return uri
}

// movedOwner finds the upstream whose moved URIs uri is one of, and the
// upstream's own URI.
func (g *Gateway) movedOwner(uri string) (*upstream, string, bool) {
	for _, u := range g.ups {
		if up := u.upURI(uri); up != uri {
			return u, up, true
		}
	}
	return nil, "", false
}

// mirror registers downstream what the upstream lists now, and removes what
// it no longer lists. With strict (Start), a tool or prompt name another
// upstream holds fails it with a *CollisionError; later, the feature is
// left out and the collision logged and reported in Status.
func (u *upstream) mirror(ctx context.Context, cs *mcp.ClientSession, strict bool) error {
	l, err := u.fetch(ctx, cs)
	if err != nil {
		return err
	}
	u.mirrorExtensions(cs.ServerCapabilities(), l)
	g := u.g
	g.mu.Lock()
	defer g.mu.Unlock()
	u.mu.Lock()
	if u.cs != cs || u.closed {
		u.mu.Unlock()
		return nil // replaced meanwhile
	}
	old := u.mirrored
	u.mu.Unlock()
	next := mirror{tools: map[string]string{}, prompts: map[string]string{}, resources: map[string]string{},
		templates: map[string]string{}, prints: map[string][]byte{}}
	var collision error
	claim := func(kind, down string) bool {
		if o, ok := g.owner[kind][down]; ok && o != u.name {
			ce := &CollisionError{Kind: kind, Name: down, Upstreams: [2]string{o, u.name}}
			if collision == nil {
				collision = ce
			}
			return false
		}
		return true
	}
	_, taskExt := cs.ServerCapabilities().Extensions[tasks.ExtensionID]
	taskExt = taskExt && cs.Stateless()
	// URIs first: a tool's _meta.ui.resourceUri follows its resource.
	for _, r := range l.resources {
		u.placeURI(kindResource, r.URI)
	}
	for _, t := range l.templates {
		u.placeURI(kindTemplate, t.URITemplate)
	}
	for _, t := range l.tools {
		if d := u.downName(t.Name); claim(kindTool, d) {
			next.tools[d] = t.Name
			u.register(&next, old, kindTool, d, t, func() error { return u.addTool(d, t, taskExt) })
		}
	}
	for _, p := range l.prompts {
		if d := u.downName(p.Name); claim(kindPrompt, d) {
			next.prompts[d] = p.Name
			u.register(&next, old, kindPrompt, d, p, func() error { return u.addPrompt(d, p) })
		}
	}
	for _, r := range l.resources {
		d := u.downResourceURI(r.URI) // under a moved template of its own: moved too
		next.resources[d] = r.URI
		u.register(&next, old, kindResource, d, r, func() error { return u.addResource(d, r) })
	}
	for _, t := range l.templates {
		d := u.downURI(t.URITemplate)
		next.templates[d] = t.URITemplate
		u.register(&next, old, kindTemplate, d, t, func() error { return u.addTemplate(d, t) })
	}
	if collision != nil && strict {
		u.removeAll(next)
		return collision
	}
	u.removeGone(old, next)
	u.mu.Lock()
	u.mirrored = next
	if collision != nil {
		u.lastErr = collision.Error()
	}
	u.mu.Unlock()
	if collision != nil {
		g.log.Error("gateway: feature left out", "upstream", u.name, "err", collision)
	}
	return nil
}

// placeURI decides, once for the upstream's life in the gateway, whether
// its URI (or template) is kept or rewritten: rewritten when another
// upstream holds it. Called with g.mu held.
func (u *upstream) placeURI(kind, uri string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.moved[uri] {
		return
	}
	if o, ok := u.g.owner[kind][uri]; ok && o != u.name {
		u.moved[uri] = true
	}
}

// register adds one feature downstream unless it is registered already,
// unchanged; g.mu is held.
func (u *upstream) register(next *mirror, old mirror, kind, down string, v any, add func() error) {
	key := kind + "\x00" + down
	fp, err := json.Marshal(v)
	if err != nil {
		return
	}
	if o := old.prints[key]; o != nil && bytes.Equal(o, fp) {
		next.prints[key] = fp
		return
	}
	if err := add(); err != nil {
		u.g.log.Warn("gateway: feature refused", "upstream", u.name, "kind", kind, "name", down, "err", err)
		switch kind {
		case kindTool:
			delete(next.tools, down)
		case kindPrompt:
			delete(next.prompts, down)
		case kindResource:
			delete(next.resources, down)
		case kindTemplate:
			delete(next.templates, down)
		}
		return
	}
	next.prints[key] = fp
	if u.g.owner[kind] == nil {
		u.g.owner[kind] = map[string]string{}
	}
	u.g.owner[kind][down] = u.name
	u.g.index.Store(key, featRef{up: u, name: featName(kind, next, down)})
}

func featName(kind string, m *mirror, down string) string {
	switch kind {
	case kindTool:
		return m.tools[down]
	case kindPrompt:
		return m.prompts[down]
	case kindResource:
		return m.resources[down]
	}
	return m.templates[down]
}

// removeGone unregisters what old had and next has not; g.mu is held.
func (u *upstream) removeGone(old, next mirror) {
	gone := func(o, n map[string]string) []string {
		var out []string
		for d := range o {
			if _, ok := n[d]; !ok {
				out = append(out, d)
			}
		}
		slices.Sort(out)
		return out
	}
	u.unregister(kindTool, gone(old.tools, next.tools))
	u.unregister(kindPrompt, gone(old.prompts, next.prompts))
	u.unregister(kindResource, gone(old.resources, next.resources))
	u.unregister(kindTemplate, gone(old.templates, next.templates))
}

// removeAll unregisters all of m; g.mu is held.
func (u *upstream) removeAll(m mirror) {
	u.removeGone(m, mirror{})
}

func (u *upstream) unregister(kind string, names []string) {
	if len(names) == 0 {
		return
	}
	s := u.g.server
	switch kind {
	case kindTool:
		s.RemoveTools(names...)
	case kindPrompt:
		s.RemovePrompts(names...)
	case kindResource:
		s.RemoveResources(names...)
	case kindTemplate:
		s.RemoveResourceTemplates(names...)
	}
	for _, d := range names {
		if u.g.owner[kind][d] == u.name {
			delete(u.g.owner[kind], d)
		}
		u.g.index.Delete(kind + "\x00" + d)
	}
}

// unmirror takes every feature of the upstream out of the downstream lists.
func (u *upstream) unmirror() {
	u.g.mu.Lock()
	defer u.g.mu.Unlock()
	u.mu.Lock()
	old := u.mirrored
	u.mirrored = mirror{}
	u.mu.Unlock()
	u.removeAll(old)
}

// featRef says which upstream a downstream feature forwards to, and under
// which of the upstream's names (or URIs).
type featRef struct {
	up   *upstream
	name string
}

// lookup finds the upstream of a downstream feature.
func (g *Gateway) lookup(kind, down string) (featRef, bool) {
	v, ok := g.index.Load(kind + "\x00" + down)
	if !ok {
		return featRef{}, false
	}
	return v.(featRef), true
}

func (u *upstream) addTool(down string, t *mcp.Tool, taskExt bool) error {
	c := *t
	c.Name = down
	c.Meta = u.rewriteUIMeta(t.Meta)
	name := t.Name
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return u.callTool(ctx, req, name, taskExt || taskSupport(t) != "")
	}
	support := taskSupport(t)
	if support == "" && taskExt {
		support = mcp.TaskSupportOptional // a 2026-07-28 upstream decides per call
	}
	if support == "" {
		return u.g.server.AddTool(&c, h)
	}
	// The call becomes a task downstream when, and only when, the upstream
	// made it one (tasks.Start in callTool).
	c.Execution = nil
	return u.g.tasks.AddTool(&c, support, h, &tasks.ToolOptions{StartInHandler: true})
}

// taskSupport is a tool's task support when it may run as a task.
func taskSupport(t *mcp.Tool) mcp.TaskSupport {
	if t.Execution != nil && (t.Execution.TaskSupport == mcp.TaskSupportOptional || t.Execution.TaskSupport == mcp.TaskSupportRequired) {
		return t.Execution.TaskSupport
	}
	return ""
}

func (u *upstream) addPrompt(down string, p *mcp.Prompt) error {
	c := *p
	c.Name = down
	name := p.Name
	return u.g.server.AddPrompt(&c, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return u.getPrompt(ctx, req, name)
	})
}

func (u *upstream) addResource(down string, r *mcp.Resource) error {
	c := *r
	c.URI = down
	uri := r.URI
	return u.g.server.AddResource(&c, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return u.readResource(ctx, req, uri)
	})
}

func (u *upstream) addTemplate(down string, t *mcp.ResourceTemplate) error {
	c := *t
	c.URITemplate = down
	return u.g.server.AddResourceTemplate(&c, func(ctx context.Context, req *mcp.ReadResourceRequest, _ map[string]string) (*mcp.ReadResourceResult, error) {
		// A moved URI may match this template too (skill://{+path} matches
		// skill://mcp-gateway/beta/...): it is the moving upstream's.
		if o, up, ok := u.g.movedOwner(req.Params.URI); ok {
			return o.readResource(ctx, req, up)
		}
		return u.readResource(ctx, req, u.upURI(req.Params.URI))
	})
}

// rewriteUIMeta returns m with the view it names (MCP Apps:
// _meta.ui.resourceUri, and the deprecated _meta["ui/resourceUri"] that
// hosts still read) naming the view's downstream URI; the rest of
// _meta.ui (visibility, say) is kept. m itself is never modified.
func (u *upstream) rewriteUIMeta(m *mcp.Meta) *mcp.Meta {
	if m == nil || (m.Extra[apps.MetaKey] == nil && m.Extra[apps.LegacyResourceURIKey] == nil) {
		return m
	}
	extra := map[string]json.RawMessage{}
	var ui map[string]json.RawMessage
	if json.Unmarshal(m.Extra[apps.MetaKey], &ui) == nil && ui != nil {
		if d, ok := u.rewriteViewURI(ui["resourceUri"]); ok {
			ui["resourceUri"] = d
			if raw, err := json.Marshal(ui); err == nil {
				extra[apps.MetaKey] = raw
			}
		}
	}
	if d, ok := u.rewriteViewURI(m.Extra[apps.LegacyResourceURIKey]); ok {
		extra[apps.LegacyResourceURIKey] = d
	}
	if len(extra) == 0 {
		return m
	}
	c := *m
	c.Extra = make(map[string]json.RawMessage, len(m.Extra))
	for k, v := range m.Extra {
		c.Extra[k] = v
	}
	for k, v := range extra {
		c.Extra[k] = v
	}
	return &c
}

// rewriteViewURI is the downstream form of raw, a JSON string naming a
// view, when it differs.
func (u *upstream) rewriteViewURI(raw json.RawMessage) (json.RawMessage, bool) {
	var uri string
	if raw == nil || json.Unmarshal(raw, &uri) != nil || uri == "" {
		return nil, false
	}
	d := u.downResourceURI(uri)
	if d == uri {
		return nil, false
	}
	out, err := json.Marshal(d)
	return out, err == nil
}
