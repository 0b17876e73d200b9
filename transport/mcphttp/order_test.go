package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/jsonrpc"
	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
)

// orderTransports connects a client with opts to srv over each transport
// the SDK has, at each revision it carries; each returns the session,
// closed when the test ends.
var orderTransports = []struct {
	name     string
	connect  func(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession
	versions []string
}{
	{"stdio", connectOSPipes, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"memory", connectMemory, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"streamable", connectStreamable, []string{mcp.LatestStatefulVersion, mcp.LatestVersion}},
	{"sse", connectLegacy, []string{mcp.Version20241105}},
}

// eachTransport runs f for every transport and revision of orderTransports.
func eachTransport(t *testing.T, f func(t *testing.T, connect func(*mcp.Server, *mcp.ClientOptions) *mcp.ClientSession)) {
	for _, tr := range orderTransports {
		for _, v := range tr.versions {
			t.Run(tr.name+"/"+v, func(t *testing.T) {
				f(t, func(srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
					o := *opts
					o.ProtocolVersion = v
					cs := tr.connect(t, srv, &o)
					// A 2026-07-28 server sends logs only at a level asked for.
					if err := cs.SetLoggingLevel(ctx(t), mcp.LevelDebug); err != nil {
						t.Fatalf("SetLoggingLevel: %v", err)
					}
					return cs
				})
			})
		}
	}
}

// connectOSPipes runs srv on a line stream over OS pipes, as a stdio server
// runs, and connects a client to it over the other ends.
func connectOSPipes(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
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
	return connectStream(t, transport.NewLineStream(clientR, clientW, closeAll{clientR, clientW}, nil), opts)
}

// connectMemory connects a client to srv over an in-memory pipe.
func connectMemory(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	a, b := transport.Pipe()
	ss := srv.Connect(a, nil)
	t.Cleanup(func() { ss.Wait() })
	return connectStream(t, b, opts)
}

// connectStreamable serves srv over Streamable HTTP (answers on SSE
// streams) and connects a client to it.
func connectStreamable(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	f := newFixtureWith(t, srv, nil)
	cs, _ := f.connect(opts, nil)
	return cs
}

// connectLegacy serves srv over HTTP+SSE and connects a client to it.
func connectLegacy(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	h := NewSSEHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	return connectStream(t, NewSSEClientStream(ts.URL, &ClientOptions{HTTPClient: ts.Client()}), opts)
}

func connectStream(t *testing.T, s jsonrpc.Stream, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "order-test", Version: "1.0.0"}, opts).Connect(ctx(t), s)
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
	eachTransport(t, func(t *testing.T, connect func(*mcp.Server, *mcp.ClientOptions) *mcp.ClientSession) {
		var logs slowLog
		cs := connect(testServer(), &mcp.ClientOptions{LoggingMessageHandler: logs.log})
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
