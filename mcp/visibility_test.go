package mcp_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// visNames are registered for every kind, interleaved so that hidden
// entries sit between, before and after visible ones on small pages.
var visNames = []string{"secret0", "pub1", "secret1", "alice1", "secret2", "bob1", "pub2", "secret3", "secret4", "alice2", "pub3", "bob2", "secret5"}

// visibleTo is the rule of the tests: "pub" entries for everyone, a
// principal's own entries for it, "secret" ones for no one.
func visibleTo(principal, name string) bool {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "test://"), "tmpl://")
	return strings.HasPrefix(name, "pub") || (principal != "" && strings.HasPrefix(name, principal))
}

// visRule is the VisibleFunc of the tests.
func visRule(_ context.Context, c mcp.Caller, f mcp.Feature) bool {
	return visibleTo(c.Principal(), f.Name())
}

// visLife is one lifecycle and transport a client reaches the server by.
type visLife struct {
	name string
	rev  string
	http bool
}

var visLives = []visLife{
	{"2025-11-25/memory", mcp.Version20251125, false},
	{"2026-07-28/memory", mcp.Version20260728, false},
	{"2025-11-25/http", mcp.Version20251125, true},
	{"2026-07-28/http", mcp.Version20260728, true},
}

// visConnect connects a client of life to s as principal (over HTTP, the
// X-User header the handler's Principal function reads).
func visConnect(t *testing.T, s *mcp.Server, life visLife, principal string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = life.rev
	c := mcp.NewClient(clientImpl, &o)
	if !life.http {
		a, b := transport.Pipe()
		cs, done := connectStreams(t, s, c, a, b)
		t.Cleanup(done)
		return cs
	}
	// 2025-11-25 reads the principal with HandlerOptions.Principal,
	// 2026-07-28 from authentication middleware (as auth.ResourceServer).
	var h *mcphttp.Handler
	var front http.Handler
	if life.rev == mcp.Version20251125 {
		h = mcphttp.NewHandler(s, &mcphttp.HandlerOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
		front = h
	} else {
		h = mcphttp.NewHandler(s, nil)
		front = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.Header.Get("X-User"); u != "" {
				r = r.WithContext(mcphttp.WithPrincipal(r.Context(), u))
			}
			h.ServeHTTP(w, r)
		})
	}
	hs := httptest.NewServer(front)
	cs, err := c.Connect(testCtx(t), mcphttp.NewClientStream(hs.URL, &mcphttp.ClientOptions{Header: http.Header{"X-User": {principal}}}))
	if err != nil {
		hs.Close()
		h.Close()
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		h.Close()
		hs.Close()
	})
	return cs
}

// visKind is one kind of feature as a client lists and uses it.
type visKind struct {
	name     string
	register func(t *testing.T, s *mcp.Server, name string)
	list     func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]string, string, error)
	// use calls, gets or reads the entry registered as name; complete, if
	// set, completes an argument of it.
	use      func(ctx context.Context, cs *mcp.ClientSession, name string) error
	complete func(ctx context.Context, cs *mcp.ClientSession, name string) error
}

func okPrompt(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{}, nil
}

func okResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: req.Params.URI, Text: "ok"}}}, nil
}

func okTemplate(_ context.Context, req *mcp.ReadResourceRequest, _ map[string]string) (*mcp.ReadResourceResult, error) {
	return okResource(context.Background(), req)
}

func okComplete(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"v"}}}, nil
}

func okTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
}

var visKinds = []visKind{
	{
		name: "tools",
		register: func(t *testing.T, s *mcp.Server, name string) {
			if err := s.AddTool(&mcp.Tool{Name: name}, okTool); err != nil {
				t.Fatal(err)
			}
		},
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]string, string, error) {
			res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			var out []string
			for _, x := range res.Tools {
				out = append(out, x.Name)
			}
			return out, res.NextCursor, nil
		},
		use: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
			return err
		},
	},
	{
		name: "prompts",
		register: func(t *testing.T, s *mcp.Server, name string) {
			if err := s.AddPrompt(&mcp.Prompt{Name: name}, okPrompt); err != nil {
				t.Fatal(err)
			}
		},
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]string, string, error) {
			res, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			var out []string
			for _, x := range res.Prompts {
				out = append(out, x.Name)
			}
			return out, res.NextCursor, nil
		},
		use: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
			return err
		},
		complete: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: name}, Argument: mcp.CompleteArgument{Name: "a"}})
			return err
		},
	},
	{
		name: "resources",
		register: func(t *testing.T, s *mcp.Server, name string) {
			if err := s.AddResource(&mcp.Resource{URI: "test://" + name, Name: name}, okResource); err != nil {
				t.Fatal(err)
			}
		},
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]string, string, error) {
			res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			var out []string
			for _, x := range res.Resources {
				out = append(out, x.Name)
			}
			return out, res.NextCursor, nil
		},
		use: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://" + name})
			return err
		},
	},
	{
		name: "templates",
		register: func(t *testing.T, s *mcp.Server, name string) {
			if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "tmpl://" + name + "/{x}", Name: name}, okTemplate); err != nil {
				t.Fatal(err)
			}
		},
		list: func(ctx context.Context, cs *mcp.ClientSession, cursor string) ([]string, string, error) {
			res, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			var out []string
			for _, x := range res.ResourceTemplates {
				out = append(out, x.Name)
			}
			return out, res.NextCursor, nil
		},
		use: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "tmpl://" + name + "/1"})
			return err
		},
		complete: func(ctx context.Context, cs *mcp.ClientSession, name string) error {
			_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "tmpl://" + name + "/{x}"}, Argument: mcp.CompleteArgument{Name: "x"}})
			return err
		},
	},
}

