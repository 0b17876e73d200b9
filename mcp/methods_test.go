package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
)

// echoMethod answers with its params and whether the request was stateless.
func echoMethod(name string, lc mcp.Lifecycle, revs ...string) mcp.Method {
	return mcp.Method{
		Name:      name,
		Lifecycle: lc,
		Revisions: revs,
		Handler: func(_ context.Context, r *mcp.Request) (any, error) {
			return map[string]any{"params": r.Params, "stateless": r.Stateless(), "session": r.Session != nil}, nil
		},
	}
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestAddMethod(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	for _, m := range []mcp.Method{
		echoMethod("x/both", mcp.EveryLifecycle),
		echoMethod("x/stateful", mcp.StatefulOnly),
		echoMethod("x/stateless", mcp.StatelessOnly),
		echoMethod("x/only-2025-06-18", mcp.EveryLifecycle, mcp.Version20250618),
	} {
		if err := s.AddMethod(m); err != nil {
			t.Fatalf("AddMethod(%s): %v", m.Name, err)
		}
	}
	for _, tc := range []struct {
		name    string
		m       mcp.Method
		wantErr bool
	}{
		{"core method", echoMethod(mcp.MethodToolsCall, mcp.EveryLifecycle), true},
		{"core stateless method", echoMethod(mcp.MethodServerDiscover, mcp.EveryLifecycle), true},
		{"no name", echoMethod("", mcp.EveryLifecycle), true},
		{"no handler", mcp.Method{Name: "x/nil"}, true},
		{"unknown revision", echoMethod("x/r", mcp.EveryLifecycle, "1999-01-01"), true},
	} {
		err := s.AddMethod(tc.m)
		if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, mcp.ErrInvalidMethod)) {
			t.Errorf("%s: AddMethod error %v, want error %v", tc.name, err, tc.wantErr)
		}
	}

	stateful := newRawPeer(t, mcp.Version20251125, s)
	if m := stateful.call(1, mcp.MethodInitialize, initParams); m.Error != nil {
		t.Fatal(m.Error)
	}
	stateless := newRawPeer(t, mcp.Version20260728, s)
	for _, tc := range []struct {
		peer   *rawPeer
		method string
		params string
		want   string // substring of the result, or "" for method not found
	}{
		{stateful, "x/both", `{"a":1}`, `"params":{"a":1},"session":true,"stateless":false`},
		{stateful, "x/stateful", `{}`, `"session":true`},
		{stateful, "x/stateless", `{}`, ""},
		{stateful, "x/only-2025-06-18", `{}`, ""},
		{stateless, "x/both", `{` + statelessMeta + `}`, `"session":false,"stateless":true`},
		{stateless, "x/stateless", `{` + statelessMeta + `}`, `"stateless":true`},
		{stateless, "x/stateful", `{` + statelessMeta + `}`, ""},
	} {
		m := tc.peer.call(2, tc.method, tc.params)
		switch {
		case tc.want == "" && (m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound):
			t.Errorf("%s: got %s, want method not found", tc.method, m.AppendJSON(nil))
		case tc.want != "" && (m.Error != nil || !strings.Contains(string(m.Result), tc.want)):
			t.Errorf("%s: got %s, want a result with %s", tc.method, m.AppendJSON(nil), tc.want)
		}
	}
}

