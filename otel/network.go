package mcpotel

import (
	"context"
	"net"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/gomcp/sdk/mcp"
	"github.com/gomcp/sdk/transport/mcphttp"
)

// Network attribute keys of the conventions.
var (
	keyNetTransport = semconv.NetworkTransportKey
	keyNetProtocol  = semconv.NetworkProtocolNameKey
	keyServerAddr   = semconv.ServerAddressKey
	keyServerPort   = semconv.ServerPortKey
	keyClientAddr   = semconv.ClientAddressKey
	keyClientPort   = semconv.ClientPortKey
)

// network is what the conventions want known of the transport carrying a
// message: network.transport ("tcp" or "pipe"), network.protocol.name
// ("http" or none), and the peer's address: server.* on the client side,
// client.* on the server side.
type network struct {
	transport string // "" when unknown
	http      bool
	peerAddr  string
	peerPort  int
	peerIsSrv bool // the peer is the server: server.address, not client.address
}

// networkOf describes the transport of r. A message that came in an HTTP
// request (mcphttp.RequestInfo in ctx) or a client session over
// mcphttp.ClientStream is tcp and http; a message no HTTP request carried,
// on a session with no id (or none, for a 2026-07-28 request), is a pipe:
// stdio, a subprocess, transport.Pipe. The one other case, a message an
// HTTP session sends outside any request (a resource update on its GET
// stream), leaves the attributes out rather than guess.
func networkOf(ctx context.Context, r *mcp.Request) network {
	switch s := r.Session.(type) {
	case *mcp.ClientSession:
		if st, ok := s.Stream().(interface{ URL() string }); ok {
			n := network{transport: "tcp", http: true, peerIsSrv: true}
			n.peerAddr, n.peerPort = urlHostPort(st.URL())
			return n
		}
		return network{transport: "pipe"}
	}
	if info := mcphttp.RequestInfoFromContext(ctx); info != nil {
		n := network{transport: "tcp", http: true}
		if host, port, err := net.SplitHostPort(info.RemoteAddr); err == nil {
			n.peerAddr = host
			n.peerPort, _ = strconv.Atoi(port)
		}
		return n
	}
	if ss, _ := r.Session.(*mcp.ServerSession); ss == nil || ss.ID() == "" {
		return network{transport: "pipe"} // no session id: stdio, or a stateless request on a connection
	}
	return network{}
}

// urlHostPort returns the host and port of an endpoint URL, the port
// defaulting by scheme.
func urlHostPort(raw string) (string, int) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		switch u.Scheme {
		case "https":
			port = 443
		case "http":
			port = 80
		}
	}
	return u.Hostname(), port
}

// appendAttrs appends the network attributes; span adds the peer's
// address, which metrics carry only for the server (the client's address
// would make a series per client).
func (n *network) appendAttrs(a []attribute.KeyValue, span bool) []attribute.KeyValue {
	if n.transport == "" {
		return a
	}
	a = append(a, keyNetTransport.String(n.transport))
	if n.http {
		a = append(a, keyNetProtocol.String("http"))
	}
	if n.peerAddr == "" || (!span && !n.peerIsSrv) {
		return a
	}
	if n.peerIsSrv {
		a = append(a, keyServerAddr.String(n.peerAddr))
		if n.peerPort > 0 {
			a = append(a, keyServerPort.Int(n.peerPort))
		}
		return a
	}
	a = append(a, keyClientAddr.String(n.peerAddr))
	if n.peerPort > 0 {
		a = append(a, keyClientPort.Int(n.peerPort))
	}
	return a
}