// TestVisibility lists and uses every kind of feature, at both lifecycles,
// as several principals, with two entries a page: each sees exactly its
// own entries, page by page with none empty, and a hidden entry is
// answered as an absent one.
func TestVisibility(t *testing.T) {
	for _, life := range visLives {
		for _, kind := range visKinds {
			t.Run(life.name+"/"+kind.name, func(t *testing.T) {
				t.Parallel()
				s := mcp.NewServer(serverImpl, &mcp.ServerOptions{PageSize: 2, Visible: visRule, CompletionHandler: okComplete})
				for _, n := range visNames {
					kind.register(t, s, n)
				}
				principals := []string{""}
				if life.http {
					principals = []string{"", "alice", "bob"}
				}
				for _, p := range principals {
					cs := visConnect(t, s, life, p, nil)
					checkVisibleList(t, cs, kind, p)
					checkVisibleUse(t, cs, kind.use, p)
					if kind.complete != nil {
						checkVisibleUse(t, cs, kind.complete, p)
					}
				}
			})
		}
	}
}

// checkVisibleList pages through a list as principal.
func checkVisibleList(t *testing.T, cs *mcp.ClientSession, kind visKind, principal string) {
	t.Helper()
	ctx := testCtx(t)
	var want []string
	for _, n := range visNames {
		if visibleTo(principal, n) {
			want = append(want, n)
		}
	}
	var got []string
	cursor := ""
	for range len(visNames) {
		page, next, err := kind.list(ctx, cs, cursor)
		if err != nil {
			t.Fatalf("%s: list: %v", principal, err)
		}
		if len(page) == 0 && (next != "" || len(got) < len(want)) {
			t.Errorf("%s: an empty page while more is visible (cursor %q)", principal, cursor)
		}
		if raw, _ := base64.RawURLEncoding.DecodeString(next); strings.Contains(string(raw), "secret") {
			t.Errorf("%s: cursor %q names a hidden entry", principal, next)
		}
		got = append(got, page...)
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s sees %v, want %v", principal, got, want)
	}
	// A cursor naming a hidden entry is refused as one naming an absent one.
	_, _, hidden := kind.list(ctx, cs, base64.RawURLEncoding.EncodeToString([]byte("ksecret1")))
	_, _, absent := kind.list(ctx, cs, base64.RawURLEncoding.EncodeToString([]byte("knosuch")))
	sameError(t, principal+": a hidden cursor", hidden, absent, "", "")
}

// checkVisibleUse uses every entry as principal: the visible ones work,
// the hidden ones fail exactly as an absent one does.
func checkVisibleUse(t *testing.T, cs *mcp.ClientSession, use func(context.Context, *mcp.ClientSession, string) error, principal string) {
	t.Helper()
	ctx := testCtx(t)
	absent := use(ctx, cs, "nosuch")
	for _, n := range visNames {
		err := use(ctx, cs, n)
		if visibleTo(principal, n) {
			if err != nil {
				t.Errorf("%s: using %s: %v", principal, n, err)
			}
			continue
		}
		sameError(t, principal+": using "+n, err, absent, n, "nosuch")
	}
}

// sameError fails unless got and want are the same JSON-RPC error, once
// name is replaced by absent in got's message and data.
func sameError(t *testing.T, what string, got, want error, name, absent string) {
	t.Helper()
	var g, w *jsonrpc.Error
	if !errors.As(got, &g) || !errors.As(want, &w) {
		t.Errorf("%s: got %v, want the error %v", what, got, want)
		return
	}
	msg := g.Message
	if name != "" {
		msg = strings.ReplaceAll(msg, name, absent)
	}
	if g.Code != w.Code || msg != w.Message {
		t.Errorf("%s: got %d %q, want %d %q as for an absent one", what, g.Code, g.Message, w.Code, w.Message)
	}
	if gd, wd := string(g.Data), string(w.Data); name != "" && strings.ReplaceAll(gd, name, absent) != wd {
		t.Errorf("%s: data %s, want %s", what, gd, wd)
	}
}
