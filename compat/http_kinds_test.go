package compat

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gomcp/sdk/internal/cputime"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Streamable HTTP connection kinds: each SDK's own client and server, over
// loopback TCP through net/http (httptest.Server), with the response to a
// request sent as one application/json body or as a text/event-stream.
//
// In revision 2026-07-28 each SDK runs the way it serves that revision:
// gomcp on its default endpoint (every revision, no option), go-sdk in its
// Stateless mode (the only one in which it speaks 2026-07-28), mcp-go on its
// default endpoint.
const (
	kindHTTPJSON = "http-json"
	kindHTTPSSE  = "http-sse"
)

// isHTTPKind reports whether kind runs over Streamable HTTP.
func isHTTPKind(kind string) bool { return kind == kindHTTPJSON || kind == kindHTTPSSE }

// serveHTTP starts h on a loopback listener for a connection of kind and
// returns a client for it. The function it returns closes the listener and
// every connection to it, and fails tb unless the server answered in the
// form kind names: at least one request with an event stream for the SSE
// kind, none for the JSON kind.
func serveHTTP(tb testing.TB, kind string, h http.Handler) (*httptest.Server, *http.Client, func()) {
	ts := httptest.NewServer(h)
	ct := &countingTransport{next: ts.Client().Transport}
	return ts, &http.Client{Transport: ct}, func() {
		ts.CloseClientConnections()
		ts.Close()
		switch sse := ct.sse.Load(); {
		case kind == kindHTTPSSE && sse == 0:
			tb.Errorf("%s: the server never answered with text/event-stream", kind)
		case kind == kindHTTPJSON && sse > 0:
			tb.Errorf("%s: the server answered %d requests with text/event-stream", kind, sse)
		}
	}
}

// countingTransport counts the POST responses that are event streams.
type countingTransport struct {
	next http.RoundTripper
	sse  atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.sse.Add(1)
	}
	return resp, err
}

// gomcpHTTPHandler is gomcp's Streamable HTTP endpoint for kind.
func gomcpHTTPHandler(kind string) *mcphttp.Handler {
	return mcphttp.NewHandler(newGomcpBenchServer(), &mcphttp.HandlerOptions{JSONResponse: kind == kindHTTPJSON, EagerSSE: kind == kindHTTPSSE})
}

// goSDKHTTPHandler is go-sdk's Streamable HTTP endpoint for kind, in its
// Stateless mode when stateless is set.
func goSDKHTTPHandler(kind string, stateless bool) http.Handler {
	s := newGoSDKBenchServer()
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
		&gosdk.StreamableHTTPOptions{JSONResponse: kind == kindHTTPJSON, Stateless: stateless})
}

// mcpGoServerOptions are the options of mcp-go's benchmark server for kind.
// mcp-go answers a request with JSON unless its session has been switched to
// SSE, which its documentation does with UpgradeToSSEWhenReceiveNotification;
// for the SSE kind a hook does that before every tools/call is handled.
func mcpGoServerOptions(kind string) []mcpgoserver.ServerOption {
	if kind != kindHTTPSSE {
		return nil
	}
	hooks := &mcpgoserver.Hooks{}
	hooks.AddBeforeAny(func(ctx context.Context, _ any, method mcpgo.MCPMethod, _ any) {
		if method != mcpgo.MethodToolsCall {
			return
		}
		if s, ok := mcpgoserver.ClientSessionFromContext(ctx).(interface{ UpgradeToSSEWhenReceiveNotification() }); ok {
			s.UpgradeToSSEWhenReceiveNotification()
		}
	})
	return []mcpgoserver.ServerOption{mcpgoserver.WithHooks(hooks)}
}

// mcpGoHTTPClient is an mcp-go client of the endpoint at url.
func mcpGoHTTPClient(tb testing.TB, url string, hc *http.Client) *mcpgoclient.Client {
	tb.Helper()
	c, err := mcpgoclient.NewStreamableHttpClient(url, mcpgotransport.WithHTTPBasicClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkHTTPFloor is what net/http alone costs for the exchange of an
// HTTP tools/call round trip in JSON form: the same request and response
// bytes, POSTed through the same client to a handler that reads the body
// and writes a fixed answer. No SDK can go below it while it uses net/http
// on both sides; the SDK's own cost is what its round trip adds.
func BenchmarkHTTPFloor(b *testing.B) {
	reqBody := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	respBody := []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}`)
	ts, hc, stop := serveHTTP(b, kindHTTPJSON, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header()["Content-Type"] = []string{"application/json"}
		_, _ = w.Write(respBody)
	}))
	defer stop()
	b.ReportAllocs()
	report := cputime.Meter(b)
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(reqBody))
		if err != nil {
			b.Fatal(err)
		}
		req.Header["Content-Type"] = []string{"application/json"}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n != int64(len(respBody)) {
			b.Fatalf("read %d bytes, want %d", n, len(respBody))
		}
	}
	report()
}
