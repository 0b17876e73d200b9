package skills_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gomcp/sdk/internal/specschema"
	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/skills"
)

const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n  tags: [pdf, forms]\n---\n\n# PDF\n\nSee references/FORMS.md.\n"

const formsMD = "# Forms\n"

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func tree() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte(skillMD)},
		"pdf-processing/references/FORMS.md": {Data: []byte(formsMD)},
		"pdf-processing/scripts/run.bin":     {Data: []byte{0xff, 0x00, 0x01}},
		"README.md":                          {Data: []byte("not a skill file")},
	}
}

// serve registers a skills server over fsys on a new mcp.Server, connects a
// client to it in memory, and counts the resources/read requests it gets.
func serve(t *testing.T, fsys fs.FS, opts *skills.Options) (*mcp.ClientSession, *skills.Server, *atomic.Int64) {
	return serveAt(t, "", fsys, opts)
}

// serveAt is serve with the client asking for protocol revision version.
func serveAt(t *testing.T, version string, fsys fs.FS, opts *skills.Options) (*mcp.ClientSession, *skills.Server, *atomic.Int64) {
	t.Helper()
	ss, err := skills.NewServer(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	reads := new(atomic.Int64)
	count := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == mcp.MethodResourcesRead {
				reads.Add(1)
			}
			return next(ctx, r)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "skills-test", Version: "1"}, &mcp.ServerOptions{Receiving: []mcp.Middleware{count}})
	if err := ss.Register(s); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, s, &mcptest.Options{ProtocolVersion: version}), ss, reads
}

func code(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return int64(je.Code)
	}
	return 0
}

func TestServeTree(t *testing.T) {
	ctx := t.Context()
	cs, _, reads := serve(t, tree(), &skills.Options{DirectoryRead: true})
	host := skills.NewHost("srv", cs, nil)
	entries, err := host.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	e := entries[0]
	const uri = "skill://pdf-processing/SKILL.md"
	if e.Key != (skills.Key{Server: "srv", URI: uri}) {
		t.Errorf("key %+v", e.Key)
	}
	want := []skills.File{
		{URI: uri, Digest: digest(skillMD), Size: int64(len(skillMD))},
		{URI: "skill://pdf-processing/references/FORMS.md", Digest: digest(formsMD), Size: int64(len(formsMD))},
		{URI: "skill://pdf-processing/scripts/run.bin", Digest: digest("\xff\x00\x01"), Size: 3},
	}
	if fmt.Sprint(e.Skill.Resources) != fmt.Sprint(want) {
		t.Errorf("resources\n got %v\nwant %v", e.Skill.Resources, want)
	}
	if e.Skill.Frontmatter.Name() != "pdf-processing" || e.Skill.Frontmatter["metadata"] == nil {
		t.Errorf("frontmatter %v", e.Skill.Frontmatter)
	}
	if err := e.Skill.Valid(); err != nil {
		t.Error(err)
	}
	got, err := host.Get(ctx, uri)
	if err != nil || fmt.Sprint(got.Skill.Resources) != fmt.Sprint(want) {
		t.Errorf("Get: %v, %v", got, err)
	}
	if n := reads.Load(); n != 0 {
		t.Fatalf("listing and getting read %d files, want none", n)
	}
	loaded, err := host.Load(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if string(loaded.Content) != skillMD {
		t.Errorf("content %q", loaded.Content)
	}
	for _, f := range want[1:] {
		if _, err := loaded.Read(ctx, f.URI); err != nil {
			t.Errorf("Read %s: %v", f.URI, err)
		}
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("%d reads, want 3 (one a file)", n)
	}

	// The SKILL.md is a listed resource with the frontmatter's name and
	// description; the other files are not listed.
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != uri || res.Resources[0].Name != "pdf-processing" ||
		res.Resources[0].MIMEType != "text/markdown" || res.Resources[0].Description != "Extract, fill, and assemble PDF documents" {
		t.Errorf("resources/list: %+v", res.Resources)
	}

	dir, err := host.ReadDirectory(ctx, "skill://pdf-processing", "")
	if err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, r := range dir.Resources {
		kids = append(kids, r.Name+":"+r.MIMEType)
	}
	if got, want := strings.Join(kids, " "), "SKILL.md:text/markdown references:inode/directory scripts:inode/directory"; got != want {
		t.Errorf("directory: %s, want %s", got, want)
	}
	dir, err = host.ReadDirectory(ctx, "skill://pdf-processing/references", "")
	if err != nil || len(dir.Resources) != 1 || dir.Resources[0].URI != want[1].URI {
		t.Errorf("references: %+v, %v", dir, err)
	}
	for _, u := range []string{uri, "skill://pdf-processing/", "skill://nope", "skill://pdf-processing/.."} {
		if _, err := host.ReadDirectory(ctx, u, ""); code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("directory read of %s: %v, want -32602", u, err)
		}
	}
	if _, err := host.Get(ctx, "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("Get of an unknown skill: %v, want -32602", err)
	}
}

// TestTraversal serves a tree from the disk, next to files it must never
// serve: a secret beside the tree, symbolic links from inside to it.
func TestTraversal(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) { testTraversal(t, v) })
	}
}

