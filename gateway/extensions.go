package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gomcp/sdk/apps"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/skills"
)

// Upstream extensions the gateway mirrors (besides tasks, package tasks's):
// MCP Apps (io.modelcontextprotocol/ui), whose views are resources and
// whose tools carry _meta.ui, and skills (io.modelcontextprotocol/skills),
// whose skills/list, skills/get and resources/directory/read the gateway
// answers by asking the upstreams that declare it. An extension is
// declared downstream once an upstream declares it (for MCP Apps, also
// once an upstream offers a view without declaring it, as the ext-apps
// examples do), and stays declared: a client's capabilities are fixed when
// it connects.

// extensions is what the upstreams declared, per extension and upstream.
type extensions struct {
	mu       sync.Mutex
	declared map[string]map[string]json.RawMessage // id -> upstream -> settings
	shown    map[string][]byte                     // id -> settings advertised
}

// has reports whether the upstream name declared the extension id.
func (x *extensions) has(id, name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.declared[id][name]
	return ok
}

// installExtensions routes the tool calls of views (viewCalls) and hides app-only tools from the clients that render no
// views: the upstreams list them to the gateway, which renders on behalf
// of its clients (clientOptions declares the extension), and a client
// without views must not see them, as the upstream itself would decide.
func (g *Gateway) installExtensions() {
	hooks.AddReceivingMiddleware(g.server, g.viewCalls)
	g.server.AddVisibleFunc(func(_ context.Context, c mcp.Caller, f mcp.Feature) bool {
		if f.Kind != mcp.FeatureTool || f.Tool == nil || f.Tool.Meta == nil {
			return true
		}
		raw := f.Tool.Meta.Extra[apps.MetaKey]
		if raw == nil {
			return true
		}
		var m apps.ToolMeta
		if json.Unmarshal(raw, &m) != nil || !m.AppOnly() {
			return true
		}
		return apps.HostRenders(c)
	})
}

// offersViews reports whether an upstream that did not declare MCP Apps
// offers views all the same: a ui:// resource or template, or a tool
// whose _meta names one.
func offersViews(l *listing) bool {
	for _, r := range l.resources {
		if apps.IsUIURI(r.URI) {
			return true
		}
	}
	for _, t := range l.templates {
		if apps.IsUIURI(t.URITemplate) {
			return true
		}
	}
	for _, t := range l.tools {
		if t.Meta != nil && (t.Meta.Extra[apps.MetaKey] != nil || t.Meta.Extra[apps.LegacyResourceURIKey] != nil) {
			return true
		}
	}
	return false
}

// mirrorExtensions records what the upstream declares of the extensions
// the gateway mirrors and advertises their union downstream.
func (u *upstream) mirrorExtensions(caps *mcp.ServerCapabilities, l *listing) {
	decl := map[string]json.RawMessage{}
	for _, id := range []string{apps.ExtensionID, skills.ExtensionID} {
		if s, ok := caps.Extensions[id]; ok {
			decl[id] = s
		}
	}
	if _, ok := decl[apps.ExtensionID]; !ok && offersViews(l) {
		decl[apps.ExtensionID] = json.RawMessage("{}")
	}
	g := u.g
	x := &g.exts
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.declared == nil {
		x.declared, x.shown = map[string]map[string]json.RawMessage{}, map[string][]byte{}
	}
	for id, s := range decl {
		if x.declared[id] == nil {
			x.declared[id] = map[string]json.RawMessage{}
		}
		x.declared[id][u.name] = s
		merged := mergeSettings(x.declared[id])
		if old, ok := x.shown[id]; ok && bytes.Equal(old, merged) {
			continue
		}
		ext := &mcp.Extension{ID: id, Settings: merged}
		if id == skills.ExtensionID {
			ext.Methods = g.skillMethods()
		}
		if err := g.server.AddExtension(ext); err != nil {
			g.log.Warn("gateway: extension not mirrored", "upstream", u.name, "extension", id, "err", err)
			continue
		}
		x.shown[id] = merged
	}
}

