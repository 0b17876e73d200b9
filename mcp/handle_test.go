package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// allRevs are the revisions a handler must work at, unchanged.
var allRevs = []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728}

// handleForm is the form the handler of TestRequestHandle asks for.
type handleForm struct {
	Name string `json:"name" description:"Your name"`
	Age  int    `json:"age,omitempty"`
}

// useHandle is one handler body, written once against the request handle
// and run from a tool, a prompt, a resource and a custom method: it asks
// for a form, a completion and the roots (twice: once with Input), then
// logs and reports progress, and says what it saw. Elicitation is the one
// thing a revision may lack (before 2025-06-18): ErrCapability says so,
// and the handler carries on.
func useHandle[P any](ctx context.Context, req *mcp.ServerRequest[P]) (string, error) {
	var out []string
	form, res, err := mcp.ElicitFor[handleForm](ctx, req, "Who are you?")
	switch {
	case errors.Is(err, mcp.ErrCapability):
		out = append(out, "elicit=none")
	case err != nil:
		return "", err
	default:
		out = append(out, fmt.Sprintf("elicit=%s:%s:%d", res.Action, form.Name, form.Age))
	}
	msg, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
		Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.NewTextContent("hi")}}}})
	if err != nil {
		return "", err
	}
	roots, err := req.ListRoots(ctx)
	if err != nil {
		return "", err
	}
	in, err := req.Input(ctx, map[string]*mcp.InputRequest{"again": {ListRoots: &mcp.ListRootsParams{}}})
	if err != nil {
		return "", err
	}
	// Side effects after the last question: a 2026-07-28 request runs
	// the handler again for each round of answers.
	req.Logger().Debug("below the client's level")
	req.Logger().Info("done", "model", msg.Model)
	if err := req.Log(ctx, mcp.LevelWarning, "all", "careful"); err != nil {
		return "", err
	}
	if err := req.NotifyProgress(ctx, 1, 1, "all done"); err != nil {
		return "", err
	}
	out = append(out,
		"sampling="+msg.Model,
		"roots="+roots.Roots[0].URI,
		"input="+in["again"].ListRoots.Roots[0].Name,
		"version="+req.ProtocolVersion(),
		"client="+req.ClientInfo().Name,
		fmt.Sprintf("caps.roots=%v", req.ClientCapabilities().Roots != nil),
	)
	return strings.Join(out, " "), nil
}

type handleResult struct {
	Out string `json:"out"`
}

// handleServer runs useHandle from each kind of handler: the tool, prompt
// and resource "all", and the custom method "x/all".
func handleServer(t *testing.T) *mcp.Server {
	s := mcp.NewServer(serverImpl, nil)
	err := errors.Join(
		mcp.AddTool(s, &mcp.Tool{Name: "all"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
			return useHandle(ctx, req)
		}),
		s.AddPrompt(&mcp.Prompt{Name: "all"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			out, err := useHandle(ctx, req)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(out)}}}, nil
		}),
		s.AddResource(&mcp.Resource{Name: "all", URI: "test://all"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			out, err := useHandle(ctx, req)
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: req.Params.URI, Text: out}}}, nil
		}),
		mcp.AddMethod(s, "x/all", func(ctx context.Context, req *mcp.ServerRequest[struct{}]) (handleResult, error) {
			out, err := useHandle(ctx, req)
			return handleResult{out}, err
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handleKinds call each kind of handler of handleServer and return what
// useHandle said.
var handleKinds = []struct {
	name string
	call func(ctx context.Context, cs *mcp.ClientSession) (string, error)
}{
	{"tool", func(ctx context.Context, cs *mcp.ClientSession) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "all"})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("result %+v", res)
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}},
	{"prompt", func(ctx context.Context, cs *mcp.ClientSession) (string, error) {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "all"})
		if err != nil {
			return "", err
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text, nil
	}},
	{"resource", func(ctx context.Context, cs *mcp.ClientSession) (string, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://all"})
		if err != nil {
			return "", err
		}
		return res.Contents[0].(*mcp.TextResourceContents).Text, nil
	}},
	{"method", func(ctx context.Context, cs *mcp.ClientSession) (string, error) {
		res, err := mcp.Call[handleResult](ctx, cs, "x/all", struct{}{})
		return res.Out, err
	}},
}

// handleConn connects c to s over one transport, and returns the session
// and a function that ends it and waits for everything it started.
type handleConn func(t *testing.T, s *mcp.Server, c *mcp.Client) (*mcp.ClientSession, func())

