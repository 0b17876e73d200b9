package mcphttp

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gomcp/sdk/mcp"
)

// A server whose refused registration went unnoticed refuses to serve over
// Streamable HTTP too, in both lifecycles, naming the feature.
func TestHTTPRefusesServerWithDroppedRegistration(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	_ = s.AddTool(&mcp.Tool{Name: "get weather"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	h := NewHandler(s, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	for _, version := range []string{mcp.LatestStatefulVersion, mcp.LatestVersion} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
		cs, err := c.Connect(ctx, NewClientStream(srv.URL, nil))
		if err == nil {
			_, err = cs.ListTools(ctx, nil)
			cs.Close()
		}
		cancel()
		if err == nil || !strings.Contains(err.Error(), `refuses to serve`) || !strings.Contains(err.Error(), `tool "get weather"`) {
			t.Errorf("%s: %v, want the refusal", version, err)
		}
	}
}
