package skills_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/skills"
)

func skillFile(name string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: the " + name + " skill\n---\n\n# " + name + "\n")}
}

// TestVisibility: a visibility rule that hides a skill's SKILL.md resource
// hides the skill on every path of the extension, at both eras: not
// listed, not got, none of its files read (through the skill:// template
// either), none of its directories listed or readable, and a skill inside
// it with it. A hidden skill answers as one that does not exist.
func TestVisibility(t *testing.T) {
	fsys := fstest.MapFS{
		"open/SKILL.md":                  skillFile("open"),
		"open/notes.md":                  {Data: []byte("notes")},
		"secret/SKILL.md":                skillFile("secret"),
		"secret/data.txt":                {Data: []byte("the secret")},
		"secret/inner/SKILL.md":          skillFile("inner"),
		"team/open-two/SKILL.md":         skillFile("open-two"),
		"team/secret-two/SKILL.md":       skillFile("secret-two"),
		"team/secret-two/refs/how-to.md": {Data: []byte("how")},
	}
	hide := func(_ context.Context, _ mcp.Caller, f mcp.Feature) bool {
		return f.Kind != mcp.FeatureResource || !strings.Contains(f.Resource.URI, "secret")
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := t.Context()
			ss, err := skills.NewServer(fsys, &skills.Options{DirectoryRead: true, PageSize: 1})
			if err != nil {
				t.Fatal(err)
			}
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Visible: hide})
			if err := ss.Register(s); err != nil {
				t.Fatal(err)
			}
			cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: version})

			var listed []string
			for cursor := ""; ; {
				var res skills.ListResult
				if err := cs.Call(ctx, skills.MethodList, &skills.ListParams{Cursor: cursor}, &res); err != nil {
					t.Fatal(err)
				}
				for _, sk := range res.Skills {
					listed = append(listed, sk.URI)
				}
				if len(res.Skills) == 0 && res.NextCursor != "" {
					t.Fatal("an empty page with a cursor")
				}
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if want := []string{"skill://open/SKILL.md", "skill://team/open-two/SKILL.md"}; !slices.Equal(listed, want) {
				t.Errorf("skills/list: %v, want %v", listed, want)
			}

			// Each hidden URI fails exactly as an absent one does.
			absent := func(method string, params func(uri string) any, hidden, missing string) {
				t.Helper()
				errH := cs.Call(ctx, method, params(hidden), nil)
				errM := cs.Call(ctx, method, params(missing), nil)
				if errH == nil || errM == nil || code(errH) != code(errM) ||
					strings.ReplaceAll(errH.Error(), hidden, "URI") != strings.ReplaceAll(errM.Error(), missing, "URI") {
					t.Errorf("%s %s: %v; absent %s: %v", method, hidden, errH, missing, errM)
				}
			}
			get := func(uri string) any { return &skills.GetParams{URI: uri} }
			dirRead := func(uri string) any { return &skills.DirectoryParams{URI: uri} }
			read := func(uri string) any { return &mcp.ReadResourceParams{URI: uri} }
			absent(skills.MethodGet, get, "skill://secret/SKILL.md", "skill://nothing/SKILL.md")
			absent(skills.MethodGet, get, "skill://secret/inner/SKILL.md", "skill://nothing/inner/SKILL.md")
			absent(skills.MethodDirectoryRead, dirRead, "skill://secret", "skill://nothing")
			absent(skills.MethodDirectoryRead, dirRead, "skill://team/secret-two/refs", "skill://team/nothing/refs")
			absent(skills.MethodDirectoryRead, dirRead, "skill://secret/data.txt", "skill://nothing/data.txt")
			for _, uri := range []string{"skill://secret/SKILL.md", "skill://secret/data.txt", "skill://secret/inner/SKILL.md", "skill://team/secret-two/refs/how-to.md"} {
				absent(mcp.MethodResourcesRead, read, uri, strings.Replace(uri, "secret", "nothing", 1))
			}

			// A directory above skills lists only what can be seen.
			var names []string
			for cursor := ""; ; {
				var dir skills.DirectoryResult
				if err := cs.Call(ctx, skills.MethodDirectoryRead, &skills.DirectoryParams{URI: "skill://team", Cursor: cursor}, &dir); err != nil {
					t.Fatal(err)
				}
				for _, r := range dir.Resources {
					names = append(names, r.URI)
				}
				if cursor = dir.NextCursor; cursor == "" {
					break
				}
			}
			if want := []string{"skill://team/open-two"}; !slices.Equal(names, want) {
				t.Errorf("directory/read skill://team: %v, want %v", names, want)
			}

			// What can be seen is served.
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://open/notes.md"}); err != nil {
				t.Error(err)
			}
			var got skills.GetResult
			if err := cs.Call(ctx, skills.MethodGet, &skills.GetParams{URI: "skill://team/open-two/SKILL.md"}, &got); err != nil || got.Skill == nil {
				t.Errorf("skills/get of a visible skill: %v", err)
			}
			res, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Resources {
				if strings.Contains(r.URI, "secret") {
					t.Errorf("resources/list shows %s", r.URI)
				}
			}
		})
	}
}

// TestVisibilityCacheScope: with a visibility rule installed, what the
// extension lists depends on the caller, so a result the server would mark
// public goes out private (2026-07-28), as mcp's own lists do.
func TestVisibilityCacheScope(t *testing.T) {
	fsys := fstest.MapFS{"open/SKILL.md": skillFile("open")}
	all := func(context.Context, mcp.Caller, mcp.Feature) bool { return true }
	for _, tc := range []struct {
		rule mcp.VisibleFunc
		want mcp.CacheScope
	}{{nil, mcp.CacheScopePublic}, {all, mcp.CacheScopePrivate}} {
		ss, err := skills.NewServer(fsys, &skills.Options{DirectoryRead: true, CacheScope: mcp.CacheScopePublic})
		if err != nil {
			t.Fatal(err)
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Visible: tc.rule})
		if err := ss.Register(s); err != nil {
			t.Fatal(err)
		}
		cs := mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: "2026-07-28"})
		for _, c := range []struct {
			method string
			params any
		}{
			{skills.MethodList, &skills.ListParams{}},
			{skills.MethodGet, &skills.GetParams{URI: "skill://open/SKILL.md"}},
			{skills.MethodDirectoryRead, &skills.DirectoryParams{URI: "skill://open"}},
		} {
			var res struct {
				CacheScope mcp.CacheScope `json:"cacheScope"`
			}
			if err := cs.Call(t.Context(), c.method, c.params, &res); err != nil {
				t.Fatal(err)
			}
			if res.CacheScope != tc.want {
				t.Errorf("rule %v: %s cacheScope %q, want %q", tc.rule != nil, c.method, res.CacheScope, tc.want)
			}
		}
	}
}