// handleTransport is one way to connect; revs, when set, lists the only
// revisions it serves.
type handleTransport struct {
	name    string
	revs    []string
	connect handleConn
}

// connectHTTP serves h over HTTP and connects c to it through the client
// stream dial makes for the server's URL; the function it returns closes
// the session, then h and the server.
func connectHTTP(t *testing.T, c *mcp.Client, h interface {
	http.Handler
	Close() error
}, dial func(url string) jsonrpc.Stream) (*mcp.ClientSession, func()) {
	hs := httptest.NewServer(h)
	cs, err := c.Connect(testCtx(t), dial(hs.URL))
	if err != nil {
		hs.Close()
		h.Close()
		t.Fatalf("Connect: %v", err)
	}
	return cs, func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		h.Close()
		hs.Close()
	}
}

func (tr handleTransport) serves(rev string) bool {
	return tr.revs == nil || slices.Contains(tr.revs, rev)
}

var handleTransports = []handleTransport{
	{"memory", nil, func(t *testing.T, s *mcp.Server, c *mcp.Client) (*mcp.ClientSession, func()) {
		a, b := transport.Pipe()
		return connectStreams(t, s, c, a, b)
	}},
	{"stdio", nil, func(t *testing.T, s *mcp.Server, c *mcp.Client) (*mcp.ClientSession, func()) {
		toServer, clientW := io.Pipe()
		clientR, fromServer := io.Pipe()
		srv := transport.NewLineStream(toServer, fromServer, closers{toServer, fromServer}, nil)
		cli := transport.NewLineStream(clientR, clientW, closers{clientR, clientW}, nil)
		return connectStreams(t, s, c, cli, srv)
	}},
	{"http", nil, func(t *testing.T, s *mcp.Server, c *mcp.Client) (*mcp.ClientSession, func()) {
		return connectHTTP(t, c, mcphttp.NewHandler(s, nil), func(url string) jsonrpc.Stream { return mcphttp.NewClientStream(url, nil) })
	}},
	// The legacy HTTP+SSE transport serves 2024-11-05 only.
	{"sse", []string{mcp.Version20241105}, func(t *testing.T, s *mcp.Server, c *mcp.Client) (*mcp.ClientSession, func()) {
		return connectHTTP(t, c, mcphttp.NewSSEHandler(s, nil), func(url string) jsonrpc.Stream { return mcphttp.NewSSEClientStream(url, nil) })
	}},
}

func connectStreams(t *testing.T, s *mcp.Server, c *mcp.Client, cli, srv jsonrpc.Stream) (*mcp.ClientSession, func()) {
	ss := s.Connect(srv, nil)
	cs, err := c.Connect(testCtx(t), cli)
	if err != nil {
		ss.Close()
		ss.Wait()
		t.Fatalf("Connect: %v", err)
	}
	return cs, func() {
		if err := cs.Close(); err != nil {
			t.Errorf("ClientSession.Close: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("ServerSession.Wait: %v", err)
		}
	}
}

// TestRequestHandle is issue 22's done-when: one handler body, written
// once, run from a tool, a prompt, a resource and a custom method at every
// revision over every transport that serves it (memory, stdio, Streamable
// HTTP, whose 2026-07-28 is the stateless POST path, and legacy SSE at
// 2024-11-05): logs, the slog logger, progress, a typed form, sampling,
// roots and Input work the same everywhere, the client's log level is
// honoured everywhere, and elicitation where the revision lacks it fails
// with ErrCapability.
func TestRequestHandle(t *testing.T) {
	for _, tr := range handleTransports {
		for _, rev := range allRevs {
			if !tr.serves(rev) {
				continue
			}
			t.Run(tr.name+"/"+rev, func(t *testing.T) {
				t.Parallel()
				testRequestHandle(t, rev, tr.connect)
			})
		}
	}
}

func testRequestHandle(t *testing.T, rev string, connect handleConn) {
	var mu sync.Mutex
	var logs []string
	logged := make(chan struct{}, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "handle-client", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: rev,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if p := req.Params.RequestedSchema.Property("name"); p == nil || p.Type != "string" || p.Description != "Your name" {
				return nil, fmt.Errorf("the form's name field is %+v", p)
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada", "age": 36}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m1", Content: []mcp.Content{mcp.NewTextContent("ok")}}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageNotificationParams) {
			mu.Lock()
			logs = append(logs, p.Level.String()+" "+string(p.Data))
			mu.Unlock()
			logged <- struct{}{}
		},
	})
	cs, done := connect(t, handleServer(t), c)
	defer done()
	ctx := testCtx(t)
	if err := cs.SetLoggingLevel(ctx, mcp.LevelInfo); err != nil {
		t.Fatal(err)
	}
	elicit := "elicit=accept:Ada:36"
	if rev < mcp.Version20250618 {
		elicit = "elicit=none"
	}
	want := elicit + " sampling=m1 roots=file:///work input=work version=" + rev + " client=handle-client caps.roots=true"
	// Progress is delivered before the result; 2024-11-05 has no message.
	wantProgress := "1/1 all done"
	if rev == mcp.Version20241105 {
		wantProgress = "1/1 "
	}
	for _, kind := range handleKinds {
		var progress []string
		pctx := mcp.WithProgress(ctx, func(p *mcp.ProgressNotificationParams) {
			progress = append(progress, fmt.Sprintf("%v/%v %s", p.Progress, p.Total, p.Message))
		})
		got, err := kind.call(pctx, cs)
		if err != nil {
			t.Fatalf("%s: %v", kind.name, err)
		}
		if got != want {
			t.Errorf("%s: handler saw\n %s\nwant\n %s", kind.name, got, want)
		}
		if !slices.Equal(progress, []string{wantProgress}) {
			t.Errorf("%s: progress %q", kind.name, progress)
		}
		recv(t, logged, "the first log message")
		recv(t, logged, "the second log message")
		mu.Lock()
		// Sorted: the order of notifications is the connection's business
		// (jsonrpc), not the handle's.
		slices.Sort(logs)
		wantLogs := []string{`info {"model":"m1","msg":"done"}`, `warning "careful"`}
		if !slices.Equal(logs, wantLogs) {
			t.Errorf("%s: logs %q, want %q (the debug line is below the client's level)", kind.name, logs, wantLogs)
		}
		logs = nil
		mu.Unlock()
	}
}