// mergeSettings is the union of the settings objects the upstreams
// declared for one extension: each member once; where upstreams disagree,
// a boolean is true when any says true (the gateway offers what one
// upstream offers; a request about another's feature fails there), and
// any other value is the first upstream's in name order. Settings that
// are not objects count as {}.
func mergeSettings(per map[string]json.RawMessage) json.RawMessage {
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	slices.Sort(names)
	out := map[string]json.RawMessage{}
	for _, n := range names {
		var m map[string]json.RawMessage
		if json.Unmarshal(per[n], &m) != nil {
			continue
		}
		for k, v := range m {
			old, ok := out[k]
			switch {
			case !ok:
				out[k] = v
			case string(bytes.TrimSpace(v)) == "true" && string(bytes.TrimSpace(old)) == "false":
				out[k] = v
			}
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage("{}")
	}
	return raw
}

// skillMethods answer the skills extension's methods from the upstreams
// that declare it.
func (g *Gateway) skillMethods() []mcp.Method {
	return []mcp.Method{
		{Name: skills.MethodList, Handler: g.skillsList},
		{Name: skills.MethodGet, Handler: g.skillsGet},
		{Name: skills.MethodDirectoryRead, Handler: g.directoryRead},
	}
}

// extCall calls an extension method on the upstream's shared session,
// within its timeout and concurrency limit. Skills ask nothing of the
// client, so no session is bound for them.
func (u *upstream) extCall(ctx context.Context, method string, params, result any) error {
	cs := u.current()
	if cs == nil {
		return u.downErr()
	}
	tctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	if err := u.acquire(ctx, tctx); err != nil {
		return err
	}
	defer u.release()
	return cs.Call(tctx, method, params, result)
}

// skillsList merges the skills of every upstream that declares the
// extension and is up, in upstream name order, in one page: a skill the
// caller may not read (its SKILL.md hidden by the access rules) is left
// out. An upstream whose list fails is left out too, and logged.
func (g *Gateway) skillsList(ctx context.Context, r *mcp.Request) (any, error) {
	var p skills.ListParams
	if len(r.Params) > 0 {
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "skills/list: %v", err)
		}
	}
	if p.Cursor != "" { // every page is the only one
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "skills/list: unknown cursor")
	}
	zero := int64(0)
	res := &skills.ListResult{Skills: []*skills.Skill{}, CacheHints: mcp.CacheHints{TTLMs: &zero, CacheScope: mcp.CacheScopePrivate}}
	for _, u := range g.ups {
		if !g.exts.has(skills.ExtensionID, u.name) || u.current() == nil {
			continue
		}
		list, err := u.listSkills(ctx)
		if err != nil {
			g.log.Warn("gateway: skills/list", "upstream", u.name, "err", err)
			continue
		}
		for _, s := range list {
			u.downSkill(s)
			if g.server.Sees(ctx, r.Caller(), mcp.Feature{Kind: mcp.FeatureResource, Resource: &mcp.Resource{URI: s.URI}}) {
				res.Skills = append(res.Skills, s)
			}
		}
	}
	return res, nil
}

// listSkills is every page of the upstream's skills/list, bounded.
func (u *upstream) listSkills(ctx context.Context) ([]*skills.Skill, error) {
	var out []*skills.Skill
	cursor := ""
	for range 100 {
		var page skills.ListResult
		if err := u.extCall(ctx, skills.MethodList, &skills.ListParams{Cursor: cursor}, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Skills...)
		if len(out) > maxFeatures {
			return nil, fmt.Errorf("more than %d skills", maxFeatures)
		}
		if page.NextCursor == "" {
			return out, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("more than 100 pages of skills")
}

// downSkill rewrites an entry's URIs to the downstream ones.
func (u *upstream) downSkill(s *skills.Skill) {
	if s == nil {
		return
	}
	s.URI = u.downResourceURI(s.URI)
	for i := range s.Resources {
		s.Resources[i].URI = u.downResourceURI(s.Resources[i].URI)
	}
}

// skillOwner finds the upstream of a downstream skill:// URI: the one
// whose resource or template it names, if that upstream declares skills.
func (g *Gateway) skillOwner(ctx context.Context, r *mcp.Request, method string, uri string) (*upstream, string, error) {
	u, up, ok := g.movedOwner(uri)
	if !ok {
		u, up = g.ownerOfURI(uri)
	}
	if u == nil || !g.exts.has(skills.ExtensionID, u.name) ||
		!g.server.Sees(ctx, r.Caller(), mcp.Feature{Kind: mcp.FeatureResource, Resource: &mcp.Resource{URI: uri}}) {
		return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: no skill %q", method, uri)
	}
	return u, up, nil
}

// skillsGet forwards skills/get to the skill's upstream.
func (g *Gateway) skillsGet(ctx context.Context, r *mcp.Request) (any, error) {
	var p skills.GetParams
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "skills/get: %v", err)
	}
	u, up, err := g.skillOwner(ctx, r, skills.MethodGet, p.URI)
	if err != nil {
		return nil, err
	}
	var res skills.GetResult
	if err := u.extCall(ctx, skills.MethodGet, &skills.GetParams{URI: up}, &res); err != nil {
		return nil, err
	}
	res.ResultType, res.Meta = "", nil
	u.downSkill(res.Skill)
	return &res, nil
}

