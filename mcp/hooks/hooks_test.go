package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/hooks"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// The revisions and transports every test runs on: the first and the last
// stateful revisions and the stateless one, in memory and over Streamable
// HTTP.
var (
	revisions  = []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728}
	transports = []string{"memory", "http"}
)

// each runs f for every revision and transport.
func each(t *testing.T, f func(t *testing.T, version, tr string)) {
	for _, v := range revisions {
		for _, tr := range transports {
			t.Run(v+"/"+tr, func(t *testing.T) { f(t, v, tr) })
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect connects a client made with opts to s over tr, speaking version,
// and closes everything when the test ends.
func connect(t *testing.T, s *mcp.Server, tr, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, s, tr, newClient(version, opts))
}

func newClient(version string, opts *mcp.ClientOptions) *mcp.Client {
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	return mcp.NewClient(&mcp.Implementation{Name: "hooks-test", Version: "1"}, &o)
}

func connectClient(t *testing.T, s *mcp.Server, tr string, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	var stream interface {
		Close() error
	}
	var cs *mcp.ClientSession
	var err error
	switch tr {
	case "memory":
		a, b := transport.Pipe()
		ss := s.Connect(b, nil)
		t.Cleanup(func() { ss.Close(); ss.Wait() })
		stream = a
		cs, err = c.Connect(testCtx(t), a)
	case "http":
		h := mcphttp.NewHandler(s, nil)
		hs := httptest.NewServer(h)
		t.Cleanup(func() { h.Close(); hs.Close() })
		cst := mcphttp.NewClientStream(hs.URL, nil)
		stream = cst
		cs, err = c.Connect(testCtx(t), cst)
	}
	if err != nil {
		_ = stream.Close()
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// echoServer has one tool, echo, that answers its "text" argument, and a
// tool, fail, whose handler returns a plain error.
func echoServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, opts)
	type in struct {
		Text string `json:"text"`
	}
	err := mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil
	})
	if err == nil {
		err = s.AddTool(&mcp.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("it failed")
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func callEcho(t *testing.T, cs *mcp.ClientSession, text string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + text + `"}`)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

// trace is a list of labels middleware appends to, safe for concurrent use.
type trace struct {
	mu  sync.Mutex
	got []string
}

func (tr *trace) add(s string) {
	tr.mu.Lock()
	tr.got = append(tr.got, s)
	tr.mu.Unlock()
}

func (tr *trace) take() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	got := tr.got
	tr.got = nil
	return got
}

// labelled is middleware that records label for each tools/call.
func labelled(tr *trace, label string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, r *mcp.Request) (any, error) {
			if r.Method == mcp.MethodToolsCall {
				tr.add(label)
			}
			return next(ctx, r)
		}
	}
}

// TestAddReceivingMiddlewareWhileServing adds middleware to a server that
// already serves a client: the next call goes through it, in go-sdk's
// order (the latest added first, the options' last), and it sees the call's
// typed params and typed result.
func TestAddReceivingMiddlewareWhileServing(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		var order trace
		s := echoServer(t, &mcp.ServerOptions{Receiving: []mcp.Middleware{labelled(&order, "option")}})
		cs := connect(t, s, tr, version, nil)
		callEcho(t, cs, "before")
		if got := order.take(); !slices.Equal(got, []string{"option"}) {
			t.Fatalf("before adding: middleware ran %v", got)
		}

		var seen struct {
			name, args, text string
			result           any
		}
		typed := func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				res, err := next(ctx, r)
				p, perr := hooks.Params(r)
				if call, ok := p.(*mcp.CallToolParams); ok && perr == nil {
					seen.name, seen.args, seen.result = call.Name, string(call.Arguments), res
					if ctr, ok := res.(*mcp.CallToolResult); ok {
						seen.text = resultText(ctr)
					}
				}
				return res, err
			}
		}
		hooks.AddReceivingMiddleware(s, labelled(&order, "a"), labelled(&order, "b"))
		hooks.AddReceivingMiddleware(s, labelled(&order, "c"), typed)
		if res := callEcho(t, cs, "after"); resultText(res) != "after" {
			t.Fatalf("result %+v", res)
		}
		if got, want := order.take(), []string{"c", "a", "b", "option"}; !slices.Equal(got, want) {
			t.Errorf("middleware ran in the order %v, want %v", got, want)
		}
		if seen.name != "echo" || !strings.Contains(seen.args, `"after"`) || seen.text != "after" {
			t.Errorf("middleware saw name %q, arguments %s, result %#v", seen.name, seen.args, seen.result)
		}
	})
}