// TestElicitForRefusesNonForms checks that a type elicitation cannot ask
// for fails before anything is sent, with an error naming the field.
func TestElicitForRefusesNonForms(t *testing.T) {
	type nested struct {
		Inner struct{ A string } `json:"inner"`
	}
	s := mcp.NewServer(serverImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "bad"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		_, _, err := mcp.ElicitFor[nested](ctx, req, "?")
		return "", err
	})
	asked := false
	e := connect(t, mcp.LatestStatefulVersion, s, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = true
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		},
	})
	res, err := e.callTool(testCtx(t), "bad", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(t, res), `field "inner"`) || asked {
		t.Errorf("ElicitFor of a nested struct: %+v (asked %v)", res, asked)
	}
}

// TestCapabilityErrorAtEveryRevision checks that a question the client
// cannot answer fails with ErrCapability at every revision, and that a
// 2026-07-28 client still receives -32021 when the handler returns it.
func TestCapabilityErrorAtEveryRevision(t *testing.T) {
	for _, rev := range allRevs {
		t.Run(rev, func(t *testing.T) {
			s := mcp.NewServer(serverImpl, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
				_, err := req.ListRoots(ctx)
				if !errors.Is(err, mcp.ErrCapability) {
					return "", fmt.Errorf("ListRoots without roots: %v, want ErrCapability", err)
				}
				return "", err
			})
			e := connect(t, rev, s, nil) // no roots: no capability
			res, err := e.callTool(testCtx(t), "ask", `{}`)
			if rev == mcp.Version20260728 {
				wantCode(t, err, mcp.CodeMissingRequiredClientCapability)
				return
			}
			if err != nil || !res.IsError || !strings.Contains(text(t, res), "roots") {
				t.Errorf("got %v %+v, want an isError result naming roots", err, res)
			}
		})
	}
}

// TestLoggerIsSilentWhenDetached checks the slog logger at 2026-07-28 on a
// detached context (a task after its request was answered): nothing is
// enabled, nothing is sent.
func TestLoggerIsSilentWhenDetached(t *testing.T) {
	s := mcp.NewServer(serverImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
		l := req.Logger()
		return fmt.Sprint(l.Enabled(ctx, slog.LevelError), l.Enabled(mcp.Detached(ctx), slog.LevelError)), nil
	})
	e := connect(t, mcp.Version20260728, s, nil)
	ctx := testCtx(t)
	if err := e.cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
		t.Fatal(err)
	}
	res, err := e.callTool(ctx, "t", `{}`)
	if err != nil || text(t, res) != "true false" {
		t.Errorf("enabled (attached, detached) = %v %+v, want true false", err, res)
	}
}