// directoryRead forwards resources/directory/read to the directory's
// upstream (an upstream that does not answer it says so itself).
func (g *Gateway) directoryRead(ctx context.Context, r *mcp.Request) (any, error) {
	var p skills.DirectoryParams
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s: %v", skills.MethodDirectoryRead, err)
	}
	u, up, err := g.skillOwner(ctx, r, skills.MethodDirectoryRead, p.URI)
	if err != nil {
		return nil, err
	}
	var res skills.DirectoryResult
	if err := u.extCall(ctx, skills.MethodDirectoryRead, &skills.DirectoryParams{URI: up, Cursor: p.Cursor}, &res); err != nil {
		return nil, err
	}
	res.ResultType, res.Meta = "", nil
	for _, c := range res.Resources {
		if c != nil {
			c.URI = u.downResourceURI(c.URI)
		}
	}
	return &res, nil
}

// viewCalls lets a view call its server's tools by the names the server
// gave them. A view's code names its tools as its upstream does
// (get-time), while the gateway lists them prefixed (react_get-time), and
// a host forwards the view's tools/call as it is. So a tools/call from a
// client that renders views, naming no tool of the gateway, is taken for
// the upstream name of a tool: when exactly one upstream has a tool of
// that name that apps may call (its visibility includes "app") and the
// caller may see, the call goes to it; when several do, it fails with an
// error naming them. A name the gateway lists always means that tool.
func (g *Gateway) viewCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, r *mcp.Request) (any, error) {
		if r.Method != "tools/call" || !apps.HostRenders(r) {
			return next(ctx, r)
		}
		p, err := hooks.Params(r)
		cp, ok := p.(*mcp.CallToolParams)
		if err != nil || !ok || cp == nil {
			return next(ctx, r)
		}
		if _, ok := g.lookup(kindTool, cp.Name); ok {
			return next(ctx, r)
		}
		down, err := g.resolveViewTool(ctx, r.Caller(), cp.Name)
		if err != nil || down == "" {
			if err == nil {
				return next(ctx, r)
			}
			return nil, err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(r.Params, &m) != nil {
			return next(ctx, r)
		}
		if m["name"], err = json.Marshal(down); err != nil {
			return nil, err
		}
		if r.Params, err = json.Marshal(m); err != nil {
			return nil, err
		}
		return next(ctx, r)
	}
}

// resolveViewTool is the downstream name of the one tool whose upstream
// name is name, that apps may call and that c sees; "" when there is none.
func (g *Gateway) resolveViewTool(ctx context.Context, c mcp.Caller, name string) (string, error) {
	var found []string
	for _, u := range g.ups {
		u.mu.Lock()
		var downs []string
		for d, up := range u.mirrored.tools {
			if up == name && d != name {
				downs = append(downs, d)
			}
		}
		u.mu.Unlock()
		for _, d := range downs {
			t, ok := g.server.Tool(d)
			if !ok || !g.server.Sees(ctx, c, mcp.Feature{Kind: mcp.FeatureTool, Tool: t}) {
				continue
			}
			if ui, err := apps.ToolUI(t); err != nil || (ui != nil && !ui.VisibleTo(apps.VisibilityApp)) {
				continue
			}
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
		"tool %q: several upstreams have a tool of that name (%s): call it by its name here", name, strings.Join(found, ", "))
}
