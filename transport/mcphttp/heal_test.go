package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// swappable serves whatever handler is current: a server restart, as
// the client sees it, without a new address.
type swappable struct{ h atomic.Pointer[http.Handler] }

func (s *swappable) set(h http.Handler)                               { s.h.Store(&h) }
func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

func watchedServer(withPrompt bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "heal", Version: "1"}, nil)
	_ = s.AddResource(&mcp.Resource{URI: "test://watched", Name: "watched"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: "test://watched", Text: "x"}}}, nil
		})
	if withPrompt {
		_ = s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	}
	return s
}

// TestIdleSessionHeals: a 2025-11-25 session that only listens (no call)
// meets a server that lost it (its GET stream gets 404): it opens a new
// session by itself, subscribes again to what it had subscribed to, and,
// since the new server declares other capabilities, hears that the lists
// may have changed.
func TestIdleSessionHeals(t *testing.T) {
	sw := &swappable{}
	first := NewHandler(watchedServer(false), &HandlerOptions{KeepAliveInterval: 100 * time.Millisecond})
	sw.set(first)
	ts := httptest.NewServer(sw)
	defer ts.Close()

	updates, changes := make(chan string, 16), make(chan string, 16)
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		ProtocolVersion: mcp.LatestStatefulVersion,
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedNotificationParams) {
			updates <- p.URI
		},
		PromptListChangedHandler: func(context.Context, *mcp.ClientSession) { changes <- "prompts" },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, NewClientStream(ts.URL, &ClientOptions{ReconnectDelay: 50 * time.Millisecond, MaxReconnectDelay: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}
	if cs.ServerCapabilities().Prompts != nil {
		t.Fatal("the first server declares prompts")
	}

	// The restart: a new server, which knows no session.
	second := watchedServer(true)
	next := NewHandler(second, &HandlerOptions{KeepAliveInterval: 100 * time.Millisecond})
	defer next.Close()
	sw.set(next)
	first.Close() // ends the GET stream

	select {
	case <-changes:
	case <-ctx.Done():
		t.Fatal("no list change after the new session's capabilities changed")
	}
	if cs.ServerCapabilities().Prompts == nil {
		t.Error("ServerCapabilities after the new session: no prompts, the first server's capabilities")
	}
	for {
		second.ResourceUpdated(ctx, "test://watched")
		select {
		case uri := <-updates:
			if uri != "test://watched" {
				t.Fatalf("update of %q", uri)
			}
			return
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no resource update from the new session: not subscribed again")
		}
	}
}

// TestSessionLost: when the server lost the session and refuses a new
// one, the session ends, and says why.
func TestSessionLost(t *testing.T) {
	sw := &swappable{}
	first := NewHandler(watchedServer(false), nil)
	sw.set(first)
	ts := httptest.NewServer(sw)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion}).
		Connect(ctx, NewClientStream(ts.URL, &ClientOptions{ReconnectDelay: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sw.set(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerSessionID) != "" {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		http.Error(w, "no new sessions", http.StatusForbidden)
	}))
	first.Close()
	select {
	case <-cs.Done():
	case <-ctx.Done():
		t.Fatal("the session did not end")
	}
	if err := cs.Wait(); !errors.Is(err, ErrSessionLost) {
		t.Errorf("Wait: %v, want ErrSessionLost", err)
	}
}
