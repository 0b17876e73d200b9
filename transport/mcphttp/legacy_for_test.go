package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gomcp/sdk/mcp"
)

// TestSSEHandlerFor serves two servers at two paths of one SSEHandler, as
// go-sdk's NewSSEHandler(getServer) examples do, and refuses a path with
// no server.
func TestSSEHandlerFor(t *testing.T) {
	servers := map[string]*mcp.Server{
		"/one": mcp.NewServer(&mcp.Implementation{Name: "one", Version: "1"}, nil),
		"/two": mcp.NewServer(&mcp.Implementation{Name: "two", Version: "2"}, nil),
	}
	h := NewSSEHandlerFor(func(r *http.Request) *mcp.Server { return servers[r.URL.Path] }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	for _, path := range []string{"/one", "/two"} {
		c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20241105})
		cs, err := c.Connect(ctx(t), NewSSEClientStream(ts.URL+path, &ClientOptions{HTTPClient: ts.Client()}))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := cs.InitializeResult().ServerInfo.Name; "/"+got != path {
			t.Errorf("%s: served by %q", path, got)
		}
		// A later request of the session reaches the same server.
		if err := cs.Ping(ctx(t)); err != nil {
			t.Errorf("%s: ping: %v", path, err)
		}
		cs.Close()
	}
	req, _ := http.NewRequestWithContext(ctx(t), "GET", ts.URL+"/three", nil)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET with no server: %d, want 400", resp.StatusCode)
	}
}

func TestSSEHandlerForNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSSEHandlerFor(nil) did not panic")
		}
	}()
	NewSSEHandlerFor(nil, nil)
}
