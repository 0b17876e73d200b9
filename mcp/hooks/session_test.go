package hooks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
)

// sessionLog records the session hooks' calls.
type sessionLog struct {
	mu         sync.Mutex
	events     []string
	registered []*mcp.ServerSession
	ended      chan *mcp.ServerSession
}

func watchSessions(s *mcp.Server) *sessionLog {
	l := &sessionLog{ended: make(chan *mcp.ServerSession, 16)}
	hooks.OnRegisterSession(s, func(_ context.Context, ss *mcp.ServerSession) {
		l.mu.Lock()
		l.events = append(l.events, "register")
		l.registered = append(l.registered, ss)
		l.mu.Unlock()
	})
	hooks.OnUnregisterSession(s, func(_ context.Context, ss *mcp.ServerSession) {
		l.mu.Lock()
		l.events = append(l.events, "unregister")
		l.mu.Unlock()
		l.ended <- ss
	})
	return l
}

func (l *sessionLog) snapshot() ([]string, []*mcp.ServerSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...), append([]*mcp.ServerSession(nil), l.registered...)
}

// TestSessionHooks: a session is registered when the server begins serving
// it and unregistered when it ends, once each and in that order, at
// 2025-11-25 on both transports; at 2026-07-28 the in-memory connection is
// registered (a ServerSession with no handshake), and Streamable HTTP
// registers nothing, as its requests have no session.
func TestSessionHooks(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := echoServer(t, nil)
		l := watchSessions(s)
		c := newClient(version, nil)
		cs := connectClient(t, s, tr, c)
		callEcho(t, cs, "x")
		events, regs := l.snapshot()
		stateless := version == mcp.Version20260728
		if stateless && tr == "http" {
			if len(events) != 0 {
				t.Fatalf("stateless HTTP requests ran session hooks: %v", events)
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			if events, _ := l.snapshot(); len(events) != 0 {
				t.Fatalf("stateless HTTP requests ran session hooks: %v", events)
			}
			return
		}
		if len(regs) != 1 || len(events) != 1 {
			t.Fatalf("after connecting: hooks ran %v", events)
		}
		ss := regs[0]
		if sessions := s.Sessions(); len(sessions) != 1 || sessions[0] != ss {
			t.Errorf("registered %p, the server lists %v", ss, sessions)
		}
		if !stateless && ss.ClientInfo() == nil {
			t.Errorf("the registered session has no client information after initialize")
		}
		if tr == "http" && ss.ID() == "" {
			t.Errorf("an HTTP session registered without its id")
		}
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-l.ended:
			if got != ss {
				t.Errorf("unregistered %p, registered %p", got, ss)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the session ended and was never unregistered")
		}
		if events, _ := l.snapshot(); len(events) != 2 || events[1] != "unregister" {
			t.Errorf("hooks ran %v", events)
		}
	})
}

// TestSessionHooksPaired: a connection that ends while its register hook
// runs is unregistered after that hook returns, never before it.
func TestSessionHooksPaired(t *testing.T) {
	s := mcp.NewServer(nil, nil)
	var mu sync.Mutex
	var events []string
	unregistered := make(chan struct{})
	hooks.OnRegisterSession(s, func(_ context.Context, ss *mcp.ServerSession) {
		_ = ss.Close()
		<-ss.Done()
		time.Sleep(20 * time.Millisecond) // the connection's end is being handled meanwhile
		mu.Lock()
		events = append(events, "register")
		mu.Unlock()
	})
	hooks.OnUnregisterSession(s, func(context.Context, *mcp.ServerSession) {
		mu.Lock()
		events = append(events, "unregister")
		mu.Unlock()
		close(unregistered)
	})
	a, b := transport.Pipe()
	defer a.Close()
	ss := s.Connect(b, nil)
	<-unregistered
	_ = ss.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[0] != "register" || events[1] != "unregister" {
		t.Errorf("hooks ran %v, want register then unregister", events)
	}
}