// TestParamsDecodedOnce: the value a middleware decodes is the one the
// handler receives, not a second decoding; replacing r.Params makes both
// see the new params.
func TestParamsDecodedOnce(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := mcp.NewServer(nil, nil)
		var handlerParams *mcp.CallToolParams
		err := s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			handlerParams = req.Params
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var mwParams *mcp.CallToolParams
		hooks.AddReceivingMiddleware(s, func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, r *mcp.Request) (any, error) {
				if r.Method != mcp.MethodToolsCall {
					return next(ctx, r)
				}
				p, err := hooks.Params(r)
				if err != nil {
					return nil, err
				}
				again, _ := hooks.Params(r)
				if again != p {
					t.Errorf("Params decoded twice")
				}
				mwParams = p.(*mcp.CallToolParams)
				if string(mwParams.Arguments) == `{"swap":true}` {
					r.Params = json.RawMessage(`{"name":"t","arguments":{"swapped":1}}`)
				}
				return next(ctx, r)
			}
		})
		cs := connect(t, s, tr, version, nil)
		if _, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"a":1}`)}); err != nil {
			t.Fatal(err)
		}
		if mwParams == nil || handlerParams != mwParams {
			t.Errorf("the handler got params %p, middleware decoded %p: decoded twice", handlerParams, mwParams)
		}
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t", Arguments: json.RawMessage(`{"swap":true}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(res); got != `{"swapped":1}` {
			t.Errorf("after middleware replaced r.Params, the handler got %s", got)
		}
	})
}

// TestParamsOfEveryDirection: Params types the requests and notifications
// a server receives and sends, and a client's; it is nil for methods
// without a params type.
func TestParamsOfEveryDirection(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := mcp.NewServer(nil, nil)
		err := s.AddTool(&mcp.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, req.NotifyProgress(ctx, 1, 2, "half")
		})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		types := map[string]string{}
		record := func(side string) mcp.Middleware {
			return func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, r *mcp.Request) (any, error) {
					p, err := hooks.Params(r)
					mu.Lock()
					if err != nil {
						types[side+" "+r.Method] = "error: " + err.Error()
					} else if p != nil {
						types[side+" "+r.Method] = strings.TrimPrefix(fmt.Sprintf("%T", p), "*mcp.")
					}
					mu.Unlock()
					return next(ctx, r)
				}
			}
		}
		hooks.AddReceivingMiddleware(s, record("server receives"))
		hooks.AddSendingMiddleware(s, record("server sends"))
		c := newClient(version, nil)
		hooks.AddReceivingMiddleware(c, record("client receives"))
		hooks.AddSendingMiddleware(c, record("client sends"))
		cs := connectClient(t, s, tr, c)
		got := make(chan struct{}, 1)
		ctx := mcp.WithProgress(testCtx(t), func(*mcp.ProgressNotificationParams) { got <- struct{}{} })
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress"}); err != nil {
			t.Fatal(err)
		}
		<-got
		mu.Lock()
		defer mu.Unlock()
		for key, want := range map[string]string{
			"server receives tools/call":             "CallToolParams",
			"client sends tools/call":                "CallToolParams",
			"server sends notifications/progress":    "ProgressNotificationParams",
			"client receives notifications/progress": "ProgressNotificationParams",
		} {
			if types[key] != want {
				t.Errorf("%s: Params gave %q, want %s (all: %v)", key, types[key], want, types)
			}
		}
	})
}

// TestAddToolMiddleware wraps the handlers of every tool, added before or
// after the middleware: it sees the handler's plain error as an error, and
// what it returns is shaped as a handler's result is.
func TestAddToolMiddleware(t *testing.T) {
	each(t, func(t *testing.T, version, tr string) {
		s := echoServer(t, nil)
		cs := connect(t, s, tr, version, nil)
		var order trace
		var handlerErr error
		hooks.AddToolMiddleware(s, func(next mcp.ToolHandler) mcp.ToolHandler {
			return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				order.add("outer " + req.Params.Name)
				res, err := next(ctx, req)
				if req.Params.Name == "fail" {
					handlerErr = err
				}
				return res, err
			}
		}, func(next mcp.ToolHandler) mcp.ToolHandler {
			return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				order.add("inner")
				if strings.Contains(string(req.Params.Arguments), "forbidden") {
					return nil, errors.New("refused by middleware")
				}
				return next(ctx, req)
			}
		})
		if res := callEcho(t, cs, "hi"); resultText(res) != "hi" {
			t.Fatalf("echo through tool middleware: %+v", res)
		}
		if got, want := order.take(), []string{"outer echo", "inner"}; !slices.Equal(got, want) {
			t.Errorf("tool middleware ran %v, want %v", got, want)
		}
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "fail"})
		if err != nil || !res.IsError || resultText(res) != "it failed" {
			t.Fatalf("fail: %+v, %v", res, err)
		}
		if handlerErr == nil || handlerErr.Error() != "it failed" {
			t.Errorf("tool middleware saw error %v, want the handler's", handlerErr)
		}
		res = callEcho(t, cs, "forbidden")
		if !res.IsError || resultText(res) != "refused by middleware" {
			t.Errorf("a middleware's error: %+v", res)
		}
	})
}
