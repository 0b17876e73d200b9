package redisstore

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
	"github.com/redis/go-redis/v9"
)

// TestTakeoverUpdateOfNewHolder: a session's GET stream moves from
// process A to process B (the client resumes it on B with Last-Event-ID,
// as at a rolling restart) while B publishes an update of the session's
// resource that it delivered before it took the stream (so B did not
// store it) and whose append to Redis is slow. A still holds the stream
// until it hears B's takeover, so it stores the update if it hears it
// first; when the takeover overtook the update, neither process stored it
// and the client never got it: the one update the soak lost in some
// fifteen to thirty rolling restarts.
func TestTakeoverUpdateOfNewHolder(t *testing.T) {
	shared, prefix := testRedis(t)
	ctx := testCtx(t)
	opts := &Options{Prefix: prefix}
	gate := &slowUpdates{entered: make(chan struct{})}
	var urls [2]string
	var servers [2]*mcp.Server
	for i := range 2 {
		rdb := anotherClient(t, shared)
		if i == 1 {
			rdb.AddHook(gate)
		}
		n := NewNotifier(rdb, opts, nil)
		t.Cleanup(func() { n.Close() })
		s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{Notifier: n})
		s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		h := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{SessionStore: NewSessionStore(rdb, opts), EventStore: NewEventStore(rdb, opts)})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		t.Cleanup(func() { h.Close() })
		urls[i], servers[i] = ts.URL, s
	}
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125})
	stream := mcphttp.NewClientStream(urls[0], &mcphttp.ClientOptions{DisableStandaloneStream: true})
	cs, err := c.Connect(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://r"}); err != nil {
		t.Fatal(err)
	}
	sid := stream.SessionID()
	// A holds the GET stream; B gets its copy of the session (and its
	// subscription) from Redis with a ping.
	onA := openGet(t, ctx, urls[0], sid, "")
	defer onA.Close()
	last := onA.next(t, "id: ")
	ping, err := http.NewRequestWithContext(ctx, http.MethodPost, urls[1], strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	setHeaders(ping.Header, sid)
	ping.Header.Set("Content-Type", "application/json")
	ping.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(ping)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("ping on B: %v %v", err, resp)
	}
	resp.Body.Close()

	// B publishes the update: its own copy does not hold the stream yet,
	// and the append is slow. Once B delivered it, the client takes the
	// stream to B.
	go servers[1].ResourceUpdated(ctx, "test://r")
	select {
	case <-gate.entered:
	case <-ctx.Done():
		t.Fatal("the update was never appended")
	}
	onB := openGet(t, ctx, urls[1], sid, last)
	defer onB.Close()
	if !onB.find(strings.Contains, "notifications/resources/updated", 3*time.Second) {
		t.Fatal("the update B published while the stream moved to it never reached the client")
	}
}

// slowUpdates is a go-redis hook that holds the first command carrying a
// resource update for half a second, telling entered when it starts.
type slowUpdates struct {
	once    sync.Once
	entered chan struct{}
}

func (g *slowUpdates) hold(cmds ...redis.Cmder) {
	for _, c := range cmds {
		for _, a := range c.Args() {
			if b, ok := a.([]byte); ok && strings.Contains(string(b), mcp.NotificationResourceUpdated) {
				g.once.Do(func() {
					close(g.entered)
					time.Sleep(500 * time.Millisecond)
				})
				return
			}
		}
	}
}

func (g *slowUpdates) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *slowUpdates) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		g.hold(cmd)
		return next(ctx, cmd)
	}
}

func (g *slowUpdates) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		g.hold(cmds...)
		return next(ctx, cmds)
	}
}

var _ redis.Hook = (*slowUpdates)(nil)

// sseReader reads the lines of a GET stream.
type sseReader struct {
	resp  *http.Response
	lines chan string
}

func setHeaders(h http.Header, sid string) {
	h.Set("Mcp-Session-Id", sid)
	h.Set("MCP-Protocol-Version", mcp.Version20251125)
}

// openGet opens the standalone GET stream of session sid at url, resuming
// after the event id last unless it is "".
func openGet(t *testing.T, ctx context.Context, url, sid, last string) *sseReader {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	setHeaders(req.Header, sid)
	req.Header.Set("Accept", "text/event-stream")
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", url, err, resp)
	}
	r := &sseReader{resp: resp, lines: make(chan string, 64)}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	return r
}

// next returns the rest of the first line starting with prefix.
func (r *sseReader) next(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				t.Fatalf("the stream ended before a line %q", prefix)
			}
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest
			}
		case <-timeout:
			t.Fatalf("no line %q", prefix)
		}
	}
}

// find reports whether a line matching s arrives within d.
func (r *sseReader) find(match func(string, string) bool, s string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				return false
			}
			if match(l, s) {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

func (r *sseReader) Close() { r.resp.Body.Close() }