func TestAddExtension(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	if err := s.AddExtension(&mcp.Extension{ID: "com.example/bad", Settings: json.RawMessage(`[1]`)}); err == nil {
		t.Error("AddExtension accepted settings that are not an object")
	}
	if err := s.AddExtension(&mcp.Extension{ID: "com.example/bad", Methods: []mcp.Method{echoMethod(mcp.MethodPing, mcp.EveryLifecycle)}}); err == nil {
		t.Error("AddExtension accepted a core method")
	}
	err := s.AddExtension(&mcp.Extension{
		ID:       "com.example/echo",
		Settings: json.RawMessage(`{"loud":true}`),
		Methods:  []mcp.Method{echoMethod("echo/say", mcp.EveryLifecycle)},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := newRawPeer(t, mcp.Version20260728, s)
	m := p.call(1, mcp.MethodServerDiscover, `{`+statelessMeta+`}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"extensions":{"com.example/echo":{"loud":true}}`) {
		t.Errorf("server/discover: got %s, want the extension under capabilities.extensions", m.AppendJSON(nil))
	}
	if m := p.call(2, "echo/say", `{"word":"hi",`+statelessMeta+`}`); m.Error != nil || !strings.Contains(string(m.Result), `"word":"hi"`) {
		t.Errorf("echo/say: got %s", m.AppendJSON(nil))
	}
	if m := p.call(3, "com.example/bad", `{`+statelessMeta+`}`); m.Error == nil {
		t.Errorf("a method of a refused extension was registered: %s", m.AppendJSON(nil))
	}
}

// TestMiddlewareMeta checks that middleware reads and injects _meta: a
// client's Sending middleware puts a traceparent on every request, and the
// server's Receiving middleware sees it with the session id, on every
// revision.
func TestMiddlewareMeta(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, rev := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			seen := make(chan string, 16)
			s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Receiving: []mcp.Middleware{
				func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, r *mcp.Request) (any, error) {
						if r.Method == mcp.MethodToolsList {
							m, err := r.Meta()
							if err != nil || m == nil {
								seen <- "no _meta"
							} else {
								seen <- m.TraceParent + " stateless=" + map[bool]string{true: "yes", false: "no"}[r.Stateless()]
							}
						}
						return next(ctx, r)
					}
				},
			}})
			s.AddTool(&mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
			inject := func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					m, err := r.Meta()
					if err != nil {
						return nil, err
					}
					c := mcp.Meta{}
					if m != nil {
						c = *m
					}
					c.TraceParent = tp
					if err := r.SetMeta(&c); err != nil {
						return nil, err
					}
					return next(ctx, r)
				}
			}
			e := connect(t, rev, s, &mcp.ClientOptions{Sending: []mcp.Middleware{inject}})
			if _, err := e.cs.ListTools(testCtx(t), nil); err != nil {
				t.Fatal(err)
			}
			want := tp + " stateless=" + map[bool]string{true: "yes", false: "no"}[rev == mcp.Version20260728]
			if got := <-seen; got != want {
				t.Errorf("server middleware saw %q, want %q", got, want)
			}
		})
	}
}

// TestMiddlewareCaller: Request.Caller tells Receiving middleware who the
// client is, on every revision: at 2026-07-28 from the request's own _meta,
// before the request is routed.
func TestMiddlewareCaller(t *testing.T) {
	for _, rev := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			seen := make(chan string, 16)
			s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Receiving: []mcp.Middleware{
				func(next mcp.MethodHandler) mcp.MethodHandler {
					return func(ctx context.Context, r *mcp.Request) (any, error) {
						if r.Method == mcp.MethodToolsList {
							c := r.Caller()
							seen <- fmt.Sprintf("%s sampling=%v client=%s", c.ProtocolVersion(), c.ClientCapabilities().Sampling != nil, c.ClientInfo().Name)
						}
						return next(ctx, r)
					}
				},
			}})
			s.AddTool(&mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
			e := connect(t, rev, s, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, errors.New("not asked")
			}})
			if _, err := e.cs.ListTools(testCtx(t), nil); err != nil {
				t.Fatal(err)
			}
			if got, want := <-seen, rev+" sampling=true client="+clientImpl.Name; got != want {
				t.Errorf("middleware's caller: %q, want %q", got, want)
			}
		})
	}
}

// TestRejectedReachMiddleware checks that messages the connection refuses
// before any handler (garbage, an invalid request, a batch the revision
// does not allow) are shown to the Receiving middleware with their error.
func TestRejectedReachMiddleware(t *testing.T) {
	got := make(chan string, 8)
	s := mcp.NewServer(serverImpl, &mcp.ServerOptions{Receiving: []mcp.Middleware{
		func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				res, err := next(ctx, r)
				if r.Rejected() {
					var je *jsonrpc.Error
					errors.As(err, &je)
					got <- fmt.Sprintf("%q %d", r.Method, je.Code)
				}
				return res, err
			}
		},
	}})
	p := newStdioPeer(t, s)
	p.write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + initParams + `}` + "\n"))
	p.read()
	for _, tc := range []struct{ input, want string }{
		{`not json`, `"" -32700`},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, `"" -32600`},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `"" -32600`},
	} {
		p.write([]byte(tc.input + "\n"))
		p.read() // the error answer
		if g := <-got; g != tc.want {
			t.Errorf("%s: middleware saw %s, want %s", tc.input, g, tc.want)
		}
	}
}

