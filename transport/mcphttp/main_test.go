package mcphttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gomcp/sdk/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer returns an MCP server with the tools the tests drive.
func testServer() *mcp.Server { return testServerWith(nil) }

// testServerWith is testServer with options.
func testServerWith(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcphttp-test", Version: "1.0.0"}, opts)
	type textIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (string, error) { return in.Text, nil })
	mcp.AddTool(s, &mcp.Tool{Name: "header", Description: "echoes a request header"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in textIn) (string, error) {
			info := RequestInfoFromContext(ctx)
			if info == nil {
				return "", errors.New("no request info")
			}
			return info.Header.Get(in.Text) + "|" + info.Method + "|" + info.SessionID, nil
		})
	type progressIn struct {
		N          int `json:"n"`
		CloseAfter int `json:"closeAfter,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "reports progress n times"},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (string, error) {
			for i := 1; i <= in.N; i++ {
				if i == in.CloseAfter+1 && in.CloseAfter > 0 {
					CloseSSEStream(ctx)
				}
				if err := req.NotifyProgress(ctx, float64(i), float64(in.N), ""); err != nil {
					return "", err
				}
				if err := req.Log(ctx, mcp.LevelInfo, "progress", i); err != nil {
					return "", err
				}
			}
			return "done", nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "asks the client's model"},
		func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (string, error) {
			res, err := req.CreateMessage(ctx, &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: []mcp.Content{mcp.NewTextContent(in.Text)}}},
				MaxTokens: 10,
			})
			if err != nil {
				return "", err
			}
			return "model said " + res.Content[0].(*mcp.TextContent).Text, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "returns a large text"},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
			return strings.Repeat("compressible ", 1000), nil
		})
	return s
}

// blocker is a tool that waits until released or cancelled, reporting both.
type blocker struct {
	started   chan struct{}
	release   chan struct{}
	cancelled chan struct{}
	once      sync.Once
}

func addBlocker(s *mcp.Server) *blocker {
	b := &blocker{started: make(chan struct{}, 16), release: make(chan struct{}), cancelled: make(chan struct{})}
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "waits"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (string, error) {
			b.started <- struct{}{}
			select {
			case <-b.release:
				return "released", nil
			case <-ctx.Done():
				b.once.Do(func() { close(b.cancelled) })
				return "", ctx.Err()
			}
		})
	return b
}

// fixture is an MCP server behind a Handler on a loopback httptest server.
type fixture struct {
	t   *testing.T
	srv *mcp.Server
	h   *Handler
	ts  *httptest.Server
	url string
}

func newFixture(t *testing.T, opts *HandlerOptions) *fixture {
	t.Helper()
	return newFixtureWith(t, testServer(), opts)
}

func newFixtureWith(t *testing.T, srv *mcp.Server, opts *HandlerOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, srv: srv, h: NewHandler(srv, opts)}
	f.ts = httptest.NewServer(f.h)
	f.url = f.ts.URL + "/mcp"
	t.Cleanup(f.ts.Close)
	t.Cleanup(func() { f.h.Close() })
	return f
}

// connect opens an mcp.ClientSession over a ClientStream to the fixture.
func (f *fixture) connect(copts *mcp.ClientOptions, sopts *ClientOptions) (*mcp.ClientSession, *ClientStream) {
	f.t.Helper()
	return connectTo(f.t, f.ts, f.url, copts, sopts)
}

func connectTo(t *testing.T, ts *httptest.Server, url string, copts *mcp.ClientOptions, sopts *ClientOptions) (*mcp.ClientSession, *ClientStream) {
	t.Helper()
	var o ClientOptions
	if sopts != nil {
		o = *sopts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = ts.Client()
	}
	stream := NewClientStream(url, &o)
	var co mcp.ClientOptions
	if copts != nil {
		co = *copts
	}
	if co.ProtocolVersion == "" {
		co.ProtocolVersion = mcp.LatestStatefulVersion // the stateful revisions are this package's subject
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcphttp-test-client", Version: "1.0.0"}, &co)
	cs, err := c.Connect(ctx(t), stream)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stream
}

// ctx returns a context that ends with the test, bounded to 20 seconds.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// raw is one raw HTTP exchange with the fixture.
type raw struct {
	status int
	header http.Header
	body   string
}

// do sends a request and reads the whole answer (SSE streams included, so
// only use it for answers that end).
func (f *fixture) do(method string, hdr map[string]string, body string) raw {
	f.t.Helper()
	return doRaw(f.t, f.ts.Client(), method, f.url, hdr, body)
}

func doRaw(t *testing.T, hc *http.Client, method, url string, hdr map[string]string, body string) raw {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx(t), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return raw{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// postHeaders are the headers of a well-formed POST.
func postHeaders(sid, version string) map[string]string {
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if sid != "" {
		h["Mcp-Session-Id"] = sid
	}
	if version != "" {
		h["Mcp-Protocol-Version"] = version
	}
	return h
}

func initBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
}

// initSession runs the handshake with raw requests and returns the session id.
func (f *fixture) initSession(version string) string {
	f.t.Helper()
	r := f.do("POST", postHeaders("", ""), initBody(version))
	if r.status != http.StatusOK {
		f.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		f.t.Fatalf("initialize: no session id (body %s)", r.body)
	}
	r = f.do("POST", postHeaders(sid, version), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if r.status != http.StatusAccepted {
		f.t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type connKey struct{}

// newCuttingServer starts h on loopback; every request's context carries
// its net.Conn (see connOf).
func newCuttingServer(t *testing.T, h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func connOf(r *http.Request) net.Conn {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	return c
}
