package mcp

import (
	"context"
	"fmt"
	"reflect"

	"github.com/gomcp/sdk/internal/bridge"
)

// Requests built outside a session: by hand in a test
// (&CallToolRequest{Params: ...}, or the zero value), or by mcptest.NewRequest.
// Every method of ServerRequest works on them, as for a request from a
// client that declared nothing and can be sent nothing (noClient), or from
// the client mcptest describes (testClient).

// lc returns the request's lifecycle, noClient for one built by hand.
func (r *ServerRequest[P]) lc() lifecycle {
	if r.life == nil {
		return noClient{}
	}
	return r.life
}

// noClient is the lifecycle of a request built by hand: no session, no
// revision, no client information; messages about it go nowhere, and
// questions to the client fail with ErrCapability.
type noClient struct{}

func (noClient) version() string                 { return "" }
func (noClient) clientInfo() *Implementation     { return nil }
func (noClient) clientCaps() *ClientCapabilities { return &ClientCapabilities{} }
func (noClient) logLevel() LoggingLevel          { return levelUnset }
func (noClient) session() *ServerSession         { return nil }
func (noClient) principal() string               { return "" }

func (noClient) logs(context.Context, LoggingLevel) bool   { return false }
func (noClient) notify(context.Context, string, any) error { return nil }
func (noClient) input(_ context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	return nil, errNoClient(reqs)
}

// errNoClient is what a question asked outside a session fails with.
func errNoClient(reqs map[string]*InputRequest) error {
	method := "input"
	for _, q := range reqs {
		if m := q.Method(); m != "" {
			method = m
			break
		}
	}
	return fmt.Errorf("%w: %s (the request was built outside a session: there is no client to ask; give mcptest.RequestOptions.Input, or a context from WithInputFunc)", ErrCapability, method)
}

// testClient is the lifecycle of a request mcptest built, from
// mcptest.RequestOptions.
type testClient struct {
	ver  string
	info *Implementation
	caps *ClientCapabilities
	in   InputFunc
	send func(ctx context.Context, method string, params any) error
}

func (t *testClient) version() string             { return t.ver }
func (t *testClient) clientInfo() *Implementation { return t.info }
func (t *testClient) logLevel() LoggingLevel      { return levelUnset }
func (t *testClient) session() *ServerSession     { return nil }
func (t *testClient) principal() string           { return "" }

func (t *testClient) clientCaps() *ClientCapabilities {
	if t.caps == nil {
		return &ClientCapabilities{}
	}
	return t.caps
}

// logs: every level goes to the test's Notify, as to a session that set
// no level.
func (t *testClient) logs(context.Context, LoggingLevel) bool { return t.send != nil }

func (t *testClient) notify(ctx context.Context, method string, params any) error {
	if t.send == nil {
		return nil
	}
	return t.send(ctx, method, params)
}

func (t *testClient) input(ctx context.Context, reqs map[string]*InputRequest) (map[string]*InputResponse, error) {
	if t.in == nil {
		return nil, errNoClient(reqs)
	}
	return t.in(ctx, reqs)
}

// setTestClient makes r a request from the client c describes
// (bridge.SetTestClient, for mcptest.NewRequest).
func (r *ServerRequest[P]) setTestClient(c *bridge.TestClient) {
	t := &testClient{ver: c.ProtocolVersion, send: c.Notify}
	t.info, _ = c.ClientInfo.(*Implementation)
	t.caps, _ = c.ClientCapabilities.(*ClientCapabilities)
	t.in, _ = c.Input.(InputFunc)
	if f, ok := c.Input.(func(context.Context, map[string]*InputRequest) (map[string]*InputResponse, error)); ok && t.in == nil {
		t.in = f
	}
	r.life = t
	r.meta, _ = c.Meta.(*Meta)
	if r.meta == nil {
		r.meta = paramsMeta(r.Params)
	}
}

func setTestClient(req any, c *bridge.TestClient) bool {
	r, ok := req.(interface{ setTestClient(*bridge.TestClient) })
	if ok {
		r.setTestClient(c)
	}
	return ok
}

// paramsMeta returns the _meta of params of this package's types, or nil.
func paramsMeta(p any) *Meta {
	mp, ok := p.(metaParams)
	if !ok {
		return nil
	}
	if v := reflect.ValueOf(mp); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return mp.getMeta()
}