// TestCustomMethodsRoundTrip calls a method the server added from a client
// on every lifecycle, and a method the client added from the server.
func TestCustomMethodsRoundTrip(t *testing.T) {
	for _, rev := range []string{mcp.Version20250326, mcp.Version20251125, mcp.Version20260728} {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			if err := s.AddMethod(mcp.Method{Name: "x/add", Handler: func(_ context.Context, r *mcp.Request) (any, error) {
				var p struct{ A, B int }
				if err := json.Unmarshal(r.Params, &p); err != nil {
					return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
				}
				return map[string]int{"sum": p.A + p.B}, nil
			}}); err != nil {
				t.Fatal(err)
			}
			c := mcp.NewClient(clientImpl, &mcp.ClientOptions{ProtocolVersion: rev})
			if err := c.AddMethod("x/whoami", func(context.Context, *mcp.Request) (any, error) {
				return map[string]string{"name": "custom client"}, nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := c.AddMethod(mcp.MethodRootsList, func(context.Context, *mcp.Request) (any, error) { return nil, nil }); err == nil {
				t.Error("Client.AddMethod accepted a core method")
			}
			e := connectClient(t, rev, s, c)
			var got struct{ Sum int }
			if err := e.cs.Call(testCtx(t), "x/add", map[string]int{"A": 2, "B": 3}, &got); err != nil || got.Sum != 5 {
				t.Fatalf("Call x/add: %v, sum %d", err, got.Sum)
			}
			if rev == mcp.Version20260728 {
				return // a stateless server sends no requests
			}
			var who struct{ Name string }
			if err := e.ss.Call(testCtx(t), "x/whoami", nil, &who); err != nil || who.Name != "custom client" {
				t.Fatalf("ServerSession.Call x/whoami: %v, %q", err, who.Name)
			}
		})
	}
}

// TestExtensionsEveryRevision: capabilities.extensions is exchanged in
// every revision, both ways, as the TypeScript SDK 2 and MCP Apps hosts do
// in initialize: the client reads the server's extensions, the server's
// handlers read the client's (Request.ClientCapabilities, and
// ServerRequest.ClientCapabilities in a tool), and the wire
// validates against each revision's official schema (which allows the
// member before 2026-07-28 defines it). An extension limited to some
// revisions (Extension.Revisions) is advertised in those only.
func TestExtensionsEveryRevision(t *testing.T) {
	const ui = `{"mimeTypes":["text/html;profile=mcp-app"]}`
	for _, rev := range append(slices.Clone(statefulRevs), mcp.Version20260728) {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			err := s.AddExtension(&mcp.Extension{ID: "com.example/ext", Settings: json.RawMessage(`{"level":2}`), Methods: []mcp.Method{{
				Name: "x/client-extensions",
				Handler: func(_ context.Context, r *mcp.Request) (any, error) {
					return r.ClientCapabilities().Extensions, nil
				},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddExtension(&mcp.Extension{ID: "com.example/new", Revisions: []string{mcp.Version20260728}}); err != nil {
				t.Fatal(err)
			}
			err = mcp.AddTool(s, &mcp.Tool{Name: "ui"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
				return string(req.ClientCapabilities().Extensions["io.modelcontextprotocol/ui"]), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			e := connect(t, rev, s, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
				Extensions: map[string]json.RawMessage{"io.modelcontextprotocol/ui": json.RawMessage(ui)},
			}})
			ext := e.cs.ServerCapabilities().Extensions
			if string(ext["com.example/ext"]) != `{"level":2}` {
				t.Errorf("the server's extensions: %s", ext)
			}
			if _, ok := ext["com.example/new"]; ok != (rev == mcp.Version20260728) {
				t.Errorf("an extension limited to 2026-07-28 advertised: %v", ok)
			}
			var got map[string]json.RawMessage
			if err := e.cs.Call(testCtx(t), "x/client-extensions", nil, &got); err != nil {
				t.Fatal(err)
			}
			if string(got["io.modelcontextprotocol/ui"]) != ui {
				t.Errorf("the client's extensions, as the server's handler sees them: %s", got)
			}
			res, err := e.cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "ui"})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != ui {
				t.Errorf("the client's extensions, as a tool sees them: %+v, %v", res, err)
			}
		})
	}
}

func TestAddExtensionUnknownRevision(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	if err := s.AddExtension(&mcp.Extension{ID: "com.example/x", Revisions: []string{"1999-01-01"}}); !errors.Is(err, mcp.ErrInvalidMethod) {
		t.Errorf("AddExtension with an unknown revision: %v", err)
	}
}
