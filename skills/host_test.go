package skills_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcptest"
	"github.com/gomcp/sdk/skills"
)

const (
	skillURI = "skill://pdf-processing/SKILL.md"
	formsURI = "skill://pdf-processing/references/FORMS.md"
	plainMD  = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
)

// entryJSON is the entry of a skill whose files are plainMD and formsMD.
func entryJSON() map[string]any {
	return map[string]any{
		"uri":         skillURI,
		"frontmatter": map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
		"resources": []any{
			map[string]any{"uri": skillURI, "digest": digest(plainMD), "size": len(plainMD)},
			map[string]any{"uri": formsURI, "digest": digest(formsMD), "size": len(formsMD)},
		},
	}
}

// fakeServer serves one hand-made entry and the given file contents, and
// records the URIs read.
func fakeServer(t *testing.T, entry map[string]any, files map[string]string, declare bool) (*mcp.ClientSession, *[]string) {
	t.Helper()
	var (
		mu    sync.Mutex
		reads []string
	)
	s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	list := func(context.Context, *mcp.Request) (any, error) {
		return map[string]any{"skills": []any{entry}, "ttlMs": 0, "cacheScope": "private"}, nil
	}
	get := func(context.Context, *mcp.Request) (any, error) {
		return map[string]any{"skill": entry, "ttlMs": 0, "cacheScope": "private"}, nil
	}
	if declare {
		must(t, s.AddExtension(&mcp.Extension{ID: skills.ExtensionID, Methods: []mcp.Method{
			{Name: skills.MethodList, Handler: list}, {Name: skills.MethodGet, Handler: get},
		}}))
	}
	for uri, text := range files {
		must(t, s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			mu.Lock()
			reads = append(reads, req.Params.URI)
			mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: uri, Text: text}}}, nil
		}))
	}
	return mcptest.Connect(t, s, nil), &reads
}