// TestWaitAfterUnregisterHooks: ServerSession.Wait returns once the
// unregister hooks have run for the session, also when the connection
// ended while its register hooks ran (they run the unregister hooks
// then). Before, Wait could return while they still ran (the connection
// is over before they are called), so what followed a Wait could miss
// them (ExampleAddReceivingMiddleware's last line, now and then).
func TestWaitAfterUnregisterHooks(t *testing.T) {
	for _, endWhileRegistering := range []bool{false, true} {
		s := mcp.NewServer(nil, nil)
		var mu sync.Mutex
		done := false
		hooks.OnRegisterSession(s, func(_ context.Context, ss *mcp.ServerSession) {
			if endWhileRegistering {
				_ = ss.Close()
				<-ss.Done()
			}
		})
		hooks.OnUnregisterSession(s, func(context.Context, *mcp.ServerSession) {
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			done = true
			mu.Unlock()
		})
		a, b := transport.Pipe()
		ss := s.Connect(b, nil)
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		_ = ss.Wait()
		mu.Lock()
		if !done {
			t.Errorf("ended while registering: %v: Wait returned before the unregister hooks ran", endWhileRegistering)
		}
		mu.Unlock()
	}
}

// TestOnNotification: the catch-all handler sees every notification the
// client receives, whatever its method (progress, a custom one, a log
// message), after the handler the options set for it.
func TestOnNotification(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := mcp.NewServer(nil, nil)
		err := s.AddTool(&mcp.Tool{Name: "chatty", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := req.NotifyProgress(ctx, 1, 2, "half"); err != nil {
				return nil, err
			}
			if err := req.Notify(ctx, "example/custom", map[string]int{"n": 7}); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{}, req.Log(ctx, mcp.LevelInfo, "chatty", "hello")
		})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var got []string
		var logHandled bool
		c := newClient(version, &mcp.ClientOptions{
			LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) {
				mu.Lock()
				logHandled = true
				mu.Unlock()
			},
		})
		hooks.OnNotification(c, func(ctx context.Context, cs *mcp.ClientSession, r *mcp.Request) {
			mu.Lock()
			defer mu.Unlock()
			if r.Method == mcp.NotificationMessage && !logHandled {
				t.Errorf("the catch-all ran before LoggingMessageHandler")
			}
			if r.Session != cs || cs == nil {
				t.Errorf("r.Session %v, cs %v", r.Session, cs)
			}
			if r.Method == "example/custom" && string(r.Params) != `{"n":7}` {
				t.Errorf("custom notification params %s", r.Params)
			}
			got = append(got, r.Method)
		})
		cs := connectClient(t, s, tr, c)
		if err := cs.SetLoggingLevel(testCtx(t), mcp.LevelDebug); err != nil {
			t.Fatal(err)
		}
		ctx := mcp.WithProgress(testCtx(t), func(*mcp.ProgressNotificationParams) {})
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "chatty"}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, want := range []string{mcp.NotificationProgress, "example/custom", mcp.NotificationMessage} {
			if !contains(got, want) {
				t.Errorf("the catch-all saw %v, not %s", got, want)
			}
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestOnNotificationListChanged: the catch-all also sees what arrives
// outside any request: a list change, on the session at a stateful
// revision and on the subscriptions/listen stream at 2026-07-28.
func TestOnNotificationListChanged(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := echoServer(t, nil)
		c := newClient(version, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {}})
		seen := make(chan string, 16)
		hooks.OnNotification(c, func(_ context.Context, _ *mcp.ClientSession, r *mcp.Request) { seen <- r.Method })
		connectClient(t, s, tr, c)
		if err := s.AddTool(&mcp.Tool{Name: "later", InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(5 * time.Second)
		for {
			select {
			case m := <-seen:
				if m == mcp.NotificationToolListChanged {
					return
				}
			case <-deadline:
				t.Fatal("the catch-all never saw notifications/tools/list_changed")
			}
		}
	})
}
