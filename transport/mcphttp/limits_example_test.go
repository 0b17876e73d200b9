package mcphttp_test

import (
	"net/http"
	"time"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// An HTTP+SSE endpoint for old clients next to the Streamable HTTP one,
// both bounding what one client may hold: sessions per client address,
// request bodies being received, and messages waiting for a slow reader.
func ExampleNewSSEHandler_limits() {
	s := mcp.NewServer(&mcp.Implementation{Name: "both", Version: "1.0.0"}, nil)
	modern := mcphttp.NewHandler(s, &mcphttp.HandlerOptions{
		MaxSessionsPerClient:          20,
		MaxStatelessRequestsPerClient: 16,
	})
	legacy := mcphttp.NewSSEHandler(s, &mcphttp.SSEHandlerOptions{
		MaxSessionsPerClient: 5,
		MaxBodyBytesInFlight: 64 << 20,
		MaxQueuedEvents:      128,
		WriteTimeout:         10 * time.Second,
	})
	defer modern.Close()
	defer legacy.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", modern)
	mux.Handle("/sse", legacy)
	_ = &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}
