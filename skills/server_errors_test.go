package skills_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/skills"
)

func skill(name, desc string) *fstest.MapFile {
	return &fstest.MapFile{Data: fmt.Appendf(nil, "---\nname: %s\ndescription: %s\n---\nbody\n", name, desc)}
}

func TestNewServerRefuses(t *testing.T) {
	many := fstest.MapFS{"a/SKILL.md": skill("a", "d")}
	for i := range skills.MaxResources {
		many[fmt.Sprintf("a/f%d.md", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		opts *skills.Options
		want string
	}{
		{"no frontmatter", fstest.MapFS{"a/SKILL.md": {Data: []byte("# a\n")}}, nil, "does not begin"},
		{"bad yaml", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: [\n---\n")}}, nil, "invalid frontmatter"},
		{"no description", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\n---\n")}}, nil, "description"},
		{"name not a string", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: 1\ndescription: d\n---\n")}}, nil, "name"},
		{"name is not the directory", fstest.MapFS{"a/SKILL.md": skill("b", "d")}, nil, "not the directory"},
		{"naming rules", fstest.MapFS{"A--b/SKILL.md": skill("A--b", "d")}, nil, "naming rules"},
		{"leading hyphen", fstest.MapFS{"-a/SKILL.md": skill("-a", "d")}, nil, "naming rules"},
		{"root skill", fstest.MapFS{"SKILL.md": skill("x", "d")}, nil, "root"},
		{"too many files", many, nil, "limits"},
		{"too large", fstest.MapFS{"a/SKILL.md": skill("a", "d"), "a/big": {Data: make([]byte, skills.MaxTotalSize)}}, nil, "limits"},
		{"too large a file", fstest.MapFS{"a/SKILL.md": skill("a", "d"), "a/big": {Data: make([]byte, skills.MaxTotalSize+1)}}, nil, "larger"},
		{"tree too large", fstest.MapFS{"a/SKILL.md": skill("a", "d"), "b": {}, "c": {}}, &skills.Options{MaxFiles: 2}, "more than 2 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := skills.NewServer(tt.fsys, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, n := range []string{"e", "d", "c", "b", "a"} {
		fsys["team/"+n+"/SKILL.md"] = skill(n, "skill "+n)
	}
	for i := range 5 {
		fsys[fmt.Sprintf("team/a/docs/%d.md", i)] = &fstest.MapFile{Data: []byte("doc")}
	}
	ctx := t.Context()
	cs, _, reads := serve(t, fsys, &skills.Options{PageSize: 2, DirectoryRead: true})
	host := skills.NewHost("s", cs, nil)
	entries, err := host.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Skill.URI)
	}
	if got := strings.Join(names, " "); got != "skill://team/a/SKILL.md skill://team/b/SKILL.md skill://team/c/SKILL.md skill://team/d/SKILL.md skill://team/e/SKILL.md" {
		t.Errorf("listed %s", got)
	}
	if reads.Load() != 0 {
		t.Errorf("listing read %d files", reads.Load())
	}
	// The prefix directory lists the skills; a skill directory pages.
	dir, err := host.ReadDirectory(ctx, "skill://team", "")
	if err != nil || len(dir.Resources) != 2 || dir.Resources[0].MIMEType != skills.DirectoryMIMEType || dir.NextCursor == "" {
		t.Fatalf("skill://team: %+v, %v", dir, err)
	}
	var all []string
	cursor := ""
	for range 10 {
		dir, err := host.ReadDirectory(ctx, "skill://team/a/docs", cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range dir.Resources {
			all = append(all, r.Name)
		}
		if cursor = dir.NextCursor; cursor == "" {
			break
		}
	}
	if got := strings.Join(all, " "); got != "0.md 1.md 2.md 3.md 4.md" {
		t.Errorf("docs: %s", got)
	}
	for _, m := range []string{skills.MethodList, skills.MethodDirectoryRead} {
		err := cs.Call(ctx, m, map[string]string{"uri": "skill://team/a/docs", "cursor": "!!"}, nil)
		if code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s with a bad cursor: %v", m, err)
		}
	}
}

func TestDynamic(t *testing.T) {
	fsys := fstest.MapFS{
		"live/SKILL.md":   skill("live", "generated"),
		"live/report.md":  {Data: []byte("v1")},
		"fixed/SKILL.md":  skill("fixed", "static"),
		"fixed/report.md": {Data: []byte("v1")},
	}
	ctx := t.Context()
	cs, ss, _ := serve(t, fsys, &skills.Options{Dynamic: func(p string) bool { return p == "live" }})
	host := skills.NewHost("s", cs, nil)
	e, err := host.Get(ctx, "skill://live/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if !e.Skill.Dynamic || e.Skill.Resources != nil || !ss.Skills()[1].Dynamic || ss.Skills()[0].Dynamic {
		t.Fatalf("entry %+v", e.Skill)
	}
	loaded, err := host.Load(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	fsys["live/report.md"].Data = []byte("v2")
	fsys["fixed/report.md"].Data = []byte("v2")
	if b, err := loaded.Read(ctx, "skill://live/report.md"); err != nil || string(b) != "v2" {
		t.Errorf("dynamic read: %q, %v", b, err)
	}
	if _, err := loaded.Read(ctx, "skill://fixed/report.md"); err == nil {
		t.Error("a dynamic skill read another skill's file")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://fixed/report.md"}); code(err) != jsonrpc.CodeInternalError {
		t.Errorf("changed static file: %v, want -32603", err)
	}
}

func TestRefresh(t *testing.T) {
	fsys := fstest.MapFS{"a/SKILL.md": skill("a", "first")}
	ctx := t.Context()
	cs, ss, _ := serve(t, fsys, nil)
	uris := func() string {
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Resources {
			out = append(out, r.URI+"="+r.Description)
		}
		return strings.Join(out, " ")
	}
	if got := uris(); got != "skill://a/SKILL.md=first" {
		t.Fatalf("before: %s", got)
	}
	delete(fsys, "a/SKILL.md")
	fsys["b/SKILL.md"] = skill("b", "second")
	fsys["c/SKILL.md"] = skill("nope", "broken")
	if err := ss.Refresh(); err == nil {
		t.Fatal("Refresh of a tree with a broken skill succeeded")
	}
	if got := uris(); got != "skill://a/SKILL.md=first" {
		t.Fatalf("after a failed Refresh: %s", got)
	}
	delete(fsys, "c/SKILL.md")
	must(t, ss.Refresh())
	if got := uris(); got != "skill://b/SKILL.md=second" {
		t.Fatalf("after Refresh: %s", got)
	}
	if err := cs.Call(ctx, skills.MethodGet, &skills.GetParams{URI: "skill://a/SKILL.md"}, nil); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("skills/get of a removed skill: %v", err)
	}
}

// A nested skill's files are files of the enclosing skill too.
func TestNested(t *testing.T) {
	ss, err := skills.NewServer(fstest.MapFS{
		"outer/SKILL.md":         skill("outer", "o"),
		"outer/inner/SKILL.md":   skill("inner", "i"),
		"outer/inner/x.md":       {Data: []byte("x")},
		"elsewhere/y.md":         {Data: []byte("not in a skill")},
		"outer/inner/.hidden.md": {Data: []byte("h")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, sk := range ss.Skills() {
		got[sk.URI] = len(sk.Resources)
	}
	if len(got) != 2 || got["skill://outer/SKILL.md"] != 4 || got["skill://outer/inner/SKILL.md"] != 3 {
		t.Errorf("resources per skill: %v", got)
	}
}
