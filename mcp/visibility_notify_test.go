package mcp_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

// grantRule is visRule plus one grant that can be given and taken back:
// with it, bob also sees secret1.
type grantRule struct{ bob atomic.Bool }

func (g *grantRule) visible(ctx context.Context, c mcp.Caller, f mcp.Feature) bool {
	return visRule(ctx, c, f) || (g.bob.Load() && c.Principal() == "bob" && f.Name() == "secret1")
}

// TestVisibilityListChanged: list_changed reaches only the clients whose
// view changed, over both lifecycles (a 2025-11-25 session's stream, a
// 2026-07-28 subscriptions/listen stream): a change only alice sees tells
// only alice, a change of what bob may see (VisibilityChanged) only bob,
// and a replaced visible tool both.
func TestVisibilityListChanged(t *testing.T) {
	for _, life := range visLives {
		if !life.http {
			continue
		}
		t.Run(life.name, func(t *testing.T) {
			t.Parallel()
			var g grantRule
			s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: g.visible})
			for _, n := range []string{"pub1", "alice1", "bob1", "secret1"} {
				s.AddTool(&mcp.Tool{Name: n}, okTool)
			}
			told := map[string]chan string{"alice": make(chan string, 10), "bob": make(chan string, 10)}
			for p, ch := range told {
				visConnect(t, s, life, p, &mcp.ClientOptions{
					ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { ch <- p },
				})
			}
			// step makes a change, waits for the clients it must reach,
			// and checks that nothing else reached anyone before.
			step := func(what string, change func(), want ...string) {
				t.Helper()
				change()
				for _, p := range want {
					recv(t, told[p], p+" told of "+what)
				}
				for p, ch := range told {
					if n := len(ch); n != 0 {
						t.Fatalf("after %s, %s was told %d more times", what, p, n)
					}
				}
			}
			step("alice2", func() { s.AddTool(&mcp.Tool{Name: "alice2"}, okTool) }, "alice")
			step("secret2", func() { s.AddTool(&mcp.Tool{Name: "secret2"}, okTool) })
			step("pub2", func() { s.AddTool(&mcp.Tool{Name: "pub2"}, okTool) }, "alice", "bob")
			step("the grant", func() { g.bob.Store(true); s.VisibilityChanged(mcp.FeatureTool) }, "bob")
			step("a replaced pub1", func() { s.AddTool(&mcp.Tool{Name: "pub1", Description: "new"}, okTool) }, "alice", "bob")
			step("removing alice1", func() { s.RemoveTools("alice1") }, "alice")
			step("taking the grant back", func() { g.bob.Store(false); s.VisibilityChanged() }, "bob")
			step("a prompt change", func() { s.VisibilityChanged(mcp.FeaturePrompt) })
		})
	}
}

// TestVisibilityResourceUpdated: subscribing to a hidden resource is
// accepted as for an absent one, and its updates never reach the client.
func TestVisibilityResourceUpdated(t *testing.T) {
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: visRule})
	for _, n := range []string{"pub1", "secret1"} {
		s.AddResource(&mcp.Resource{URI: "test://" + n, Name: n}, okResource)
	}
	updated := make(chan string, 10)
	cs := visConnect(t, s, visLives[0], "", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updated <- p.URI
		},
	})
	ctx := testCtx(t)
	for _, uri := range []string{"test://nosuch", "test://secret1", "test://pub1"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("Subscribe %s: %v", uri, err)
		}
	}
	s.ResourceUpdated(ctx, "test://secret1")
	s.ResourceUpdated(ctx, "test://pub1")
	if got := recv(t, updated, "the update of pub1"); got != "test://pub1" {
		t.Fatalf("told of %s first, want test://pub1", got)
	}
}

