package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/mcp/shared"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// perUser builds a server per HTTP request, as github-mcp-server does:
// the X-Toolset header chooses its tool, and each server numbers the calls
// it serves, so a test sees whether one server served a session. made
// counts the servers built.
type perUser struct {
	made     atomic.Int64
	notifier shared.Notifier
}

func (f *perUser) server(r *http.Request) *mcp.Server {
	set := r.Header.Get("X-Toolset")
	if set == "" {
		return nil
	}
	f.made.Add(1)
	s := mcp.NewServer(&mcp.Implementation{Name: "per-user", Version: "1"}, &mcp.ServerOptions{Notifier: f.notifier})
	var calls atomic.Int64
	_ = s.AddTool(&mcp.Tool{Name: set + "_tool"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(strconv.FormatInt(calls.Add(1), 10))}}, nil
	})
	return s
}

func connectAs(t *testing.T, url, toolset, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, mcphttp.NewClientStream(url, &mcphttp.ClientOptions{Header: http.Header{"X-Toolset": {toolset}}}))
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func callText(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("CallTool %s: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestNewHandlerForStateless: at 2026-07-28 every request is served by the
// server made for it, so two users of one endpoint see their own tools.
func TestNewHandlerForStateless(t *testing.T) {
	f := &perUser{}
	h := mcphttp.NewHandlerFor(f.server, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() }) // after the sessions' Close
	a := connectAs(t, hs.URL, "a", mcp.Version20260728)
	b := connectAs(t, hs.URL, "b", mcp.Version20260728)
	if got := toolNames(t, a); !slices.Equal(got, []string{"a_tool"}) {
		t.Errorf("user a sees %v", got)
	}
	if got := toolNames(t, b); !slices.Equal(got, []string{"b_tool"}) {
		t.Errorf("user b sees %v", got)
	}
	before := f.made.Load()
	for range 3 {
		if got := callText(t, a, "a_tool"); got != "1" {
			t.Errorf("a fresh server answers call number 1, got %s", got)
		}
	}
	if made := f.made.Load() - before; made != 3 {
		t.Errorf("3 stateless calls made %d servers, want 3", made)
	}
}

// TestNewHandlerForSessions: at 2025-11-25 a session is served by the
// server made for its initialize for as long as a Handler holds it, and a
// Handler that rebuilds it from the shared SessionStore makes one for
// itself: the session works across requests and Handlers.
func TestNewHandlerForSessions(t *testing.T) {
	f := &perUser{notifier: shared.NewMemoryNotifier()}
	opts := &mcphttp.HandlerOptions{
		SessionStore: shared.NewMemorySessionStore(nil),
		EventStore:   mcphttp.NewMemoryEventStore(nil),
		Notifier:     f.notifier,
	}
	h1, h2 := mcphttp.NewHandlerFor(f.server, opts), mcphttp.NewHandlerFor(f.server, opts)
	var onH2 atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if onH2.Load() {
			h2.ServeHTTP(w, r)
			return
		}
		h1.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h1.Close(); h2.Close(); hs.Close() }) // after the session's Close

	cs := connectAs(t, hs.URL, "a", mcp.Version20251125)
	for i := 1; i <= 3; i++ {
		if got := callText(t, cs, "a_tool"); got != strconv.Itoa(i) {
			t.Errorf("call %d was answered %s: not one server for the session", i, got)
		}
	}
	if made := f.made.Load(); made != 1 {
		t.Errorf("one session on one Handler made %d servers, want 1", made)
	}
	onH2.Store(true) // the next requests reach a Handler that does not hold the session
	if got := callText(t, cs, "a_tool"); got != "1" {
		t.Errorf("the first call on the second Handler was answered %s, want 1 (a server of its own)", got)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"a_tool"}) {
		t.Errorf("after the move the session sees %v", got)
	}
	if made := f.made.Load(); made != 2 {
		t.Errorf("made %d servers, want 2 (one per Handler)", made)
	}
	if h1.SessionCount() != 1 || h2.SessionCount() != 1 {
		t.Errorf("sessions held: %d and %d", h1.SessionCount(), h2.SessionCount())
	}
}

// TestNewHandlerForNoServer: a request serverFor has no server for gets 400.
func TestNewHandlerForNoServer(t *testing.T) {
	f := &perUser{}
	h := mcphttp.NewHandlerFor(f.server, nil)
	defer h.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	} {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if strings.Contains(body, "tools/list") {
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20260728)
			req.Header.Set("Mcp-Method", "tools/list")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "no server") {
			t.Errorf("%s: %d %s", body[:60], w.Code, w.Body)
		}
	}
	if f.made.Load() != 0 {
		t.Errorf("made %d servers", f.made.Load())
	}
}

// countingNotifier counts the subscriptions in force.
type countingNotifier struct {
	shared.Notifier
	mu     sync.Mutex
	active int
}

func (n *countingNotifier) Subscribe(fn func(*shared.Notice)) func() {
	n.mu.Lock()
	n.active++
	n.mu.Unlock()
	unsub := n.Notifier.Subscribe(fn)
	var once sync.Once
	return func() {
		once.Do(func() {
			unsub()
			n.mu.Lock()
			n.active--
			n.mu.Unlock()
		})
	}
}

func (n *countingNotifier) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.active
}

// TestNewHandlerForReleasesServers: servers made per request that share a
// deployment's Notifier are subscribed to it only while they serve, so
// they do not pile up on it.
func TestNewHandlerForReleasesServers(t *testing.T) {
	n := &countingNotifier{Notifier: shared.NewMemoryNotifier()}
	f := &perUser{notifier: n}
	h := mcphttp.NewHandlerFor(f.server, &mcphttp.HandlerOptions{Notifier: n})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() }) // after the sessions' Close
	stateless := connectAs(t, hs.URL, "a", mcp.Version20260728)
	for range 5 {
		callText(t, stateless, "a_tool")
	}
	cs := connectAs(t, hs.URL, "b", mcp.Version20251125)
	callText(t, cs, "b_tool")
	if got := n.count(); got != 2 {
		t.Errorf("%d subscriptions while one session is open, want 2 (the Handler's and the session's server's)", got)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for n.count() != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := n.count(); got != 1 {
		t.Errorf("%d subscriptions after %d servers served and ended, want 1 (the Handler's)", got, f.made.Load())
	}
}

// TestNewHandlerForInputRounds: a 2026-07-28 tool that asks the client for
// input runs again on a new server for the retry, which accepts the
// requestState the first one signed when they share RequestStateKey.
func TestNewHandlerForInputRounds(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	var made atomic.Int64
	h := mcphttp.NewHandlerFor(func(*http.Request) *mcp.Server {
		made.Add(1)
		s := mcp.NewServer(nil, &mcp.ServerOptions{RequestStateKey: key})
		_ = s.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: &mcp.ElicitSchema{}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(res.Action))}}, nil
		})
		return s
	}, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		ProtocolVersion: mcp.Version20260728,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept}, nil
		},
	})
	cs, err := c.Connect(context.Background(), mcphttp.NewClientStream(hs.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	before := made.Load()
	if got := callText(t, cs, "ask"); got != "accept" {
		t.Errorf("answer %q", got)
	}
	if n := made.Load() - before; n != 2 {
		t.Errorf("the call and its retry made %d servers, want 2", n)
	}
}
