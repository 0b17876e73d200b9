package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// orderTransports connects a client to srv over each transport the SDK
// has, at each revision it carries; each returns the session, closed when
// the test ends.
var orderTransports = []struct {
	name     string
	connect  func(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession
	versions []string
}{
	{"stdio", connectOSPipes, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"memory", connectMemory, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"streamable", connectStreamable, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"sse", connectLegacy, []string{mcp.Version20241105}},
}

// connector connects a client with opts to srv, at the revision and over
// the transport of the subtest, and returns the session and the client.
type connector func(srv *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *mcp.Client)

// eachTransport runs f for every transport and revision of orderTransports.
func eachTransport(t *testing.T, f func(t *testing.T, connect connector)) {
	for _, tr := range orderTransports {
		for _, v := range tr.versions {
			t.Run(tr.name+"/"+v, func(t *testing.T) {
				f(t, func(srv *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *mcp.Client) {
					o := *opts
					o.ProtocolVersion = v
					c := mcp.NewClient(&mcp.Implementation{Name: "order-test", Version: "1.0.0"}, &o)
					cs := tr.connect(t, srv, c)
					// A 2026-07-28 server sends logs only at a level asked for.
					if err := cs.SetLoggingLevel(ctx(t), mcp.LevelDebug); err != nil {
						t.Fatalf("SetLoggingLevel: %v", err)
					}
					return cs, c
				})
			})
		}
	}
}

// connectOSPipes runs srv on a line stream over OS pipes, as a stdio server
// runs, and connects a client to it over the other ends.
func connectOSPipes(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	toServer, clientW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientR, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ss := srv.Connect(transport.NewLineStream(toServer, fromServer, closeAll{toServer, fromServer}, nil), nil)
	t.Cleanup(func() { ss.Wait() })
	return connectStream(t, c, transport.NewLineStream(clientR, clientW, closeAll{clientR, clientW}, nil))
}

// connectMemory connects a client to srv over an in-memory pipe.
func connectMemory(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	a, b := transport.Pipe()
	ss := srv.Connect(a, nil)
	t.Cleanup(func() { ss.Wait() })
	return connectStream(t, c, b)
}

// connectStreamable serves srv over Streamable HTTP (answers on SSE
// streams) and connects a client to it.
func connectStreamable(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	f := newFixtureWith(t, srv, nil)
	return connectStream(t, c, NewClientStream(f.url, &ClientOptions{HTTPClient: f.ts.Client()}))
}

// connectLegacy serves srv over HTTP+SSE and connects a client to it.
func connectLegacy(t *testing.T, srv *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	h := NewSSEHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	return connectStream(t, c, NewSSEClientStream(ts.URL, &ClientOptions{HTTPClient: ts.Client()}))
}

func connectStream(t *testing.T, c *mcp.Client, s jsonrpc.Stream) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(ctx(t), s)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type closeAll []*os.File

func (c closeAll) Close() error {
	for _, f := range c {
		f.Close()
	}
	return nil
}

// slowLog is a logging handler that takes a while over each message, as
// one that writes to a terminal may, and records the numbers logged.
type slowLog struct {
	mu  sync.Mutex
	got []float64
}

func (l *slowLog) log(_ context.Context, _ *mcp.ClientSession, m *mcp.LoggingMessageNotificationParams) {
	time.Sleep(100 * time.Microsecond)
	var n float64
	_ = json.Unmarshal(m.Data, &n)
	l.mu.Lock()
	l.got = append(l.got, n)
	l.mu.Unlock()
}

// take returns what was logged since the last take.
func (l *slowLog) take() []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

// TestNotificationsBeforeResult checks, over every transport, that each log
// message a tool sends before its result has been handled by the client's
// (slow) logging handler when CallTool returns: the result must not
// overtake the notifications that preceded it.
func TestNotificationsBeforeResult(t *testing.T) {
	const n, rounds = 20, 10
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i + 1)
	}
	args := json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))
	eachTransport(t, func(t *testing.T, connect connector) {
		var logs slowLog
		cs, _ := connect(testServer(), &mcp.ClientOptions{LoggingMessageHandler: logs.log})
		for round := range rounds {
			res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "progress", Arguments: args})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if got := logs.take(); res.IsError || !slices.Equal(got, want) {
				t.Fatalf("round %d: when CallTool returned, the handler had seen %v, want 1..%d in order", round, got, n)
			}
		}
	})
}