func testTraversal(t *testing.T, version string) {
	root := t.TempDir()
	secret := filepath.Join(root, "secret.txt")
	must(t, os.WriteFile(secret, []byte("secret"), 0o600))
	must(t, os.MkdirAll(filepath.Join(root, "outside"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "outside", "x.md"), []byte("outside"), 0o600))
	dir := filepath.Join(root, "tree")
	must(t, os.MkdirAll(filepath.Join(dir, "pdf-processing", "references"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "pdf-processing", "SKILL.md"), []byte(skillMD), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "pdf-processing", "references", "FORMS.md"), []byte(formsMD), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "top.md"), []byte("top"), 0o600))
	must(t, os.Symlink(secret, filepath.Join(dir, "pdf-processing", "link.md")))
	must(t, os.Symlink(filepath.Join(root, "outside"), filepath.Join(dir, "pdf-processing", "linkdir")))

	ctx := t.Context()
	cs, ss, _ := serveAt(t, version, os.DirFS(dir), &skills.Options{DirectoryRead: true})
	for _, f := range ss.Skills()[0].Resources {
		if strings.Contains(f.URI, "link") {
			t.Errorf("a symbolic link is listed: %s", f.URI)
		}
	}
	for _, uri := range []string{
		"skill://pdf-processing/link.md",
		"skill://pdf-processing/linkdir/x.md",
		"skill://pdf-processing/../secret.txt",
		"skill://pdf-processing/../../secret.txt",
		"skill://pdf-processing/%2e%2e/%2e%2e/secret.txt",
		"skill://pdf-processing/%2E%2E/top.md",
		"skill://pdf-processing/references%2fFORMS.md",
		"skill://pdf-processing/references/..%2f..%2fsecret.txt",
		"skill://pdf-processing/references/./FORMS.md",
		"skill://pdf-processing//references/FORMS.md",
		"skill:///etc/passwd",
		"skill://" + secret,
		"skill://top.md",
		"skill://pdf-processing/references/FORMS.md/",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("read %s: %v, want -32602", uri, err)
		}
	}
	// A backslash is no URI character, so no template matches it: before
	// 2026-07-28 that is the core's resource-not-found, -32002.
	want := int64(jsonrpc.CodeInvalidParams)
	if version == mcp.Version20251125 {
		want = mcp.CodeResourceNotFound
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: `skill://pdf-processing\..\secret.txt`}); code(err) != want {
		t.Errorf("read with backslashes: %v, want %d", err, want)
	}
	for _, uri := range []string{"skill://pdf-processing/../pdf-processing/SKILL.md", "skill://pdf-processing/linkdir/SKILL.md", "skill://%2e%2e/SKILL.md"} {
		if err := cs.Call(ctx, skills.MethodGet, &skills.GetParams{URI: uri}, nil); code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/get %s: %v, want -32602", uri, err)
		}
	}
	for _, uri := range []string{"skill://pdf-processing/linkdir", "skill://pdf-processing/..", "skill://pdf-processing/%2e%2e"} {
		if err := cs.Call(ctx, skills.MethodDirectoryRead, &skills.DirectoryParams{URI: uri}, nil); code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("directory read %s: %v, want -32602", uri, err)
		}
	}

	// A served file replaced by a link out after indexing is refused too,
	// and one whose bytes changed is not served as the entry's.
	forms := filepath.Join(dir, "pdf-processing", "references", "FORMS.md")
	must(t, os.Remove(forms))
	must(t, os.Symlink(secret, forms))
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/references/FORMS.md"}); code(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("read of a file swapped for a link: %v, want -32602", err)
	}
	must(t, os.Remove(forms))
	must(t, os.WriteFile(forms, []byte("# Forms, changed\n"), 0o600))
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-processing/references/FORMS.md"}); code(err) != jsonrpc.CodeInternalError {
		t.Errorf("read of a changed file: %v, want -32603", err)
	}
	// After Refresh the new bytes are the entry's.
	must(t, ss.Refresh())
	loaded, err := skills.NewHost("srv", cs, nil).Load(ctx, &skills.Entry{Key: skills.Key{Server: "srv", URI: ss.Skills()[0].URI}, Skill: ss.Skills()[0]})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := loaded.Read(ctx, "skill://pdf-processing/references/FORMS.md"); err != nil || string(b) != "# Forms, changed\n" {
		t.Errorf("after Refresh: %q, %v", b, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWireResults2026: at 2026-07-28 the extension's results carry what
// every core result does, the server's identity in _meta, and the caching
// hints of a list or read result (the TypeScript SDK's client refuses a
// resources/directory/read result without them). The directory result has
// the shape of the core's ListResourcesResult, so the official schema's
// definition of it checks it; the others are checked as Result.
func TestWireResults2026(t *testing.T) {
	cs, _, _ := serveAt(t, mcp.Version20260728, tree(), &skills.Options{DirectoryRead: true, CacheTTL: 2 * time.Second})
	calls := []struct {
		method string
		params any
		def    string
	}{
		{skills.MethodList, &skills.ListParams{}, "Result"},
		{skills.MethodGet, &skills.GetParams{URI: "skill://pdf-processing/SKILL.md"}, "Result"},
		{skills.MethodDirectoryRead, &skills.DirectoryParams{URI: "skill://pdf-processing"}, "ListResourcesResult"},
	}
	for _, c := range calls {
		var raw json.RawMessage
		if err := cs.Call(t.Context(), c.method, c.params, &raw); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		var got struct {
			Meta struct {
				ServerInfo *mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
			ResultType string `json:"resultType"`
			TTLMs      *int64 `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if si := got.Meta.ServerInfo; si == nil || si.Name != "skills-test" || si.Version != "1" {
			t.Errorf("%s: serverInfo %+v in %s", c.method, si, raw)
		}
		if got.ResultType != "complete" || got.TTLMs == nil || *got.TTLMs != 2000 || got.CacheScope != "private" {
			t.Errorf("%s: %s", c.method, raw)
		}
		if err := specschema.ValidateDef(mcp.Version20260728, c.def, raw); err != nil {
			t.Errorf("%s: %v\n%s", c.method, err, raw)
		}
	}
}
