package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/gomcp/sdk/auth"
	"github.com/gomcp/sdk/mcp"
)

// Rule restricts features of one upstream to some callers. A feature no
// rule covers is visible to every caller; a covered one only to the
// callers that satisfy at least one of the rules covering it. A caller
// satisfies a rule when its principal is one of Principals (if set) and
// its verified token carries every scope of Scopes (if set); a rule that
// sets neither hides what it covers from everyone.
//
// The rules are applied with mcp.Server.AddVisibleFunc, so a hidden
// feature is absent from lists and cannot be called, read or completed.
// Scopes are read from the request's token (auth.TokenInfoFromContext,
// behind an auth.ResourceServer); where there is no request (the server
// deciding whether a session's view of a list changed) a scope rule is not
// satisfied, so list_changed may not reach a session whose only access
// comes from scopes.
type Rule struct {
	// Upstream is the configuration name of the upstream the rule covers.
	Upstream string `json:"upstream"`
	// Names are the upstream's own tool and prompt names, resource URIs
	// and URI templates the rule covers; empty covers all of the upstream.
	Names []string `json:"names,omitempty"`
	// Principals are the callers (mcp.Caller.Principal) the rule admits.
	Principals []string `json:"principals,omitempty"`
	// Scopes are the scopes a caller's token must all carry.
	Scopes []string `json:"scopes,omitempty"`

	line int // in the file it was read from (ParseAccess), for errors
}

// accessRules are the rules by upstream.
type accessRules struct {
	g     *Gateway
	rules map[string][]Rule
}

func newAccessRules(rules []Rule, ups map[string]*upstream) (*accessRules, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	a := &accessRules{rules: map[string][]Rule{}}
	for i, r := range rules {
		if ups[r.Upstream] == nil {
			where := fmt.Sprintf("rule %d", i)
			if r.line > 0 {
				where = fmt.Sprintf("rule at line %d", r.line)
			}
			return nil, fmt.Errorf("gateway: access %s names upstream %q, which is not configured (or disabled)", where, r.Upstream)
		}
		a.rules[r.Upstream] = append(a.rules[r.Upstream], r)
	}
	return a, nil
}

// visible is the rules' mcp.VisibleFunc.
func (a *accessRules) visible(ctx context.Context, c mcp.Caller, f mcp.Feature) bool {
	var ref featRef
	var ok bool
	switch f.Kind {
	case mcp.FeatureTool:
		ref, ok = a.g.lookup(kindTool, f.Tool.Name)
	case mcp.FeaturePrompt:
		ref, ok = a.g.lookup(kindPrompt, f.Prompt.Name)
	case mcp.FeatureResource:
		ref, ok = a.g.lookup(kindResource, f.Resource.URI)
	case mcp.FeatureResourceTemplate:
		ref, ok = a.g.lookup(kindTemplate, f.ResourceTemplate.URITemplate)
	}
	if !ok {
		return true
	}
	covered := false
	for _, r := range a.rules[ref.up.name] {
		if len(r.Names) > 0 && !slices.Contains(r.Names, ref.name) {
			continue
		}
		covered = true
		if satisfies(ctx, c, r) {
			return true
		}
	}
	return !covered
}

func satisfies(ctx context.Context, c mcp.Caller, r Rule) bool {
	if len(r.Principals) == 0 && len(r.Scopes) == 0 {
		return false
	}
	if len(r.Principals) > 0 && (c == nil || !slices.Contains(r.Principals, c.Principal())) {
		return false
	}
	if len(r.Scopes) > 0 {
		ti := auth.TokenInfoFromContext(ctx)
		if ti == nil {
			return false
		}
		for _, s := range r.Scopes {
			if !ti.HasScope(s) {
				return false
			}
		}
	}
	return true
}
