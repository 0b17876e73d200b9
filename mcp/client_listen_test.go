package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// The list-changed handlers hear about changes at every revision: a
// stateful server sends them on the session, and for a 2026-07-28 server
// Connect opens a subscriptions/listen stream by itself (client_listen.go).

// listenRequests returns the filters of the subscriptions/listen requests
// the client sent.
func listenRequests(t *testing.T, w *wireLog) []mcp.SubscriptionFilter {
	t.Helper()
	var out []mcp.SubscriptionFilter
	for _, m := range w.requests("client", mcp.MethodSubscriptionsListen) {
		var p mcp.ListenParams
		if err := json.Unmarshal(m.m.Params, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Notifications)
	}
	return out
}

func TestListChangedHandlerEveryRevision(t *testing.T) {
	for _, rev := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			s.AddTool(&mcp.Tool{Name: "first"}, noTool)
			changed := make(chan string, 10)
			e := connect(t, rev, s, &mcp.ClientOptions{
				ToolListChangedHandler:   func(context.Context, *mcp.ClientSession) { changed <- "tools" },
				PromptListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- "prompts" },
			})
			if got := e.cs.Stateless(); got != (rev == mcp.Version20260728) {
				t.Fatalf("Stateless() = %v at %s", got, rev)
			}
			// Connect returned only once the server acknowledged the listen
			// stream (the wire log records a message before it is sent).
			wantAcks := 0
			if rev == mcp.Version20260728 {
				wantAcks = 1
			}
			if acks := len(e.wire.notifications("server", mcp.NotificationSubscriptionsAcknowledged)); acks != wantAcks {
				t.Fatalf("%d listen acknowledgements by the time Connect returned, want %d", acks, wantAcks)
			}
			// Right after Connect: the change must not be missed.
			s.AddTool(&mcp.Tool{Name: "second"}, noTool)
			if got := recv(t, changed, "tools/list_changed"); got != "tools" {
				t.Fatalf("got %s list_changed, want tools", got)
			}
			ctx := testCtx(t)
			res, err := e.cs.ListTools(ctx, nil)
			if err != nil || len(res.Tools) != 2 {
				t.Fatalf("ListTools after the change: %v, %+v", err, res)
			}
			// The server has no prompts, so it offers no prompt list
			// changes: the client listens only for tools (2026), and the
			// prompt handler never runs.
			filters := listenRequests(t, e.wire)
			if rev == mcp.Version20260728 {
				want := []mcp.SubscriptionFilter{{ToolsListChanged: true}}
				if !slices.EqualFunc(filters, want, filterEqual) {
					t.Errorf("listen requests %+v, want %+v", filters, want)
				}
			} else if len(filters) != 0 {
				t.Errorf("a %s client sent subscriptions/listen: %+v", rev, filters)
			}
			e.close(t)
			if len(changed) != 0 {
				t.Errorf("unexpected %s list_changed", <-changed)
			}
		})
	}
}

func filterEqual(a, b mcp.SubscriptionFilter) bool {
	return a.ToolsListChanged == b.ToolsListChanged && a.PromptsListChanged == b.PromptsListChanged &&
		a.ResourcesListChanged == b.ResourcesListChanged &&
		slices.Equal(a.ResourceSubscriptions, b.ResourceSubscriptions) && slices.Equal(a.TaskIDs, b.TaskIDs)
}