// TestVisibilityListenResourceUpdated is TestVisibilityResourceUpdated on
// a 2026-07-28 subscriptions/listen stream.
func TestVisibilityListenResourceUpdated(t *testing.T) {
	acks := make(chan struct{}, 4)
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: visRule, Sending: []mcp.Middleware{
		func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				res, err := next(ctx, r)
				if r.Method == mcp.NotificationSubscriptionsAcknowledged {
					acks <- struct{}{} // the listener is registered
				}
				return res, err
			}
		},
	}})
	for _, n := range []string{"pub1", "secret1"} {
		s.AddResource(&mcp.Resource{URI: "test://" + n, Name: n}, okResource)
	}
	updated := make(chan string, 10)
	cs := visConnect(t, s, visLives[1], "", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updated <- p.URI
		},
	})
	ctx := testCtx(t)
	lctx, stop := context.WithCancel(ctx)
	listened := make(chan error, 1)
	go func() {
		listened <- cs.Listen(lctx, &mcp.SubscriptionFilter{ResourceSubscriptions: []string{"test://secret1", "test://pub1"}})
	}()
	recv(t, acks, "the acknowledgement of the listen stream")
	s.ResourceUpdated(ctx, "test://secret1")
	s.ResourceUpdated(ctx, "test://pub1")
	if got := recv(t, updated, "the update of pub1"); got != "test://pub1" {
		t.Fatalf("told of %s first, want test://pub1", got)
	}
	stop()
	if err := recv(t, listened, "Listen to return"); err != nil {
		t.Errorf("Listen: %v", err)
	}
}

// TestVisibilityCacheScope: at 2026-07-28, results that depend on the
// caller are private even when the server says public; without a
// visibility function they stay public.
func TestVisibilityCacheScope(t *testing.T) {
	for _, visible := range []mcp.VisibleFunc{nil, visRule} {
		s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: visible, CacheScope: mcp.CacheScopePublic})
		s.AddTool(&mcp.Tool{Name: "pub1"}, okTool)
		s.AddPrompt(&mcp.Prompt{Name: "pub1"}, okPrompt)
		s.AddResource(&mcp.Resource{URI: "test://pub1", Name: "pub1"}, okResource)
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "tmpl://pub1/{x}", Name: "pub1"}, okTemplate)
		cs := visConnect(t, s, visLives[1], "", nil)
		ctx := testCtx(t)
		want := mcp.CacheScopePublic
		if visible != nil {
			want = mcp.CacheScopePrivate
		}
		tools, err1 := cs.ListTools(ctx, nil)
		prompts, err2 := cs.ListPrompts(ctx, nil)
		resources, err3 := cs.ListResources(ctx, nil)
		templates, err4 := cs.ListResourceTemplates(ctx, nil)
		read, err5 := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "tmpl://pub1/1"})
		for _, err := range []error{err1, err2, err3, err4, err5} {
			if err != nil {
				t.Fatal(err)
			}
		}
		for what, got := range map[string]mcp.CacheScope{
			"tools/list": tools.CacheScope, "prompts/list": prompts.CacheScope, "resources/list": resources.CacheScope,
			"resources/templates/list": templates.CacheScope, "resources/read": read.CacheScope,
		} {
			if got != want {
				t.Errorf("visibility %v: %s has cacheScope %q, want %q", visible != nil, what, got, want)
			}
		}
	}
}

// TestVisibilityInputRounds: a 2026-07-28 tool call that asks for input is
// checked again at each round: a tool hidden between rounds is unknown.
func TestVisibilityInputRounds(t *testing.T) {
	var hidden atomic.Bool
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: func(_ context.Context, _ mcp.Caller, f mcp.Feature) bool {
		return !hidden.Load()
	}})
	s.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "sure?"}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{}, nil
	})
	cs := visConnect(t, s, visLives[1], "", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			hidden.Store(true) // taken away while the client answers
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx := testCtx(t)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	_, absent := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nosuch"})
	sameError(t, "the second round", err, absent, "ask", "nosuch")
}

// TestVisibilityTasks: a hidden tool cannot be started as a task.
func TestVisibilityTasks(t *testing.T) {
	for _, life := range visLives[:2] {
		t.Run(life.name, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Visible: visRule})
			m, err := tasks.New(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Close() })
			for _, n := range []string{"pub1", "secret1"} {
				if err := m.AddTool(&mcp.Tool{Name: n}, mcp.TaskSupportOptional, okTool, nil); err != nil {
					t.Fatal(err)
				}
			}
			cs := visConnect(t, s, life, "", nil)
			ctx := testCtx(t)
			call, err := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "pub1"}, nil)
			if err != nil {
				t.Fatalf("a visible tool as a task: %v", err)
			}
			if _, err := call.Wait(ctx); err != nil {
				t.Fatalf("waiting for the visible task: %v", err)
			}
			_, hidden := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "secret1"}, nil)
			_, absent := tasks.CallTool(ctx, cs, &mcp.CallToolParams{Name: "nosuch"}, nil)
			sameError(t, "a hidden tool as a task", hidden, absent, "secret1", "nosuch")
		})
	}
}