func TestHostVerification(t *testing.T) {
	tests := []struct {
		name    string
		entry   func(map[string]any)
		skill   string // the served SKILL.md
		wantErr string // "" loads; otherwise a part of the error
		verify  bool   // the error is a verification failure
	}{
		{name: "ok", skill: plainMD},
		{name: "digest", skill: strings.Replace(plainMD, "Skill body.", "Evil body!!", 1), wantErr: "digest", verify: true},
		{name: "size", skill: plainMD + "extra\n", wantErr: "size", verify: true},
		{name: "frontmatter", skill: strings.Replace(plainMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1),
			entry: func(e map[string]any) {
				s := strings.Replace(plainMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
				e["resources"].([]any)[0] = map[string]any{"uri": skillURI, "digest": digest(s), "size": len(s)}
			}, wantErr: "description", verify: true},
		{name: "extra frontmatter field", skill: strings.Replace(plainMD, "---\n\n", "license: MIT\n---\n\n", 1),
			entry: func(e map[string]any) {
				s := strings.Replace(plainMD, "---\n\n", "license: MIT\n---\n\n", 1)
				e["resources"].([]any)[0] = map[string]any{"uri": skillURI, "digest": digest(s), "size": len(s)}
			}, wantErr: "license", verify: true},
		{name: "no frontmatter", skill: "Skill body.\n",
			entry: func(e map[string]any) {
				e["resources"].([]any)[0] = map[string]any{"uri": skillURI, "digest": digest("Skill body.\n"), "size": 12}
			}, wantErr: "frontmatter", verify: true},
		{name: "resources missing", skill: plainMD, entry: func(e map[string]any) { delete(e, "resources") }, wantErr: "resources"},
		{name: "resources an object", skill: plainMD, entry: func(e map[string]any) { e["resources"] = map[string]any{} }, wantErr: "resources"},
		{name: "SKILL.md unlisted", skill: plainMD, entry: func(e map[string]any) { e["resources"] = e["resources"].([]any)[1:] }, wantErr: "do not list"},
		{name: "file outside the skill", skill: plainMD, entry: func(e map[string]any) {
			e["resources"] = append(e["resources"].([]any), map[string]any{"uri": "skill://other/x.md", "digest": digest(""), "size": 0})
		}, wantErr: "outside"},
		{name: "dotted file", skill: plainMD, entry: func(e map[string]any) {
			e["resources"] = append(e["resources"].([]any), map[string]any{"uri": "skill://pdf-processing/../x.md", "digest": digest(""), "size": 0})
		}, wantErr: "outside"},
		{name: "malformed digest", skill: plainMD, entry: func(e map[string]any) {
			e["resources"].([]any)[1] = map[string]any{"uri": formsURI, "digest": "sha256:ABC", "size": 8}
		}, wantErr: "digest"},
		{name: "name is not the last segment", skill: plainMD, entry: func(e map[string]any) {
			e["frontmatter"] = map[string]any{"name": "other", "description": "d"}
		}, wantErr: "segment"},
		{name: "over the file limit", skill: plainMD, entry: func(e map[string]any) {
			r := e["resources"].([]any)
			for i := range skills.MaxResources {
				r = append(r, map[string]any{"uri": "skill://pdf-processing/f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "/" + strings.Repeat("y", i/26+1), "digest": digest(""), "size": 0})
			}
			e["resources"] = r
		}, wantErr: "limits"},
		{name: "over the size limit", skill: plainMD, entry: func(e map[string]any) {
			e["resources"].([]any)[1] = map[string]any{"uri": formsURI, "digest": digest(formsMD), "size": skills.MaxTotalSize}
		}, wantErr: "limits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			e := entryJSON()
			if tt.entry != nil {
				tt.entry(e)
			}
			cs, reads := fakeServer(t, e, map[string]string{skillURI: tt.skill, formsURI: formsMD}, true)
			host := skills.NewHost("fake", cs, nil)
			entries, err := host.List(ctx)
			if err != nil || len(entries) != 1 {
				t.Fatalf("List: %v, %v", entries, err)
			}
			loaded, err := host.Load(ctx, entries[0])
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := loaded.Read(ctx, formsURI); err != nil {
					t.Fatal(err)
				}
				// A file the entry does not list is never read.
				_, err := loaded.Read(ctx, "skill://pdf-processing/references/OTHER.md")
				if !errors.Is(err, skills.ErrVerification) {
					t.Errorf("read of an unlisted file: %v", err)
				}
				if got := strings.Join(*reads, " "); got != skillURI+" "+formsURI {
					t.Errorf("reads %s", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load: %v, want an error about %s", err, tt.wantErr)
			}
			if got := errors.Is(err, skills.ErrVerification); got != tt.verify {
				t.Errorf("verification error %v, want %v: %v", got, tt.verify, err)
			}
			for _, r := range *reads {
				if r == formsURI {
					t.Errorf("read %s after a failed load", formsURI)
				}
			}
		})
	}
}

func TestHostServedTamperedFile(t *testing.T) {
	ctx := t.Context()
	cs, _ := fakeServer(t, entryJSON(), map[string]string{skillURI: plainMD, formsURI: "# Tampered\n"}, true)
	host := skills.NewHost("fake", cs, nil)
	e, err := host.Get(ctx, skillURI)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := host.Load(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	var ve *skills.VerificationError
	if _, err := loaded.Read(ctx, formsURI); !errors.As(err, &ve) || ve.URI != formsURI || ve.Key != e.Key {
		t.Errorf("read of a tampered file: %v", err)
	}
}

func TestHostOrigins(t *testing.T) {
	ctx := t.Context()
	cs, reads := fakeServer(t, entryJSON(), map[string]string{skillURI: plainMD, formsURI: formsMD}, true)
	a := skills.NewHost("a", cs, nil)
	b := skills.NewHost("b", cs, nil)
	entries, err := a.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The same URI from another server is another skill: b does not load a's.
	if _, err := b.Load(ctx, entries[0]); err == nil || !strings.Contains(err.Error(), `server "a"`) {
		t.Errorf("cross-origin Load: %v", err)
	}
	if len(*reads) != 0 {
		t.Errorf("reads %v, want none", *reads)
	}
	if _, err := a.ReadDirectory(ctx, "skill://pdf-processing", ""); !errors.Is(err, skills.ErrNotDeclared) {
		t.Errorf("ReadDirectory without directoryRead: %v", err)
	}
}

func TestHostNotDeclared(t *testing.T) {
	cs, _ := fakeServer(t, entryJSON(), nil, false)
	host := skills.NewHost("x", cs, nil)
	if _, err := host.List(t.Context()); !errors.Is(err, skills.ErrNotDeclared) {
		t.Errorf("List: %v", err)
	}
	if _, err := host.Get(t.Context(), skillURI); !errors.Is(err, skills.ErrNotDeclared) {
		t.Errorf("Get: %v", err)
	}
}

func TestSkillJSON(t *testing.T) {
	for _, tt := range []struct {
		in      string
		dynamic bool
		valid   bool
	}{
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}`, true, true},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"static"}`, false, false},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":null}`, false, false},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":1}]}`, false, true},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("0", 64) + `","size":-1}]}`, false, false},
		{`{"uri":"skill://a/b/SKILL.md","frontmatter":{"name":"b"},"resources":"dynamic"}`, true, false},
		{`{"uri":"skill://SKILL.md","frontmatter":{"name":"SKILL.md","description":"d"},"resources":"dynamic"}`, true, false},
	} {
		var s skills.Skill
		if err := json.Unmarshal([]byte(tt.in), &s); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if s.Dynamic != tt.dynamic || (s.Valid() == nil) != tt.valid {
			t.Errorf("%s: dynamic %v, Valid() = %v", tt.in, s.Dynamic, s.Valid())
		}
		if tt.valid {
			out, err := json.Marshal(&s)
			if err != nil {
				t.Fatal(err)
			}
			var back skills.Skill
			if err := json.Unmarshal(out, &back); err != nil || back.Valid() != nil || back.Dynamic != s.Dynamic {
				t.Errorf("round trip of %s: %s, %v", tt.in, out, err)
			}
		}
	}
}

func TestSkillValueMarshals(t *testing.T) {
	s := skills.Skill{URI: "skill://a/SKILL.md", Frontmatter: skills.Frontmatter{"name": "a"}, Dynamic: true}
	b, err := json.Marshal(s)
	if err != nil || string(b) != `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}` {
		t.Errorf("%s, %v", b, err)
	}
}