// TestListenFilterFollowsHandlers checks which list kinds a 2026 client
// asks for: only those with a handler, and only those the server offers.
func TestListenFilterFollowsHandlers(t *testing.T) {
	handler := func(context.Context, *mcp.ClientSession) {}
	full := func() *mcp.Server {
		s := mcp.NewServer(serverImpl, nil)
		s.AddTool(&mcp.Tool{Name: "t"}, noTool)
		s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
		s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		return s
	}
	tests := []struct {
		name   string
		server *mcp.Server
		opts   mcp.ClientOptions
		want   []mcp.SubscriptionFilter
	}{
		{"no handlers", full(), mcp.ClientOptions{}, nil},
		{"only other handlers", full(), mcp.ClientOptions{
			LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) {},
		}, nil},
		{"prompts and resources", full(), mcp.ClientOptions{PromptListChangedHandler: handler, ResourceListChangedHandler: handler},
			[]mcp.SubscriptionFilter{{PromptsListChanged: true, ResourcesListChanged: true}}},
		{"all", full(), mcp.ClientOptions{ToolListChangedHandler: handler, PromptListChangedHandler: handler, ResourceListChangedHandler: handler},
			[]mcp.SubscriptionFilter{{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}}},
		{"server offers none", mcp.NewServer(serverImpl, nil), mcp.ClientOptions{ToolListChangedHandler: handler}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := connect(t, mcp.Version20260728, tt.server, &tt.opts)
			e.close(t)
			if got := listenRequests(t, e.wire); !slices.EqualFunc(got, tt.want, filterEqual) {
				t.Errorf("listen requests %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestListenEndsWithSession checks that the session's listen stream ends
// when the server goes away, not only when the client closes (TestMain
// fails the package if its goroutine is left behind).
func TestListenEndsWithSession(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	s.AddTool(&mcp.Tool{Name: "t"}, noTool)
	a, b := transport.Pipe()
	ctx := testCtx(t)
	ss := s.Connect(b, nil)
	cs, err := mcp.NewClient(clientImpl, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {},
	}).Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	ss.Close()
	ss.Wait()
	if err := cs.Wait(); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("client session ended with %v", err)
	}
	if err := cs.Close(); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Close: %v", err)
	}
}

// TestResourceUpdatedOnListen checks the 2026 way to subscribe to a
// resource: Listen with ResourceSubscriptions, whose updates reach
// ResourceUpdatedHandler, next to the list changes Connect listens for.
func TestResourceUpdatedOnListen(t *testing.T) {
	const uri = "test://watched"
	acks := make(chan struct{}, 4)
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Sending: []mcp.Middleware{
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
	s.AddTool(&mcp.Tool{Name: "t"}, noTool)
	s.AddResource(&mcp.Resource{URI: uri, Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	updated := make(chan string, 10)
	tools := make(chan struct{}, 10)
	e := connect(t, mcp.Version20260728, s, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { tools <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updated <- p.URI
		},
	})
	recv(t, acks, "the acknowledgement of Connect's listen stream")
	ctx := testCtx(t)
	if err := e.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil {
		t.Error("Subscribe succeeded on a 2026-07-28 session")
	}
	lctx, stop := context.WithCancel(ctx)
	listened := make(chan error, 1)
	go func() { listened <- e.cs.Listen(lctx, &mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}}) }()
	recv(t, acks, "the acknowledgement of the resource listen stream")
	s.ResourceUpdated(ctx, uri)
	if got := recv(t, updated, "resources/updated"); got != uri {
		t.Fatalf("update for %q, want %q", got, uri)
	}
	// The application's stream carries no list changes: one tool change
	// is heard once, on Connect's stream.
	s.AddTool(&mcp.Tool{Name: "t2"}, noTool)
	recv(t, tools, "tools/list_changed")
	stop()
	if err := recv(t, listened, "Listen to return"); err != nil {
		t.Errorf("Listen: %v", err)
	}
	e.close(t)
	if len(tools) != 0 || len(updated) != 0 {
		t.Errorf("%d more tool changes and %d more updates than expected", len(tools), len(updated))
	}
}

// TestListenNotAcknowledged checks Connect against a 2026 server that never
// acknowledges the listen stream: Connect's ctx ending first fails it; the
// probe timeout passing first leaves a working session. Either way nothing
// is left running.
func TestListenNotAcknowledged(t *testing.T) {
	tests := []struct {
		name    string
		ctx     time.Duration // Connect's deadline
		probe   time.Duration // ClientOptions.ProbeTimeout
		wantErr error
	}{
		{"ctx ends", 100 * time.Millisecond, time.Hour, context.DeadlineExceeded},
		{"probe timeout passes", waitTimeout, 100 * time.Millisecond, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Receiving: []mcp.Middleware{
				func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, r *mcp.Request) (any, error) {
						if r.Method == mcp.MethodSubscriptionsListen {
							<-release
							return nil, errors.New("never acknowledged")
						}
						return next(ctx, r)
					}
				},
			}})
			s.AddTool(&mcp.Tool{Name: "t"}, noTool)
			a, b := transport.Pipe()
			ss := s.Connect(b, nil)
			defer func() {
				close(release)
				ss.Close()
				ss.Wait()
			}()
			ctx, cancel := context.WithTimeout(context.Background(), tt.ctx)
			defer cancel()
			cs, err := mcp.NewClient(clientImpl, &mcp.ClientOptions{
				ProbeTimeout:           tt.probe,
				ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {},
			}).Connect(ctx, a)
			if tt.wantErr != nil {
				if err == nil {
					cs.Close()
					t.Fatal("Connect succeeded")
				}
				if !errors.Is(err, tt.wantErr) || !strings.HasPrefix(err.Error(), "mcp: connect: subscriptions/listen: ") {
					t.Fatalf("Connect: %v, want mcp: connect: subscriptions/listen: %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if _, err := cs.ListTools(testCtx(t), nil); err != nil {
				t.Errorf("ListTools: %v", err)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