// TestNotificationHandlerCallsSession checks, over every transport, that a
// notification handler may call the session with its context and get the
// answer, though answers wait for the notifications before them: the
// client's list-changed handler lists the tools, the server's roots
// list-changed handler lists the client's roots. Each call is bounded, so
// that a deadlock fails the test instead of hanging it.
func TestNotificationHandlerCallsSession(t *testing.T) {
	eachTransport(t, func(t *testing.T, connect connector) {
		roots := make(chan error, 1)
		srv := testServerWith(&mcp.ServerOptions{RootsListChangedHandler: func(ctx context.Context, ss *mcp.ServerSession) {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			res, err := ss.ListRoots(ctx, nil)
			if err == nil && len(res.Roots) != 2 {
				err = fmt.Errorf("%d roots listed, want 2", len(res.Roots))
			}
			roots <- err
		}})
		listed := make(chan error, 1)
		cs, client := connect(srv, &mcp.ClientOptions{
			Roots: []*mcp.Root{{URI: "file:///tmp", Name: "tmp"}},
			ToolListChangedHandler: func(ctx context.Context, cs *mcp.ClientSession) {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				res, err := cs.ListTools(ctx, nil)
				if err == nil && !slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "added" }) {
					err = fmt.Errorf("the new tool is not listed: %d tools", len(res.Tools))
				}
				listed <- err
			},
		})
		mcp.AddTool(srv, &mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (string, error) { return "", nil })
		if err := recvWithin(t, listed, "the list-changed handler's tools/list"); err != nil {
			t.Errorf("tools/list from the list-changed handler: %v", err)
		}
		if !cs.Stateless() {
			client.SetRoots(&mcp.Root{URI: "file:///a", Name: "a"}, &mcp.Root{URI: "file:///b", Name: "b"})
			if err := recvWithin(t, roots, "the roots list-changed handler's roots/list"); err != nil {
				t.Errorf("roots/list from the roots list-changed handler: %v", err)
			}
		}
	})
}

// TestCloseKeepsNotificationsRead checks, over every transport, that
// closing the client session does not drop the notifications it has read
// and not handled yet: a tool logs n lines, then pings the client (so that
// the client has read the lines when the ping returns), then waits until
// the test is done; the client closes the session while its slow handler is
// still on the first lines, and every line has been handled when Close
// returns.
func TestCloseKeepsNotificationsRead(t *testing.T) {
	const n = 20
	for _, tr := range orderTransports {
		v := tr.versions[0] // server-to-client ping needs a stateful revision
		t.Run(tr.name+"/"+v, func(t *testing.T) {
			read := make(chan error, 1)
			release := make(chan struct{})
			srv := testServer()
			mcp.AddTool(srv, &mcp.Tool{Name: "log-and-wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (string, error) {
				for i := 1; i <= n; i++ {
					if err := req.Log(ctx, mcp.LevelInfo, "test", i); err != nil {
						read <- err
						return "", err
					}
				}
				ss, _ := req.Session()
				read <- ss.Ping(ctx)
				select { // the end of the client's input does not cancel a request
				case <-release:
				case <-ctx.Done():
				}
				return "", nil
			})
			var handled atomic.Int32
			c := mcp.NewClient(&mcp.Implementation{Name: "order-test", Version: "1.0.0"}, &mcp.ClientOptions{
				ProtocolVersion: v,
				LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageNotificationParams) {
					time.Sleep(time.Millisecond)
					handled.Add(1)
				},
			})
			cs := tr.connect(t, srv, c)
			t.Cleanup(func() { close(release) }) // before the server's session is waited for
			called := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "log-and-wait"})
				called <- err
			}()
			if err := recvWithin(t, read, "the ping after the log lines"); err != nil {
				t.Fatalf("the tool's ping: %v", err)
			}
			cs.Close()
			if got := handled.Load(); got != n {
				t.Errorf("when Close returned, %d log lines had been handled, want the %d read before it", got, n)
			}
			if err := recvWithin(t, called, "CallTool to end"); err == nil {
				t.Error("CallTool succeeded on a closed session")
			}
		})
	}
}

// recvWithin receives from ch, failing the test after 10 seconds.
func recvWithin[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
