package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gomcp/sdk/jsonrpc"
	gomcp "github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// The benchmark tool, identical for every SDK: a typed tool with a small
// struct input and a small struct output, registered the way each SDK's
// documentation recommends (typed handler, schemas inferred from the Go
// types, structured output plus its JSON as a text block).
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// benchArgs is the payload of every call: the same bytes for every SDK.
var benchArgs = json.RawMessage(`{"a":1,"b":2}`)

// Protocol revisions the round trips run in. Every SDK is pinned to the
// same one, so that all exchange the same messages: statefulVersion (an
// initialize handshake once, then bare requests) and statelessVersion
// (2026-07-28: no handshake, every request carries the client's version,
// capabilities and identity in _meta), which all three SDKs negotiate by
// default with a peer of their own kind.
const (
	statefulVersion  = "2025-11-25"
	statelessVersion = "2026-07-28"
)

// Connection kinds.
const (
	kindInMemory = "inmemory"     // each SDK's own in-process transport
	kindOSPipe   = "stdio-pipes"  // newline-delimited JSON over two os.Pipe pairs, as real stdio
	kindIOPipe   = "stdio-iopipe" // the same framing over io.Pipe: no system calls
)

var kinds = []string{kindInMemory, kindOSPipe, kindIOPipe, kindHTTPJSON, kindHTTPSSE}

// kindsFor returns the connection kinds compared in a protocol revision. At
// 2026-07-28 gomcp answers a request with JSON whenever the client accepts
// both forms and the handler sends nothing before its result (the spec lets
// the server choose, and JSON lets an error carry its HTTP status), so no SSE
// round trip of gomcp exists to compare there.
func kindsFor(version string) []string {
	if version == statelessVersion {
		return slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == kindHTTPSSE })
	}
	return kinds
}

// caller makes one tools/call of "add" with benchArgs and returns the sum
// the way a user of the SDK would read it from the result.
type caller func(ctx context.Context) (int, error)

// sdk opens a connected client and server of one SDK over one kind of
// connection. The returned function closes both and waits for them.
type sdk struct {
	name string
	open func(tb testing.TB, kind, version string) (caller, func())
}

var sdks = []sdk{
	{"gomcp", openGomcp},
	{"gosdk", openGoSDK},
	{"mcpgo", openMCPGo},
}

// pipes is two unidirectional byte pipes: client to server and back.
type pipes struct {
	c2sR, s2cR io.ReadCloser
	c2sW, s2cW io.WriteCloser
}

func newPipes(tb testing.TB, kind string) pipes {
	tb.Helper()
	switch kind {
	case kindIOPipe:
		c2sR, c2sW := io.Pipe()
		s2cR, s2cW := io.Pipe()
		return pipes{c2sR: c2sR, c2sW: c2sW, s2cR: s2cR, s2cW: s2cW}
	case kindOSPipe:
		c2sR, c2sW, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		s2cR, s2cW, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		return pipes{c2sR: c2sR, c2sW: c2sW, s2cR: s2cR, s2cW: s2cW}
	}
	tb.Fatalf("unknown connection kind %q", kind)
	return pipes{}
}

// closeAll closes every closer it holds.
type closeAll []io.Closer

func (cs closeAll) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// --- gomcp (this repository) ---

func newGomcpBenchServer() *gomcp.Server {
	s := gomcp.NewServer(&gomcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	gomcp.AddTool(s, &gomcp.Tool{Name: "add", Description: "add two integers"},
		func(_ context.Context, _ *gomcp.CallToolRequest, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	return s
}

// gomcpStreams returns the server and client streams of one connection.
func gomcpStreams(tb testing.TB, kind string) (server, client jsonrpc.Stream) {
	if kind == kindInMemory {
		return transport.Pipe()
	}
	p := newPipes(tb, kind)
	server = transport.NewLineStream(p.c2sR, p.s2cW, closeAll{p.c2sR, p.s2cW}, nil)
	client = transport.NewLineStream(p.s2cR, p.c2sW, closeAll{p.s2cR, p.c2sW}, nil)
	return server, client
}

func openGomcp(tb testing.TB, kind, version string) (caller, func()) {
	tb.Helper()
	ctx := context.Background()
	var cst jsonrpc.Stream
	var stopServer func()
	if isHTTPKind(kind) {
		h := gomcpHTTPHandler(kind)
		ts, hc, stop := serveHTTP(tb, kind, h)
		cst = mcphttp.NewClientStream(ts.URL, &mcphttp.ClientOptions{HTTPClient: hc})
		stopServer = func() { h.Close(); stop() }
	} else {
		sst, c := gomcpStreams(tb, kind)
		ss := newGomcpBenchServer().Connect(sst, nil)
		cst, stopServer = c, func() { ss.Wait() }
	}
	cs, err := gomcp.NewClient(&gomcp.Implementation{Name: "bench", Version: "1.0.0"},
		&gomcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, cst)
	if err != nil {
		tb.Fatal(err)
	}
	if got := cs.ProtocolVersion(); got != version {
		tb.Fatalf("gomcp negotiated %s, want %s", got, version)
	}
	call := func(ctx context.Context) (int, error) {
		res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "add", Arguments: benchArgs})
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("tool error: %v", res.Content)
		}
		var out addOut
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return 0, err
		}
		return out.Sum, nil
	}
	return call, func() {
		cs.Close()
		stopServer()
	}
}

