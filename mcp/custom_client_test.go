package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/tasks"
)

type greetParams struct {
	Meta *mcp.Meta `json:"_meta,omitempty"`
	Name string    `json:"name"`
}

type greetResult struct {
	Greeting string `json:"greeting"`
}

type noteParams struct {
	Text string `json:"text"`
}

// clientSeen is what the client's typed handlers saw.
type clientSeen struct {
	mu     sync.Mutex
	greets []string
	notes  chan string
}

// typedClient has a typed method and a typed notification, written against
// the client's request handle.
func typedClient(t *testing.T, rev string, seen *clientSeen) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "typed-client", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: rev})
	err := mcp.AddClientMethod(c, "example/greet", func(ctx context.Context, req *mcp.ClientRequest[greetParams]) (*greetResult, error) {
		if err := req.NotifyProgress(ctx, 1, 2, "greeting"); err != nil {
			return nil, err
		}
		_, tok := req.ProgressToken()
		seen.mu.Lock()
		seen.greets = append(seen.greets, fmt.Sprintf("id=%v token=%v rev=%s", !req.ID().IsZero(), tok, req.ProtocolVersion()))
		seen.mu.Unlock()
		return &greetResult{Greeting: "hello " + req.Params.Name}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = mcp.AddClientNotificationHandler(c, "example/note", func(_ context.Context, req *mcp.ClientRequest[noteParams]) {
		seen.notes <- req.Params.Text + " " + req.ProtocolVersion()
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// typedCallServer's tool reaches the client's typed methods through the
// request handle: a notification at every revision (ServerRequest.Notify),
// a request where there is a session to send it on.
func typedCallServer(progress chan<- string) *mcp.Server {
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{
		ProgressHandler: func(_ context.Context, _ *mcp.ServerSession, p *mcp.ProgressNotificationParams) {
			progress <- fmt.Sprintf("%v %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message)
		},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		if err := req.Notify(ctx, "example/note", noteParams{Text: "note"}); err != nil {
			return "", err
		}
		ss, ok := req.Session()
		if !ok {
			return "no session", nil // 2026-07-28: the server sends the client no requests
		}
		res, err := mcp.Call[greetResult](ctx, ss, "example/greet", greetParams{
			Meta: &mcp.Meta{ProgressToken: jsonrpc.StringID("p1")},
			Name: "Ada",
		})
		if err != nil {
			return "", err
		}
		return res.Greeting, nil
	})
	return s
}

// TestClientTypedMethods runs the client's typed method and notification at
// every revision over every transport: a tool sends the notification
// through its request handle everywhere, and calls the method with Call on
// its session where there is one (before 2026-07-28); the client's handler
// reports progress on the server's request, which the server's
// ProgressHandler receives.
func TestClientTypedMethods(t *testing.T) {
	for _, tr := range handleTransports {
		for _, rev := range allRevs {
			if !tr.serves(rev) {
				continue
			}
			t.Run(tr.name+"/"+rev, func(t *testing.T) {
				t.Parallel()
				seen := &clientSeen{notes: make(chan string, 1)}
				progress := make(chan string, 1)
				cs, done := tr.connect(t, typedCallServer(progress), typedClient(t, rev, seen))
				defer done()
				res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "greet"})
				if err != nil || res.IsError {
					t.Fatalf("%v %+v", err, res)
				}
				if n := recv(t, seen.notes, "the note"); n != "note "+rev {
					t.Errorf("notification handler saw %q", n)
				}
				got := res.Content[0].(*mcp.TextContent).Text
				if rev == mcp.Version20260728 {
					if got != "no session" {
						t.Errorf("tool said %q", got)
					}
					return
				}
				if got != "hello Ada" {
					t.Errorf("tool said %q, want the client's greeting", got)
				}
				// 2024-11-05 has no progress message.
				wantProgress := `"p1" 1/2 greeting`
				if rev == mcp.Version20241105 {
					wantProgress = `"p1" 1/2 `
				}
				if p := recv(t, progress, "the client's progress"); p != wantProgress {
					t.Errorf("server's ProgressHandler saw %q, want %q", p, wantProgress)
				}
				seen.mu.Lock()
				defer seen.mu.Unlock()
				if want := "id=true token=true rev=" + rev; len(seen.greets) != 1 || seen.greets[0] != want {
					t.Errorf("client's handler saw %q, want %q", seen.greets, want)
				}
			})
		}
	}
}

// TestClientTypedMethodDecodesStrictly: params with a member P does not
// know are refused with -32602 before the handler runs, and a nil result
// is sent as {}.
func TestClientTypedMethodDecodesStrictly(t *testing.T) {
	c := mcp.NewClient(clientImpl, &mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
	ran := false
	err := mcp.AddClientMethod(c, "x/greet", func(context.Context, *mcp.ClientRequest[greetParams]) (*greetResult, error) {
		ran = true
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e := connectClient(t, mcp.LatestStatefulVersion, nil, c)
	ctx := testCtx(t)
	err = e.ss.Call(ctx, "x/greet", map[string]string{"name": "Ada", "surname": "L"}, nil)
	wantCode(t, err, jsonrpc.CodeInvalidParams)
	if ran {
		t.Error("the handler ran on params it does not know")
	}
	got, err := mcp.Call[map[string]any](ctx, e.ss, "x/greet", greetParams{Name: "Ada"})
	if err != nil || got == nil || len(got) != 0 || !ran {
		t.Errorf("nil result: %v %v (ran %v), want {}", got, err, ran)
	}
}

// TestAddClientMethodRefuses: the typed client methods may not take a name
// the specification defines (either direction), an empty name or a nil
// handler; ServerRequest.Notify refuses the specification's notifications.
func TestAddClientMethodRefuses(t *testing.T) {
	c := mcp.NewClient(clientImpl, nil)
	h := func(context.Context, *mcp.ClientRequest[struct{}]) (struct{}, error) { return struct{}{}, nil }
	for _, name := range []string{"", mcp.MethodRootsList, mcp.MethodToolsCall, tasks.MethodGet} {
		if err := mcp.AddClientMethod(c, name, h); !errors.Is(err, mcp.ErrInvalidMethod) {
			t.Errorf("AddClientMethod(%q): %v, want ErrInvalidMethod", name, err)
		}
	}
	if err := mcp.AddClientNotificationHandler(c, mcp.NotificationToolListChanged, func(context.Context, *mcp.ClientRequest[struct{}]) {}); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("AddClientNotificationHandler(tools/list_changed): %v", err)
	}
	if err := mcp.AddClientMethod[struct{}, struct{}](c, "x/nil", nil); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("AddClientMethod with a nil handler: %v", err)
	}

	s := mcp.NewServer(serverImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "forge"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		err := req.Notify(ctx, mcp.NotificationMessage, map[string]string{"level": "error"})
		return fmt.Sprint(errors.Is(err, mcp.ErrInvalidMethod)), nil
	})
	for _, rev := range []string{mcp.LatestStatefulVersion, mcp.Version20260728} {
		e := connect(t, rev, s, nil)
		if res, err := e.callTool(testCtx(t), "forge", `{}`); err != nil || text(t, res) != "true" {
			t.Errorf("%s: Notify(notifications/message) refused with ErrInvalidMethod: %v %+v", rev, err, res)
		}
	}
}

// TestExtensionTypedMethods: an Extension's Methods may be typed (MethodFor,
// NotificationFor), with the Method's own Lifecycle and Revisions.
func TestExtensionTypedMethods(t *testing.T) {
	for _, rev := range allRevs {
		t.Run(rev, func(t *testing.T) {
			notified := make(chan string, 1)
			greet := mcp.MethodFor("x/greet", func(_ context.Context, req *mcp.ServerRequest[greetParams]) (greetResult, error) {
				return greetResult{Greeting: "hello " + req.Params.Name + " from " + req.ClientInfo().Name}, nil
			})
			modern := greet
			modern.Name, modern.Lifecycle = "x/modern", mcp.StatelessOnly
			note := mcp.NotificationFor("x/note", func(_ context.Context, req *mcp.ServerRequest[noteParams]) {
				notified <- req.Params.Text
			})
			s := mcp.NewServer(serverImpl, nil)
			if err := s.AddExtension(&mcp.Extension{ID: "com.example/ext", Methods: []mcp.Method{greet, modern, note}}); err != nil {
				t.Fatal(err)
			}
			e := connect(t, rev, s, nil)
			ctx := testCtx(t)
			got, err := mcp.Call[greetResult](ctx, e.cs, "x/greet", greetParams{Name: "Ada"})
			if want := "hello Ada from " + clientImpl.Name; err != nil || got.Greeting != want {
				t.Errorf("greet: %v %q, want %q", err, got.Greeting, want)
			}
			_, err = mcp.Call[greetResult](ctx, e.cs, "x/modern", greetParams{Name: "Ada"})
			if rev == mcp.Version20260728 {
				if err != nil {
					t.Errorf("a StatelessOnly typed method at 2026-07-28: %v", err)
				}
			} else {
				wantCode(t, err, jsonrpc.CodeMethodNotFound)
			}
			if err := e.cs.Notify(ctx, "x/note", noteParams{Text: "hi"}); err != nil {
				t.Fatal(err)
			}
			if n := recv(t, notified, "the note"); n != "hi" {
				t.Errorf("notification %q", n)
			}
		})
	}
	var nilHandler mcp.MethodHandlerFor[struct{}, struct{}]
	if err := mcp.NewServer(serverImpl, nil).AddMethod(mcp.MethodFor("x/nil", nilHandler)); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("MethodFor with a nil handler: %v", err)
	}
}

type selection struct {
	Text string `json:"text"`
}

// A typed method on the client: the server asks the client for something
// only it knows (here, the editor's selection) on a stateful session; a
// 2026-07-28 request has no session to ask on, and says so.
func ExampleAddClientMethod() {
	c := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: mcp.LatestStatefulVersion})
	err := mcp.AddClientMethod(c, "example/selection", func(ctx context.Context, req *mcp.ClientRequest[struct{}]) (selection, error) {
		return selection{Text: "func main() {}"}, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "explainer", Version: "1.0.0"}, nil)
	err = mcp.AddTool(s, &mcp.Tool{Name: "explain"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		ss, ok := req.Session()
		if !ok {
			return "", errors.New("a 2026-07-28 client takes no requests from the server")
		}
		sel, err := mcp.Call[selection](ctx, ss, "example/selection", struct{}{})
		if err != nil {
			return "", err
		}
		return "you selected " + sel.Text, nil
	})
	if err != nil {
		log.Fatal(err)
	}

	cs := connectInMemory(s, c)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "explain"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	if err := cs.Close(); err != nil {
		log.Fatal(err)
	}
	// Output: you selected func main() {}
}

// TestClientRequestByHand: a ClientRequest built by hand (as a test of a
// handler does) has no session, id or _meta, and its methods say so rather
// than panic.
func TestClientRequestByHand(t *testing.T) {
	req := &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: "?"}}
	if v := req.ProtocolVersion(); v != "" {
		t.Errorf("ProtocolVersion = %q", v)
	}
	if _, ok := req.ProgressToken(); ok || !req.ID().IsZero() || req.Meta() != nil {
		t.Error("a hand-built request has a token, an id or _meta")
	}
	if err := req.NotifyProgress(testCtx(t), 1, 1, ""); err != nil {
		t.Errorf("NotifyProgress: %v", err)
	}
}