// --- github.com/modelcontextprotocol/go-sdk ---

func newGoSDKBenchServer() *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "add", Description: "add two integers"},
		func(_ context.Context, _ *gosdk.CallToolRequest, in addIn) (*gosdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	return s
}

// goSDKTransports returns the server and client transports of one
// connection.
func goSDKTransports(tb testing.TB, kind string) (server, client gosdk.Transport) {
	if kind == kindInMemory {
		return gosdk.NewInMemoryTransports()
	}
	p := newPipes(tb, kind)
	return &gosdk.IOTransport{Reader: p.c2sR, Writer: p.s2cW}, &gosdk.IOTransport{Reader: p.s2cR, Writer: p.c2sW}
}

func openGoSDK(tb testing.TB, kind, version string) (caller, func()) {
	tb.Helper()
	ctx := context.Background()
	var ct gosdk.Transport
	var stopServer func()
	if isHTTPKind(kind) {
		ts, hc, stop := serveHTTP(tb, kind, goSDKHTTPHandler(kind, version == statelessVersion))
		ct = &gosdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}
		stopServer = stop
	} else {
		st, c := goSDKTransports(tb, kind)
		ss, err := newGoSDKBenchServer().Connect(ctx, st, nil)
		if err != nil {
			tb.Fatal(err)
		}
		ct, stopServer = c, func() { ss.Wait() }
	}
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil).
		Connect(ctx, ct, &gosdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		tb.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		tb.Fatalf("go-sdk negotiated %s, want %s", got, version)
	}
	call := func(ctx context.Context) (int, error) {
		res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: benchArgs})
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("tool error: %v", res.Content)
		}
		m, ok := res.StructuredContent.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("structured content is %T", res.StructuredContent)
		}
		sum, _ := m["sum"].(float64)
		return int(sum), nil
	}
	return call, func() {
		cs.Close()
		stopServer()
	}
}

// --- github.com/mark3labs/mcp-go ---

func newMCPGoBenchServer(opts ...mcpgoserver.ServerOption) *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("bench", "1.0.0", append([]mcpgoserver.ServerOption{mcpgoserver.WithToolCapabilities(false)}, opts...)...)
	s.AddTool(mcpgo.NewTool("add",
		mcpgo.WithDescription("add two integers"),
		mcpgo.WithInputSchema[addIn](),
		mcpgo.WithOutputSchema[addOut](),
	), mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	}))
	return s
}

// mcpGoClient starts an mcp-go client for s over one kind of connection and
// returns it with a function that stops what was started.
func mcpGoClient(tb testing.TB, s *mcpgoserver.MCPServer, kind string) (*mcpgoclient.Client, func()) {
	tb.Helper()
	if isHTTPKind(kind) {
		ts, hc, stop := serveHTTP(tb, kind, mcpgoserver.NewStreamableHTTPServer(s))
		c := mcpGoHTTPClient(tb, ts.URL, hc)
		return c, func() { c.Close(); stop() }
	}
	if kind == kindInMemory {
		c, err := mcpgoclient.NewInProcessClient(s)
		if err != nil {
			tb.Fatal(err)
		}
		return c, func() { c.Close() }
	}
	p := newPipes(tb, kind)
	ctx, cancel := context.WithCancel(context.Background())
	stdio := mcpgoserver.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	done := make(chan error, 1)
	go func() {
		done <- stdio.Listen(ctx, p.c2sR, p.s2cW)
	}()
	c := mcpgoclient.NewClient(mcpgotransport.NewIO(p.s2cR, p.c2sW, nil))
	return c, func() {
		c.Close() // closes c2sW: the server sees EOF
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			tb.Error("mcp-go stdio server did not stop")
		}
		// Closing s2cW ends the client's reader goroutine with io.EOF. s2cR
		// is left to it (and to the garbage collector): mcp-go cannot wait
		// for that goroutine, and closing the pipe under it makes it log an
		// error.
		p.s2cW.Close()
		p.c2sR.Close()
	}
}

func openMCPGo(tb testing.TB, kind, version string) (caller, func()) {
	tb.Helper()
	ctx := context.Background()
	c, stop := mcpGoClient(tb, newMCPGoBenchServer(mcpGoServerOptions(kind)...), kind)
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1.0.0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		tb.Fatal(err)
	}
	if res.ProtocolVersion != version {
		tb.Fatalf("mcp-go negotiated %s, want %s", res.ProtocolVersion, version)
	}
	call := func(ctx context.Context) (int, error) {
		var req mcpgo.CallToolRequest
		req.Params.Name = "add"
		req.Params.Arguments = benchArgs
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("tool error: %v", res.Content)
		}
		m, ok := res.StructuredContent.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("structured content is %T", res.StructuredContent)
		}
		sum, _ := m["sum"].(float64)
		return int(sum), nil
	}
	return call, stop
}
